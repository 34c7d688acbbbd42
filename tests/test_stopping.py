"""The ladder's fixed-width stopping rule (targi_sim.stats.stopping): its error rates on
known answers -- an A/A comparison (true rate 50%) and planted differences -- by
simulation through the same interval code the ladder uses, and its pieces."""

from __future__ import annotations

import numpy as np
import pytest

from targi_sim.stats.rates import Z95, clustered_rate, wilson_interval
from targi_sim.stats.stopping import (
    look,
    look_schedule,
    simulate_coverage,
    widest_half_width,
)

CAP = 400
LOOKS = look_schedule(CAP, 20)
RUNS = 4000  # coverage's simulation SE ~0.0035: 0.935 is four of them under 95%
# a seat-swapped pair's mean points 0, 1/4, 1/2, 3/4, 1 (no draws: 0, 1/2, 1 only)
COIN = np.array([0.25, 0.0, 0.5, 0.0, 0.25])           # A/A: each game a coin flip
SIXTY = np.array([0.16, 0.0, 0.48, 0.0, 0.36])         # A/B: 60%, games independent
FIRST_MOVER = np.array([0.10, 0.0, 0.80, 0.0, 0.10])   # A/A where the first player wins
# most games: a pair's two games anti-correlated (design effect below 1)
ONE_SIDED = np.array([0.0001, 0.0, 0.0198, 0.0, 0.9801])  # 99%: the upper rung dominates


def test_the_widest_half_width_is_a_fixed_runs_interval_at_half():
    lo, hi = wilson_interval(200, 400, Z95)
    assert widest_half_width(400) == pytest.approx((hi - lo) / 2)
    assert widest_half_width(400) > widest_half_width(401 * 2)  # more games: narrower


def test_looks_are_whole_pairs_up_to_the_cap():
    assert look_schedule(400, 20) == list(range(20, 401, 20))
    looks = look_schedule(1001, 20)
    assert looks[-1] == 1001 and all(n % 2 == 0 for n in looks[:-1])
    assert looks == sorted(set(looks))


def test_a_look_is_the_run_reports_clustered_interval():
    rng = np.random.default_rng(3)
    points = rng.integers(0, 2, size=200).astype(float)
    pairs = np.repeat(np.arange(100), 2)
    got = look(points, pairs, 0.0, 400)
    ref = clustered_rate(points.reshape(100, 2).sum(axis=1), np.full(100, 2.0))
    assert (got.rate, got.lo, got.hi) == pytest.approx((ref.rate, ref.lo, ref.hi))
    assert not got.stop  # a half-width of 0 is never reached before the cap
    assert look(points, pairs, 1.0, 400).stop
    assert look(points, pairs, 0.0, 200).stop  # the cap


@pytest.mark.parametrize("pdf", [COIN, FIRST_MOVER], ids=["coin", "first-mover"])
def test_an_aa_comparison_claims_a_difference_at_the_nominal_rate(pdf):
    r = simulate_coverage(pdf, widest_half_width(CAP), LOOKS, runs=RUNS, seed=1)
    assert r["true_rate"] == pytest.approx(0.5)
    assert r["coverage"] >= 0.935
    assert r["excludes_half"] <= 0.065  # 5% nominal


def test_a_planted_difference_is_found_and_covered():
    r = simulate_coverage(SIXTY, widest_half_width(CAP), LOOKS, runs=RUNS, seed=2)
    assert r["coverage"] >= 0.935
    assert r["excludes_half"] >= 0.9


def test_a_one_sided_comparison_stops_early_and_is_still_covered():
    r = simulate_coverage(ONE_SIDED, widest_half_width(CAP), LOOKS, runs=RUNS, seed=3)
    assert r["mean_games"] <= CAP / 4
    assert r["coverage"] >= 0.935
    narrower = simulate_coverage(ONE_SIDED, widest_half_width(CAP) / 3, LOOKS, runs=RUNS,
                                 seed=3)
    assert narrower["mean_games"] > r["mean_games"]
