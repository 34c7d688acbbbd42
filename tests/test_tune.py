"""targi-sim tune: a tiny end-to-end tune, reproducibility, resume, common random numbers,
bad input, and the shipped tuned strategies."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from targi_sim.cli.app import app
from targi_sim.engine import constants as C
from targi_sim.players.strategy import load_strategy
from targi_sim.strength.tune import generation_plans, parameter_space, state_path, tune_strategy

runner = CliRunner()
# 2 generations: 4 candidates x 2 pool members x 2 deals x 2 games = 32 games each
TINY = ["--against", "balanced,greedy", "--budget", "64", "--deals", "2", "--popsize", "4",
        "--final-deals", "10", "--check-games", "100", "--seed", "3", "--quiet"]


def _tune(out, *extra: str):
    return runner.invoke(app, ["tune", "balanced", "--out", str(out), *TINY, *extra])


def test_a_tiny_tune_writes_a_loadable_strategy_with_its_header(tmp_path):
    out = tmp_path / "t.toml"
    result = _tune(out)
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.startswith("# Tuned by targi-sim tune")
    assert "targi-sim tune balanced --against balanced,greedy --budget 64 --seed 3" in text
    assert "2 generations x 4 candidates x 2 pool members x 4 games" in text
    assert "#   vs balanced" in text and "#   vs greedy" in text
    assert "# Independent SPRT against balanced" in text
    s = load_strategy(out)
    assert s.kind == C.SK_HEURISTIC and s.name == "t" and s.params[C.HW_NOISE] == 0.0
    for p in parameter_space():
        assert p.low <= s.params[p.column] <= p.high
    assert not state_path(out).exists()  # a finished tune leaves nothing to resume
    assert "SPRT against balanced" in result.output


def test_the_same_seed_writes_the_same_file(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        assert _tune(tmp_path / folder / "t.toml").exit_code == 0
    assert (tmp_path / "a" / "t.toml").read_bytes() == (tmp_path / "b" / "t.toml").read_bytes()


def test_a_resumed_tune_ends_like_an_uninterrupted_one(tmp_path):
    (tmp_path / "whole").mkdir()
    (tmp_path / "parts").mkdir()
    assert _tune(tmp_path / "whole" / "t.toml").exit_code == 0
    out = tmp_path / "parts" / "t.toml"
    stopped = _tune(out, "--stop-after", "1")
    assert stopped.exit_code == 0 and "Stopped after generation 1 of 2" in stopped.output
    assert state_path(out).is_file() and not out.exists()
    refused = _tune(out, "--seed", "4")  # a tune with other settings does not continue it
    assert refused.exit_code == 2 and "other settings (--seed)" in refused.output
    resumed = _tune(out)  # the same command continues
    assert resumed.exit_code == 0, resumed.output
    assert out.read_bytes() == (tmp_path / "whole" / "t.toml").read_bytes()


def test_a_tune_on_a_dask_cluster_writes_the_same_file(tmp_path):
    """Two external `dask worker` processes: the same strategy file as loky workers."""
    from tests.dask_cluster import dask_cluster

    (tmp_path / "loky").mkdir()
    (tmp_path / "dask").mkdir()
    assert _tune(tmp_path / "loky" / "t.toml", "--jobs", "2").exit_code == 0
    with dask_cluster(tmp_path) as address:
        remote = _tune(tmp_path / "dask" / "t.toml", "--backend", "dask", "--scheduler",
                       address)
    assert remote.exit_code == 0, remote.output
    assert (tmp_path / "dask" / "t.toml").read_bytes() == \
        (tmp_path / "loky" / "t.toml").read_bytes()


def test_candidates_of_a_generation_play_the_same_games(tmp_path, monkeypatch):
    import targi_sim.strength.tune as T

    seen = []
    real = T.play_candidate

    def spy(matches, row, plans):
        seen.append((row.copy(), [tuple(np.asarray(a).tolist() for a in p) for p in plans]))
        return real(matches, row, plans)

    monkeypatch.setattr(T, "play_candidate", spy)
    tune_strategy("balanced", against=["balanced", "greedy"], budget=64, out=tmp_path / "t.toml",
         deals=2, popsize=4, final_deals=5, check_games=50, seed=1)
    tuning = seen[:8]  # 2 generations x 4 candidates; then the final measurement
    gen1, gen2 = tuning[:4], tuning[4:]
    assert all(plans == gen1[0][1] for _, plans in gen1)  # common random numbers
    assert all(plans == gen2[0][1] for _, plans in gen2)
    assert gen1[0][1] != gen2[0][1]  # fresh deals every generation
    assert not np.array_equal(gen1[0][0], gen1[1][0])  # different candidates
    seeds = {s for _, plans in tuning for p in plans for s in p[0]}
    final = {s for _, plans in seen[8:] for p in plans for s in p[0]}
    assert not seeds & final  # the final measurement plays a disjoint stream


def test_generation_plans_are_seat_swapped_pairs():
    (seeds, first, ids), _ = generation_plans(7, 0, 2, 3)
    assert list(first) == [0, 1] * 3
    assert seeds[0] == seeds[1] and seeds[2] == seeds[3] and seeds[0] != seeds[2]


@pytest.mark.parametrize("args, words", [
    (["nosuch"], "unknown strategy 'nosuch'"),
    (["greedy"], "heuristic"),
    (["montecarlo"], "heuristic"),
    (["balanced", "--budget", "10"], "too small for one generation"),
    (["balanced", "--budget", "abc"], "--budget"),
    (["balanced", "--jobs", "0"], "--jobs"),
    (["balanced", "--jobs", "x"], "--jobs"),
    (["balanced", "--against", "nosuch"], "unknown strategy 'nosuch'"),
    (["balanced", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --backend dask"),
    (["balanced", "--backend", "spark"], "--backend must be one of"),
])
def test_bad_input_is_one_error_line_and_exit_code_2(tmp_path, args, words):
    result = runner.invoke(app, ["tune", *args, "--out", str(tmp_path / "x.toml"),
                                 "--quiet"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and words in lines[0], lines


def test_the_shipped_tuned_strategies_load():
    tuned = load_strategy("tuned")
    assert tuned.kind == C.SK_HEURISTIC and tuned.deterministic
    assert load_strategy("tuned").sha256 != load_strategy("balanced").sha256
    mc = load_strategy("montecarlo-tuned")
    assert mc.kind == C.SK_MONTECARLO
    # its rollouts and its other decisions play tuned's weights
    n = 1 + C.N_HEURISTIC_WEIGHTS
    assert np.array_equal(mc.params[C.MC_BASE:C.MC_BASE + n], tuned.row()[:n])
