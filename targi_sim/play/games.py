"""The public way to play games: one game with its full record, or a seeded batch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from targi_sim.engine import layout as lay
from targi_sim.engine.batch import play_batch
from targi_sim.engine.buffers import make_logs, reset
from targi_sim.engine.expert import play_batch_search, searches_all
from targi_sim.engine.logs import G_SIZE
from targi_sim.engine.montecarlo import play_batch_mc, uses_montecarlo
from targi_sim.game.deck import Deck
from targi_sim.game.record import GameRecord, game_record, games_frame, log_frames
from targi_sim.game.rules import Rules
from targi_sim.game.state import GameState
from targi_sim.play.match import Match, StrategySpec, prepare_match
from targi_sim.players.choices import check_answers
from targi_sim.players.strategy import resolve_strategy

MAX_TRACE_ROWS = 50_000




def play_plan(match: Match, seeds: np.ndarray, first: np.ndarray, ids: np.ndarray,
              G: np.ndarray, L: np.ndarray, start: int, S: np.ndarray,
              check: bool = True) -> int:
    """Play games start.. of a plan into G and the logs L; returns the next game index
    (it stops early, between games, when the logs are full). With `check`, a seat that
    answered with an option it was not offered raises StrategyError (targi_sim.players.choices).

    The compiled batch driver plays them (Monte Carlo seats need their own, see
    engine/montecarlo.py); a seat decided in Python goes through targi_sim.play.session.
    """
    if match.has_python:
        from targi_sim.play.session import play_python_plan

        nxt = play_python_plan(match, seeds, first, ids, G, L, start)
    else:
        D, R, SP, P, PB = match.D, match.R, match.SP.copy(), match.P, match.PB
        if searches_all(SP):
            nxt = play_batch_search(D, R, SP, P, PB, seeds, first, ids, G, L, start, S)
        elif uses_montecarlo(SP):
            nxt = play_batch_mc(D, R, SP, P, PB, seeds, first, ids, G, L, start, S)
        else:
            nxt = play_batch(D, R, SP, P, seeds, first, ids, G, L, start, S)
    if check:
        check_answers(match, G[start:nxt], seeds[start:nxt])
    return nxt


def play_game(
    seed: int,
    strategies: Sequence[StrategySpec] = ("random", "random"),
    *,
    deck: str | Deck = "base",
    rules: str | Rules = "default",
    first_player: int = 0,
    game_id: int = 0,
) -> GameRecord:
    """Play one game and return its full record, including the decision trace (a seat's
    answers with options it was not offered are counted in `illegal_answers`, not raised).

    A game is a pure function of (seed, strategies, deck, rules, first_player).
    """
    if first_player not in (0, 1):
        raise ValueError("first_player must be 0 or 1")
    m = prepare_match(strategies, deck, rules)
    if m.has_python:
        from targi_sim.play.session import Game, drive

        game = Game(m, seed, first_player, game_id, trace_rows=MAX_TRACE_ROWS)
        drive(game)
        return game.record()
    state = GameState(np.zeros(lay.S_SIZE, dtype=np.int64), m.deck, m.rules)
    L = make_logs(1, exact=True, trace_rows=MAX_TRACE_ROWS)
    G = np.zeros((1, G_SIZE), dtype=np.int64)
    seeds = np.array([seed], dtype=np.int64)
    play_plan(m, seeds, np.array([first_player], dtype=np.int64),
              np.array([game_id], dtype=np.int64), G, L, 0, state.S, check=False)
    return game_record(seed, m.strategies, G[0], L, state)


@dataclass
class BatchResult:
    """Tables of a batch of games: `games` plus the per-round logs."""

    games: pl.DataFrame
    tables: dict[str, pl.DataFrame]
    strategies: tuple[str, str]


def run_batch(
    match: Match,
    seeds: np.ndarray,
    first: np.ndarray,
    ids: np.ndarray,
    *,
    logs: bool = True,
    on_flush: Callable[[np.ndarray, int, int], None] | None = None,
) -> tuple[np.ndarray, list[dict[str, pl.DataFrame]]]:
    """Play every game of the plan; returns the results array and the log frames.

    The logs are sized for typical games; when they fill, the batch stops
    before the next game, the logs are flushed and play resumes.
    """
    n = len(seeds)
    G = np.zeros((n, G_SIZE), dtype=np.int64)
    L = make_logs(n if logs else 0)
    S = np.zeros(lay.S_SIZE, dtype=np.int64)
    frames: list[dict[str, pl.DataFrame]] = []
    done = 0
    while done < n:
        nxt = play_plan(match, seeds, first, ids, G, L, done, S)
        if logs:
            frames.append(log_frames(L))
        if on_flush is not None:
            on_flush(L, done, nxt)
        reset(L)
        done = nxt
    return G, frames


def play_games(
    n_games: int,
    *,
    seed: int = 0,
    strategies: Sequence[StrategySpec] = ("random", "random"),
    deck: str | Deck = "base",
    rules: str | Rules = "default",
    paired: bool = True,
    logs: bool = True,
    pairing: str = "auto",
) -> BatchResult:
    """Play n seeded games inside compiled code: the games `targi-sim run` plays.

    `pairing` (targi_sim.play.pairing): "auto" plays seat-swapped pairs unless both
    seats play the same deterministic strategy, which plays one game per deal;
    "seat_swapped" or "one_per_deal" force one. paired=False means one_per_deal.
    """
    from targi_sim.play.pairing import pair_ids, plan, resolve_pairing

    if n_games < 1:
        raise ValueError("n_games must be at least 1")
    resolved = [resolve_strategy(s) for s in strategies]
    match = prepare_match(resolved, deck, rules)
    names = match.strategies
    layout = resolve_pairing(pairing if paired else "one_per_deal", resolved)
    seeds, first, ids = plan(n_games, seed, layout)
    G, frames = run_batch(match, seeds, first, ids, logs=logs)
    games = games_frame(G).with_columns(
        pl.Series("seed", seeds), pl.Series("pair_id", pair_ids(ids, layout)),
        pl.lit(names[0]).alias("p0_strategy"), pl.lit(names[1]).alias("p1_strategy"),
    )
    tables = {}
    if frames:
        tables = {k: pl.concat([f[k] for f in frames]) for k in frames[0]}
    return BatchResult(games=games, tables=tables, strategies=names)


__all__ = ["BatchResult", "play_game", "play_games", "play_plan", "run_batch"]
