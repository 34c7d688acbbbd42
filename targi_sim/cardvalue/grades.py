"""Letter grades on causal value: a small function over (card, value, se) so it can
share one grading scheme with other per-card value tables.

The same scale as the report's observational grades (targi_sim.report.metrics.grade):
z-score of the value among the cards with enough forks, C at the mean, one step per
third of a standard deviation.
"""

from __future__ import annotations

import math

import polars as pl

from ..report.metrics import grades


def grade_values(df: pl.DataFrame, min_forks: int, *, value: str = "value",
                 n: str = "n_forks") -> pl.DataFrame:
    """`df` (one row per card: a value column with its se, and a count) with `value_z`
    and `value_grade` added; cards with fewer than `min_forks` forks or no finite se are
    not graded."""
    vals = df[value].fill_nan(None).fill_null(math.nan).to_list()
    se = df["se"].fill_nan(None).fill_null(math.nan).to_list()
    ok = [c >= min_forks and math.isfinite(s) for c, s in
          zip(df[n].fill_null(0).to_list(), se, strict=True)]
    z, g = grades(vals, ok)
    return df.with_columns(pl.Series("value_z", z, dtype=pl.Float64),
                           pl.Series("value_grade", g, dtype=pl.String))
