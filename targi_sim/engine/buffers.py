"""Allocate the engine's flat log array and read its tables back as 2-D views."""

from __future__ import annotations

import numpy as np

from targi_sim.engine.logs import (
    H_CAP,
    H_OFF,
    H_SIZE,
    H_USED,
    H_WIDTH,
    MAX_ACQ_ROWS,
    MAX_GOODS_ROWS,
    MAX_OFFER_ROWS,
    MAX_RAID_ROWS,
    MAX_ROUND_ROWS,
    N_TABLES,
    RA_SIZE,
    RD_SIZE,
    RG_SIZE,
    RO_SIZE,
    RR_SIZE,
    RT_SIZE,
    T_ACQ,
    T_GOODS,
    T_OFFERS,
    T_RAIDS,
    T_ROUNDS,
    T_TRACE,
)

WIDTHS = {T_ROUNDS: RR_SIZE, T_ACQ: RA_SIZE, T_OFFERS: RO_SIZE, T_RAIDS: RD_SIZE,
          T_TRACE: RT_SIZE, T_GOODS: RG_SIZE}
# Typical rows per game (random and scripted play) used to size batch logs; a
# batch that runs out of room stops before the next game and is resumed.
TYPICAL_ACQ_ROWS = 24
TYPICAL_OFFER_ROWS = 60
TYPICAL_GOODS_ROWS = 24


def make_logs(n_games: int, *, exact: bool = False, trace_rows: int = 0) -> np.ndarray:
    """A log with room for n_games (worst case if `exact`, else typical sizes).

    n_games = 0 gives a log with every table disabled (results only).
    """
    acq = MAX_ACQ_ROWS if exact else TYPICAL_ACQ_ROWS
    offers = MAX_OFFER_ROWS if exact else TYPICAL_OFFER_ROWS
    goods = MAX_GOODS_ROWS if exact else TYPICAL_GOODS_ROWS
    caps = {
        T_ROUNDS: n_games * MAX_ROUND_ROWS,
        T_ACQ: max(n_games * acq, MAX_ACQ_ROWS) if n_games else 0,
        T_OFFERS: max(n_games * offers, MAX_OFFER_ROWS) if n_games else 0,
        T_RAIDS: n_games * MAX_RAID_ROWS,
        T_TRACE: trace_rows,
        T_GOODS: max(n_games * goods, MAX_GOODS_ROWS) if n_games else 0,
    }
    total = H_SIZE + sum(caps[t] * WIDTHS[t] for t in range(N_TABLES))
    if total >= 2**31:
        raise ValueError(f"log for {n_games} games is too large; use smaller chunks")
    L = np.zeros(total, dtype=np.int32)
    off = H_SIZE
    for t in range(N_TABLES):
        L[H_CAP + t] = caps[t]
        L[H_OFF + t] = off
        L[H_WIDTH + t] = WIDTHS[t]
        off += caps[t] * WIDTHS[t]
    return L


def table(L: np.ndarray, t: int) -> np.ndarray:
    """The rows written so far to table t, as a 2-D view."""
    off, used, width = int(L[H_OFF + t]), int(L[H_USED + t]), int(L[H_WIDTH + t])
    return L[off:off + used * width].reshape(used, width)


def reset(L: np.ndarray) -> None:
    """Forget the rows written (after they have been read)."""
    L[H_USED:H_USED + N_TABLES] = 0
