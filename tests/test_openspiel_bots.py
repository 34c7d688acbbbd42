"""OpenSpiel's bots as targi-sim strategies: `openspiel-mcts@N` and `openspiel-ismcts@N`
wherever a strategy name goes, seeded from the game, proven not to peek, and any bot
wrapped in one call (targi_sim/ai/bots.py). Budgets stay tiny: each simulation plays a
game out in Python."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip("pyspiel")

from typer.testing import CliRunner  # noqa: E402

from targi_sim import check_no_peeking, play_game, resolve_strategy  # noqa: E402
from targi_sim.cli.app import app  # noqa: E402
from targi_sim.errors import InputError  # noqa: E402
from targi_sim.strength.ladder import plan_ladder  # noqa: E402


@pytest.mark.parametrize("spec,budget", [("openspiel-mcts@3", 3), ("openspiel-ismcts", 100),
                                         ("openspiel-ismcts@2", 2)])
def test_the_bots_are_strategy_names_with_a_budget(spec, budget):
    s = resolve_strategy(spec)
    assert s.name == spec if "@" in spec else s.name == "openspiel-ismcts"
    assert s.python.strategy.budget == budget and s.kind_name == "python"
    again = pickle.loads(pickle.dumps(s.python))  # worker processes get the same budget
    assert again.strategy.budget == budget


@pytest.mark.parametrize("spec,words", [
    ("openspiel-ismcts@1", "from 2 to 100,000; got '1'"),
    ("openspiel-mcts@1", "from 2 to 100,000; got '1'"),
    ("openspiel-mcts@many", "simulations per decision"),
])
def test_a_bad_budget_is_one_clear_error(spec, words):
    with pytest.raises(InputError, match=words):
        resolve_strategy(spec)


def test_a_bot_plays_the_same_game_on_the_same_seed_and_plays_on_the_real_deal():
    a = play_game(3, ("openspiel-ismcts@2", "random"))
    b = play_game(3, ("openspiel-ismcts@2", "random"))
    assert a.tables["trace"].equals(b.tables["trace"]) and a.scores == b.scores
    other = play_game(4, ("openspiel-ismcts@2", "random"))
    assert not other.tables["trace"].equals(a.tables["trace"])


def test_the_no_peeking_audit_passes_both_bots():
    for spec in ("openspiel-ismcts@2", "openspiel-mcts@2"):
        report = check_no_peeking(spec, games=1, redeals=1, seed=2)
        assert report.passed and report.decisions > 50, spec


def test_any_bot_becomes_a_strategy_in_one_call():
    from open_spiel.python.algorithms import mcts

    import targi_sim.openspiel as tos

    def make(game, rng):
        return mcts.MCTSBot(game, 1.0, 2, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)

    mine = tos.bot_strategy(make, name="my-mcts")
    record = play_game(5, (mine, "balanced"))
    assert record.strategies[0] == "my-mcts" and record.winner in (-1, 0, 1)
    assert check_no_peeking(mine, games=1, redeals=1).passed


def test_run_tournament_and_ladder_accept_the_bots(tmp_path):
    runner = CliRunner()
    out = runner.invoke(app, ["run", "--games", "2", "--p0", "openspiel-mcts@2", "--p1",
                              "random", "--out", str(tmp_path / "run"), "--jobs", "1"])
    assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["tournament", "-s", "random,openspiel-ismcts@2", "-n", "2",
                              "--jobs", "1", "--out", str(tmp_path / "t")])
    assert out.exit_code == 0, out.output
    assert "openspiel-ismcts@2" in out.output
    runs = plan_ladder(["random", "balanced", "openspiel-ismcts@2"], 1000, 4)
    assert {r.key: r.games for r in runs} == {
        "mirror-0-random": 1000, "mirror-1-balanced": 1000, "mirror-2-openspiel-ismcts@2": 4,
        "cross-0-1-balanced-vs-random": 1000, "cross-1-2-openspiel-ismcts@2-vs-balanced": 4,
        "cross-0-2-openspiel-ismcts@2-vs-random": 4}  # a bot's runs are search runs
