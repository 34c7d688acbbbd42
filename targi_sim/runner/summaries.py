"""Chunk summary files: each chunk's sufficient statistics (runner/sums.py), vouched for
by its completion marker like its part files, and read instead of the rows.

Why: a report that rescans the rows costs more than the run and its memory grows with
the games. The worker writes `summaries/part-NNNNNN.parquet` right after the chunk's six
part files, summed from the arrays it holds (sums_arrays.py); the marker's `summary`
entry records its size, sha256, format version, the VP rates the raid swings were
valued at and the classes of identical cards its card rows pool. A reader uses a
summary only when all of that matches; a summary deleted, truncated, edited, of an
older version, of other classes, or missing (a run written before summaries existed,
or with TARGI_SIM_NO_SUMMARIES set) is computed again from that chunk's verified rows
(the SQL reference, sums_sql.py), never silently used, and written back (atomically,
the marker last) when the run directory is not locked by a writer.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from targi_sim._utils.atomic import atomic_write
from targi_sim.errors import InputError
from targi_sim.game.classes import CardClasses
from targi_sim.runner.classes import run_classes
from targi_sim.runner.layout import RunDir
from targi_sim.runner.markers import file_matches, file_sha256
from targi_sim.runner.reading import TABLES, RunInfo, read_parquet_file
from targi_sim.runner.sums import VERSION, Sums, long_of, merge

SUMMARY = "summary"  # the marker's entry
OFF = "TARGI_SIM_NO_SUMMARIES"  # set (to anything but "" or "0"): workers write none


def enabled() -> bool:
    """False when the environment turns the worker's summaries off (benchmarks compare
    a run's speed with and without them; the report then sums the rows once)."""
    return os.environ.get(OFF, "") in ("", "0")


def _class_list(classes: CardClasses) -> list[list[int]]:
    return [list(m) for m in classes.members]


def compute(root: Path, chunk: int, goods_vp: float, gold_vp: float, classes: CardClasses,
            threads: int | None = None) -> pl.DataFrame:
    """One chunk's summary (long form) from its part files (checked by the caller), by
    the SQL reference (the worker sums the same from its arrays: sums_arrays.py)."""
    from targi_sim.runner.queries import Analyses
    from targi_sim.runner.sums_sql import summarise

    rd = RunDir(root)
    info = RunInfo(root, {}, {t: [rd.table_path(t, chunk)] for t in TABLES})
    with Analyses(info, threads=threads) as a:
        ends = a.con.sql("SELECT pair_id FROM games WHERE game_id = (SELECT min(game_id) "
                         "FROM games) OR game_id = (SELECT max(game_id) FROM games)").fetchall()
        wide, open_rows = summarise(a, [int(r[0]) for r in ends], goods_vp, gold_vp, classes)
    return long_of(wide, open_rows)


def write(rd: RunDir, chunk: int, long: pl.DataFrame, goods_vp: float, gold_vp: float,
          classes: CardClasses) -> dict[str, Any]:
    """Write a chunk's summary file atomically; returns the marker's `summary` entry."""
    path = rd.summary_path(chunk)
    path.parent.mkdir(parents=True, exist_ok=True)
    table = long.to_arrow()
    atomic_write(path, lambda p: pq.write_table(table, p, compression="zstd"))
    return {"bytes": path.stat().st_size, "sha256": file_sha256(path), "version": VERSION,
            "goods_vp": goods_vp, "gold_vp": gold_vp, "classes": _class_list(classes)}


def entry_matches(rd: RunDir, chunk: int, entry: Any, goods_vp: float, gold_vp: float,
                  classes: CardClasses) -> bool:
    """True when the marker's summary entry is current and its file matches it."""
    if not (isinstance(entry, dict) and entry.get("version") == VERSION
            and entry.get("goods_vp") == goods_vp and entry.get("gold_vp") == gold_vp
            and entry.get("classes") == _class_list(classes)):
        return False
    return file_matches(rd.summary_path(chunk), entry)


def chunk_summaries(run: RunInfo, goods_vp: float, gold_vp: float,
                    classes: CardClasses | None = None, *, save: bool = True,
                    progress: Callable[[str], None] | None = None) -> Iterator[pl.DataFrame]:
    """Every verified chunk's summary of `run` (its files were checked by reading.py), in
    chunk order: the stored file when its marker vouches for it, else computed from the
    chunk's rows (`progress` says so) and, when `save` and `classes` are the run deck's
    (the default), written back with the marker updated."""
    own = run_classes(run)
    classes = classes or own
    save = save and classes.members == own.members
    rd = RunDir(run.path)
    chunks = [int(p.stem.split("-")[1]) for p in run.files.get("games", [])]
    for chunk in chunks:
        marker = rd.read_marker(chunk)
        if entry_matches(rd, chunk, marker.get(SUMMARY), goods_vp, gold_vp, classes):
            yield read_parquet_file(rd.summary_path(chunk))
            continue
        if progress is not None:
            progress(f"summarising chunk {chunk + 1} of {len(chunks)} from its rows (missing, "
                     "changed, from an older version or of other card classes)")
        long = compute(run.path, chunk, goods_vp, gold_vp, classes)
        if save:
            _save(rd, chunk, marker, long, goods_vp, gold_vp, classes)
        yield long


def _save(rd: RunDir, chunk: int, marker: dict[str, Any], long: pl.DataFrame,
          goods_vp: float, gold_vp: float, classes: CardClasses) -> None:
    """Write a recomputed summary and its marker entry, unless a run is writing into the
    directory (its lock is held) or the folder is read-only: then it is used unsaved."""
    with contextlib.suppress(InputError, OSError), rd.locked():
        if rd.read_marker(chunk) != marker:  # the chunk was replayed meanwhile
            return
        marker[SUMMARY] = write(rd, chunk, long, goods_vp, gold_vp, classes)
        rd.write_marker(chunk, marker)


def run_sums(run: RunInfo, goods_vp: float, gold_vp: float,
             classes: CardClasses | None = None, *, save: bool = True,
             progress: Callable[[str], None] | None = None) -> Sums:
    """The merged sums of a complete (or verified part of a) run from its chunk summaries;
    `classes`: those the card rows pool, by default the run deck's."""
    return merge(chunk_summaries(run, goods_vp, gold_vp, classes, save=save,
                                 progress=progress))


def row_sums(run: RunInfo, goods_vp: float, gold_vp: float,
             classes: CardClasses | None = None) -> Sums:
    """The same sums straight from all the run's rows at once (the raw-row path; tests
    compare the two)."""
    from targi_sim.runner.queries import Analyses
    from targi_sim.runner.sums_sql import summarise

    with Analyses(run) as a:
        wide, _ = summarise(a, (), goods_vp, gold_vp, classes or run_classes(run))
    return merge([long_of(wide, {})])
