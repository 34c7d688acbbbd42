"""The SPRT maths of `targi-sim check` (targi_sim/stats/sprt.py): known answers, the
constrained MLE, the two-sided stopping rule, and -- simulated with numpy alone --
its error rates and average sample numbers against a fixed-sample test.

Run with `-s` to see the ASN figures quoted in docs/check.md.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from targi_sim.check.baseline import default_cap
from targi_sim.stats import sprt
from targi_sim.stats.sprt import FAIL, H0, H1, OPEN, PASS, TwoSidedSprt

# frequencies measured with the real engine: balanced's points in a seat-swapped pair
# against greedy (40,000 games = 20,000 pairs, pentanomial), and the first player's in
# the balanced mirror, which plays one game per deal (trinomial: loss, draw, win; the
# same deals' seat-swapped pairs were 0-or-1 pairs, [5836, 0, 121, 0, 4043] / 10,000)
PDF_BALANCED_VS_GREEDY = np.array([3299, 32, 8704, 35, 7930]) / 20_000
PDF_FIRST_PLAYER_MIRROR = np.array([5836, 121, 4043]) / 10_000


# ------------------------------------------------------------------ known answers


def test_bounds_are_walds():
    lo, hi = sprt.bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439, abs=1e-6)
    assert hi == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944439, abs=1e-6)
    lo, hi = sprt.bounds(0.025, 0.05)
    assert (lo, hi) == pytest.approx((math.log(0.05 / 0.975), math.log(0.95 / 0.025)))
    with pytest.raises(ValueError):
        sprt.bounds(0.0, 0.05)


def test_pair_counts_categories():
    # pairs: (1,1) (1,0) (0.5,0.5) (0,0) (1,0.5) (0,0.5) -> scores 2, 1, 1, 0, 1.5, 0.5
    points = np.array([1, 1, 1, 0, 0.5, 0.5, 0, 0, 1, 0.5, 0, 0.5])
    assert sprt.pair_counts(points).tolist() == [1, 1, 2, 1, 1]
    assert sprt.rate(sprt.pair_counts(points)) == pytest.approx(points.mean())
    with pytest.raises(ValueError):
        sprt.pair_counts(np.array([1.0, 0.0, 1.0]))  # not whole pairs


def test_unit_counts_of_single_games_are_trinomial():
    points = np.array([1, 0, 0.5, 1, 1, 0])
    assert sprt.unit_counts(points, 1).tolist() == [2, 1, 3]
    assert sprt.rate(sprt.unit_counts(points, 1)) == pytest.approx(points.mean())
    assert sprt.unit_scores(3).tolist() == [0.0, 0.5, 1.0]
    assert sprt.unit_scores(5).tolist() == sprt.SCORES.tolist()
    with pytest.raises(ValueError):
        sprt.unit_scores(4)


def test_trinomial_llr_known_answer():
    # 40 losses, 60 wins: LLR(0.6 vs 0.5) = 100 * (0.4 ln(0.4/0.5) + 0.6 ln(0.6/0.5)), as for
    # the pentanomial 0-or-1 pairs: the test depends on the scores, not on how many there are
    expected = 100 * (0.4 * math.log(0.8) + 0.6 * math.log(1.2))
    assert sprt.llr(np.array([40, 0, 60]), 0.5, 0.6) == pytest.approx(expected, rel=1e-4)
    assert sprt.llr(np.array([40, 0, 0, 0, 60]), 0.5, 0.6) == pytest.approx(expected, rel=1e-4)
    f = np.array([0.3, 0.2, 0.5])
    p = sprt.mle_with_mean(f, 0.55)
    assert p @ sprt.TRINOMIAL == pytest.approx(0.55) and p.sum() == pytest.approx(1.0)


def test_mle_on_two_points_is_the_only_distribution_with_that_mean():
    # on scores {0, 1} the distribution with mean s is (1 - s, s), whatever the data
    p = sprt.mle_with_mean(np.array([0.5, 0.5]), 0.6, np.array([0.0, 1.0]))
    assert p == pytest.approx([0.4, 0.6], abs=1e-12)


def test_llr_known_answer_hand_computed():
    # 50 pairs scored 0 and 50 scored 1: LLR(0.6 vs 0.5) = 100 * (0.5 ln(0.4/0.5) + 0.5 ln(0.6/0.5))
    counts = np.array([50, 0, 0, 0, 50])
    expected = 100 * (0.5 * math.log(0.4 / 0.5) + 0.5 * math.log(0.6 / 0.5))
    assert expected == pytest.approx(-2.0411, abs=1e-4)
    assert sprt.llr(counts, 0.5, 0.6) == pytest.approx(expected, rel=1e-4)  # empty cells ~1e-3
    # with 70 pairs won: 100 * (0.3 ln(0.4/0.5) + 0.7 ln(0.6/0.5)) = +6.0679
    assert sprt.llr(np.array([30, 0, 0, 0, 70]), 0.5, 0.6) == pytest.approx(
        100 * (0.3 * math.log(0.8) + 0.7 * math.log(1.2)), rel=1e-4)


def test_llr_at_the_observed_mean_uses_the_data_as_h0():
    counts = np.array([10, 20, 40, 20, 10])  # mean exactly 0.5
    f = counts / counts.sum()
    p1 = sprt.mle_with_mean(f, 0.55)
    assert sprt.llr(counts, 0.5, 0.55) == pytest.approx(100 * (f * np.log(p1 / f)).sum())
    assert sprt.llr(counts, 0.5, 0.55) < 0  # data at H0 favour H0


@pytest.mark.parametrize("s", [0.2, 0.45, 0.5, 0.62, 0.9])
def test_constrained_mle_is_a_maximum(s):
    rng = np.random.default_rng(3)
    f = rng.dirichlet(np.ones(5))
    p = sprt.mle_with_mean(f, s)
    assert p.sum() == pytest.approx(1.0) and (p > 0).all()
    assert p @ sprt.SCORES == pytest.approx(s, abs=1e-10)
    best = f @ np.log(p)
    # every feasible direction (sum 0, mean change 0) lowers the log-likelihood
    A = np.vstack([np.ones(5), sprt.SCORES])
    null = np.linalg.svd(A)[2][2:]  # basis of directions keeping sum and mean
    for _ in range(200):
        d = rng.normal(size=3) @ null
        step = 1e-3 * d / np.abs(d).max() * p.min()
        assert f @ np.log(p + step) <= best + 1e-12


def test_exact_llr_agrees_with_the_normal_approximation_for_small_moves():
    counts = np.array([120, 300, 1000, 420, 160])
    for s0, s1 in ((0.5, 0.51), (0.53, 0.52), (0.52, 0.535)):
        exact, approx = sprt.llr(counts, s0, s1), sprt.llr_normal(counts, s0, s1)
        assert exact == pytest.approx(approx, rel=0.03, abs=0.05)
        assert sprt.llr(counts, s1, s0) == pytest.approx(-exact)


def test_llr_is_vectorized():
    counts = np.array([[50, 0, 0, 0, 50], [30, 0, 0, 0, 70]])
    out = sprt.llr(counts, 0.5, 0.6)
    assert out.shape == (2,)
    assert out[1] == pytest.approx(sprt.llr(counts[1], 0.5, 0.6))


# ------------------------------------------------------------------ the two-sided rule


def test_two_sides_split_alpha_and_one_side_near_the_edge():
    t = TwoSidedSprt(0.5, 0.01)
    assert [s.name for s in t.sides] == ["up", "down"]
    assert [s.p1 for s in t.sides] == pytest.approx([0.51, 0.49])
    lo, hi = sprt.bounds(0.025, 0.05)
    assert all((s.lower, s.upper) == pytest.approx((lo, hi)) for s in t.sides)
    edge = TwoSidedSprt(0.995, 0.01)  # cannot move up by a point
    assert [s.name for s in edge.sides] == ["down"]
    assert (edge.sides[0].lower, edge.sides[0].upper) == pytest.approx(sprt.bounds(0.05, 0.05))


def test_verdicts_of_the_stopping_rule():
    t = TwoSidedSprt(0.5, 0.01)
    lo, hi = t.sides[0].lower, t.sides[0].upper
    assert t.observe([0.0, 0.0]) == OPEN
    assert t.observe([lo - 0.1, 0.0]) == OPEN  # up accepted H0, down still open
    assert t.sides[0].state == H0
    assert t.observe([hi + 5, 0.0]) == OPEN  # a stopped side ignores later values
    assert t.observe([0.0, lo]) == PASS
    t = TwoSidedSprt(0.5, 0.01)
    assert t.observe([lo - 1, hi]) == FAIL  # one side moved: fail at once
    assert t.sides[1].state == H1
    t = TwoSidedSprt(0.5, 0.01)
    t.observe([-0.5, 0.3])
    assert t.finish() == FAIL  # at the cap: LLR > 0 means the data favour the moved rate
    t = TwoSidedSprt(0.5, 0.01)
    t.observe([-0.5, -0.1])
    assert t.finish() == PASS


def test_update_reaches_fail_on_a_moved_rate_and_pass_on_an_unmoved_one():
    moved = TwoSidedSprt(0.5, 0.02)
    assert moved.update(np.array([100, 200, 400, 300, 200])) == FAIL  # mean 0.55
    assert moved.sides[0].state == H1
    same = TwoSidedSprt(0.5, 0.02)
    assert same.update(np.array([1000, 2000, 4000, 2000, 1000])) == PASS


# ------------------------------------------------------------------ ASN by simulation


def _simulate(pdf0: np.ndarray, delta: float, batch_games: int, runs: int):
    """(games per unit, fixed-sample units, cap in units, {label: (ASN units, fail rate)})."""
    scores = sprt.unit_scores(len(pdf0))
    m = (len(pdf0) - 1) // 2
    p0 = float(pdf0 @ scores)
    cap_units = default_cap(p0, delta, batch_games) // m
    sd = math.sqrt(float(pdf0 @ (scores - p0) ** 2))
    fixed = sprt.fixed_sample_pairs(sd, delta)
    out = {}
    for label, shift, seed in (("H0", 0.0, 1), ("H1 up", delta, 2), ("H1 down", -delta, 3)):
        pdf = pdf0 if shift == 0 else sprt.mle_with_mean(pdf0, p0 + shift)
        used, failed, _ = sprt.simulate_sample_numbers(
            pdf, p0, delta, batch_pairs=batch_games // m, max_pairs=cap_units, runs=runs,
            seed=seed)
        out[label] = (used.mean(), failed.mean())
    return m, fixed, cap_units, out


@pytest.mark.parametrize("name,pdf0,delta", [
    ("balanced vs greedy, win rate", PDF_BALANCED_VS_GREEDY, 0.01),
    ("mirror balanced, first-player rate", PDF_FIRST_PLAYER_MIRROR, 0.01),
])
def test_average_sample_number_beats_a_fixed_sample_test(name, pdf0, delta):
    runs = 1000
    m, fixed, cap, res = _simulate(pdf0, delta, batch_games=1000, runs=runs)
    print(f"\n{name}: tolerance {100 * delta:.1f} points, looks every 1,000 games, "
          f"cap {m * cap:,} games, {runs} simulated checks per row")
    print(f"  fixed-sample test, same alpha/power: {m * fixed:,} games")
    for label, (asn_units, fail_rate) in res.items():
        print(f"  {label:8s} ASN {m * asn_units:9,.0f} games = {asn_units / fixed:.2f} x "
              f"fixed, fails {fail_rate:.3f}")
    se = math.sqrt(0.05 * 0.95 / runs)
    h0_asn, h0_fail = res["H0"]
    assert h0_fail <= 0.05 + 2 * se  # false alarms within alpha
    for label in ("H1 up", "H1 down"):
        asn, fail = res[label]
        assert fail >= 0.95 - 2 * se  # power at a move of the tolerance
        assert asn <= 0.65 * fixed, label
    assert h0_asn <= 0.85 * fixed
