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

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl

from targi_sim.game.classes import CardClasses
from targi_sim.runner.classes import run_classes
from targi_sim.runner.layout import RunDir
from targi_sim.runner.markers import file_matches, write_vouched_parquet
from targi_sim.runner.reading import RunInfo, chunk_info
from targi_sim.runner.recompute import Recomputing, vouched_files
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

    with Analyses(chunk_info(root, chunk), threads=threads) as a:
        ends = a.con.sql("SELECT pair_id FROM games WHERE game_id = (SELECT min(game_id) "
                         "FROM games) OR game_id = (SELECT max(game_id) FROM games)").fetchall()
        wide, open_rows = summarise(a, [int(r[0]) for r in ends], goods_vp, gold_vp, classes)
    return long_of(wide, open_rows)


def write(rd: RunDir, chunk: int, long: pl.DataFrame, goods_vp: float, gold_vp: float,
          classes: CardClasses) -> dict[str, Any]:
    """Write a chunk's summary file atomically; returns the marker's `summary` entry."""
    written = write_vouched_parquet(rd.summary_path(chunk), long.to_arrow(),
                                    compression="zstd")
    return {**written, "version": VERSION, "goods_vp": goods_vp, "gold_vp": gold_vp,
            "classes": _class_list(classes)}


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
    note = Recomputing("summarising", "missing, changed, from an older version or of other "
                       "card classes", len(run.chunks), progress)
    yield from vouched_files(
        run, SUMMARY,
        lambda chunk, entry: entry_matches(rd, chunk, entry, goods_vp, gold_vp, classes),
        rd.summary_path, lambda chunk: compute(run.path, chunk, goods_vp, gold_vp, classes),
        lambda chunk, long: write(rd, chunk, long, goods_vp, gold_vp, classes), save, note)


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
