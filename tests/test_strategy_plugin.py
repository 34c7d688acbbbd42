"""A compiled strategy plugin from a Python file: compiled on its own against the
engine, played by path or by NAME, rebuilt in worker processes."""

import json
import os
import subprocess
import sys
from pathlib import Path

from targi_sim import play_game, play_games
from targi_sim.play.scenario import Scenario
from targi_sim.players.strategy import load_strategy, register_plugin

EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "strategies" / "card-rush.py"


def test_example_plugin_plays_and_follows_its_rule():
    s = load_strategy(EXAMPLE)
    assert s.name == "card-rush" and s.kind_name == "plugin" and s.deterministic
    batch = play_games(200, seed=4, strategies=(s, "random"), logs=False)
    g = batch.games
    wins = int((g["winner"] == 0).sum()) + 0.5 * int((g["winner"] == -1).sum())
    assert wins / g.height > 0.8  # it beats random
    rec = play_game(5, (s, "random"))
    assert rec.final_state.error == 0
    plays = rec.trace.filter((rec.trace["decision"] == "tribe") & (rec.trace["player"] == 0))
    assert any(c >= 3 for c in plays["choice"].to_list())
    # its rule: an affordable tribe card is played (paying its cost), not kept or left
    sc = Scenario()
    sc.use(0, s)
    sc.players[0].set_resources(salt=0, pepper=1, dates=1, gold=1, vp=0)
    assert sc.acquire(0, 19, "centre") == "played"  # Camp 3 VP: pepper, dates, gold
    assert sc.players[0].gold == 0


def test_plugin_is_deterministic_only_when_its_module_says_so(tmp_path):
    """A mirror of a deterministic plugin plays one game per deal (targi_sim.play.pairing);
    a module without DETERMINISTIC = True is taken to draw random numbers."""
    quiet = tmp_path / "card-rush-unsure.py"
    quiet.write_text(EXAMPLE.read_text().replace("DETERMINISTIC = True", "NAME_NOTE = 1"))
    assert not load_strategy(quiet).deterministic


def test_plugin_by_name_after_registering():
    s = register_plugin(EXAMPLE)
    a = play_games(20, seed=1, strategies=("card-rush", "balanced"), logs=False)
    b = play_games(20, seed=1, strategies=(s, "balanced"), logs=False)
    assert a.games.equals(b.games)


def test_cli_runs_a_plugin_in_worker_processes(tmp_path):
    """No restart, no engine recompile: the plugin is loaded in each worker by path."""
    cmd = [sys.executable, "-m", "targi_sim.cli.app", "run", "--games", "400", "--quiet",
           "--jobs", "2", "--chunk-size", "100", "--p0", str(EXAMPLE), "--p1", "random",
           "--out", str(tmp_path / "run")]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300,
                         env=dict(os.environ))
    assert out.returncode == 0, out.stderr[-3000:]
    assert "seat 0 (card-rush) wins" in out.stdout
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["strategies"][0]["kind"] == "plugin"
