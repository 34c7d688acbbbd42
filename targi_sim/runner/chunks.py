"""Play one chunk of a run and write its tables: the unit of parallel work.

A chunk's files are a pure function of (run configuration, chunk number): the
games are `pairing.plan(n, seed, pairing, start=chunk * chunk_size)` and nothing else feeds
in, so any worker, on any machine, in any order, writes the same bytes.

Memory stays bounded by the log buffer, not the chunk: the engine fills logs
for up to LOG_GAMES games, those rows are appended to the chunk's six Parquet
files as one row group each, and the buffer is reused. The files are written
under temporary names and renamed into place only when all six are whole; then the
chunk's summary (its sufficient statistics, runner/summaries.py), summed from each log
buffer before it is reused (sums_arrays.py), is written, and its game digest (per-game
card masks for the paired comparisons, runner/digests.py); the completion marker comes
last and records each file's size and sha256.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from targi_sim._utils.atomic import temp_path
from targi_sim.engine.logs import G_SIZE, H_OVERFLOW
from targi_sim.game.classes import card_classes
from targi_sim.game.vp_rates import rates_from_deck
from targi_sim.play.games import play_plan
from targi_sim.play.pairing import plan
from targi_sim.runner.layout import RunDir

from ..engine import layout as lay
from ..engine.buffers import make_logs, reset, table
from . import digests, summaries
from .config import RunSpec
from .markers import file_sha256
from .sums_arrays import ChunkSummer, RunShape
from .tables import LOGS, SCHEMAS, TABLES, games_table, log_table

LOG_GAMES = 5_000  # games whose logs are buffered between flushes (one row group)
COMPRESSION = "zstd"


def play_batches(spec: RunSpec, chunk: int, summer: ChunkSummer | None = None
                 ) -> Iterator[dict[str, pa.Table]]:
    """The chunk's tables, a slice of games at a time, in game-id order; `summer` adds
    each slice's arrays to the chunk's summary."""
    start, n = spec.chunk_games(chunk)
    seeds, first, ids = plan(n, spec.seed, spec.pairing, start=start)
    m = spec.match
    G = np.zeros((n, G_SIZE), dtype=np.int64)
    L = make_logs(min(n, LOG_GAMES))
    S = np.zeros(lay.S_SIZE, dtype=np.int64)
    done = 0
    while done < n:
        nxt = play_plan(m, seeds, first, ids, G, L, done, S)
        if L[H_OVERFLOW]:
            raise RuntimeError("engine log overflow: a game produced more rows than allowed")
        if summer is not None:  # first, while the engine's rows may still be in cache
            summer.add(G[done:nxt], {name: table(L, t) for name, t, _ in LOGS})
        tables = {"games": games_table(G[done:nxt], seeds[done:nxt], spec.pairing,
                                       m.strategies)}
        for name, t, columns in LOGS:
            tables[name] = log_table(name, table(L, t), columns, spec.tribe_symbol)
        yield tables
        reset(L)
        done = nxt


def open_writer(path: Path, schema: pa.Schema) -> pq.ParquetWriter:
    return pq.ParquetWriter(path, schema, compression=COMPRESSION)


class ChunkFiles:
    """The six temporary Parquet files of a chunk, renamed into place together."""

    def __init__(self, rd: RunDir, chunk: int) -> None:
        self.final = {name: rd.table_path(name, chunk) for name in TABLES}
        self.tmp = {name: temp_path(p) for name, p in self.final.items()}
        self.writers: dict[str, pq.ParquetWriter] = {}
        self.rows = dict.fromkeys(TABLES, 0)

    def append(self, tables: dict[str, pa.Table]) -> None:
        for name, tbl in tables.items():
            if name not in self.writers:
                self.writers[name] = open_writer(self.tmp[name], SCHEMAS[name])
            self.writers[name].write_table(tbl)
            self.rows[name] += tbl.num_rows

    def commit(self) -> tuple[dict[str, int], dict[str, str]]:
        """Close every file and rename it into place; returns their sizes and sha256s
        (hashed right after closing, while the bytes are still in the page cache)."""
        for name in TABLES:
            if name not in self.writers:  # a chunk without rows still gets a valid file
                self.writers[name] = open_writer(self.tmp[name], SCHEMAS[name])
            self.writers.pop(name).close()
        sizes = {name: self.tmp[name].stat().st_size for name in TABLES}
        sums = {name: file_sha256(self.tmp[name]) for name in TABLES}
        for name in TABLES:
            os.replace(self.tmp[name], self.final[name])
        return sizes, sums

    def abort(self) -> None:
        for w in self.writers.values():
            with contextlib.suppress(Exception):  # already failing; the temp file goes anyway
                w.close()
        for p in self.tmp.values():
            if p.exists():
                p.unlink()


def run_shape(spec: RunSpec) -> RunShape:
    """What the chunk summaries need of the run besides its rows: raid swings are valued
    at the deck's VP rates and cards pooled into its classes, as the report does."""
    deck = spec.match.deck
    rates = rates_from_deck(deck)
    return RunShape(strategies=spec.match.strategies, pairing=spec.pairing,
                    n_border=len(deck.border_names), n_goods=len(deck.goods_names),
                    tribe_symbol=spec.tribe_symbol, classes=card_classes(deck),
                    goods_vp=rates.goods_vp, gold_vp=rates.gold_vp)


def warm_summaries(spec: RunSpec) -> None:
    """Compile (or load) the chunk-summary kernels here, on one game: on a cold compile
    cache they are compiled once, under the caller's status line, instead of by every
    worker at once inside the first chunk (where it looked like slow play)."""
    if not summaries.enabled():
        return
    one = replace(spec, games=1, chunk_size=1)
    summer = ChunkSummer(run_shape(one), 0)
    for _ in play_batches(one, 0, summer):
        pass
    summer.long()


def run_chunk(spec: RunSpec, chunk: int) -> dict[str, Any]:
    """Play and write chunk `chunk`, then its completion marker; returns the marker."""
    t0, cpu0 = time.perf_counter(), time.process_time()
    rd = RunDir(spec.out)
    files = ChunkFiles(rd, chunk)
    start, n = spec.chunk_games(chunk)
    shape = run_shape(spec)
    summer = ChunkSummer(shape, start) if summaries.enabled() else None
    try:
        for tables in play_batches(spec, chunk, summer):
            files.append(tables)
        sizes, sums = files.commit()
    except BaseException:
        files.abort()
        raise
    marker = {
        "chunk": chunk,
        "first_game": start,
        "games": n,
        "config_hash": spec.config_hash,
        "rows": dict(files.rows),
        "bytes": sizes,
        "sha256": sums,
    }
    if summer is not None:
        cpu = time.process_time()
        marker["summary"] = summaries.write(rd, chunk, summer.long(), shape.goods_vp,
                                            shape.gold_vp, shape.classes)
        marker[digests.DIGEST] = digests.write(rd, chunk, summer.digest())
        marker["summary_cpu_seconds"] = round(summer.cpu_seconds + time.process_time() - cpu, 4)
    marker["seconds"] = round(time.perf_counter() - t0, 4)
    marker["cpu_seconds"] = round(time.process_time() - cpu0, 4)
    rd.write_marker(chunk, marker)
    return marker
