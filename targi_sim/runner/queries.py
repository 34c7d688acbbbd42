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


class Analyses:
    """A DuckDB connection with the run's tables as views; `frame(name)` runs a SQL file."""

    def __init__(self, run: RunInfo, *, threads: int | None = None,
                 memory_limit: str | None = "1GB") -> None:
        self.run_dir = run.path.resolve()
        self.con = duckdb.connect(":memory:")
        self.con.execute(f"SET threads = {int(threads or os.cpu_count() or 1)}")
        if memory_limit is not None:  # None: DuckDB's own default (a share of the RAM)
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
