"""Elo ratings from a round-robin win-rate matrix: a Bradley-Terry model on the Elo scale
fitted by maximum likelihood, with its goodness of fit (targi_sim.strength.tournament's
docstring explains the model; the report's strategy section uses the same fit).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from targi_sim.stats.rates import DEFF_FLOOR, Z95

ELO_ANCHOR = 1500.0
ELO_SCALE = 400.0 / math.log(10.0)  # Elo points per natural-log odds unit
PRIOR_DRAWS = 1.0  # virtual drawn games added to every pair before the Elo fit
POOR_FIT_P = 0.01  # an Elo fit with a goodness-of-fit p-value below this is called poor
ELO_COLUMNS = ("rank", "strategy", "elo", "ci_low", "ci_high", "se", "games", "score")


@dataclass
class EloFit:
    """Bradley-Terry ratings with their goodness of fit (see the module docstring).

    `table`: the Elo table. `pairs`: per unordered pair a, b (a first in `names`),
    games, the design effect, the observed and the fitted rate of a. `deviance`,
    `pearson`: their chi-square statistics on `df` degrees of freedom (each pair's
    games divided by its design effect); `p_value` of the deviance; `dispersion` =
    pearson / df; `se_scale` = sqrt(max(1, dispersion)), the factor the standard
    errors were multiplied by.
    """

    table: pl.DataFrame
    pairs: pl.DataFrame
    deviance: float
    pearson: float
    df: int
    p_value: float
    dispersion: float
    se_scale: float

    @property
    def poor(self) -> bool:
        return self.df > 0 and self.p_value < POOR_FIT_P

    def summary(self) -> dict:
        """What tournament.json stores: the statistics and every pair's rates."""
        return {
            "model": "Bradley-Terry (Elo scale), draws as half wins, one virtual draw a pair",
            "deviance": _finite(self.deviance), "pearson_chi2": _finite(self.pearson),
            "df": self.df, "p_value": _finite(self.p_value),
            "dispersion": _finite(self.dispersion), "se_scale": self.se_scale,
            "poor_fit": self.poor, "poor_fit_below_p": POOR_FIT_P,
            "pairs": [{k: (_finite(v) if isinstance(v, float) else v) for k, v in r.items()}
                      for r in self.pairs.iter_rows(named=True)],
        }

    def verdict(self) -> str:
        """One line on the fit, for people reading the ratings (see `fit_verdict`)."""
        return fit_verdict(self.summary())

    def with_fitted(self, matrix: pl.DataFrame) -> pl.DataFrame:
        """The long-form matrix with the rate the ratings predict (`elo_rate_a`)."""
        fitted = {(r["a"], r["b"]): r["fitted_rate_a"] for r in self.pairs.iter_rows(named=True)}
        fitted |= {(b, a): 1.0 - v for (a, b), v in list(fitted.items())}
        return matrix.with_columns(pl.Series(
            "elo_rate_a", [fitted.get((a, b)) for a, b in matrix.select("a", "b").iter_rows()],
            dtype=pl.Float64))


def fit_verdict(fit: dict) -> str:
    """One line on an Elo fit from its summary (EloFit.summary, tournament.json)."""
    df = fit.get("df") or 0
    if df <= 0:
        return ("Elo fit: as many ratings as independent pairs (0 degrees of freedom), so the "
                "fit is exact and cannot be tested; the ratings restate the matrix.")
    stats = (f"deviance {fit['deviance']:.1f} on {df} df, p = {fit['p_value']:.2g}; "
             f"dispersion {fit['dispersion']:.2f}")
    scale = fit.get("se_scale") or 1.0
    widen = f"; Elo intervals widened x{scale:.2f} (sqrt of the dispersion)" if scale > 1 else ""
    if fit.get("poor_fit"):
        return (f"Poor Elo fit ({stats}): one rating per strategy does not reproduce these "
                "head-to-head rates (observed vs fitted per pair); trust the head-to-head "
                f"matrix, not the ratings{widen}.")
    return f"Elo fit: {stats}; no evidence of misfit{widen}."


def _finite(v: float) -> float | None:
    return float(v) if v is not None and math.isfinite(v) else None


def fit_elo(names: Sequence[str], matrix: pl.DataFrame, *, prior_draws: float = PRIOR_DRAWS,
            anchor: float = ELO_ANCHOR, z: float = Z95) -> pl.DataFrame:
    """The Elo table of `fit_elo_model` (ratings, intervals, games, score)."""
    return fit_elo_model(names, matrix, prior_draws=prior_draws, anchor=anchor, z=z).table


def fit_elo_model(names: Sequence[str], matrix: pl.DataFrame, *,
                  prior_draws: float = PRIOR_DRAWS, anchor: float = ELO_ANCHOR,
                  z: float = Z95) -> EloFit:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale with their goodness of
    fit (see the module docstring).

    `matrix` is the long form (a, b, games, wins_a, draws, optional design_effect);
    each unordered pair may appear once or in both directions (the (a, b) row is
    used when a comes before b in `names`, else the mirrored row).
    """
    from scipy.special import xlogy
    from scipy.stats import chi2

    k = len(names)
    idx = {n: i for i, n in enumerate(names)}
    W = np.zeros((k, k))  # W[i, j]: i's score against j, draws as half
    N = np.zeros((k, k))
    DE = np.ones((k, k))  # design effect of each pair (correlated games on one deal)
    observed = []  # (i, j, score of i, games)
    done = set()
    for row in matrix.iter_rows(named=True):
        i, j = idx[row["a"]], idx[row["b"]]
        key = (min(i, j), max(i, j))
        if key in done:
            continue
        done.add(key)
        s = row["wins_a"] + 0.5 * row["draws"]
        n = row["games"]
        W[i, j] += s + 0.5 * prior_draws
        W[j, i] += n - s + 0.5 * prior_draws
        N[i, j] += n + prior_draws
        N[j, i] += n + prior_draws
        deff = row.get("design_effect")
        DE[i, j] = DE[j, i] = max(deff, DEFF_FLOOR) if deff is not None and \
            math.isfinite(deff) else 1.0
        a, b = (i, j) if i < j else (j, i)
        observed.append((a, b, s if a == i else n - s, n))
    theta, _ = _bradley_terry(W, N)

    pair_rows, dev, pearson = [], 0.0, 0.0
    for i, j, s, n in sorted(observed):
        p = 1.0 / (1.0 + math.exp(-(theta[i] - theta[j])))
        d = DE[i, j]
        dev += 2.0 * float(xlogy(s, s / (n * p)) + xlogy(n - s, (n - s) / (n * (1 - p)))) / d
        resid = (s - n * p) / math.sqrt(n * p * (1 - p) * d) if 0 < p < 1 and n > 0 else 0.0
        pearson += resid * resid
        pair_rows.append({"a": names[i], "b": names[j], "games": int(n), "design_effect": d,
                          "observed_rate_a": s / n if n else math.nan, "fitted_rate_a": p,
                          "pearson_residual": resid})
    df = len(observed) - (k - 1)
    p_value = float(chi2.sf(dev, df)) if df > 0 else math.nan
    dispersion = pearson / df if df > 0 else math.nan
    scale = math.sqrt(dispersion) if df > 0 and dispersion > 1.0 else 1.0

    cov = _covariance(theta, N / DE) * scale**2
    elo = anchor + ELO_SCALE * theta
    se = ELO_SCALE * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    games = (N.sum(axis=1) - prior_draws * (N > 0).sum(axis=1)).astype(np.int64)
    scores = (W.sum(axis=1) - 0.5 * prior_draws * (N > 0).sum(axis=1))
    score = np.divide(scores, games, out=np.full(k, np.nan), where=games > 0)
    order = np.argsort(-elo, kind="stable")
    table = pl.DataFrame({
        "rank": np.arange(1, k + 1, dtype=np.int64),
        "strategy": [names[i] for i in order],
        "elo": elo[order],
        "ci_low": (elo - z * se)[order],
        "ci_high": (elo + z * se)[order],
        "se": se[order],
        "games": games[order],
        "score": score[order],
    })
    pairs = pl.DataFrame(pair_rows, schema={
        "a": pl.String, "b": pl.String, "games": pl.Int64, "design_effect": pl.Float64,
        "observed_rate_a": pl.Float64, "fitted_rate_a": pl.Float64,
        "pearson_residual": pl.Float64})
    return EloFit(table, pairs, dev, pearson, df, p_value, dispersion, scale)


def _bradley_terry(W: np.ndarray, N: np.ndarray, tol: float = 1e-10,
                   max_iter: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Ratings theta (natural-log odds units, mean 0) and their covariance.

    Newton's method on the concave log-likelihood
    sum_ij W_ij log sigmoid(theta_i - theta_j); the Hessian is singular along
    the all-ones direction, so steps and the covariance use its pseudo-inverse,
    which is exactly the constraint sum(theta) = 0.
    """
    k = len(W)
    theta = np.zeros(k)

    def info(th: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = 1.0 / (1.0 + np.exp(-(th[:, None] - th[None, :])))
        grad = (W - N * p).sum(axis=1)
        v = N * p * (1.0 - p)
        H = np.diag(v.sum(axis=1)) - v  # negative Hessian (a weighted graph Laplacian)
        return grad, H

    for _ in range(max_iter):
        grad, H = info(theta)
        step = np.linalg.pinv(H) @ grad
        biggest = np.abs(step).max() if k else 0.0
        if biggest > 2.0:  # damp wild first steps; the likelihood is concave
            step *= 2.0 / biggest
        theta = theta + step
        theta -= theta.mean()
        if biggest < tol:
            break
    return theta, _covariance(theta, N)


def _covariance(theta: np.ndarray, N: np.ndarray) -> np.ndarray:
    """Inverse Fisher information of the ratings (pseudo-inverse: mean-zero constraint)."""
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    v = N * p * (1.0 - p)
    return np.linalg.pinv(np.diag(v.sum(axis=1)) - v)


__all__ = ["ELO_ANCHOR", "ELO_COLUMNS", "ELO_SCALE", "POOR_FIT_P", "PRIOR_DRAWS", "EloFit",
           "fit_elo", "fit_elo_model", "fit_verdict"]
