"""The family of tests `compare` makes, and the minimum detectable effect (MDE) of each.

Why an MDE: "no significant change" means little unless the runs were big enough
to see the change that matters. Beside every test `compare` reports the smallest
change B - A that this many pairs would detect with 80% power at the table's
error control, and `report` gives every per-card rate the MDE of a comparison
with another run of its size and design effect.

Error control: Holm's first (hardest) step rejects at alpha / m for m tests, so
the MDE is computed at the Bonferroni level alpha / m -- a bound that holds for
every metric whatever the others do (Holm's later steps and Benjamini-Hochberg
can flag smaller moves when several metrics move at once). The test and the
MDE use the same variance: for rates the pooled p(1 - p)(deff_a / n_a +
deff_b / n_b) with each run's pair-clustered design effect (targi_sim.stats.rates),
for means the sum of the two clustered variances.
"""

from __future__ import annotations

import math

import polars as pl

from targi_sim.stats.rates import detectable_effect

from .metrics import difference_test, effective_deff, two_proportion_test, two_proportion_variance
from .model import Report

ALPHA = 0.05
POWER = 0.8

# per-card rates compared: (label, successes column, n column, rate column)
CARD_RATES = (
    ("acquire rate", "taken_games", "offered_games", "acquire_rate"),
    ("WR played", "played_points", "played_n", "played_wr"),
    ("WR not taken", "not_taken_points", "not_taken_n", "not_taken_wr"),
)
CARD_TABLES = (("cards_tribe", "name"), ("cards_symbol", "symbol"))

# tests compare makes beyond compare_tables': the Ludii Balance row, by the bootstrap
# of its balance verdict (report/verdict.py)
VERDICT_TESTS = 1

SCHEMA = {"group": pl.String, "metric": pl.String, "a": pl.Float64, "n_a": pl.Float64,
          "deff_a": pl.Float64, "b": pl.Float64, "n_b": pl.Float64, "deff_b": pl.Float64,
          "change": pl.Float64, "z": pl.Float64, "p_value": pl.Float64, "variance": pl.Float64,
          "is_rate": pl.Boolean}


def _f(v: object) -> float:
    return math.nan if v is None else float(v)  # type: ignore[arg-type]


def _row(metric: str, group: str, va: float, na: float, da: float, vb: float, nb: float,
         db: float, test: tuple[float, float], variance: float, is_rate: bool = True) -> dict:
    change = vb - va if not (math.isnan(va) or math.isnan(vb)) else math.nan
    return {"group": group, "metric": metric, "a": va, "n_a": na, "deff_a": da, "b": vb,
            "n_b": nb, "deff_b": db, "change": change, "z": test[0], "p_value": test[1],
            "variance": variance, "is_rate": is_rate}


def _rate_test(xa: float, na: float, da: float, xb: float, nb: float,
               db: float) -> tuple[tuple[float, float], float]:
    da, db = effective_deff(da), effective_deff(db)
    test = two_proportion_test(xa, na, xb, nb, deff1=da, deff2=db)
    return test, two_proportion_variance(xa, na, xb, nb, deff1=da, deff2=db)


def compare_tables(ra: Report, rb: Report) -> pl.DataFrame:
    """One row per compared metric (headline, per card, per symbol): both runs' values,
    n and design effects, the change, z, the raw p-value and the variance of the change
    the test used."""
    rows = []
    ha = {r["metric"]: r for r in ra.headline.iter_rows(named=True)}
    for r in rb.headline.iter_rows(named=True):
        x = ha.get(r["metric"])
        if x is None:
            continue
        da, db = _f(x.get("deff")), _f(r.get("deff"))
        if r["kind"] == "rate":
            test, var = _rate_test(x["x"], x["n"], da, r["x"], r["n"], db)
        elif r["kind"] == "mean":
            sa, sb = _f(x.get("se")), _f(r.get("se"))
            test, var = difference_test(x["value"], sa, r["value"], sb), sa**2 + sb**2
        else:
            test, var = (math.nan, math.nan), math.nan
        rows.append(_row(r["metric"], "headline", x["value"], x["n"], da, r["value"], r["n"],
                         db, test, var, is_rate=r["kind"] == "rate"))
    for key, label in CARD_TABLES:
        ta, tb = ra.table(key).df, rb.table(key).df
        by_a = {r[label]: r for r in ta.iter_rows(named=True)}
        for r in tb.iter_rows(named=True):
            x = by_a.get(r[label])
            if x is None:
                continue
            for metric, succ, n, rate in CARD_RATES:
                da, db = _f(x.get(f"{rate}_deff")), _f(r.get(f"{rate}_deff"))
                test, var = _rate_test(x[succ], x[n], da, r[succ], r[n], db)
                rows.append(_row(f"{r[label]}: {metric}", key, _f(x[rate]), x[n], da,
                                 _f(r[rate]), r[n], db, test, var))
    return pl.DataFrame(rows, schema=SCHEMA)


def family_size(df: pl.DataFrame) -> int:
    """The number of tests in the family (metrics with a p-value)."""
    return int(df["p_value"].is_not_nan().sum())


def mde_level(m: int, alpha: float = ALPHA) -> float:
    """The per-test level of the MDE: Bonferroni's alpha / m (Holm's first step)."""
    return alpha / max(m, 1)


def with_mde(df: pl.DataFrame, alpha: float = ALPHA, power: float = POWER) -> pl.DataFrame:
    """Add `mde`: the smallest |change| detected with `power` at level alpha / m."""
    level = mde_level(family_size(df), alpha)
    mde = detectable_effect(df["variance"].fill_null(math.nan).to_numpy(), level, power)
    return df.with_columns(pl.Series("mde", mde, dtype=pl.Float64))


def annotate_report_mde(report: Report, alpha: float = ALPHA,
                        power: float = POWER) -> tuple[int, float]:
    """Add `<rate>_mde` to the tribe-card and symbol tables: the smallest change of that
    rate a `compare` of this run against another run of the same size and design
    effect flags with `power` at alpha / m, m the number of tests such a comparison
    makes (this run against itself). Returns (m, the per-test level)."""
    m = family_size(compare_tables(report, report)) + VERDICT_TESTS
    level = mde_level(m, alpha)
    for key, _label in CARD_TABLES:
        table = report.table(key)
        df = table.df
        cols = []
        for _metric, _succ, n, rate in CARD_RATES:
            p = df[rate].fill_null(math.nan).to_numpy()
            deff = [effective_deff(d) for d in df[f"{rate}_deff"].fill_null(math.nan).to_list()]
            ns = df[n].cast(pl.Float64).to_numpy()
            var = [pi * (1 - pi) * 2 * d / ni if ni > 0 else math.nan
                   for pi, d, ni in zip(p, deff, ns, strict=True)]
            cols.append(pl.Series(f"{rate}_mde", detectable_effect(var, level, power),
                                  dtype=pl.Float64))
        table.df = df.with_columns(cols)
    return m, level


def games_for_change(games: int, mde: float, change: float = 0.01) -> float:
    """Games a run needs for an MDE of `change`, from a run of `games` with MDE `mde`
    (the MDE shrinks as 1 / sqrt(games) at a fixed design effect and family)."""
    if not (mde > 0) or games <= 0:
        return math.nan
    return games * (mde / change) ** 2


__all__ = ["ALPHA", "CARD_RATES", "POWER", "annotate_report_mde", "compare_tables",
           "family_size", "games_for_change", "mde_level", "with_mde"]
