"""Card grades, one scheme for every per-card value: a letter from a z-score (C at 0, one
step per third of a standard deviation), either among the cards themselves (`grades`,
`grade_by_z`: the causal card values of forked play) or against what a card's printed
VP and cost predict (`grade_values`: the report's tribe-card grades).

Why the VP-and-cost model: a z-score of raw win rate when played sorts cards by printed
VP (every 3 VP card grades high, every 1 VP card low) and ignores cost. There a card's
value is compared with what a weighted least-squares line of value on printed VP and
total cost across the cards predicts for a card of its VP and cost; the residual (with
its interval) is what the grade reads. Any per-card value with a standard error can be
graded that way: the observational WR played of a run, a causal card value when one
exists.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

Z95 = 1.959963984540054
GRADES = ("F", "D-", "D", "D+", "C-", "C", "C+", "B-", "B", "B+", "A-", "A", "A+")
POOR_FIT_R2 = 0.3  # below it, VP and cost explain little of the spread between cards


def grade(z: float) -> str | None:
    """A letter grade from a z-score: C at 0, one step per third of a standard deviation.

    C is -1/6 <= z < 1/6; C+, B-, B, ... up to A+ for z >= 13/6; down C-, D+, D, D-
    and F for z < -3/2 (the usual letter scale: more grades above C than below).
    """
    if z is None or math.isnan(z):
        return None
    k = math.floor(z * 3 + 0.5) + 5
    return GRADES[min(max(k, 0), len(GRADES) - 1)]


def grades(values: Sequence[float], eligible: Sequence[bool]) -> tuple[list[float], list]:
    """z-scores and grades of `values` among the eligible entries (n >= --min-n).

    z = (x - mean) / sd over eligible entries (sample sd); ineligible entries and
    cases with fewer than 2 eligible entries or zero spread get no grade.
    """
    xs = [v for v, e in zip(values, eligible, strict=True) if e and not math.isnan(v)]
    if len(xs) < 2:
        return [math.nan] * len(values), [None] * len(values)
    mean = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1))
    zs, gs = [], []
    for v, e in zip(values, eligible, strict=True):
        if not e or math.isnan(v) or sd == 0:
            zs.append(math.nan)
            gs.append(None)
        else:
            z = (v - mean) / sd
            zs.append(z)
            gs.append(grade(z))
    return zs, gs



@dataclass(frozen=True)
class GradeModel:
    """The fitted line value ~ 1 + vp + cost over the eligible cards, and its fit."""

    cards: int
    intercept: float
    per_vp: float
    per_cost: float
    r2: float
    chi2: float  # sum of (residual / se)^2: lack of fit against sampling noise alone
    df: int
    p_lack_of_fit: float
    residual_sd: float
    value_name: str

    def describe(self) -> str:
        """One paragraph for the report: the line, R², and what the lack of fit means."""
        if self.cards < 4:
            return (f"Grades need at least 4 cards with enough games to fit {self.value_name} "
                    f"on printed VP and cost; this run has {self.cards}: no grades.")
        text = (f"Grade model (weighted least squares over the {self.cards} cards with "
                f"enough games, weights 1/se²): {self.value_name} ≈ {self.intercept:.3f} "
                f"{self.per_vp:+.4f} per printed VP {self.per_cost:+.4f} per unit of total "
                f"cost; R² = {self.r2:.2f}.")
        if self.r2 < POOR_FIT_R2:
            text += (f" R² < {POOR_FIT_R2}: VP and cost explain little of the differences "
                     "between cards, so the grades are close to a ranking of the raw value.")
        if self.p_lack_of_fit < 0.05:
            text += (f" The cards scatter around the line more than their sampling noise "
                     f"allows (χ² = {self.chi2:.1f} on {self.df} df, p = "
                     f"{self.p_lack_of_fit:.2g}): the grades show real differences.")
        else:
            text += (f" The scatter around the line is within sampling noise (χ² = "
                     f"{self.chi2:.1f} on {self.df} df, p = {self.p_lack_of_fit:.2g}): no card "
                     "is shown to differ from what its VP and cost predict; grades mostly "
                     "reflect noise, read the intervals.")
        return text


def _empty_model(cards: int, value_name: str) -> GradeModel:
    nan = math.nan
    return GradeModel(cards, nan, nan, nan, nan, nan, 0, nan, nan, value_name)


def grade_values(df: pl.DataFrame, *, eligible: pl.Series | None = None,
                 value_name: str = "value") -> tuple[pl.DataFrame, GradeModel]:
    """Grade each card by its residual from value ~ 1 + vp + cost (statsmodels WLS).

    df: one row per card with `value`, `se` (its standard error), `vp` and `cost`
    (total printed cost); `eligible`: the rows that fit the line and get a grade (e.g.
    n >= --min-n; default every row with a finite value and se > 0). Returns df with
    `expected` (the line's value for the card), `residual` = value - expected,
    `residual_lo` / `residual_hi` (95% normal interval from the variance of the residual,
    sum over cards j of (I - H)_ij² se_j², H the WLS hat matrix, so a card's own weight
    in the line is accounted for), `residual_z` = residual / the SD of the eligible
    residuals, and `grade` (`grade` above, of residual_z: C = as the
    line predicts). Cards outside `eligible` get `expected` and `residual` but no grade.
    """
    value = df["value"].cast(pl.Float64).fill_null(math.nan).to_numpy()
    se = df["se"].cast(pl.Float64).fill_null(math.nan).to_numpy()
    x = np.column_stack([np.ones(df.height), df["vp"].cast(pl.Float64).to_numpy(),
                         df["cost"].cast(pl.Float64).to_numpy()])
    ok = np.isfinite(value) & np.isfinite(se) & (se > 0)
    if eligible is not None:
        ok &= eligible.fill_null(False).to_numpy().astype(bool)
    nan = np.full(df.height, math.nan)
    idx = np.flatnonzero(ok)
    if len(idx) < 4 or np.linalg.matrix_rank(x[idx]) < 3:
        return _with(df, nan, nan, nan, nan, nan, [None] * df.height), \
            _empty_model(len(idx), value_name)
    from statsmodels.regression.linear_model import WLS  # a second's import: only here

    w = 1.0 / se[idx] ** 2
    fit = WLS(value[idx], x[idx], weights=w).fit()
    expected = x @ fit.params
    residual = value - expected
    # hat matrix of the eligible cards' fit: expected_i = sum_j H_ij value_j
    h = x @ fit.normalized_cov_params @ (x[idx] * w[:, None]).T  # (all cards, eligible)
    m = -h
    m[idx, np.arange(len(idx))] += 1.0  # (I - H) for the eligible rows
    var = (m**2) @ (se[idx] ** 2)
    own = ~ok & np.isfinite(se)  # an ineligible card's own noise is not in the line
    var[own] += se[own] ** 2
    half = Z95 * np.sqrt(var)
    sd = float(np.std(residual[idx], ddof=3)) if len(idx) > 3 else math.nan
    z = residual / sd if sd > 0 else nan
    grades = [grade(float(v)) if k and math.isfinite(v) else None
              for v, k in zip(z, ok, strict=True)]
    z = np.where(ok, z, math.nan)
    chi2 = float(np.sum((residual[idx] / se[idx]) ** 2))
    dof = len(idx) - 3
    model = GradeModel(len(idx), float(fit.params[0]), float(fit.params[1]),
                       float(fit.params[2]), float(fit.rsquared), chi2, dof,
                       float(stats.chi2.sf(chi2, dof)), sd, value_name)
    return _with(df, expected, residual, residual - half, residual + half, z, grades), model


def _with(df: pl.DataFrame, expected, residual, lo, hi, z, grades) -> pl.DataFrame:
    f = pl.Float64
    return df.with_columns(pl.Series("expected", expected, dtype=f),
                           pl.Series("residual", residual, dtype=f),
                           pl.Series("residual_lo", lo, dtype=f),
                           pl.Series("residual_hi", hi, dtype=f),
                           pl.Series("residual_z", z, dtype=f),
                           pl.Series("grade", grades, dtype=pl.String))


def grade_by_z(df: pl.DataFrame, min_forks: int, *, value: str = "value",
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
