"""Fixed-width sequential stopping: measure a win rate until its interval is as narrow
as asked, then stop.

Why: a fixed number of games is spent whatever the answer. A comparison whose rate is
99% has a far narrower interval after 1,000 games than one at 52% after 20,000; a rule
that stops when the interval reaches a target width spends games where they are needed
and gives every comparison (at least) the precision asked for.

The rule: look at fixed game counts (`looks`, the last one a cap); at each look compute
the rate and its 95% interval with the deal (a seat-swapped pair) as the unit --
`clustered_rate`, the Wilson interval on the effective n that run reports print -- and
stop at the first look where the interval's half-width is at most `half_width`, or at
the cap. The looks are fixed in advance (never chosen from the data), and the
decision reads only the games of those looks in deal order, so the games used do not
depend on workers, chunks or backends.

Error rate: a data-dependent stop can cost an interval some coverage (it stops a little
more readily when the estimate happens to be extreme, where the interval is narrower).
`simulate_coverage` measures it on a known answer; tests/test_stopping.py holds it to
the nominal 95% within simulation error on an A/A comparison (true rate 50%) and on
planted differences (60%, 99%).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from targi_sim.stats.rates import Z95, clustered_rate, rates_from_sums, wilson_interval

SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # a seat-swapped pair's mean points


def widest_half_width(games: int, z: float = Z95) -> float:
    """The half-width of the 95% Wilson interval of a 50% rate over `games` independent
    games: the widest interval a fixed run of that many games reports (rates away from
    50% have narrower ones)."""
    lo, hi = wilson_interval(games / 2, games, z)
    return (hi - lo) / 2


def look_schedule(cap: int, looks: int, unit: int = 2) -> list[int]:
    """`looks` evenly spaced game counts up to `cap`, each a whole number of units (a
    seat-swapped pair is 2 games); the last is `cap`."""
    step = max(unit, (cap // looks) // unit * unit)
    counts = list(range(step, cap, step))
    return counts + [cap]


@dataclass(frozen=True)
class Look:
    """One look of the rule: the games so far, the rate, its interval, and the verdict."""

    games: int
    rate: float
    lo: float
    hi: float
    stop: bool

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2


def look(points: np.ndarray, pairs: np.ndarray, half_width: float, cap: int) -> Look:
    """The rule at one look: `points[i]` the tracked side's points in game i (a win 1,
    a draw 0.5), `pairs[i]` the game's deal (its cluster). Stops when the interval's
    half-width is at most `half_width`, or at `cap` games."""
    points = np.asarray(points, dtype=float)
    pairs = np.asarray(pairs)
    _, index = np.unique(pairs, return_inverse=True)
    successes = np.bincount(index, weights=points)
    trials = np.bincount(index).astype(float)
    r = clustered_rate(successes, trials)
    stop = (r.hi - r.lo) / 2 <= half_width or len(points) >= cap
    return Look(len(points), r.rate, r.lo, r.hi, bool(stop))


def simulate_coverage(pair_pdf: np.ndarray, half_width: float, looks: list[int], *,
                      runs: int, seed: int = 0) -> dict[str, float]:
    """The rule on `runs` simulated comparisons whose seat-swapped pairs score 0, 1/4,
    1/2, 3/4 or 1 (their mean points) with probabilities `pair_pdf`; the true rate is
    its mean. Returns the share of final intervals that hold the true rate
    (`coverage`), that exclude 50% (`excludes_half`: an A/A comparison's false
    positives), and the mean games used. Vectorised: every run's every look at once,
    through the same interval code as `look`."""
    rng = np.random.default_rng(seed)
    pdf = np.asarray(pair_pdf, dtype=float)
    truth = float(pdf @ SCORES)
    pairs_at = np.asarray(looks) // 2
    draws = rng.choice(len(SCORES), size=(runs, pairs_at[-1]), p=pdf)
    x = 2.0 * SCORES[draws]  # a pair's points over its two games
    cx = np.cumsum(x, axis=1)[:, pairs_at - 1]
    cxx = np.cumsum(x * x, axis=1)[:, pairs_at - 1]
    k = pairs_at[None, :].astype(float)
    r = rates_from_sums(k, cx, 2.0 * k, cxx, 2.0 * cx, 4.0 * k)
    stop = (r["hi"] - r["lo"]) / 2 <= half_width
    stop[:, -1] = True  # the cap
    first = np.argmax(stop, axis=1)
    rows = np.arange(runs)
    lo, hi = r["lo"][rows, first], r["hi"][rows, first]
    return {"true_rate": truth, "coverage": float(np.mean((lo <= truth) & (truth <= hi))),
            "excludes_half": float(np.mean((lo > 0.5) | (hi < 0.5))),
            "mean_games": float(np.mean(np.asarray(looks)[first]))}


__all__ = ["SCORES", "Look", "look", "look_schedule", "simulate_coverage", "widest_half_width"]
