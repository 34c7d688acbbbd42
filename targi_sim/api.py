"""The public way to play games: one game with its full record, or a seeded batch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from .deck import Deck, load_deck
from .engine import layout as lay
from .engine.batch import play_batch
from .engine.buffers import make_logs, reset
from .engine.montecarlo import play_batch_mc, uses_montecarlo
from .engine.records import G_SIZE
from .gamestate import GameState
from .record import GameRecord, game_record, games_frame, log_frames
from .rules import Rules, load_rules
from .strategy import Strategy, resolve_strategy, strategy_matrix

StrategySpec = str | Strategy
MAX_TRACE_ROWS = 50_000


def batch_function(SP: np.ndarray):
    """The compiled batch driver for these seats (Monte Carlo needs its own, see montecarlo.py)."""
    return play_batch_mc if uses_montecarlo(SP) else play_batch


def load_deck_and_rules(deck: str | Deck, rules: str | Rules) -> tuple[Deck, Rules]:
    """Loaded objects pass through; names and paths are loaded and validated."""
    d = deck if isinstance(deck, Deck) else load_deck(deck)
    r = rules if isinstance(rules, Rules) else load_rules(rules)
    return d, r


def pair_seed(run_seed: int, pair_id: int) -> int:
    """The game seed of a seat-swapped pair: run seed in the high half, pair in the low."""
    if not 0 <= run_seed < 2**31:
        raise ValueError(f"run seed must be in 0..{2**31 - 1}, got {run_seed}")
    if not 0 <= pair_id < 2**32:
        raise ValueError(f"pair id must be in 0..{2**32 - 1}, got {pair_id}")
    return (run_seed << 32) | pair_id


def play_game(
    seed: int,
    strategies: Sequence[StrategySpec] = ("random", "random"),
    *,
    deck: str | Deck = "base",
    rules: str | Rules = "default",
    first_player: int = 0,
    game_id: int = 0,
) -> GameRecord:
    """Play one game and return its full record, including the decision trace.

    A game is a pure function of (seed, strategies, deck, rules, first_player).
    """
    if first_player not in (0, 1):
        raise ValueError("first_player must be 0 or 1")
    d, r = load_deck_and_rules(deck, rules)
    SP, names = strategy_matrix(strategies)
    state = GameState(np.zeros(lay.S_SIZE, dtype=np.int64), d, r)
    L = make_logs(1, exact=True, trace_rows=MAX_TRACE_ROWS)
    G = np.zeros((1, G_SIZE), dtype=np.int64)
    seeds = np.array([seed], dtype=np.int64)
    batch_function(SP)(state.D, state.R, SP, seeds, np.array([first_player]), np.array([game_id]),
             G, L, 0, state.S)
    return game_record(seed, names, G[0], L, state)


@dataclass
class BatchResult:
    """Tables of a batch of games: `games` plus the per-round logs."""

    games: pl.DataFrame
    tables: dict[str, pl.DataFrame]
    strategies: tuple[str, str]


def game_plan(n_games: int, seed: int, paired: bool = True, start: int = 0) -> tuple:
    """(seeds, first players, game ids) for games start..start+n-1 of a run.

    Paired games share a seed and swap the first player, so seat advantage and
    strategy strength can be told apart.
    """
    ids = np.arange(start, start + n_games, dtype=np.int64)
    pairs = ids // 2 if paired else ids
    pair_seed(seed, int(pairs[-1]) if n_games else 0)  # range checks
    seeds = (np.int64(seed) << np.int64(32)) | pairs
    first = (ids % 2) if paired else np.zeros(n_games, dtype=np.int64)
    return seeds, first.astype(np.int64), ids


def run_batch(
    D: np.ndarray,
    R: np.ndarray,
    SP: np.ndarray,
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
    batch_fn = batch_function(SP)
    done = 0
    while done < n:
        nxt = batch_fn(D, R, SP, seeds, first, ids, G, L, done, S)
        if logs:
            frames.append(log_frames(L))
        if on_flush is not None:
            on_flush(L, done, nxt)
        reset(L)
        done = nxt
    return G, frames


@dataclass(frozen=True, eq=False)
class Match:
    """Validated and packed inputs of a run: deck, rules and the two seats' strategies."""

    deck: Deck
    rules: Rules
    D: np.ndarray
    R: np.ndarray
    SP: np.ndarray
    strategies: tuple[str, str]

    def play(self, seeds: np.ndarray, first: np.ndarray, ids: np.ndarray,
             *, logs: bool = True) -> tuple[np.ndarray, list[dict[str, pl.DataFrame]]]:
        """Play a plan of games (see `game_plan`); returns results and log frames."""
        return run_batch(self.D, self.R, self.SP, seeds, first, ids, logs=logs)


def prepare_match(
    strategies: Sequence[StrategySpec] = ("random", "random"),
    deck: str | Deck = "base",
    rules: str | Rules = "default",
) -> Match:
    """Load and validate everything before a game is played.

    Raises UsageError for unknown names and DataError for malformed files.
    """
    SP, names = strategy_matrix(strategies)
    d, r = load_deck_and_rules(deck, rules)
    return Match(d, r, lay.pack_deck(d), r.vector.astype(np.int64), SP, names)


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

    `pairing` (targi_sim.pairing): "auto" plays seat-swapped pairs unless both
    seats play the same deterministic strategy, which plays one game per deal;
    "seat_swapped" or "one_per_deal" force one. paired=False means one_per_deal.
    """
    from .pairing import pair_ids, plan, resolve_pairing

    if n_games < 1:
        raise ValueError("n_games must be at least 1")
    resolved = [resolve_strategy(s) for s in strategies]
    match = prepare_match(resolved, deck, rules)
    names = match.strategies
    layout = resolve_pairing(pairing if paired else "one_per_deal", resolved)
    seeds, first, ids = plan(n_games, seed, layout)
    G, frames = match.play(seeds, first, ids, logs=logs)
    games = games_frame(G).with_columns(
        pl.Series("seed", seeds), pl.Series("pair_id", pair_ids(ids, layout)),
        pl.lit(names[0]).alias("p0_strategy"), pl.lit(names[1]).alias("p1_strategy"),
    )
    tables = {}
    if frames:
        tables = {k: pl.concat([f[k] for f in frames]) for k in frames[0]}
    return BatchResult(games=games, tables=tables, strategies=names)


__all__ = [
    "BatchResult", "Match", "game_plan", "pair_seed", "play_game", "play_games", "prepare_match",
]
