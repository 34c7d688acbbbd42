"""expert-placements: information-set MCTS over each round's placements only
(engine/ismcts.py), the expert before it searched every decision.

Its tree's bookkeeping on a real position, determinism (a decision is a function of the
state and the player's stream; a run does not depend on --jobs), that it searches (it
beats random, and a tree of one iteration plays its one expansion), its budget syntax and
file errors, and the no-peeking audit at a small budget.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cli_helpers import one_error_line
from typer.testing import CliRunner

from targi_sim import check_no_peeking, play_games
from targi_sim.cli.app import app
from targi_sim.engine import layout as lay
from targi_sim.engine.buffers import make_logs
from targi_sim.engine.constants import MC_ITERATIONS, MC_PENDING, MC_SEARCH, SEARCH_ISMCTS
from targi_sim.engine.ismcts import ROOT, T_CHILD, T_VISITS
from targi_sim.engine.montecarlo import choose_placement, search_scratch
from targi_sim.engine.rounds import legal_placements, play_to_end, reseed_policies, setup_game
from targi_sim.errors import DataError, InputError
from targi_sim.play.match import prepare_match
from targi_sim.players.strategy import load_strategy, resolve_strategy
from targi_sim.runner import RunConfig, resolve_run
from targi_sim.runner.dispatch import execute

runner = CliRunner()


def _at_first_placement(expert: str = "expert-placements@64", seed: int = 5):
    """A game of `expert` (seat 0, first) vs balanced stopped before the expert's first
    Targi, as the batch driver holds it."""
    m = prepare_match((expert, "balanced"))
    S = np.zeros(lay.S_SIZE, dtype=np.int64)
    setup_game(S, m.D, m.R, seed, 0)
    reseed_policies(S, m.SP, seed)
    S[lay.S_PAUSE_MC] = 1
    SP = m.SP.copy()
    SP[:, MC_PENDING] = np.nan
    O = np.zeros(256, dtype=np.int64)
    assert not play_to_end(S, m.D, m.R, SP, make_logs(0), m.P, O)  # paused for seat 0
    return m, S, SP


def _search(m, S, SP):
    O = np.zeros(256, dtype=np.int64)
    scratch = search_scratch(SP, lay.S_SIZE)
    choice = choose_placement(S, m.D, m.R, SP, m.PB, 0, O, *scratch)
    return int(choice), scratch[-1][0]  # seat 0's region (its root at row ROOT)


def test_the_shipped_expert_placements_is_an_ismcts_search_on_tuned():
    s = load_strategy("expert-placements")
    assert s.params[MC_SEARCH] == SEARCH_ISMCTS
    assert s.settings()["search"] == "ismcts"
    assert s.settings()["iterations"] == 500
    assert "rollouts" not in s.settings()


def test_the_tree_counts_every_iteration_once_and_plays_its_most_visited_card():
    m, S, SP = _at_first_placement("expert-placements@64")
    n = legal_placements(S, m.D, m.R, 0, np.zeros(256, dtype=np.int64))
    assert n > 2
    choice, T = _search(m, S.copy(), SP)
    assert T[ROOT, T_VISITS] == 64
    children = [int(k) for k in T[ROOT, T_CHILD:] if k >= 0]
    assert len(children) == n  # 64 iterations try every legal card first
    assert sum(T[k, T_VISITS] for k in children) == 64
    # one new node per iteration (the round's placements are far from exhausted)
    assert int((T[ROOT:, T_VISITS] > 0).sum()) == 64 + 1
    most = max(T[k, T_VISITS] for k in children)
    assert T[int(T[ROOT, T_CHILD + choice]), T_VISITS] == most


def test_a_decision_is_a_function_of_the_state_and_the_players_stream():
    m, S, SP = _at_first_placement("expert-placements@48", seed=9)
    first, second = S.copy(), S.copy()
    a, tree_a = _search(m, first, SP)
    b, tree_b = _search(m, second, SP)
    assert a == b
    assert np.array_equal(tree_a, tree_b)
    assert np.array_equal(first, second)  # the real game's streams moved alike


def test_one_iteration_plays_the_card_it_expanded():
    m, S, SP = _at_first_placement("expert-placements@1")
    choice, T = _search(m, S.copy(), SP)
    tried = [b for b in range(16) if T[ROOT, T_CHILD + b] >= 0]
    assert tried == [choice]


def test_the_expert_beats_random_at_a_small_budget():
    r = play_games(4, seed=3, strategies=("expert-placements@40", "random"), logs=False)
    assert (r.games["winner"] == 0).all()


def test_a_run_with_an_expert_does_not_depend_on_jobs(tmp_path):
    def run(out: Path, jobs: int, chunk: int):
        cfg = RunConfig(games=6, seed=4, p0="expert-placements@16", p1="tuned",
                        chunk_size=chunk)
        execute(resolve_run(cfg), out, jobs=jobs)
        return pl.read_parquet(out / "games" / "*.parquet").sort("game_id")

    one = run(tmp_path / "a", 1, 6)
    two = run(tmp_path / "b", 2, 2)
    assert one.equals(two)


def test_the_expert_does_not_peek():
    report = check_no_peeking("expert-placements@12", games=2, redeals=3, seed=11)
    assert report.decisions > 50
    assert report.passed, report.differences[:3]


@pytest.mark.parametrize("budget", ["0", "-3", "abc", "1.5", "100001", ""])
def test_a_bad_budget_is_one_error_line(budget):
    with pytest.raises(InputError, match="budget after '@'"):
        resolve_strategy(f"expert-placements@{budget}")
    one_error_line(runner.invoke(app, ["run", "--p0", f"expert-placements@{budget}",
                                      "--games", "2"]), "budget after '@'")


def test_a_budget_names_the_strategy_and_changes_its_row():
    s = resolve_strategy("expert-placements@37")
    assert s.name == "expert-placements@37"
    assert s.params[MC_ITERATIONS] == 37
    assert s.sha256 != load_strategy("expert-placements").sha256
    flat = resolve_strategy("montecarlo-tuned@3")
    assert flat.settings()["rollouts"] == 3
    with pytest.raises(InputError, match="only a search strategy"):
        resolve_strategy("balanced@4")


@pytest.mark.parametrize("body, needle", [
    ('search = "ismcts"\niterations = 0\n', "iterations"),
    ('search = "ismcts"\niterations = "many"\n', "iterations"),
    ('search = "ismcts"\nrollouts = 8\n', "rollouts"),
    ('search = "flat"\niterations = 50\n', "iterations"),
    ('search = "deep"\n', "search"),
    ('search = "ismcts"\nexploration = -1\n', "exploration"),
])
def test_a_bad_search_setting_names_its_field(tmp_path, body, needle):
    path = tmp_path / "mine.toml"
    path.write_text(f'kind = "montecarlo"\nbase = "tuned"\n{body}')
    with pytest.raises(DataError, match=f"field '{needle}'"):
        load_strategy(path)
