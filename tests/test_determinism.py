"""Determinism: a game is a pure function of (seed, strategies, deck, rules, first player).

Why: every analysis re-runs or splits batches, compares strategies on the same seeds and
replays single games from a batch row; all of that is only sound if the result does not
depend on anything else — not on earlier games in the process, not on how a batch is cut
into calls, and not on whether numba compiled the engine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from targi_sim import game_plan, load_deck, load_rules, pair_seed, play_game, play_games
from targi_sim.engine.batch import play_batch
from targi_sim.game.record import games_frame
from targi_sim.play import games as api
from targi_sim.play.games import run_batch
from targi_sim.play.match import prepare_match
from targi_sim.players.evaluation import mirror_positions

DECKS = ("base", "abilities-example")
RULES = ("default", "raid-opponent-gains-fixed", "finish-round-after-raid4", "tiebreak-gold-only")


def _json(record) -> dict:
    """The record as it would be written to disk (tuples -> lists, numpy ints -> int)."""
    return json.loads(json.dumps(record.to_dict()))


def _concat(frames: list[dict[str, pl.DataFrame]]) -> dict[str, pl.DataFrame]:
    return {k: pl.concat([f[k] for f in frames]) for k in frames[0]}


# ------------------------------------------------------------------ single games
@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("first", (0, 1))
def test_same_inputs_same_record(deck: str, rules: str, first: int) -> None:
    seed = 9_001 + first
    a = play_game(seed, deck=deck, rules=rules, first_player=first)
    play_game(seed + 1, deck=deck, rules=rules, first_player=1 - first)  # unrelated game between
    b = play_game(seed, deck=deck, rules=rules, first_player=first)
    assert a.to_dict() == b.to_dict()
    assert a.trace.height > 0


def test_loaded_objects_and_names_give_the_same_game() -> None:
    by_name = play_game(77, deck="abilities-example", rules="default")
    by_object = play_game(77, deck=load_deck("abilities-example"), rules=load_rules("default"))
    assert by_name.to_dict() == by_object.to_dict()


def test_different_seeds_differ() -> None:
    records = [play_game(s).to_dict() for s in range(8)]
    traces = [json.dumps(r["tables"]["trace"]) for r in records]
    assert len(set(traces)) == len(traces), "two seeds replayed the same game"
    # the shuffled setup itself differs (central cards offered in round 1)
    offers = [tuple(r["tables"]["offers"]["card_id"][:4]) for r in records]
    assert len(set(offers)) > 1


def test_first_player_matters() -> None:
    a = play_game(5, first_player=0).to_dict()
    b = play_game(5, first_player=1).to_dict()
    assert a["first_player"] == 0 and b["first_player"] == 1
    assert a["tables"]["trace"] != b["tables"]["trace"]


# ------------------------------------------------------------------ batches
def _engine_inputs(deck: str = "base", rules: str = "default"):
    return prepare_match(("random", "random"), deck, rules)


@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize("cut", (1, 37, 60))
def test_batch_split_does_not_change_results(deck: str, cut: int) -> None:
    """One call over games 0..n-1 == calls over 0..cut-1 and cut..n-1 (cut mid-pair too)."""
    n, run_seed = 120, 424242
    m = _engine_inputs(deck)
    seeds, first, ids = game_plan(n, run_seed)
    G_all, frames_all = run_batch(m, seeds, first, ids)

    s1, f1, i1 = game_plan(cut, run_seed)
    s2, f2, i2 = game_plan(n - cut, run_seed, start=cut)
    assert np.array_equal(np.concatenate([s1, s2]), seeds)
    assert np.array_equal(np.concatenate([f1, f2]), first)
    assert np.array_equal(np.concatenate([i1, i2]), ids)
    G1, frames1 = run_batch(m, s1, f1, i1)
    G2, frames2 = run_batch(m, s2, f2, i2)

    whole = games_frame(G_all)
    halves = pl.concat([games_frame(G1), games_frame(G2)])
    assert whole.equals(halves)
    assert whole["game_id"].to_list() == list(range(n))
    t_all = _concat(frames_all)
    t_split = _concat(frames1 + frames2)
    assert set(t_all) == {"rounds", "acquisitions", "offers", "raids", "goods"}
    for name in t_all:
        assert t_all[name].height > 0
        assert t_all[name].equals(t_split[name]), f"log table {name} depends on the split"


def test_batch_log_flushes_do_not_change_results(monkeypatch) -> None:
    """A batch whose logs fill up (flush, resume) == the same games one call each.

    Random play never fills logs sized for the whole batch, so the batch here gets
    logs with room for one game: it must stop, flush and resume after every game.
    """
    m = _engine_inputs("abilities-example")
    seeds, first, ids = game_plan(60, 99)
    G_one_go, frames_one_go = run_batch(m, seeds, first, ids)
    real_make_logs = api.make_logs
    monkeypatch.setattr(api, "make_logs", lambda n, **kw: real_make_logs(min(n, 1), **kw))
    flushes: list[tuple[int, int]] = []
    G_all, frames_all = run_batch(m, seeds, first, ids,
                                  on_flush=lambda _L, a, b: flushes.append((a, b)))
    assert len(flushes) > 1, "the logs never filled: the test does not exercise resuming"
    assert flushes[0][0] == 0 and flushes[-1][1] == 60
    assert all(a[1] == b[0] for a, b in zip(flushes, flushes[1:], strict=False))
    assert np.array_equal(G_all, G_one_go)
    a, b = _concat(frames_one_go), _concat(frames_all)
    for name in a:
        assert a[name].equals(b[name]), name
    singles = [run_batch(m, seeds[k:k + 1], first[k:k + 1], ids[k:k + 1])
               for k in range(60)]
    assert np.array_equal(np.concatenate([g for g, _ in singles]), G_all)
    a = _concat(frames_all)
    b = _concat([f for _, frames in singles for f in frames])
    for name in a:
        assert a[name].equals(b[name]), name


def test_play_games_matches_play_game_per_row() -> None:
    """A batch row replays exactly as a single game with that row's seed and first player."""
    batch = play_games(16, seed=31337, deck="abilities-example")
    tables = batch.tables
    for row in batch.games.iter_rows(named=True):
        rec = play_game(row["seed"], deck="abilities-example",
                        first_player=row["first_player"], game_id=row["game_id"])
        assert rec.scores == (row["score_p0"], row["score_p1"])
        assert (rec.winner, rec.rounds, rec.end_reason, rec.tiebreak) == (
            row["winner"], row["rounds"], row["end_reason"], row["tiebreak"])
        for p in range(2):
            for k, v in rec.breakdown[p].items():
                assert v == row[f"{k}_p{p}"], (row["game_id"], p, k)
        for name in ("rounds", "acquisitions", "offers", "raids"):
            mine = tables[name].filter(pl.col("game_id") == row["game_id"])
            assert mine.equals(rec.tables[name]), (row["game_id"], name)


def test_seat_swapped_pairs_share_the_seed() -> None:
    batch = play_games(10, seed=2024)
    g = batch.games
    assert g["game_id"].to_list() == list(range(10))
    assert g["seed"].to_list() == [pair_seed(2024, k // 2) for k in range(10)]
    assert g["first_player"].to_list() == [0, 1] * 5
    assert len(set(g["seed"].to_list())) == 5
    unpaired = play_games(6, seed=2024, paired=False).games  # one game per deal
    assert unpaired["seed"].to_list() == [pair_seed(2024, k) for k in range(6)]
    assert unpaired["first_player"].to_list() == [0, 1] * 3
    # a pair really is the same deal seen from both seats: identical round-1 offers
    offers = batch.tables["offers"].filter(pl.col("round") == 1)
    for k in range(5):
        a = offers.filter(pl.col("game_id") == 2 * k).select("cell", "card_id")
        b = offers.filter(pl.col("game_id") == 2 * k + 1).select("cell", "card_id")
        assert a.equals(b)


def test_play_games_is_repeatable() -> None:
    a = play_games(40, seed=8, deck="abilities-example")
    b = play_games(40, seed=8, deck="abilities-example")
    assert a.games.equals(b.games)
    for name in a.tables:
        assert a.tables[name].equals(b.tables[name])
    c = play_games(40, seed=9, deck="abilities-example")
    assert not a.games.equals(c.games)


# ------------------------------------------------------------------ JIT vs interpreter
NOJIT_GAMES = [(seed, deck, seed % 2, ("random", "random"))
               for seed in (3, 20261201, 2**40 + 7) for deck in DECKS]
# the compiled strategies too: the heuristic's float arithmetic, greedy, and the
# Monte Carlo driver (rollouts, determinisation) with a small budget (one rollout an
# option: at montecarlo's own 8, this one game took most of a minute in plain Python)
NOJIT_GAMES += [(11, "base", 0, ("balanced", "greedy")),
                (12, "abilities-example", 1, ("blocker", "row-builder")),
                (13, "base", 0, ("montecarlo@1", "balanced"))]
# the expert (every decision searched, cut playouts, tree reuse) at a tiny budget, its
# evaluation given rather than fitted: the fit's 4,000 games took 90 s in plain Python.
# The fit's recorder is compared on its own, on FIT_GAMES_NOJIT games.
EXPERT_GAME = (14, "base", 1)
FIT_GAMES_NOJIT = 30

_CHILD = """
import json, sys
from targi_sim.engine.batch import play_batch
from targi_sim import play_game
from targi_sim.play.match import prepare_match
from targi_sim.players.evaluation import mirror_positions
assert type(play_batch).__name__ == "function", "the child must run without numba"
out = []
for seed, deck, first, strategies in json.loads(sys.argv[1]):
    out.append(play_game(seed, strategies, deck=deck, first_player=first).to_dict())
m = prepare_match((sys.argv[3], "tuned"), "base")  # its evaluation given: no fit
pos = mirror_positions(m.D, m.R, m.SP, m.PB, 0, games=int(sys.argv[2]))
out.append([pos.round.tolist(), pos.margin.tolist(), pos.gold.tolist(), pos.goods.tolist(),
            pos.final.tolist(), pos.winner.tolist()])
print(json.dumps(out))
"""


def _fixed_expert(folder) -> str:
    """The shipped expert at a tiny budget with the evaluation the compiled fit gives on
    the base deck written in (so neither side fits)."""
    from targi_sim.engine.constants import MC_EVAL_GOLD, MC_EVAL_GOODS, MC_EVAL_SCALE
    from targi_sim.engine.constants import MC_EVAL_SCALE_ROUND as ROUND

    m = prepare_match(("expert", "tuned"), "base")
    gold, goods, scale, per_round = (float(m.SP[0, c]) for c in (MC_EVAL_GOLD, MC_EVAL_GOODS,
                                                                  MC_EVAL_SCALE, ROUND))
    text = (Path(__file__).resolve().parents[1] / "data" / "strategies" / "expert.toml")
    lines = [ln for ln in text.read_text().splitlines()
             if not ln.startswith(("iterations", "action_iterations"))]
    path = folder / "expert-tiny.toml"
    path.write_text("\n".join(lines) + f"\niterations = 3\naction_iterations = 2\n"
                    f"eval_gold = {gold!r}\neval_goods = {goods!r}\neval_scale = {scale!r}\n"
                    f"eval_scale_round = {per_round!r}\n")
    return str(path)


def test_compiled_engine_matches_pure_python(tmp_path) -> None:
    """The compiled engine and the plain-Python engine play bit-identical games, and
    record the same positions for the evaluation's fit."""
    assert type(play_batch).__name__ != "function", "in-process engine is not compiled"
    expert = _fixed_expert(tmp_path)
    games = [*NOJIT_GAMES, (*EXPERT_GAME, (expert, "tuned"))]
    env = dict(os.environ)
    env["NUMBA_DISABLE_JIT"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(games), str(FIT_GAMES_NOJIT), expert],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    interpreted = json.loads(proc.stdout)
    assert len(interpreted) == len(games) + 1
    for (seed, deck, first, strategies), slow in zip(games, interpreted[:-1], strict=True):
        fast = _json(play_game(seed, strategies, deck=deck, first_player=first))
        for key in fast:
            assert slow[key] == fast[key], f"seed {seed} deck {deck}: '{key}' differs"
    m = prepare_match((expert, "tuned"), "base")
    pos = mirror_positions(m.D, m.R, m.SP, m.PB, 0, games=FIT_GAMES_NOJIT)
    compiled = [pos.round.tolist(), pos.margin.tolist(), pos.gold.tolist(),
                pos.goods.tolist(), pos.final.tolist(), pos.winner.tolist()]
    assert len(compiled[0]) > 10 * FIT_GAMES_NOJIT  # a position a round
    assert interpreted[-1] == compiled
