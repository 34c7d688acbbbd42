"""Running the SQL in `analyses/` with DuckDB over a run's Parquet files.

Why DuckDB: it streams the Parquet parts and aggregates them in parallel without
loading a run into memory; a 1e6-game run has ~24M `rounds` rows. Each table is a
view over `read_parquet([...])` of exactly the part files the run's completion
markers vouch for (runner/reading.py checked them), so the SQL files name tables
exactly as docs/data-model.md does, and a stray file in the folder is never read.

DuckDB reads every path it is given as a glob pattern and a `key=value` folder as a
hive partition column, so a run folder named `runs/q?`, `runs/deck[v2]` or
`runs/seed=7` would read other runs' files or replace a column: each path is passed
with its glob characters escaped, and hive partitioning is off.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from targi_sim._utils.paths import analyses_dir
from targi_sim.runner.reading import TABLES, ReportError, RunInfo


def read_sql(name: str) -> str:
    """The text of `analyses/<name>.sql` (installed or in the checkout)."""
    path = analyses_dir() / f"{name}.sql"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        raise ReportError(f"analysis {name!r} not found in {analyses_dir()}") from None


_GLOB = {"*": "[*]", "?": "[?]", "[": "[[]"}  # DuckDB's glob characters, each as a class


def literal_path(path: Path) -> str:
    """A SQL string literal DuckDB reads as exactly this file (not as a pattern)."""
    text = "".join(_GLOB.get(ch, ch) for ch in str(path.resolve()))
    return "'" + text.replace("'", "''") + "'"


def parquet_scan(paths: list[Path]) -> str:
    """`read_parquet([...])` of exactly these files, without hive partition columns."""
    listed = ", ".join(literal_path(p) for p in paths)
    return f"read_parquet([{listed}], hive_partitioning = false)"


# Columns added to the run tables after runs were first written: (table, column, the
# value an older run's files stand for). Older run directories still report.
ADDED_COLUMNS = (
    ("raids", "gold", "CASE WHEN paid = 'gold' THEN amount ELSE 0 END"),
    ("rounds", "marker_moved_1", "-1"),
    ("rounds", "marker_moved_2", "-1"),
)


def machine_threads() -> int:
    """The CPUs this process may run on (its affinity where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


MACHINE = "machine"  # Analyses' default memory limit: MEMORY_SHARE of the physical memory
MEMORY_SHARE = 0.5


def machine_memory_limit() -> str | None:
    """DuckDB's memory limit from the machine: MEMORY_SHARE of its physical memory (in
    MiB), or None (DuckDB's own default, 80%) where the OS does not say. Past the limit
    DuckDB spills its aggregations to temporary files instead of growing."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    return f"{max(256, int(total * MEMORY_SHARE) >> 20)}MiB" if total > 0 else None


class Analyses:
    """A DuckDB connection with the run's tables as views; `frame(name)` runs a SQL file.

    `threads` defaults to the CPUs this process may use and `memory_limit` to a share of
    the machine's memory (machine_memory_limit); None leaves DuckDB's own default."""

    def __init__(self, run: RunInfo, *, threads: int | None = None,
                 memory_limit: str | None = MACHINE) -> None:
        self.run_dir = run.path.resolve()
        self.con = duckdb.connect(":memory:")
        self.con.execute(f"SET threads = {int(threads or machine_threads())}")
        if memory_limit == MACHINE:
            memory_limit = machine_memory_limit()
        if memory_limit is not None:
            self.con.execute(f"SET memory_limit = '{memory_limit}'")
        self.con.execute("SET preserve_insertion_order = false")
        self.con.execute("SET enable_progress_bar = false")
        for table in TABLES:
            if not run.files.get(table):
                raise ReportError(f"run {str(run.path)!r} lists no {table} files")
            scan = parquet_scan(run.files[table])
            have = {row[0] for row in self.con.execute(f"DESCRIBE SELECT * FROM {scan}")
                    .fetchall()}
            extra = "".join(f", {value} AS {column}" for t, column, value in ADDED_COLUMNS
                            if t == table and column not in have)
            self.con.execute(f"CREATE VIEW {table} AS SELECT *{extra} FROM {scan}")
        cards = parquet_scan([run.path / "cards.parquet"])
        self.con.execute(f"CREATE VIEW cards AS SELECT * FROM {cards}")
        self.script("views")

    def script(self, name: str) -> None:
        """Run a SQL file for its side effects (views, temporary tables)."""
        self.con.execute(read_sql(name))

    def frame(self, name: str, **params: Any) -> pl.DataFrame:
        """Run `analyses/<name>.sql` (named parameters as `$name`) into a polars frame."""
        sql = read_sql(name)
        used = {k: v for k, v in params.items() if f"${k}" in sql}
        try:
            df = pl.from_arrow(self.con.sql(sql, params=used or None).to_arrow_table())
        except duckdb.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ReportError(f"analysis {name!r} failed on {self.run_dir}: {first}") from None
        assert isinstance(df, pl.DataFrame)
        # SUMs of integers come back as DECIMAL/HUGEINT; plain numbers are easier downstream
        return df.with_columns(
            pl.col(c).cast(pl.Float64) for c, t in df.schema.items() if t.is_decimal()
        )

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Analyses:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
