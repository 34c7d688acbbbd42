"""Sequential probability ratio tests on independent units of games (pentanomial pairs,
or trinomial single games).

Why units: the two games of a seat-swapped pair share a deal and swap the first
player, so their results are correlated. Treating them as independent games
would get the variance -- and so the error rates -- wrong. Instead each *pair*
is one observation with five possible scores for the tracked side, 0, 1/4, 1/2,
3/4 or 1 (its points in the two games over 2, draws counting half), and the
rate under test is the mean of that five-category ("pentanomial") distribution.
This is how the chess-engine testing farms (fishtest, OpenBench) test patches.
When a deal is played once (a mirror of deterministic strategies, whose
seat-swapped pair would be one game twice; targi_sim.play.pairing) the game is the
unit, with three scores 0, 1/2, 1 ("trinomial"). Everything below works for any
number of categories K = 2m + 1 (units of m games): the scores are
0, 1/(K-1), ..., 1, read off the length of the counts.

The test statistic is the generalized SPRT of M. Van den Bergh ("GSPRT",
used by fishtest): under each hypothesis "mean = s" the unknown distribution of
a unit's score is replaced by its maximum-likelihood estimate among all
distributions with mean s, and

    LLR = N * sum_i f_i * log(p1_i / p0_i)

with N units, f the observed frequencies and p0, p1 the two constrained
MLEs. The constrained MLE has the closed form p_i = f_i / (1 + lam (a_i - s))
with lam the root of sum_i f_i (a_i - s) / (1 + lam (a_i - s)) = 0, which
is strictly decreasing in lam, so bisection finds it (vectorized, so the
simulations in tests are fast). `llr_normal` is the usual normal
approximation N (s1 - s0) (2 m - s0 - s1) / (2 v) (m, v: sample mean and
variance of the unit scores), kept as a cross-check.

Two-sidedness (see docs/check.md): a rate "moved by the tolerance d" in
either direction. Two one-sided SPRTs run side by side (Sobel and Wald):
"up" tests H0: p = p0 against H1: p = p0 + d, "down" tests H0: p = p0
against H1: p = p0 - d. Each splits the overall alpha (alpha/2 per side,
the whole alpha when only one side is possible because p0 +- d leaves the
open interval (0, 1)); beta applies to each side as it stands. A side whose
LLR falls to its lower bound log(beta / (1 - alpha_side)) has accepted H0
and stops; the check FAILS as soon as any side's LLR reaches its upper bound
log((1 - beta) / alpha_side), and PASSES when every side has accepted H0.
At the game cap an undecided side takes the fixed-sample verdict of a
truncated SPRT: H1 if its LLR > 0 (the data favour the moved rate), else H0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # a pair's mean score, by category
N_CATEGORIES = len(SCORES)
TRINOMIAL = np.array([0.0, 0.5, 1.0])  # one game's score: loss, draw, win
REGULARIZE = 1e-3  # stands in for an empty category, as fishtest does
_BISECT_STEPS = 80

PASS, FAIL, OPEN = "pass", "fail", "open"
H0, H1 = "H0", "H1"


def unit_scores(categories: int) -> np.ndarray:
    """The scores of a unit of (categories - 1) / 2 games: 0, 1/(K-1), ..., 1."""
    if categories < 3 or categories % 2 == 0:
        raise ValueError(f"a unit of whole games has an odd number >= 3 of categories, "
                         f"got {categories}")
    return np.linspace(0.0, 1.0, categories)


def _scores_of(counts: np.ndarray) -> np.ndarray:
    return unit_scores(np.shape(counts)[-1])


def unit_counts(points: np.ndarray, games_per_unit: int) -> np.ndarray:
    """Counts of the 2m + 1 unit categories from one side's per-game points (0, 0.5, 1).

    Consecutive runs of `games_per_unit` (m) games form a unit: m = 2 for
    seat-swapped pairs (games 2j and 2j+1), m = 1 when every game has its own deal.
    """
    pts = np.asarray(points, dtype=float)
    m = int(games_per_unit)
    if pts.ndim != 1 or m < 1 or len(pts) % m:
        raise ValueError(f"points must be a 1-D array of whole units of {m} game(s)")
    cat = np.rint(2.0 * pts.reshape(-1, m).sum(axis=1)).astype(np.int64)  # 0..2m
    if cat.size and (cat.min() < 0 or cat.max() > 2 * m):
        raise ValueError("points must be 0, 0.5 or 1 per game")
    return np.bincount(cat, minlength=2 * m + 1).astype(np.int64)


def pair_counts(points: np.ndarray) -> np.ndarray:
    """Counts of the 5 pair categories (games 2j and 2j+1 form pair j)."""
    return unit_counts(points, 2)


def rate(counts: np.ndarray) -> float:
    """The tracked side's rate (points per game) of unit counts; nan without units."""
    c = np.asarray(counts, dtype=float)
    n = c.sum()
    return float(c @ _scores_of(c) / n) if n > 0 else math.nan


def unit_variance(counts: np.ndarray) -> float:
    """Variance of one unit's mean score (population form); nan without units."""
    c = np.asarray(counts, dtype=float)
    n = c.sum()
    if n <= 0:
        return math.nan
    scores = _scores_of(c)
    m = c @ scores / n
    return float(c @ (scores - m) ** 2 / n)


def regularize(counts: np.ndarray) -> np.ndarray:
    """Counts as floats with every empty category replaced by a tiny positive count."""
    c = np.asarray(counts, dtype=float)
    return np.where(c > 0, c, REGULARIZE)


def mle_with_mean(freq: np.ndarray, s: float | np.ndarray,
                  scores: np.ndarray | None = None) -> np.ndarray:
    """The distribution with mean `s` that maximizes the likelihood of frequencies `freq`.

    `freq` has shape (..., K) with positive rows summing to 1; `s` is a scalar
    or broadcasts against the leading dimensions and must lie strictly between
    the smallest and largest score. `scores` default: `unit_scores(K)`.
    """
    f = np.asarray(freq, dtype=float)
    scores = _scores_of(f) if scores is None else np.asarray(scores, dtype=float)
    s_arr = np.broadcast_to(np.asarray(s, dtype=float), f.shape[:-1])[..., None]
    d = scores - s_arr  # (..., K)
    lo_s, hi_s = scores.min(), scores.max()
    if np.any(s_arr <= lo_s) or np.any(s_arr >= hi_s):
        raise ValueError(f"the mean must lie strictly between {lo_s} and {hi_s}")
    # 1 + lam * d > 0 for every category: lam in (-1 / max d, 1 / -min d)
    lo = -1.0 / d.max(axis=-1, keepdims=True)
    hi = 1.0 / (-d.min(axis=-1, keepdims=True))
    for _ in range(_BISECT_STEPS):
        mid = 0.5 * (lo + hi)
        g = (f * d / (1.0 + mid * d)).sum(axis=-1, keepdims=True)
        lo = np.where(g > 0, mid, lo)  # g decreases in lam: root lies above
        hi = np.where(g > 0, hi, mid)
    lam = 0.5 * (lo + hi)
    p = f / (1.0 + lam * d)
    return p / p.sum(axis=-1, keepdims=True)


def llr(counts: np.ndarray, s0: float, s1: float) -> np.ndarray | float:
    """GSPRT log-likelihood ratio of "mean = s1" over "mean = s0" for unit counts.

    Vectorized over leading dimensions of `counts` (..., K); the scores are
    `unit_scores(K)`. Zero when there are no units.
    """
    c = regularize(counts)
    n = np.asarray(counts, dtype=float).sum(axis=-1)
    f = c / c.sum(axis=-1, keepdims=True)
    p0 = mle_with_mean(f, s0)
    p1 = mle_with_mean(f, s1)
    out = n * (f * np.log(p1 / p0)).sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def llr_normal(counts: np.ndarray, s0: float, s1: float) -> float:
    """The normal approximation of the LLR (fishtest's simple form), for cross-checks."""
    c = regularize(counts)
    n = float(np.asarray(counts, dtype=float).sum())
    m = rate(c)
    v = unit_variance(c)
    return n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * v)


def llr_gaussian(estimate: float, variance: float, s0: float, s1: float) -> float:
    """LLR of "value = s1" over "value = s0" for an estimate that is normal with a known
    `variance`: (s1 - s0)(2 estimate - s0 - s1) / (2 variance). The paired-normal test of
    means and of rates whose denominator varies by unit (docs/check.md); the estimate and
    its cluster-robust variance come from per-unit sums (targi_sim.stats.rates). Zero (no
    evidence) while the variance is unknown; infinite, towards the nearer hypothesis,
    when every unit had the same value (e.g. every game lasted 12 rounds)."""
    if not (math.isfinite(estimate) and math.isfinite(variance)) or variance < 0.0:
        return 0.0
    top = (s1 - s0) * (2.0 * estimate - s0 - s1)
    if variance == 0.0:
        return math.copysign(math.inf, top) if top else 0.0
    return top / (2.0 * variance)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds (accept H0 at or below the first, H1 at or above the second)."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must lie strictly between 0 and 1")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


@dataclass
class Side:
    """One one-sided SPRT: H0 mean = p0 against H1 mean = p1."""

    name: str  # "up" or "down"
    p1: float
    lower: float
    upper: float
    llr: float = 0.0
    state: str = OPEN  # OPEN, H0 or H1


@dataclass
class TwoSidedSprt:
    """Sobel-Wald two-sided test of "the rate is still p0" (see the module docstring).

    Feed cumulative unit counts with `update` after every batch; `verdict`
    becomes PASS or FAIL once decided. `finish` applies the fixed-sample
    verdict at the game cap.
    """

    p0: float
    delta: float
    alpha: float = 0.05
    beta: float = 0.05
    sides: list[Side] = field(default_factory=list)
    low: float = 0.0  # the open range the value lives in: (0, 1) for rates,
    high: float = 1.0  # (-inf, inf) for a mean tested with `update_normal`

    def __post_init__(self) -> None:
        if not self.low < self.p0 < self.high:
            raise ValueError(f"the baseline value must lie strictly between {self.low:g} and "
                             f"{self.high:g}, got {self.p0}")
        if not 0.0 < self.delta < self.high - self.low:
            raise ValueError(f"the tolerance must be positive and less than "
                             f"{self.high - self.low:g}, got {self.delta}")
        targets = [(name, self.p0 + sign * self.delta) for name, sign in (("up", 1), ("down", -1))]
        testable = [(n, p) for n, p in targets if self.low < p < self.high]
        alpha_side = self.alpha / len(testable)
        lo, hi = bounds(alpha_side, self.beta)
        self.sides = [Side(n, p, lo, hi) for n, p in testable]

    @property
    def verdict(self) -> str:
        if any(s.state == H1 for s in self.sides):
            return FAIL
        if all(s.state == H0 for s in self.sides):
            return PASS
        return OPEN

    def update(self, counts: np.ndarray) -> str:
        """Look at the data so far (cumulative counts); returns the verdict."""
        return self.observe([llr(counts, self.p0, s.p1) if s.state == OPEN else s.llr
                             for s in self.sides])

    def update_normal(self, estimate: float, variance: float) -> str:
        """Look at the data so far given an estimate and its variance (`llr_gaussian`)."""
        return self.observe([llr_gaussian(estimate, variance, self.p0, s.p1)
                             if s.state == OPEN else s.llr for s in self.sides])

    def observe(self, llrs: list[float]) -> str:
        """One look given each side's current LLR; a side that has stopped ignores its value."""
        for s, value in zip(self.sides, llrs, strict=True):
            if s.state != OPEN:
                continue
            s.llr = float(value)
            if s.llr >= s.upper:
                s.state = H1
            elif s.llr <= s.lower:
                s.state = H0
        return self.verdict

    def finish(self) -> str:
        """The fixed-sample verdict at the cap: an open side goes to H1 iff its LLR > 0."""
        for s in self.sides:
            if s.state == OPEN:
                s.state = H1 if s.llr > 0.0 else H0
        return self.verdict


def fixed_sample_pairs(sigma: float, delta: float, alpha: float = 0.05,
                       beta: float = 0.05, sides: int = 2) -> int:
    """Units a fixed-sample z-test needs for the same error rates as the SPRT.

    Reject "rate = p0" when the mean is more than z_{1-alpha/sides} standard
    errors away; power 1 - beta at a move of `delta`. `sigma` is the standard
    deviation of one unit's mean score (a pair's, or a game's).
    """
    z = NormalDist().inv_cdf
    n = ((z(1.0 - alpha / sides) + z(1.0 - beta)) * sigma / delta) ** 2
    return max(1, math.ceil(n))


def simulate_sample_numbers(pdf: np.ndarray, p0: float, delta: float, *, batch_pairs: int,
                            max_pairs: int, runs: int, alpha: float = 0.05, beta: float = 0.05,
                            seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Simulate the two-sided test on units drawn from `pdf` (K categories; numpy only).

    Returns (units used, failed, decided at the cap) per run. The test looks after
    every batch of `batch_pairs` units (pairs, or games for a trinomial `pdf`),
    exactly as `targi_sim.check.guard` does with real games, and applies the
    fixed-sample verdict after `max_pairs` units.
    """
    rng = np.random.default_rng(seed)
    looks = math.ceil(max_pairs / batch_pairs)
    sizes = np.minimum(batch_pairs, max_pairs - batch_pairs * np.arange(looks))
    draws = np.stack([rng.multinomial(n, pdf, size=runs) for n in sizes], axis=1)
    cum = np.cumsum(draws, axis=1)  # (runs, looks, K)
    units = np.cumsum(sizes)
    template = TwoSidedSprt(p0, delta, alpha, beta)
    # the LLR of every side at every look, vectorized; then the stopping rule per run
    side_llr = [llr(cum, p0, s.p1) for s in template.sides]  # each (runs, looks)
    used = np.empty(runs, dtype=np.int64)
    failed = np.empty(runs, dtype=bool)
    capped = np.empty(runs, dtype=bool)
    for r in range(runs):
        test = TwoSidedSprt(p0, delta, alpha, beta)
        verdict = OPEN
        k = 0
        for k in range(looks):
            verdict = test.observe([values[r, k] for values in side_llr])
            if verdict != OPEN:
                break
        capped[r] = verdict == OPEN
        if verdict == OPEN:
            verdict = test.finish()
        used[r] = units[k]
        failed[r] = verdict == FAIL
    return used, failed, capped


__all__ = [
    "FAIL", "H0", "H1", "OPEN", "PASS", "SCORES", "Side", "TRINOMIAL", "TwoSidedSprt",
    "bounds", "fixed_sample_pairs", "llr", "llr_gaussian", "llr_normal", "mle_with_mean",
    "pair_counts", "rate", "regularize", "simulate_sample_numbers", "unit_counts", "unit_scores",
    "unit_variance",
]
