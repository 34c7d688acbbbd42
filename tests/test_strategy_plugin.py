"""A compiled strategy plugin from a Python file is built into the engine and plays."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from targi_sim.strategy import PluginNotLoaded, load_strategy

EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "strategies" / "card-rush.py"

SCRIPT = r"""
import json, sys
from targi_sim import play_games, play_game
from targi_sim.strategy import load_strategy
s = load_strategy(sys.argv[1])
batch = play_games(200, seed=4, strategies=(s, "random"), logs=False)
g = batch.games
wins = int((g["winner"] == 0).sum()) + 0.5 * int((g["winner"] == -1).sum())
rec = play_game(5, (s, "random"))
t = rec.trace
plays = t.filter((t["decision"] == "tribe") & (t["player"] == 0))
from targi_sim.scenario import Scenario
sc = Scenario()
sc.use(0, s)
sc.players[0].set_resources(salt=0, pepper=1, dates=1, gold=1, vp=0)
outcome = sc.acquire(0, 19, "centre")  # Camp 3 VP: pepper, dates, gold - just affordable
import targi_sim.engine.plugin as plugin
flags = [s.deterministic]
plugin.plugin_module.DETERMINISTIC = True  # what a module that says so gives
flags.append(load_strategy(sys.argv[1]).deterministic)
print(json.dumps({"name": s.name, "kind": s.kind_name, "win_rate": wins / g.height,
                  "deterministic": flags,
                  "tribe_choices": plays["choice"].to_list(), "outcome": outcome,
                  "gold_left": sc.players[0].gold, "error": int(rec.final_state.error)}))
"""


def test_plugin_must_be_loaded_at_engine_start():
    if os.environ.get("TARGI_SIM_PLUGIN"):
        pytest.skip("this process was started with a plugin")
    with pytest.raises(PluginNotLoaded, match="--strategy-file"):
        load_strategy(EXAMPLE)


def test_example_plugin_plays_and_follows_its_rule(tmp_path):
    env = dict(os.environ, TARGI_SIM_PLUGIN=str(EXAMPLE))
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(EXAMPLE)], env=env,
                         capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["name"] == "card-rush" and result["kind"] == "plugin"
    # a plugin is deterministic only when its module says DETERMINISTIC = True (it
    # then plays one game per deal against itself; the example does not say so)
    assert result["deterministic"] == [False, True]
    assert result["error"] == 0  # every answer was a legal option
    assert result["win_rate"] > 0.8  # it beats random
    # its rule: an affordable tribe card is played (paying its cost), not kept or left
    assert result["outcome"] == "played" and result["gold_left"] == 0
    assert any(c >= 3 for c in result["tribe_choices"])


def test_cli_restarts_itself_with_the_plugin(tmp_path):
    """--strategy-file builds the plugin in; its NAME then works as a strategy."""
    env = {k: v for k, v in os.environ.items() if k != "TARGI_SIM_PLUGIN"}
    cmd = [sys.executable, "-m", "targi_sim.cli.app", "run", "--games", "200", "--quiet",
           "--strategy-file", str(EXAMPLE), "--p0", "card-rush", "--p1", "random"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp_path,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "seat 0 (card-rush) wins" in out.stdout
