"""The change of a rate between two runs on the same deals, with the deal as the unit.

Why paired: every variant of a sweep plays the baseline's deals (common random numbers),
so deal i's luck is in both runs; the variance of the difference is then
var(b) + var(v) - 2 cov(b, v), below the independent-seeds variance var(b) + var(v)
whenever the deal's luck carries over. The estimate is the difference of two ratio
estimators, r_v - r_b with r = sum(x_i) / sum(n_i) over deals i (x: successes or
values, n: trials), and its variance the cluster-robust (sandwich) variance of that
difference with the deal as the cluster:

    u_i = (x_vi - r_v n_vi) / N_v - (x_bi - r_b n_bi) / N_b
    var = k / (k - 1) * sum(u_i^2)        (k deals with a trial in either run)

-- the variance statsmodels gives the coefficient of a variant dummy in a least-squares
fit of the stacked games with errors clustered by deal (tests compare), with the same
small-sample factor as targi_sim.stats.rates. The independent-seeds variance it is compared
with is each run's own clustered variance (targi_sim.stats.rates.ratio_variance), summed: the
ratio of the two is the measured variance reduction (`games_factor` = how many times the
games two independent runs would need for the same precision).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from targi_sim.stats.rates import Z95, ClusterSums, ratio_variance


@dataclass(frozen=True)
class PairedChange:
    """r_v - r_b on common deals, its paired standard error, test and the comparison with
    independent seeds."""

    base: float
    variant: float
    change: float
    se: float
    lo: float
    hi: float
    z: float
    p_value: float
    deals: int
    n_base: float
    n_variant: float
    var_paired: float
    var_independent: float

    @property
    def variance_ratio(self) -> float:
        """var_paired / var_independent: below 1 when pairing helps."""
        if not (self.var_independent > 0) or math.isnan(self.var_paired):
            return math.nan
        return self.var_paired / self.var_independent

    @property
    def games_factor(self) -> float:
        """How many times the games independent seeds would need for this precision."""
        r = self.variance_ratio
        return 1.0 / r if r > 0 else math.nan


def _own_variance(x: np.ndarray, n: np.ndarray) -> float:
    c = ClusterSums.of(x, n)
    _, var = ratio_variance(c.clusters, c.x, c.n, c.xx, c.xn, c.nn)
    return float(var)


def paired_change(x_b, n_b, x_v, n_v, z: float = Z95) -> PairedChange:
    """The paired change of x/n from baseline (b) to variant (v); arrays indexed by deal,
    the same deal at the same index in both. NaN where a run has no trials."""
    xb, nb, xv, nv = (np.asarray(a, dtype=float) for a in (x_b, n_b, x_v, n_v))
    Nb, Nv = float(nb.sum()), float(nv.sum())
    k = int(np.count_nonzero((nb > 0) | (nv > 0)))
    nan = math.nan
    if not (Nb > 0 and Nv > 0):
        return PairedChange(nan, nan, nan, nan, nan, nan, nan, nan, k, Nb, Nv, nan, nan)
    rb, rv = float(xb.sum()) / Nb, float(xv.sum()) / Nv
    u = (xv - rv * nv) / Nv - (xb - rb * nb) / Nb
    var = k / (k - 1) * float(np.einsum("i,i->", u, u)) if k >= 2 else nan
    independent = _own_variance(xb, nb) + _own_variance(xv, nv)
    change = rv - rb
    se = math.sqrt(var) if var >= 0 else nan
    if se > 0:
        zs = change / se
        p = float(2 * sps.norm.sf(abs(zs)))
    elif se == 0:  # every deal moved by exactly the same amount (e.g. not at all)
        zs = 0.0 if change == 0 else math.copysign(math.inf, change)
        p = 1.0 if change == 0 else 0.0
    else:
        zs = p = nan
    return PairedChange(rb, rv, change, se, change - z * se, change + z * se, zs, p, k, Nb, Nv,
                        var, independent)


def align(ids_b: np.ndarray, ids_v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(common deal ids, their positions in ids_b, in ids_v): deals both runs played."""
    common, ib, iv = np.intersect1d(np.asarray(ids_b), np.asarray(ids_v), assume_unique=True,
                                    return_indices=True)
    return common, ib, iv


__all__ = ["PairedChange", "align", "paired_change"]
