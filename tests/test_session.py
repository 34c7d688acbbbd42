"""Step-by-step play (play.session) and Python strategies (players.python_strategy).

The session pauses the engine at an external seat's decision and replays the round
from its start with the answers so far; these tests pin that this gives exactly the
games the compiled engine plays, and that Python strategies work wherever a strategy
name does.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from targi_sim import (
    FirstOption,
    Play,
    PythonStrategy,
    StrategyError,
    new_game,
    play_game,
    play_games,
    prepare_match,
)
from targi_sim.engine import layout as lay
from targi_sim.engine.constants import DECISION_NAMES
from targi_sim.game.view import UNKNOWN

DATA = Path(__file__).resolve().parent.parent / "data" / "strategies"


def _compiled_answer(policy, match, SP, game) -> int:
    """What a compiled strategy answers at the session's pending decision."""
    d = game.decision
    S = np.zeros(lay.S_SIZE, dtype=np.int64)
    S[:lay.S_CORE] = game.frozen
    O = np.zeros(256, dtype=np.int64)
    O[:len(d.options)] = [o.value for o in d.options]
    return int(policy(S, match.D, match.R, SP, d.player, DECISION_NAMES.index(d.type), O,
                      len(d.options), d.context))


@pytest.mark.parametrize("pair,external,seed", [
    (("balanced", "balanced"), (0, 1), 3),    # both seats answered from Python
    (("greedy", "random"), (0,), 4),          # the random seat plays inside the engine
    (("blocker", "row-builder"), (1,), 5),
    (("balanced", "montecarlo"), (0,), 6),    # rollouts inside the replayed rounds
])
def test_a_session_answered_like_the_compiled_strategies_is_the_same_game(pair, external,
                                                                          seed, tmp_path):
    """External seats answered by the compiled policy on the frozen state (deterministic
    strategies: an external answer does not advance the engine's random streams), the
    other seat compiled: the record (trace, every log table, scores) equals play_game's."""
    if "montecarlo" in pair:
        cheap = tmp_path / "mc.toml"
        cheap.write_text('kind = "montecarlo"\nname = "montecarlo"\nrollouts = 2\n')
        pair = (pair[0], str(cheap))
    real = prepare_match(pair)
    seats = {f"p{p}": pair[p] for p in range(2) if p not in external}
    game = new_game(seed, **seats)
    SP = real.SP.copy()
    while not game.is_over:
        policy = real.P[game.decision.player]
        game.apply(_compiled_answer(policy, real, SP, game))
    mine = game.record()
    ref = play_game(seed, pair)
    assert mine.scores == ref.scores and mine.winner == ref.winner
    for name, table in ref.tables.items():
        assert mine.tables[name].equals(table), name


def test_step_api_basics():
    g = new_game(1, p1="balanced")
    d = g.decision
    assert d.type == "place" and d.player == 0 and g.current_player == 0
    assert [o.card for o in d.options] == [o.position + 1 for o in d.options]
    v = g.view()
    assert v.me.resources == {"salt": 2, "pepper": 2, "dates": 2, "gold": 1, "vp": 4}
    assert v.round == 1 and v.robber == 0 and v.tribe_deck_size == 41
    clone = g.clone()
    g.apply(0)
    assert clone.decision == d  # the clone did not move
    clone.apply(len(d.options) - 1)
    assert clone.view().me.targis != g.view().me.targis
    with pytest.raises(ValueError, match="option index"):
        g.apply(99)
    while not g.is_over:
        g.apply(0)
    assert g.decision is None and g.winner in (-1, 0, 1)
    assert g.record().scores == g.scores


def test_a_view_hides_an_unseen_hand_and_shows_a_seen_one():
    g = new_game(2)
    S = np.asarray(g.frozen).copy()
    S[lay.S_PLAYER + lay.P_SIZE + lay.P_HAND] = 5
    from targi_sim.game.view import View

    hidden = View(S, g.match.deck, 0)
    assert hidden.opponent.hand == UNKNOWN and hidden.opponent.has_hand_card
    S[lay.S_PLAYER + lay.P_SIZE + lay.P_HAND_KNOWN] = 1
    seen = View(S, g.match.deck, 0)
    assert seen.opponent.hand.id == 5
    assert View(S, g.match.deck, 1).me.hand.id == 5


class PlaysOasis(PythonStrategy):
    name = "plays-oasis"
    deterministic = True

    def choose(self, view, decision):
        for i, o in enumerate(decision.options):
            if isinstance(o, Play) and o.name.startswith("Oasis"):
                return i
        return len(decision.options) - 1


def test_a_python_strategy_plays_a_batch_deterministically():
    a = play_games(30, seed=4, strategies=(PlaysOasis(), "balanced"))
    b = play_games(30, seed=4, strategies=(PlaysOasis(), "balanced"))
    assert a.games.equals(b.games)
    acq = a.tables["acquisitions"]
    played = acq.filter((acq["player"] == 0) & (acq["outcome"] == "played"))
    assert played.height > 0
    rec = play_game(7, (PlaysOasis(), "random"))
    assert rec.trace.height > 50


class Randomised(PythonStrategy):
    name = "randomised"

    def choose(self, view, decision):
        return int(self.random.integers(len(decision.options)))


def test_python_randomness_is_seeded_per_game_and_seat():
    a = play_games(10, seed=2, strategies=(Randomised(), Randomised()), logs=False)
    b = play_games(10, seed=2, strategies=(Randomised(), Randomised()), logs=False)
    c = play_games(10, seed=3, strategies=(Randomised(), Randomised()), logs=False)
    assert a.games.equals(b.games) and not a.games.equals(c.games)


class Broken(PythonStrategy):
    name = "broken"

    def __init__(self, answer):
        self.answer = answer

    def choose(self, view, decision):
        if self.answer == "raise":
            raise KeyError("oops")
        return self.answer


@pytest.mark.parametrize("answer,message", [(99, "answered 99"), (-1, "answered -1"),
                                            ("raise", "raised KeyError")])
def test_a_faulty_python_strategy_stops_with_one_line(answer, message):
    with pytest.raises(StrategyError, match=message) as info:
        play_games(2, strategies=(Broken(answer), "random"), logs=False)
    assert "\n" not in str(info.value) and "'broken' (seat 0)" in str(info.value)


def test_a_python_strategy_file_runs_in_worker_processes(tmp_path):
    """The run command with a .py Python strategy, two workers: identical files to one
    worker (the strategy is reloaded from its path in each worker)."""
    strategy = DATA / "oasis-first.py"
    runs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"j{jobs}"
        cmd = [sys.executable, "-m", "targi_sim.cli.app", "run", "--games", "80", "--quiet",
               "--chunk-size", "20", "--jobs", jobs, "--p0", str(strategy), "--p1", "greedy",
               "--out", str(out)]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300,
                              env=dict(os.environ))
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(out)
    a, b = (sorted((r / "games").glob("*.parquet")) for r in runs)
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    manifest = json.loads((runs[0] / "manifest.json").read_text())
    assert manifest["strategies"][0]["kind"] == "python"


def test_first_option_is_a_python_strategy():
    rec = play_game(1, (FirstOption(), "balanced"))
    assert rec.winner in (-1, 0, 1)


def test_play_command_in_a_pseudo_terminal(tmp_path):
    """`targi-sim play` through a real pseudo-terminal: board, numbered options, the
    other seat's moves narrated, a bad answer explained, the final score."""
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "targi_sim.cli.app", "play", "--vs", "greedy",
                                           "--seed", "5"], cwd=str(tmp_path), timeout=120,
                          encoding="utf-8", env=dict(os.environ, COLUMNS="100"))
    child.expect("You are seat 0")
    child.expect(r"Round 1; robber on 1 Noble")
    child.expect("Your decision: place")
    child.expect("> ")
    child.sendline("x")
    child.expect("Type a number from 0 to")
    child.sendline("0")
    child.expect("greedy: places Targi 1")
    for _ in range(400):  # answer option 0 until the game ends
        i = child.expect(["> ", "Game over"])
        if i == 1:
            break
        child.sendline("")
    child.expect("wins|draw")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_replaying_a_python_strategy_run_needs_its_file_and_never_runs_the_manifests(
        tmp_path):
    """A run played by a .py strategy replays only with that file passed explicitly
    (checked against the recorded code); a path or code in the manifest is never run."""
    from typer.testing import CliRunner

    from targi_sim.cli.app import app

    runner = CliRunner()
    out = tmp_path / "run"
    strategy = DATA / "oasis-first.py"
    done = runner.invoke(app, ["run", "--games", "20", "--quiet", "--p0", str(strategy),
                               "--p1", "greedy", "--out", str(out)])
    assert done.exit_code == 0, done.output
    bare = runner.invoke(app, ["replay", str(out), "--game", "3"])
    assert bare.exit_code == 2 and "--strategy-file" in bare.output
    ok = runner.invoke(app, ["replay", str(out), "--game", "3", "--strategy-file", str(strategy)])
    assert ok.exit_code == 0, ok.output
    assert "Replay matches the run's logged rows" in ok.output
    # a hostile manifest pointing at some other .py file: it is not loaded
    evil = tmp_path / "evil.py"
    flag = tmp_path / "ran"
    evil.write_text(f"open({str(flag)!r}, 'w').write('x')\n")
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["strategies"][0]["path"] = str(evil)
    (out / "manifest.json").write_text(json.dumps(manifest))
    runner.invoke(app, ["replay", str(out), "--game", "3"])
    assert not flag.exists()
