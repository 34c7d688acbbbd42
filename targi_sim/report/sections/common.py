"""Helpers the report sections share: headline rows for compare, clustered means, plots."""

from __future__ import annotations

import math
from collections.abc import Callable

import polars as pl

from targi_sim.stats.rates import (
    ClusterSums,
    means_from_sums,
)

from .. import plots
from ..model import Plot, Section

Step = Callable[[str], None]


def headline_row(rows: list[dict], metric: str, kind: str, value: float, n: float,
              x: float = math.nan, sd: float = math.nan, deff: float = math.nan,
              se: float = math.nan) -> None:
    """One headline metric for `compare`: its design effect (the pair-clustered variance
    over the binomial / independent one; NaN when unknown) and clustered standard error."""
    rows.append({"metric": metric, "kind": kind, "value": as_float(value), "x": as_float(x),
                 "n": as_float(n), "sd": as_float(sd), "deff": as_float(deff), "se": as_float(se)})


def as_float(v: object) -> float:
    return math.nan if v is None else float(v)  # type: ignore[arg-type]


def clustered_mean_of(c: ClusterSums, squares: float) -> dict[str, float]:
    """The clustered mean of values from their per-cluster sums `c` and the sum of their
    squares (the values' sample variance gives the design effect)."""
    n = c.n
    unit_var = (squares - c.x * c.x / n) / (n - 1) if n > 1 else math.nan
    r = means_from_sums(c.clusters, c.x, c.n, c.xx, c.xn, c.nn, unit_var)
    return {k: float(v) for k, v in r.items()}


def make_plot(key: str, title: str, png: bytes) -> Plot:
    return Plot(key, title, png)


def interval_plot(sec: Section, key: str, title: str, df: pl.DataFrame, by: str,
                   what: str) -> None:
    """The first-player rate per `by` as a forest plot, or one sentence when there is
    only one category (a plot of one point says nothing the table does not)."""
    if df.height < 2:
        only = f" ({df[by][0]})" if df.height else ""
        sec.text.append(f"No first-player plot by {what}: this run has one {what}{only}; "
                        "the table above has its rate.")
        return
    rows = list(df.iter_rows(named=True))
    sec.plots.append(make_plot(key, title, plots.forest(
        [f"{r[by]} (n {r['n']:,})" for r in rows],
        [("round-1 first player's rate", *columns_of(df, "first_rate"), 0.5)],
        ["#4477aa"] * df.height, df["low_n"].to_list())))


def columns_of(df: pl.DataFrame, c: str) -> tuple[list, list, list]:
    return df[c].to_list(), df[f"{c}_lo"].to_list(), df[f"{c}_hi"].to_list()


def pooled_rate(df: pl.DataFrame, x: str, n: str) -> float:
    total = float(df[n].sum())
    return float(df[x].sum()) / total if total else math.nan


def cost_text(r: dict) -> str:
    parts = [f"{r[k]}{c}" for k, c in (("cost_salt", "s"), ("cost_pepper", "p"),
                                        ("cost_dates", "d"), ("cost_gold", "g")) if r.get(k)]
    return "".join(parts) or "free"
