"""Statistics for simulated rates: Wilson intervals and rates over correlated games.

Why clusters: games that share a deal are not independent. In a seat-swapped
pair the deal often decides both games, and in a mirror of deterministic
strategies the second game of a pair is the first one with the seats
relabelled, so every count is duplicated. Treating such games as independent
makes intervals too narrow and tests overconfident. Every interval and test of
the project therefore treats the *cluster* -- the seat-swapped pair, or the game
itself when its deal is played once -- as the independent unit:

* the rate is the ratio estimator sum(x_i) / sum(n_i) over clusters i with
  x_i successes (points: draws count half) out of n_i trials;
* its variance is the cluster-robust ("sandwich") variance of that ratio,
  k / (k - 1) * sum((x_i - rate * n_i)^2) / (sum n_i)^2 over the k clusters with
  n_i > 0 -- what an intercept-only regression with cluster-robust standard
  errors gives (statsmodels `cov_type="cluster"`; tests compare);
* the design effect is that variance over the binomial one, rate (1 - rate) / n:
  2 when every cluster holds two identical copies of a game, 1 for independent
  games, below 1 when a cluster's games tend to disagree;
* the 95% interval is Wilson's on the effective number of trials n / deff
  (deff floored at DEFF_FLOOR = 0.01, and taken as 1 when it cannot be estimated).

`rates_from_sums` does the arithmetic on sufficient statistics (vectorised, so a
table of per-card rates is one call, and SQL can aggregate per cluster);
`clustered_rate` is the same for one rate given per-cluster arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

Z95 = NormalDist().inv_cdf(0.975)
# A design effect below 1 is real (e.g. both players of a game in one rate: one wins,
# one loses) and is used as estimated; the floor only keeps a finite width for a sample
# whose clusters agree perfectly (zero residual). A/A calibration (docs/benchmarks.md)
# found true design effects down to about 0.1 in per-card rates.
DEFF_FLOOR = 0.01
SUM_FIELDS = ("clusters", "x", "n", "xx", "xn", "nn")


def wilson_bounds(successes, n, z: float = Z95):
    """Vectorised Wilson score bounds (lo, hi); n == 0 gives (0, 1). No validation."""
    x = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = x / m
        z2 = z * z
        denom = 1.0 + z2 / m
        centre = (p + z2 / (2.0 * m)) / denom
        half = z * np.sqrt(np.clip(p * (1.0 - p), 0.0, None) / m + z2 / (4.0 * m * m)) / denom
    empty = ~(m > 0)
    lo = np.where(empty | (x <= 0), 0.0, np.clip(centre - half, 0.0, 1.0))
    # exactly 1 at p = 1 (rounding gave 0.9999999999999998, below the rate itself)
    hi = np.where(empty | (x >= m), 1.0, np.clip(centre + half, 0.0, 1.0))
    return lo, hi


def wilson_interval(successes: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (lo, hi) for a proportion of `successes` out of `n`.

    Unlike the normal ("Wald") interval it stays inside [0, 1] and behaves well
    near 0 and 1. `successes` may be fractional (e.g. draws counted as half a
    win), and so may `n` (an effective number of trials). With n == 0 nothing is
    known and the interval is (0.0, 1.0). z = 1.96 gives a 95% interval.

    >>> tuple(round(x, 4) for x in wilson_interval(50, 100))
    (0.4038, 0.5962)
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in 0..n ({n}), got {successes}")
    if z <= 0:
        raise ValueError(f"z must be positive, got {z}")
    lo, hi = wilson_bounds(successes, n, z)
    return float(lo), float(hi)


@dataclass(frozen=True)
class ClusterSums:
    """Sufficient statistics of per-cluster successes x_i and trials n_i (clusters with
    n_i > 0 only): their count and sum x_i, sum n_i, sum x_i^2, sum x_i n_i, sum n_i^2."""

    clusters: float
    x: float
    n: float
    xx: float
    xn: float
    nn: float

    @classmethod
    def of(cls, successes, trials) -> ClusterSums:
        x = np.asarray(successes, dtype=float)
        n = np.asarray(trials, dtype=float)
        if x.shape != n.shape or x.ndim != 1:
            raise ValueError("successes and trials must be 1-D arrays of the same length")
        # a cluster without trials has no successes either and adds nothing to any sum;
        # einsum, not BLAS: a threaded dot product stalls when other threads hold the cores
        return cls(float(np.count_nonzero(n > 0)), float(x.sum()), float(n.sum()),
                   float(np.einsum("i,i->", x, x)), float(np.einsum("i,i->", x, n)),
                   float(np.einsum("i,i->", n, n)))

    def __add__(self, other: ClusterSums) -> ClusterSums:
        """Sums over two disjoint sets of clusters."""
        return ClusterSums(*(getattr(self, f) + getattr(other, f) for f in SUM_FIELDS))


def ratio_variance(clusters, x, n, xx, xn, nn):
    """(ratio x / n, its cluster-robust variance), vectorised; NaN where undefined
    (no trials; fewer than two clusters for the variance)."""
    k, x, n = (np.asarray(v, dtype=float) for v in (clusters, x, n))
    xx, xn, nn = (np.asarray(v, dtype=float) for v in (xx, xn, nn))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = x / n
        resid = xx - 2.0 * r * xn + r * r * nn  # sum (x_i - r n_i)^2 from the streamed sums
        # a residual within the rounding error of its terms is zero (identical clusters
        # gave an error of 8e-9 instead of 0 from the cancellation)
        noise = 64.0 * np.finfo(float).eps * np.maximum(xx, r * r * nn)
        resid = np.where(resid > noise, resid, 0.0)
        var = np.where(k >= 2, k / (k - 1.0) * resid / (n * n), np.nan)
    return r, var


def rates_from_sums(clusters, x, n, xx, xn, nn, z: float = Z95) -> dict[str, np.ndarray]:
    """Clustered rates from sufficient statistics (arrays or scalars, broadcast).

    Returns arrays: rate, se, deff (NaN when it cannot be estimated: fewer than
    two clusters, or a rate of exactly 0 or 1), lo, hi (Wilson on n / deff, deff
    floored at DEFF_FLOOR and taken as 1 when unknown) and n_eff.
    """
    r, var = ratio_variance(clusters, x, n, xx, xn, nn)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        binom = r * (1.0 - r) / n
        deff = np.where(binom > 0, var / binom, np.nan)
        used = np.where(np.isfinite(deff), np.maximum(deff, DEFF_FLOOR), 1.0)
        n_eff = np.where(n > 0, n / used, 0.0)
        lo, hi = wilson_bounds(np.where(n > 0, r, 0.0) * n_eff, n_eff, z)
    return {"rate": r, "se": np.sqrt(var), "deff": deff, "lo": lo, "hi": hi, "n_eff": n_eff}


def means_from_sums(clusters, x, n, xx, xn, nn, unit_var, z: float = Z95) -> dict[str, np.ndarray]:
    """Clustered means (x: sum of values, n: count) with a normal interval.

    `unit_var` is the variance of one value (sample variance over all values);
    the design effect is the cluster-robust variance over unit_var / n.
    """
    m, var = ratio_variance(clusters, x, n, xx, xn, nn)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        iid = np.asarray(unit_var, dtype=float) / n
        deff = np.where(iid > 0, var / iid, np.nan)
    se = np.sqrt(var)
    return {"mean": m, "se": se, "deff": deff, "lo": m - z * se, "hi": m + z * se}


@dataclass(frozen=True)
class ClusteredRate:
    """One rate with its cluster-robust uncertainty (see the module docstring)."""

    successes: float
    n: float
    clusters: int
    rate: float
    se: float
    deff: float  # NaN when it cannot be estimated
    lo: float
    hi: float

    @property
    def n_eff(self) -> float:
        """The number of independent trials that would give the same variance."""
        d = self.deff if math.isfinite(self.deff) else 1.0
        return self.n / max(d, DEFF_FLOOR) if self.n > 0 else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return self.lo, self.hi


def rate_of(sums: ClusterSums, z: float = Z95) -> ClusteredRate:
    """The ClusteredRate of one set of sufficient statistics."""
    r = rates_from_sums(sums.clusters, sums.x, sums.n, sums.xx, sums.xn, sums.nn, z)
    return ClusteredRate(sums.x, sums.n, int(sums.clusters), float(r["rate"]), float(r["se"]),
                         float(r["deff"]), float(r["lo"]), float(r["hi"]))


def clustered_rate(successes, trials, z: float = Z95) -> ClusteredRate:
    """The rate sum(successes) / sum(trials) over clusters, with its cluster-robust
    standard error, design effect and 95% Wilson interval on the effective n.

    `successes[i]`, `trials[i]`: cluster i's points (draws as half) and games (or
    players, or offers: whatever the rate counts). Clusters without trials are
    ignored.

    >>> r = clustered_rate([2, 0, 2, 0], [2, 2, 2, 2])  # two identical games per cluster
    >>> round(r.rate, 3), round(r.deff, 3)
    (0.5, 2.667)
    """
    return rate_of(ClusterSums.of(successes, trials), z)


def cluster_index(ids) -> tuple[np.ndarray, int]:
    """Dense 0-based cluster numbers for an array of cluster ids, and how many there are."""
    ids = np.asarray(ids, dtype=np.int64)
    if ids.size == 0:
        return ids, 0
    lo, hi = int(ids.min()), int(ids.max())
    if hi - lo < 4 * ids.size + 1024:  # run ids are compact: skip the sort
        dense = ids - lo
        present = np.bincount(dense, minlength=hi - lo + 1) > 0
        remap = np.cumsum(present) - 1
        return remap[dense], int(present.sum())
    uniq, inverse = np.unique(ids, return_inverse=True)
    return inverse, len(uniq)


def per_cluster(index: np.ndarray, size: int, *values: np.ndarray) -> list[np.ndarray]:
    """Per-cluster sums of each of `values` (rows -> clusters by `index`)."""
    return [np.bincount(index, weights=np.asarray(v, dtype=float), minlength=size)
            for v in values]


class ClusterAccumulator:
    """Cluster sums over rows that arrive in chunks (e.g. a run's `games` files).

    Rows must come in cluster-id order overall (a cluster may straddle two
    consecutive chunks, as a seat-swapped pair does with an odd chunk size):
    the last cluster of a chunk is held back until the next chunk shows whether
    it continues. Memory does not grow with the number of rows.
    """

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.sums = {name: ClusterSums(0, 0, 0, 0, 0, 0) for name in names}
        self._pending: tuple[int, float, dict[str, float]] | None = None

    def add(self, ids: np.ndarray, trials: np.ndarray, successes: dict[str, np.ndarray]) -> None:
        ids = np.asarray(ids, dtype=np.int64)
        if ids.size == 0:
            return
        uniq, inverse = np.unique(ids, return_inverse=True)
        n = np.bincount(inverse, weights=np.asarray(trials, dtype=float), minlength=len(uniq))
        x = {k: np.bincount(inverse, weights=np.asarray(successes[k], dtype=float),
                            minlength=len(uniq)) for k in self.names}
        if self._pending is not None:
            pid, pn, px = self._pending
            if pid == uniq[0]:
                n[0] += pn
                for k in self.names:
                    x[k][0] += px[k]
            else:
                self._flush(np.array([pn]), {k: np.array([px[k]]) for k in self.names})
        self._pending = (int(uniq[-1]), float(n[-1]), {k: float(x[k][-1]) for k in self.names})
        self._flush(n[:-1], {k: v[:-1] for k, v in x.items()})

    def _flush(self, n: np.ndarray, x: dict[str, np.ndarray]) -> None:
        for k in self.names:
            self.sums[k] = self.sums[k] + ClusterSums.of(x[k], n)

    def result(self) -> dict[str, ClusteredRate]:
        """Every rate so far (the held-back cluster included)."""
        sums = dict(self.sums)
        if self._pending is not None:
            _, pn, px = self._pending
            for k in self.names:
                sums[k] = sums[k] + ClusterSums.of(np.array([px[k]]), np.array([pn]))
        return {k: rate_of(v) for k, v in sums.items()}


def detectable_effect(variance, alpha: float, power: float = 0.8):
    """The smallest difference a two-sided z-test at level `alpha` detects with the given
    power, when the difference's estimate has `variance` (normal approximation):
    (z_{1 - alpha/2} + z_{power}) * sqrt(variance). Vectorised; NaN where variance <= 0."""
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError("alpha and power must lie strictly between 0 and 1")
    nd = NormalDist()
    factor = nd.inv_cdf(1.0 - alpha / 2.0) + nd.inv_cdf(power)
    v = np.asarray(variance, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(v > 0, factor * np.sqrt(np.where(v > 0, v, 0.0)), np.nan)


__all__ = ["ClusterAccumulator", "ClusterSums", "ClusteredRate", "DEFF_FLOOR", "Z95",
           "cluster_index", "clustered_rate", "detectable_effect", "means_from_sums",
           "per_cluster", "rate_of", "rates_from_sums", "ratio_variance", "wilson_bounds",
           "wilson_interval"]
