"""Measure the shape of play at each level on one deck: every figure of FIGURES with its
95% interval, the independent deal (or seat-swapped pair) as the unit.

Why its own module: calibration measures hundreds of candidate decks, so the games are
played without Parquet logs, spread over the caller's joblib pool (loky or Dask) in
fixed chunks of a fixed plan -- a result never depends on --jobs or the backend -- and
reduced in the worker to a few numbers per game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from targi_sim.engine.constants import END_DISPLAY_FULL
from targi_sim.engine.logs import (
    G_BD,
    G_BREAKDOWN,
    G_END,
    G_FIRST,
    G_ROUNDS,
    G_WINNER,
)
from targi_sim.game.deck import Deck
from targi_sim.game.rules import Rules
from targi_sim.play.games import run_batch
from targi_sim.play.match import Match, prepare_match
from targi_sim.play.pairing import pair_ids, plan, resolve_pairing
from targi_sim.players.strategy import Strategy

from .targets import Estimate, rate_estimate, shape_estimates

CHUNK_GAMES = 400  # games per task: the plan is cut here whatever the number of workers
# per-game columns a worker returns
(C_UNIT, C_FIRST, C_WINNER, C_FULL, C_ROUNDS, C_CARD0, C_ROW0, C_TOK0, C_CARD1, C_ROW1,
 C_TOK1, C_CARDS0, C_CARDS1, C_RAID0, C_RAID1) = range(15)
N_COLS = 15
# within G's per-player breakdown
_TOKENS, _CARD_VP, _ABILITY_VP, _ROW = 0, 1, 2, 3


def play_shape_chunk(match: Match, seeds: np.ndarray, first: np.ndarray, ids: np.ndarray,
                     units: np.ndarray) -> np.ndarray:
    """Play the games and return one row of N_COLS numbers per game (what a worker
    sends back). Card VP counts ability VP too: both are points from cards; raid losses
    are the units paid to raids (goods, gold or VP), as the report's game shape counts
    them."""
    G, frames = run_batch(match, seeds, first, ids, logs=True)
    out = np.zeros((len(seeds), N_COLS), dtype=np.float64)
    out[:, C_UNIT] = units
    out[:, C_FIRST] = G[:, G_FIRST]
    out[:, C_WINNER] = G[:, G_WINNER]
    out[:, C_FULL] = G[:, G_END] == END_DISPLAY_FULL
    out[:, C_ROUNDS] = G[:, G_ROUNDS]
    for p, (card, row, tok) in enumerate(((C_CARD0, C_ROW0, C_TOK0),
                                          (C_CARD1, C_ROW1, C_TOK1))):
        b = G_BREAKDOWN + p * G_BD
        out[:, card] = G[:, b + _CARD_VP] + G[:, b + _ABILITY_VP]
        out[:, row] = G[:, b + _ROW]
        out[:, tok] = G[:, b + _TOKENS]
    rounds = pl.concat([f["rounds"].select("game_id", "round", "player", "display_count")
                        for f in frames])
    last = (rounds.sort("round").group_by("game_id", "player")
            .agg(pl.col("display_count").last()))
    where = {int(g): i for i, g in enumerate(ids)}
    for g, p, n in last.iter_rows():
        out[where[int(g)], C_CARDS0 + int(p)] = n
    raids = pl.concat([f["raids"].select("game_id", "player", "amount") for f in frames])
    paid = raids.group_by("game_id", "player").agg(pl.col("amount").sum())
    for g, p, n in paid.iter_rows():
        out[where[int(g)], C_RAID0 + int(p)] = n
    return out


@dataclass(frozen=True)
class LevelShape:
    """A level's figures on one deck (NaN where a figure does not apply)."""

    level: str
    figures: dict[str, Estimate]
    games: int


def _plan_tasks(match: Match, n_games: int, seed: int, layout: str) -> list[tuple]:
    seeds, first, ids = plan(n_games, seed, layout)
    units = pair_ids(ids, layout)
    return [(match, seeds[i:i + CHUNK_GAMES], first[i:i + CHUNK_GAMES],
             ids[i:i + CHUNK_GAMES], units[i:i + CHUNK_GAMES])
            for i in range(0, n_games, CHUNK_GAMES)]


def _per_unit(rows: np.ndarray, *cols: np.ndarray) -> list[np.ndarray]:
    _, index = np.unique(rows[:, C_UNIT], return_inverse=True)
    k = int(index.max()) + 1 if len(index) else 0
    return [np.bincount(index, weights=c, minlength=k) for c in cols]


def mirror_figures(rows: np.ndarray) -> dict[str, Estimate]:
    """Every mirror figure of the games `rows` (play_shape_chunk's columns)."""
    ones = np.ones(len(rows))
    card = rows[:, C_CARD0] + rows[:, C_CARD1]
    row = rows[:, C_ROW0] + rows[:, C_ROW1]
    tok = rows[:, C_TOK0] + rows[:, C_TOK1]
    won_first = ((rows[:, C_WINNER] == rows[:, C_FIRST]) + 0.5 * (rows[:, C_WINNER] == -1))
    games, card_u, row_u, tok_u, full_u, rounds_u, cards_u, first_u, raid_u = _per_unit(
        rows, ones, card, row, tok, rows[:, C_FULL], rows[:, C_ROUNDS],
        rows[:, C_CARDS0] + rows[:, C_CARDS1], won_first, rows[:, C_RAID0] + rows[:, C_RAID1])
    return shape_estimates(games=games, players=2 * games, card_vp=card_u, row_bonus=row_u,
                           token_vp=tok_u, full=full_u, rounds=rounds_u, cards=cards_u,
                           first_won=first_u, firsts=games, raid_losses=raid_u)


def cross_figure(rows: np.ndarray) -> Estimate:
    """Seat 0's rate (draws half) over seat-swapped pairs: beats_previous."""
    pts = (rows[:, C_WINNER] == 0) + 0.5 * (rows[:, C_WINNER] == -1)
    points, games = _per_unit(rows, pts.astype(float), np.ones(len(rows)))
    return rate_estimate(points, games)


def measure_levels(strategies: Sequence[Strategy], levels: Sequence[str], deck: Deck,
                   rules: Rules, *, deals: int, seed: int, parallel,
                   only: Sequence[str] | None = None) -> dict[str, LevelShape]:
    """Each level's mirror over `deals` deals, and (from the second level on) the level
    against the one before it over `deals` seat-swapped pairs, on the seed's common
    deals. `only`: measure just these levels (racing measures the cheap ones first)."""
    from joblib import delayed

    wanted = [i for i, lv in enumerate(levels) if only is None or lv in only]
    tasks: list[tuple] = []
    owners: list[tuple[int, str]] = []
    for i in wanted:
        s = strategies[i]
        match = prepare_match((s, s), deck, rules)
        layout = resolve_pairing("auto", (s, s))
        n = deals * (2 if layout == "seat_swapped" else 1)
        for t in _plan_tasks(match, n, seed, layout):
            tasks.append(t)
            owners.append((i, "mirror"))
        if i > 0:
            cross = prepare_match((s, strategies[i - 1]), deck, rules)
            for t in _plan_tasks(cross, 2 * deals, seed, "seat_swapped"):
                tasks.append(t)
                owners.append((i, "cross"))
    results = parallel(delayed(play_shape_chunk)(*t) for t in tasks)
    out: dict[str, LevelShape] = {}
    for i in wanted:
        mirror = np.concatenate([r for r, o in zip(results, owners, strict=True)
                                 if o == (i, "mirror")])
        figures = mirror_figures(mirror)
        games = len(mirror)
        if i > 0:
            cross = np.concatenate([r for r, o in zip(results, owners, strict=True)
                                    if o == (i, "cross")])
            figures["beats_previous"] = cross_figure(cross)
            games += len(cross)
        out[levels[i]] = LevelShape(levels[i], figures, games)
    return out


__all__ = ["CHUNK_GAMES", "LevelShape", "cross_figure", "measure_levels", "mirror_figures",
           "play_shape_chunk"]
