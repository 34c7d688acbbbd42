"""Play games with card-value forks and build the `forks` table (docs/data-model.md#forks).

The compiled driver (engine/forks.py) is its own entry point: it is compiled the first
time forks are played, never by an ordinary run.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from targi_sim.engine.constants import SYMBOL_NAMES
from targi_sim.engine.logs import G_SIZE, SOURCE_NAMES
from targi_sim.play.match import Match
from targi_sim.play.pairing import pair_ids

from ..engine import forks as drv
from ..errors import InputError

I8, I16, I64 = pa.int8(), pa.int16(), pa.int64()
NAME = pa.dictionary(pa.int8(), pa.string())
FORKS_SCHEMA = pa.schema(
    [("game_id", I64), ("pair_id", I64), ("decision", I16), ("round", I8), ("player", I8),
     ("card_id", I16), ("symbol", NAME), ("source", NAME), ("options", I16),
     ("result_take", pa.float32()), ("result_alt", pa.float32()), ("margin_take", I16),
     ("margin_alt", I16), ("rounds_take", I8), ("rounds_alt", I8)]
)
BUFFER_ROWS = 256 * 200  # rows of F per compiled call: bounded memory (~6 MB)


def check_forkable(match: Match) -> None:
    """InputError for seats the fork driver cannot play (it replays rounds in compiled
    code: a seat decided in Python, or a Monte Carlo seat's rollout driver, cannot)."""
    from ..engine.montecarlo import uses_montecarlo

    if match.has_python or uses_montecarlo(match.SP):
        raise InputError(
            "card values need compiled strategies without Monte Carlo search (random, "
            "greedy, heuristic or a compiled plug-in); this run's seats are "
            f"{match.strategies[0]!r} and {match.strategies[1]!r}")


def threshold(rate: float) -> int:
    """A decision is forked when its 32-bit draw is below this."""
    if not 0 < rate <= 1:
        raise InputError(f"`fork_rate` must be in (0, 1]; got {rate}")
    return min(2**32, int(round(rate * 2**32)))


def play_forks(match: Match, seeds: np.ndarray, first: np.ndarray, ids: np.ndarray,
               rate: float) -> tuple[np.ndarray, np.ndarray]:
    """(G: the games' result rows, exactly as play_batch gives them; F: one row per fork,
    engine/forks.py columns) for the plan `seeds, first, ids`."""
    check_forkable(match)
    t = threshold(rate)
    n = len(seeds)
    G = np.zeros((n, G_SIZE), dtype=np.int64)
    parts = []
    counts = np.zeros(2, dtype=np.int64)
    cap = BUFFER_ROWS
    done = 0
    SP = match.SP.copy()
    while done < n:
        F = np.zeros((cap, drv.F_SIZE), dtype=np.int64)
        counts[0] = 0
        nxt = drv.play_batch_forks(match.D, match.R, SP, match.P, seeds, first, ids, G, F,
                                   t, done, counts)
        if counts[1]:
            raise RuntimeError("a game had more than "
                               f"{drv.MAX_FORKS_PER_GAME} take-or-not decisions")
        parts.append(F[:counts[0]].copy())
        done = nxt
    F = np.concatenate(parts) if parts else np.zeros((0, drv.F_SIZE), dtype=np.int64)
    if F.shape[0] and not F[:, drv.F_HIT].all():
        raise RuntimeError("a fork did not reach its decision again: the replay diverged")
    return G, F


def forks_table(F: np.ndarray, pairing: str, tribe_symbol: np.ndarray) -> pa.Table:
    """The `forks` table of a chunk from the driver's rows."""
    f = drv
    def names(codes, labels):
        return pa.DictionaryArray.from_arrays(pa.array(np.asarray(codes, np.int8), pa.int8()),
                                              pa.array(list(labels), pa.string()))

    ids = F[:, f.F_GAME]
    cards = F[:, f.F_CARD]
    cols = {
        "game_id": pa.array(ids, I64),
        "pair_id": pa.array(pair_ids(ids, pairing), I64),
        "decision": pa.array(F[:, f.F_DECISION].astype(np.int16), I16),
        "round": pa.array(F[:, f.F_ROUND].astype(np.int8), I8),
        "player": pa.array(F[:, f.F_PLAYER].astype(np.int8), I8),
        "card_id": pa.array(cards.astype(np.int16), I16),
        "symbol": names(tribe_symbol[cards] if len(cards) else cards, SYMBOL_NAMES),
        "source": names(F[:, f.F_SOURCE], SOURCE_NAMES),
        "options": pa.array(F[:, f.F_N_OPTIONS].astype(np.int16), I16),
        "result_take": pa.array((F[:, f.F_POINTS_TAKE] / 2).astype(np.float32), pa.float32()),
        "result_alt": pa.array((F[:, f.F_POINTS_ALT] / 2).astype(np.float32), pa.float32()),
        "margin_take": pa.array(F[:, f.F_MARGIN_TAKE].astype(np.int16), I16),
        "margin_alt": pa.array(F[:, f.F_MARGIN_ALT].astype(np.int16), I16),
        "rounds_take": pa.array(F[:, f.F_ROUNDS_TAKE].astype(np.int8), I8),
        "rounds_alt": pa.array(F[:, f.F_ROUNDS_ALT].astype(np.int8), I8),
    }
    return pa.Table.from_arrays([cols[x.name] for x in FORKS_SCHEMA], schema=FORKS_SCHEMA)
