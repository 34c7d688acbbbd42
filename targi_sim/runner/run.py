"""A run directory for analysts: `open_run(path)` and `run(games=...)` give a `Run`.

Why: a run's games are only those in the chunks whose files match their completion
markers (runner/markers.py). Globbing `runs/x/games/*.parquet` by hand counts a
stopped run's 200,000 games as if they were the 400,000 asked for, reads a stray or
truncated file, and reads a folder named `runs/q?` as a pattern. A Run reads exactly
the verified part files (runner/reading.py, as `targi-sim report` does), in DuckDB
(`run.sql`) or Polars (`run.table`). Examples: docs/analysis.md.
"""

from __future__ import annotations

import operator
import os
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from targi_sim.runner.reading import (
    TABLES,
    IncompleteRunError,
    ReportError,
    RunInfo,
    VerifiedChunks,
    read_run_info,
    read_verified_chunks,
)

if TYPE_CHECKING:
    import duckdb
    import polars as pl

    from targi_sim.runner.queries import Analyses

CARDS = "cards"


class IncompleteRunWarning(UserWarning):
    """open_run(..., allow_incomplete=True) of a run whose games are not all there."""


class Run:
    """An opened run directory: its manifest, verified game count and tables.

    Tables: games, rounds, acquisitions, offers, raids, goods (docs/data-model.md)
    and cards; `sql` also has the views of analyses/views.sql (player_games).
    """

    def __init__(self, info: RunInfo, games: int, complete: bool) -> None:
        # absolute paths now: a later os.chdir must not point the run at other files
        self._info = replace(info, path=info.path.resolve(), files={
            table: [p.resolve() for p in paths] for table, paths in info.files.items()})
        self.path: Path = info.path
        self.manifest: dict[str, Any] = info.manifest
        self.games = games
        self.complete = complete
        self._db: Analyses | None = None
        self._closed = False

    @property
    def tables(self) -> tuple[str, ...]:
        """The names `table` and `sql` know (besides the analyses/ views)."""
        return (*TABLES, CARDS)

    def sql(self, query: str, params: dict[str, Any] | list[Any] | None = None
            ) -> duckdb.DuckDBPyRelation:
        """A DuckDB relation of `query` over the run's tables (call .pl(), .df() or
        .fetchall() on it). DuckDB is connected on first use and kept until `close`."""
        return self._connection().sql(query, params=params)

    def table(self, name: str) -> pl.LazyFrame:
        """A Polars scan of one table over exactly the verified part files."""
        import polars as pl

        from targi_sim.runner.queries import ADDED_COLUMNS

        self._check_open()
        if name == CARDS:
            paths = [self._info.path / "cards.parquet"]
        elif name in TABLES:
            paths = self._info.files[name]
        else:
            raise ReportError(f"run {str(self.path)!r} has no table {name!r}; "
                              f"its tables are {', '.join(self.tables)}")
        # glob=False: a folder named `runs/q?` is that folder; no hive columns from `seed=7`
        frame = pl.scan_parquet(paths, glob=False,
                                hive_partitioning=False)
        have = frame.collect_schema().names()
        added = [pl.sql_expr(value).alias(column) for t, column, value in ADDED_COLUMNS
                 if t == name and column not in have]  # older runs read as the report does
        return frame.with_columns(added) if added else frame

    def close(self) -> None:
        """Close the DuckDB connection (relations from `sql` stop working)."""
        if self._db is not None:
            self._db.close()
            self._db = None
        self._closed = True

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "complete" if self.complete else "incomplete"
        return f"Run({str(self.path)!r}, {self.games:,} games, {state})"

    def _check_open(self) -> None:
        if self._closed:
            raise ReportError(f"run {str(self.path)!r} is closed; open it again with open_run")

    def _connection(self) -> duckdb.DuckDBPyConnection:
        self._check_open()
        if self._db is None:
            from targi_sim.runner.queries import Analyses

            # the report's views (same files, same columns); limits from the machine
            self._db = Analyses(self._info)
        return self._db.con


def open_run(path: str | Path, *, allow_incomplete: bool = False) -> Run:
    """Open a run directory for analysis, reading only the games its markers vouch for.

    A run that is not complete (stopped early, a chunk's files missing or changed) is
    refused with ReportError (one line, as `targi-sim report` refuses it) unless
    `allow_incomplete`: then the Run has the verified chunks' games, `complete` is
    False, and an IncompleteRunWarning says how many of how many games are there.
    """
    try:
        info = read_run_info(path)  # exactly the report's checks
    except IncompleteRunError as exc:
        if not allow_incomplete:
            raise IncompleteRunError(f"{exc}; or open_run(..., allow_incomplete=True) to "
                                     "read the games that are there") from None
    else:
        return Run(info, int(info.manifest["config"]["games"]), complete=True)
    verified = read_verified_chunks(path)
    warnings.warn(_incomplete_note(verified), IncompleteRunWarning, stacklevel=2)
    return Run(verified.info, verified.games, complete=False)


def _incomplete_note(verified: VerifiedChunks) -> str:
    missing = verified.missing
    why = f"; {missing[0]}" if missing else " (its manifest says it is incomplete)"
    if len(missing) > 1:
        why += f" (and {len(missing) - 1} more chunks)"
    return (f"run {str(verified.info.path)!r} is incomplete: reading the {verified.games:,} "
            f"of {verified.games_planned:,} games in its verified chunks{why}")


# RunConfig fields and execute() options that `run` passes on from **options
_CONFIG_OPTIONS = ("chunk_size", "pairing", "paired")
_EXECUTE_OPTIONS = ("backend", "scheduler", "force")


def run(games: int, *, p0: str = "balanced", p1: str = "balanced", deck: str = "base",
        rules: str = "default", seed: int = 0, out: str | Path, jobs: int | None = None,
        progress: bool = False, **options: Any) -> Run:
    """Play a run into `out` exactly as `targi-sim run` does, then `open_run` it.

    Rerunning the same call resumes an interrupted run. jobs=None: one worker per CPU
    (at most one per chunk). options: chunk_size, pairing, paired (RunConfig) and
    backend, scheduler, force (runner.execute). Bad input raises the library's errors
    (UsageError, DataError, InputError, ValueError), each one line.
    """
    from targi_sim.runner.config import RunConfig, resolve_run
    from targi_sim.runner.dispatch import execute

    games = operator.index(games)  # TypeError for 1e6 or "1e6": a whole number
    unknown = sorted(set(options) - {*_CONFIG_OPTIONS, *_EXECUTE_OPTIONS})
    if unknown:
        known = ", ".join((*_CONFIG_OPTIONS, *_EXECUTE_OPTIONS))
        raise TypeError(f"run() got unknown option(s) {', '.join(unknown)}; known: {known}")
    config = RunConfig(games=games, seed=seed, p0=p0, p1=p1, deck=deck, rules=rules,
                       **{k: v for k, v in options.items() if k in _CONFIG_OPTIONS})
    resolved = resolve_run(config)
    n_chunks = -(-games // resolved.chunk_size)
    n_jobs = jobs if jobs is not None else max(1, min(os.cpu_count() or 1, n_chunks))
    call = ", ".join([f"games={games}", f"p0={p0!r}", f"p1={p1!r}", f"deck={deck!r}",
                      f"rules={rules!r}", f"seed={seed}", f"out={str(out)!r}",
                      *(f"{k}={v!r}" for k, v in sorted(options.items()))])
    execute_options = {k: v for k, v in options.items() if k in _EXECUTE_OPTIONS}
    with _progress_bar(progress, f"{p0} vs {p1}", games) as advance:
        execute(resolved, out, jobs=n_jobs, command=[f"targi_sim.run({call})"],
                progress=advance, **execute_options)
    return open_run(out)


@contextmanager
def _progress_bar(show: bool, title: str, total: int
                  ) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar on stderr when `show`; yields the `progress(n)` callback."""
    if not show:
        yield None
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import Progress

    with Progress(console=Console(stderr=True)) as bar:
        task = bar.add_task(escape(title), total=total)
        yield lambda n: bar.advance(task, n)
