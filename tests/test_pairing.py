"""Pairing (targi_sim/play/pairing.py): a deterministic mirror's seat-swapped pair is one game
twice, so such runs play one game per deal; other matchups keep seat-swapped pairs."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from targi_sim import play_games, resolve_strategy, scripted
from targi_sim.engine import constants as C
from targi_sim.play.pairing import (
    LEGACY_UNPAIRED,
    ONE_PER_DEAL,
    SEAT_SWAPPED,
    auto_pairing,
    config_pairing,
    plan,
)
from targi_sim.players.strategy import Strategy


def noisy(name: str = "balanced", noise: float = 0.3) -> Strategy:
    base = resolve_strategy(name)
    params = base.params.copy()
    params[C.HW_NOISE] = noise
    return Strategy(f"{name}-noisy", base.kind, params)


def mirrored_pairs(strategy, n_pairs: int = 60) -> np.ndarray:
    """Per seat-swapped pair: is game 2k+1 game 2k with the seats relabelled?"""
    batch = play_games(2 * n_pairs, seed=5, strategies=(strategy, strategy),
                       pairing=SEAT_SWAPPED)
    g = batch.games.sort("game_id")
    acq = batch.tables["acquisitions"]
    same = []
    for k in range(n_pairs):
        a, b = g.row(2 * k, named=True), g.row(2 * k + 1, named=True)
        swapped = {0: 1, 1: 0, -1: -1}[a["winner"]]
        result = (b["winner"] == swapped and (b["score_p0"], b["score_p1"]) ==
                  (a["score_p1"], a["score_p0"]))
        rows_a = (acq.filter(pl.col("game_id") == 2 * k)
                  .with_columns((1 - pl.col("player")).alias("player"))
                  .drop("game_id").sort(pl.all()))
        rows_b = acq.filter(pl.col("game_id") == 2 * k + 1).drop("game_id").sort(pl.all())
        same.append(result and rows_a.equals(rows_b))
    return np.array(same)


@pytest.mark.parametrize("name", ["balanced", "greedy"])
def test_a_deterministic_mirror_pair_is_one_game_relabelled(name):
    strategy = resolve_strategy(name)
    assert strategy.deterministic
    assert mirrored_pairs(strategy).all()


@pytest.mark.parametrize("strategy", [resolve_strategy("random"), noisy()],
                         ids=["random", "heuristic with noise"])
def test_randomness_in_play_makes_pairs_differ(strategy):
    assert not strategy.deterministic
    assert not mirrored_pairs(strategy).all()


def test_two_deterministic_strategies_swap_seats_without_a_new_game():
    """With b in seat 0 and a starting, a deal replays the game of a in seat 0 starting,
    relabelled: a tournament needs one seat order for two deterministic strategies."""
    from targi_sim.play.pairing import seat_orders

    g0 = play_games(40, seed=9, strategies=("balanced", "greedy"), logs=False).games
    g1 = play_games(40, seed=9, strategies=("greedy", "balanced"), logs=False).games
    g0, g1 = g0.sort("game_id"), g1.sort("game_id")
    for k in range(40):
        a, b = g0.row(k, named=True), g1.row(k ^ 1, named=True)  # the other first player
        assert b["winner"] == {0: 1, 1: 0, -1: -1}[a["winner"]]
        assert (b["score_p0"], b["score_p1"]) == (a["score_p1"], a["score_p0"])
    greedy, balanced, rnd = (resolve_strategy(n) for n in ("greedy", "balanced", "random"))
    assert seat_orders((greedy, balanced)) == 1 and seat_orders((greedy, rnd)) == 2


def test_deterministic_flags():
    names = {"greedy": True, "balanced": True, "blocker": True, "random": False,
             "montecarlo": False}
    assert {n: resolve_strategy(n).deterministic for n in names} == names
    assert scripted([0, 1]).deterministic
    assert not noisy().deterministic


def test_auto_pairing_only_for_the_same_deterministic_strategy():
    b, g, r = (resolve_strategy(n) for n in ("balanced", "greedy", "random"))
    assert auto_pairing((b, b)) == ONE_PER_DEAL
    assert auto_pairing((g, g)) == ONE_PER_DEAL
    assert auto_pairing((b, g)) == SEAT_SWAPPED  # two strategies: seats differ
    assert auto_pairing((r, r)) == SEAT_SWAPPED  # random play: the pair's games differ
    assert auto_pairing((noisy(), noisy())) == SEAT_SWAPPED
    # the same parameters under another name is still a mirror
    copy = Strategy("balanced-copy", b.kind, b.params.copy())
    assert auto_pairing((b, copy)) == ONE_PER_DEAL


def test_plans():
    seeds, first, ids = plan(5, 3, ONE_PER_DEAL, start=4)
    assert ids.tolist() == [4, 5, 6, 7, 8]
    assert seeds.tolist() == [(3 << 32) | k for k in range(4, 9)]
    assert first.tolist() == [0, 1, 0, 1, 0]
    seeds, first, _ = plan(4, 3, SEAT_SWAPPED)
    assert seeds.tolist() == [3 << 32, 3 << 32, (3 << 32) | 1, (3 << 32) | 1]
    assert first.tolist() == [0, 1, 0, 1]
    _, first, _ = plan(3, 3, LEGACY_UNPAIRED)
    assert first.tolist() == [0, 0, 0]
    assert config_pairing({"paired": True}) == SEAT_SWAPPED
    assert config_pairing({"paired": False}) == LEGACY_UNPAIRED
    assert config_pairing({"pairing": ONE_PER_DEAL}) == ONE_PER_DEAL


def test_play_games_plays_one_game_per_deal_for_a_deterministic_mirror():
    games = play_games(10, seed=2, strategies=("balanced", "balanced"), logs=False).games
    assert games["seed"].n_unique() == 10  # no deal is played twice
    assert games["pair_id"].to_list() == list(range(10))
    assert games["first_player"].to_list() == [0, 1] * 5
    pairs = play_games(10, seed=2, strategies=("balanced", "random"), logs=False).games
    assert pairs["seed"].n_unique() == 5 and pairs["pair_id"].to_list() == [
        k // 2 for k in range(10)]


def test_a_deterministic_mirror_run_spends_no_game_on_a_copy(tmp_path):
    """The issue: the README's balanced-vs-balanced run held each deal twice."""
    from targi_sim.runner import RunConfig, resolve_run
    from targi_sim.runner.dispatch import execute

    out = tmp_path / "run"
    execute(resolve_run(RunConfig(games=300, chunk_size=100)), out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["pairing"] == ONE_PER_DEAL
    games = pl.read_parquet(out / "games" / "*.parquet")
    assert games["seed"].n_unique() == 300
    assert games["first_player"].sum() == 150
    # forcing seat-swapped pairs still works (and changes the identity of the run)
    forced = resolve_run(RunConfig(games=300, chunk_size=100, pairing=SEAT_SWAPPED))
    assert forced.pairing == SEAT_SWAPPED
    assert forced.config_hash != resolve_run(RunConfig(games=300, chunk_size=100)).config_hash
    with pytest.raises(ValueError, match="unpaired"):
        resolve_run(RunConfig(games=10, paired=False, pairing=SEAT_SWAPPED))


def _as_old_manifest(out, paired: bool) -> None:
    """Rewrite a run's manifest (and its markers' identity) as versions before the
    pairing setting wrote them."""
    from targi_sim.runner.config import config_digest

    path = out / "manifest.json"
    m = json.loads(path.read_text())
    del m["config"]["pairing"]
    m["config"]["paired"] = paired
    m["config_hash"] = config_digest(m["config"])
    path.write_text(json.dumps(m))
    for marker in (out / "chunks").glob("chunk-*.json"):
        data = json.loads(marker.read_text())
        data["config_hash"] = m["config_hash"]
        marker.write_text(json.dumps(data))


@pytest.mark.parametrize("layout,paired", [(SEAT_SWAPPED, True), (LEGACY_UNPAIRED, False)])
def test_old_run_directories_replay_and_report(tmp_path, layout, paired):
    """Runs written with `paired: true/false` (no `pairing`) still replay and report;
    the replay takes the seed and first player from the logged games row."""
    import dataclasses

    from targi_sim.report import analyse, read_run_info
    from targi_sim.runner import RunConfig, resolve_run
    from targi_sim.runner.dispatch import execute
    from targi_sim.runner.replay import (
        game_ref,
        logged_differences,
        logged_rows,
        replay_logged_game,
    )

    out = tmp_path / "old"
    run = resolve_run(RunConfig(games=12, chunk_size=5, p1="random"))
    execute(dataclasses.replace(run, pairing=layout), out)
    _as_old_manifest(out, paired)
    games = pl.read_parquet(out / "games" / "*.parquet").sort("game_id")
    expected_first = [k % 2 for k in range(12)] if paired else [0] * 12
    assert games["first_player"].to_list() == expected_first
    for game_id in (0, 7, 11):
        ref = game_ref(out, game_id)
        assert (ref.seed, ref.first_player) == (games["seed"][game_id], expected_first[game_id])
        record, ref = replay_logged_game(out, game_id)
        assert logged_differences(record, logged_rows(ref)) == []
    facts = dict(analyse(read_run_info(out), min_n=1).facts)
    assert facts["pairing"].startswith("seat-swapped" if paired else "independent")
