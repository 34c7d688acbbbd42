"""The in-memory report: sections of titled tables and plots, rendered by html/markdown."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl


@dataclass
class Table:
    """A result table. `n_col` names the sample size that greys rows below --min-n
    (the frame then carries a boolean `low_n` column); `hidden` columns are written
    to CSV/Parquet but not shown in the documents. The HTML shows `compact` columns
    openly and the whole table collapsed, so that a wide table does not run off the page."""

    key: str
    title: str
    df: pl.DataFrame
    n_col: str | None = None
    note: str = ""
    hidden: tuple[str, ...] = ()
    compact: tuple[str, ...] = ()  # shown open; the full table then goes in a <details>
    shown: bool = True  # False: written to CSV/Parquet only (e.g. an empty table)
    pct_flag: str | None = None  # a boolean column: that row's values are rates (compare)


@dataclass
class Plot:
    key: str
    title: str
    png: bytes


@dataclass
class Link:
    """A link to a file beside the report (an example game's viewer page), with a lead-in.
    `page` is that file's HTML: report.html embeds it, so the link still opens the game
    when report.html travels alone ('' when there is nothing to embed)."""

    label: str
    text: str
    href: str
    page: str = ""


@dataclass
class Finding:
    """One sentence of the Findings section, written by a rule from the data, and the
    table it comes from (its key: the HTML anchor and Markdown link)."""

    rule: str
    text: str
    table: str


@dataclass
class Section:
    key: str
    title: str
    text: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)


@dataclass
class Report:
    """Everything `report`/`compare` write. `headline` has one row per headline metric
    (metric, kind, value, x, n, sd) for run-vs-run comparison."""

    title: str
    facts: list[tuple[str, str]]
    sections: list[Section]
    min_n: int
    headline: pl.DataFrame | None = None
    findings: list[Finding] = field(default_factory=list)

    def tables(self) -> list[Table]:
        return [t for s in self.sections for t in s.tables]

    def table(self, key: str) -> Table:
        for t in self.tables():
            if t.key == key:
                return t
        raise KeyError(key)


def mark_low_n(df: pl.DataFrame, n_col: str, min_n: int) -> pl.DataFrame:
    """Add the boolean `low_n` column: n below --min-n (shown greyed, never hidden)."""
    return df.with_columns((pl.col(n_col).fill_null(0) < min_n).alias("low_n"))
