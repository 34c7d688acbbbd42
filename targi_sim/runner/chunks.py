"""Play one chunk of a run and write its tables: the unit of parallel work.

A chunk's files are a pure function of (run configuration, chunk number): the
games are `game_plan(n, seed, start=chunk * chunk_size)` and nothing else feeds
in, so any worker, on any machine, in any order, writes the same bytes.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..api import batch_function, game_plan
from ..atomic import atomic_write
from ..engine import layout as lay
from ..engine.buffers import make_logs, reset, table
from ..engine.records import G_SIZE, H_OVERFLOW
from .config import RunSpec
from .rundir import RunDir
from .tables import LOGS, games_table, log_table

LOG_GAMES = 10_000  # games whose logs are buffered between flushes
COMPRESSION = "zstd"


def play_tables(spec: RunSpec, chunk: int) -> dict[str, pa.Table]:
    """The six tables of one chunk, in game-id order."""
    start, n = spec.chunk_games(chunk)
    seeds, first, ids = game_plan(n, spec.seed, spec.paired, start=start)
    m = spec.match
    G = np.zeros((n, G_SIZE), dtype=np.int64)
    L = make_logs(min(n, LOG_GAMES))
    S = np.zeros(lay.S_SIZE, dtype=np.int64)
    play = batch_function(m.SP)
    pieces: dict[str, list[np.ndarray]] = {name: [] for name, _, _ in LOGS}
    done = 0
    while done < n:
        nxt = play(m.D, m.R, m.SP.copy(), seeds, first, ids, G, L, done, S)
        if L[H_OVERFLOW]:
            raise RuntimeError("engine log overflow: a game produced more rows than allowed")
        for name, t, _ in LOGS:
            pieces[name].append(table(L, t).copy())
        reset(L)
        done = nxt
    tables = {"games": games_table(G, seeds, spec.paired, m.strategies)}
    for name, _, columns in LOGS:
        rows = np.concatenate(pieces[name]) if pieces[name] else np.zeros((0, len(columns)))
        tables[name] = log_table(name, rows, columns, spec.tribe_symbol)
    return tables


def write_table(tbl: pa.Table, path) -> int:
    """Write one Parquet file atomically; returns its size in bytes."""
    atomic_write(path, lambda tmp: pq.write_table(tbl, tmp, compression=COMPRESSION))
    return path.stat().st_size


def run_chunk(spec: RunSpec, chunk: int) -> dict[str, Any]:
    """Play and write chunk `chunk`, then its completion marker; returns the marker."""
    t0 = time.perf_counter()
    tables = play_tables(spec, chunk)
    t1 = time.perf_counter()
    rd = RunDir(spec.out)
    sizes = {name: write_table(tbl, rd.table_path(name, chunk)) for name, tbl in tables.items()}
    t2 = time.perf_counter()
    start, n = spec.chunk_games(chunk)
    marker = {
        "chunk": chunk,
        "first_game": start,
        "games": n,
        "config_hash": spec.config_hash,
        "rows": {name: tbl.num_rows for name, tbl in tables.items()},
        "bytes": sizes,
        "seconds_play": round(t1 - t0, 4),
        "seconds_write": round(t2 - t1, 4),
    }
    rd.write_marker(chunk, marker)
    return marker
