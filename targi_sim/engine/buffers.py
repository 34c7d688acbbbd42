"""Allocate the engine's log arrays for a given number of games."""

from __future__ import annotations

import numpy as np

from .records import (
    LC_SIZE,
    MAX_ACQ_ROWS,
    MAX_OFFER_ROWS,
    MAX_RAID_ROWS,
    MAX_ROUND_ROWS,
    RA_SIZE,
    RD_SIZE,
    RO_SIZE,
    RR_SIZE,
    RT_SIZE,
)

# Typical rows per game (measured on random and scripted play) used to size
# batch buffers; a batch that runs out of room stops early and is resumed.
TYPICAL_ACQ_ROWS = 24
TYPICAL_OFFER_ROWS = 60


def make_logs(n_games: int, *, exact: bool = False, trace_rows: int = 0) -> tuple:
    """Log arrays with room for n_games (worst case if `exact`, else typical sizes)."""
    acq = MAX_ACQ_ROWS if exact else TYPICAL_ACQ_ROWS
    offers = MAX_OFFER_ROWS if exact else TYPICAL_OFFER_ROWS
    rows = max(n_games, 1)
    return (
        np.zeros((rows * MAX_ROUND_ROWS, RR_SIZE), dtype=np.int32),
        np.zeros((max(rows * acq, MAX_ACQ_ROWS), RA_SIZE), dtype=np.int32),
        np.zeros((max(rows * offers, MAX_OFFER_ROWS), RO_SIZE), dtype=np.int32),
        np.zeros((rows * MAX_RAID_ROWS, RD_SIZE), dtype=np.int32),
        np.zeros((trace_rows, RT_SIZE), dtype=np.int32),
        np.zeros(LC_SIZE, dtype=np.int64),
    )
