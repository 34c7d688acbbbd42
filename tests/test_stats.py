"""Clustered rates (targi_sim/stats/rates.py): against statsmodels' cluster-robust standard
errors, and on hand-built runs whose design effects are known (tests/cluster_fixture.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from cluster_fixture import K_TAKES, K_WINS, K, build_cluster_fixture
from hypothesis import example, given, settings
from hypothesis import strategies as st

from targi_sim.stats.rates import (
    ClusterAccumulator,
    ClusterSums,
    clustered_rate,
    detectable_effect,
    rate_of,
    wilson_interval,
)

approx = pytest.approx


def _statsmodels_se(y: np.ndarray, groups: np.ndarray) -> float:
    import statsmodels.api as sm

    fit = sm.OLS(y, np.ones((len(y), 1))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    return float(fit.bse[0])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=4),
                min_size=3, max_size=60))
@example([[0.5, 1.0, 1.0]] * 3)  # identical clusters: the streamed sums used to leave 8e-9
def test_standard_error_is_statsmodels_cluster_robust_one(clusters):
    """The ratio estimator's variance = an intercept-only OLS with cov_type="cluster"
    (statsmodels' default small-sample factor G/(G-1)), for any cluster sizes."""
    y = np.array([v for c in clusters for v in c])
    groups = np.repeat(np.arange(len(clusters)), [len(c) for c in clusters])
    r = clustered_rate([sum(c) for c in clusters], [len(c) for c in clusters])
    assert r.rate == approx(y.mean())
    assert r.se == approx(_statsmodels_se(y, groups), rel=1e-9, abs=1e-12)
    if 0 < r.rate < 1:
        assert r.deff == approx(r.se**2 / (r.rate * (1 - r.rate) / len(y)))


def test_weighted_rows_match_statsmodels_wls():
    """Rows of unequal weight (e.g. per-game offers) give the WLS cluster-robust error."""
    import statsmodels.api as sm

    rng = np.random.default_rng(4)
    groups = np.repeat(np.arange(80), 3)
    y = rng.integers(0, 2, len(groups)).astype(float)
    w = rng.integers(1, 4, len(groups)).astype(float)
    fit = sm.WLS(y, np.ones((len(y), 1)), weights=w).fit(cov_type="cluster",
                                                         cov_kwds={"groups": groups})
    x = np.bincount(groups, weights=w * y)
    n = np.bincount(groups, weights=w)
    r = clustered_rate(x, n)
    assert r.rate == approx(fit.params[0])
    # WLS scales the meat by (nobs-1)/(nobs-k) = 1 for k = 1, as the ratio estimator does
    assert r.se == approx(fit.bse[0], rel=1e-9)


def test_duplicated_clusters_have_design_effect_two_and_known_interval():
    y = np.array([1.0] * 30 + [0.0] * 70)  # 100 distinct outcomes, p = 0.3
    dup = clustered_rate(2 * y, np.full(100, 2.0))  # each outcome twice in its cluster
    ind = clustered_rate(np.concatenate([y, y]), np.ones(200))  # the same 200 games apart
    assert dup.rate == ind.rate == approx(0.3)
    assert dup.deff == approx(200 / 99)  # 2K / (K - 1)
    assert ind.deff == approx(200 / 199)  # 2K / (2K - 1)
    assert dup.interval == approx(wilson_interval(0.3 * 99, 99, 1.959963984540054))
    assert ind.interval == approx(wilson_interval(0.3 * 199, 199, 1.959963984540054))
    width = lambda r: r.hi - r.lo  # noqa: E731
    assert width(dup) / width(ind) == approx(math.sqrt(199 / 99), rel=0.02)


def test_degenerate_rates():
    assert math.isnan(clustered_rate([3, 4], [3, 4]).deff)  # rate 1: nothing to scale
    one = clustered_rate([1], [2])  # one cluster: no variance estimate, binomial interval
    assert math.isnan(one.se) and one.interval == approx(wilson_interval(1, 2, 1.959963984540054))
    empty = clustered_rate([0, 0], [0, 0])
    assert math.isnan(empty.rate) and empty.interval == (0.0, 1.0)
    # perfectly balanced clusters: zero residual, the interval still has a width
    flat = clustered_rate([1, 1, 1], [2, 2, 2])
    assert flat.se == 0 and flat.hi - flat.lo > 0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=40), st.integers(1, 7))
def test_accumulator_over_chunks_equals_one_pass(sizes, chunk):
    """Clusters split across chunk boundaries are merged: any chunking, the same rate."""
    ids = np.repeat(np.arange(len(sizes)), sizes)
    rng = np.random.default_rng(len(ids))
    x = rng.integers(0, 2, len(ids)).astype(float)
    acc = ClusterAccumulator(("r",))
    for start in range(0, len(ids), chunk):
        sl = slice(start, start + chunk)
        acc.add(ids[sl], np.ones(len(ids[sl])), {"r": x[sl]})
    got = acc.result()["r"]
    want = clustered_rate(np.bincount(ids, weights=x, minlength=len(sizes)),
                          np.bincount(ids, minlength=len(sizes)).astype(float))
    assert (got.rate, got.clusters) == (approx(want.rate, nan_ok=True), want.clusters)
    assert got.se == approx(want.se, nan_ok=True)


def test_sums_add_over_disjoint_clusters():
    a = ClusterSums.of([1, 2], [2, 2])
    b = ClusterSums.of([0, 1, 2], [1, 2, 2])
    assert rate_of(a + b) == rate_of(ClusterSums.of([1, 2, 0, 1, 2], [2, 2, 1, 2, 2]))


def test_detectable_effect_has_the_stated_power():
    from statsmodels.stats.power import NormalIndPower

    sigma, n, alpha = 0.5, 4000, 0.05 / 150
    mde = float(detectable_effect(2 * sigma**2 / n, alpha))
    power = NormalIndPower().power(effect_size=mde / sigma, nobs1=n, alpha=alpha, ratio=1.0)
    assert power == approx(0.8, abs=1e-3)
    assert math.isnan(float(detectable_effect(0.0, 0.05)))


# ------------------------------------------------------------------ whole reports


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    from targi_sim.report import analyse, read_run_info

    root = tmp_path_factory.mktemp("clusters")
    return {dup: analyse(read_run_info(build_cluster_fixture(root / str(dup), duplicate=dup)),
                         min_n=1) for dup in (True, False)}


@pytest.mark.parametrize("dup,deff,n_eff", [(True, 2 * K / (K - 1), K - 1),
                                            (False, 2 * K / (2 * K - 1), 2 * K - 1)])
def test_report_intervals_count_the_pair(reports, dup, deff, n_eff):
    """The issue: per-card and first-player intervals were sqrt(2) too narrow when every
    pair held two copies of one game."""
    rep = reports[dup]
    z = 1.959963984540054
    p = K_WINS / K
    fp = {r["scope"]: r for r in rep.table("first_player").df.iter_rows(named=True)}
    first = fp["all games"]
    assert first["first_rate"] == approx(p) and first["design_effect"] == approx(deff)
    assert (first["first_rate_lo"], first["first_rate_hi"]) == approx(
        wilson_interval(p * n_eff, n_eff, z))
    v = {r["metric"]: r for r in rep.table("viability").df.iter_rows(named=True)}
    assert v["AdvantageP1"]["value_deff"] == approx(deff)
    cards = {r["card_id"]: r for r in rep.table("cards_tribe").df.iter_rows(named=True)}
    c0, c1 = cards[0], cards[1]
    assert c0["played_wr"] == approx(p) and c0["played_wr_deff"] == approx(deff)
    assert (c0["played_wr_lo"], c0["played_wr_hi"]) == approx(wilson_interval(p * n_eff,
                                                                              n_eff, z))
    q = K_TAKES / K
    assert c1["acquire_rate"] == approx(q) and c1["acquire_rate_deff"] == approx(deff)
    assert (c1["acquire_rate_lo"], c1["acquire_rate_hi"]) == approx(
        wilson_interval(q * n_eff, n_eff, z))
    seat = {r["seat"]: r for r in rep.table("strategies_by_seat").df.iter_rows(named=True)}
    assert seat[0]["win_rate"] == approx(0.5)  # a copy relabelled: each seat wins half
    head = {r["metric"]: r for r in rep.headline.iter_rows(named=True)}
    assert head["first player rate"]["deff"] == approx(deff)


def test_compare_uses_each_runs_design_effect_and_reports_the_mde(reports):
    from statistics import NormalDist

    from targi_sim.report.family import compare_tables, family_size, with_mde

    p = K_WINS / K
    for dup, deff in ((True, 2 * K / (K - 1)), (False, 2 * K / (2 * K - 1))):
        df = with_mde(compare_tables(reports[dup], reports[dup]))
        row = df.filter(df["metric"] == "first player rate").row(0, named=True)
        assert row["deff_a"] == approx(deff) and row["deff_b"] == approx(deff)
        var = p * (1 - p) * 2 * deff / (2 * K)
        assert row["variance"] == approx(var)
        nd = NormalDist()
        m = family_size(df)
        expected = (nd.inv_cdf(1 - 0.05 / m / 2) + nd.inv_cdf(0.8)) * math.sqrt(var)
        assert row["mde"] == approx(expected)
        card = df.filter(df["metric"] == "Targia 3VP: WR played").row(0, named=True)
        assert card["deff_a"] == approx(deff)
    # the report's own MDE column: a comparison with a run of the same size
    c0 = reports[True].table("cards_tribe").df.row(0, named=True)
    assert c0["played_wr_mde"] > 0
    ratio = c0["played_wr_mde"] / reports[False].table("cards_tribe").df.row(
        0, named=True)["played_wr_mde"]
    assert ratio == approx(math.sqrt((2 * K / (K - 1)) / (2 * K / (2 * K - 1))), rel=1e-6)
