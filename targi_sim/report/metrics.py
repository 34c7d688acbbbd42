"""Statistics that are clearer in Python than in SQL: intervals, tests, Ludii metrics.

(Card grades: targi_sim.stats.grades.)

Everything here works on small aggregated tables (one row per card, per matchup, ...)
or on numpy arrays of one value per game; nothing reads the run itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from targi_sim.runner.sums import lead_counts
from targi_sim.stats.rates import (
    DEFF_FLOOR,
    ClusterSums,
    cluster_index,
    rate_of,
    rates_from_sums,
)


def normal_two_sided_p(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    if math.isnan(z):
        return math.nan
    return math.erfc(abs(z) / math.sqrt(2.0))


SUMS = "__"  # column infix of the per-cluster sums (analyses/*.sql, targi_sim.stats.rates)


def with_rate(df: pl.DataFrame, name: str, successes: str, n: str, *,
              xx: str | None = None, xn: str | None = None) -> pl.DataFrame:
    """Add `name` = successes / n with its pair-clustered uncertainty (targi_sim.stats.rates).

    The frame carries, beside the totals `successes` and `n`, the per-cluster sums
    `<n>__k` (clusters with n_i > 0), `<n>__nn`, `<successes>__xx` and
    `<successes>__xn` (override the last two with `xx` / `xn`). Adds `name_lo`,
    `name_hi` (95% Wilson on n / design effect), `name_se` (cluster-robust) and
    `name_deff`. NaN where n == 0 (the interval is then 0..1).
    """
    def col(c: str) -> np.ndarray:
        if c not in df.columns:
            raise KeyError(f"{c!r}: the table has no per-cluster sums for {name}")
        return df[c].cast(pl.Float64).fill_null(0.0).to_numpy()

    r = rates_from_sums(col(f"{n}{SUMS}k"), col(successes), col(n),
                        col(xx or f"{successes}{SUMS}xx"), col(xn or f"{successes}{SUMS}xn"),
                        col(f"{n}{SUMS}nn"))
    return df.with_columns(
        pl.Series(name, r["rate"], dtype=pl.Float64).fill_nan(None).fill_null(math.nan),
        pl.Series(f"{name}_lo", r["lo"], dtype=pl.Float64),
        pl.Series(f"{name}_hi", r["hi"], dtype=pl.Float64),
        pl.Series(f"{name}_se", r["se"], dtype=pl.Float64),
        pl.Series(f"{name}_deff", r["deff"], dtype=pl.Float64),
    )


def drop_sums(df: pl.DataFrame) -> pl.DataFrame:
    """The table without its per-cluster sum columns (they only feed the intervals)."""
    return df.drop([c for c in df.columns if SUMS in c])


def sums_columns(successes: str, n: str, x: np.ndarray, m: np.ndarray) -> dict[str, float]:
    """The totals and per-cluster sums of one rate, named as `with_rate` reads them,
    from per-cluster successes `x` and trials `m` (clusters without trials ignored)."""
    c = ClusterSums.of(x, m)
    return {successes: c.x, n: c.n, f"{n}{SUMS}k": c.clusters, f"{n}{SUMS}nn": c.nn,
            f"{successes}{SUMS}xx": c.xx, f"{successes}{SUMS}xn": c.xn}


def half_test_clustered(points: np.ndarray, games: np.ndarray) -> dict[str, float]:
    """Test a rate against 50% treating each cluster (seat-swapped pair) as one unit.

    points[i], games[i]: a cluster's points (draws as half) and games. The rate and its
    cluster-robust standard error come from targi_sim.stats.rates.clustered_rate. Returns
    rate, se, z, p, the design effect (that variance over the binomial p(1-p)/n), the
    clusters and the 95% interval (lo, hi).
    """
    return half_test(ClusterSums.of(points, games))


def half_test(sums: ClusterSums) -> dict[str, float]:
    """`half_test_clustered` from the clusters' sufficient statistics."""
    r = rate_of(sums)
    if r.clusters < 2 or r.n <= 0:
        return {"rate": math.nan, "se": math.nan, "z": math.nan, "p": math.nan,
                "design_effect": math.nan, "clusters": float(r.clusters), "lo": r.lo,
                "hi": r.hi}
    p, se = r.rate, r.se
    z = (p - 0.5) / se if se > 0 else (0.0 if p == 0.5 else math.copysign(math.inf, p - 0.5))
    return {"rate": p, "se": se, "z": z, "p": normal_two_sided_p(z),
            "design_effect": r.deff, "binomial_se": math.sqrt(0.25 / r.n),
            "clusters": float(r.clusters), "lo": r.lo, "hi": r.hi}


def effective_deff(deff: float | None) -> float:
    """The design effect a test uses: as the intervals do, floored at DEFF_FLOOR and 1
    when it could not be estimated (None or NaN)."""
    if deff is None or not math.isfinite(deff):
        return 1.0
    return max(float(deff), DEFF_FLOOR)


def two_proportion_test(x1: float, n1: float, x2: float, n2: float, *,
                        deff1: float = 1.0, deff2: float = 1.0) -> tuple[float, float]:
    """(z, two-sided p) of the pooled two-proportion z-test of x1/n1 against x2/n2.

    `deff1`, `deff2`: design effects of the two samples (correlated games, e.g. the
    two games of a seat-swapped pair); each sample's variance is multiplied by its
    own, i.e. n is replaced by the effective n / deff. NaN when there is nothing to
    test (no data, or both rates exactly 0 or exactly 1).
    """
    var = two_proportion_variance(x1, n1, x2, n2, deff1=deff1, deff2=deff2)
    if not var > 0:  # no data, or a rate of exactly 0 or 1 in both: nothing to test
        return math.nan, math.nan
    z = (x2 / n2 - x1 / n1) / math.sqrt(var)
    return z, normal_two_sided_p(z)


def two_proportion_variance(x1: float, n1: float, x2: float, n2: float, *,
                            deff1: float = 1.0, deff2: float = 1.0) -> float:
    """The variance of x2/n2 - x1/n1 under "no change" that `two_proportion_test` uses
    (pooled rate, each sample's design effect); NaN without data."""
    if not (n1 > 0 and n2 > 0):
        return math.nan
    p = (x1 + x2) / (n1 + n2)
    return p * (1 - p) * (deff1 / n1 + deff2 / n2)


def difference_test(v1: float, se1: float, v2: float, se2: float) -> tuple[float, float]:
    """(z, two-sided p) for v2 - v1 of two independent estimates with standard errors
    se1, se2 (e.g. clustered means; normal approximation)."""
    if any(math.isnan(x) for x in (v1, se1, v2, se2)):
        return math.nan, math.nan
    var = se1**2 + se2**2
    if var <= 0:  # no spread in either run (e.g. every game lasts 12 rounds): no test
        return math.nan, math.nan
    z = (v2 - v1) / math.sqrt(var)
    return z, normal_two_sided_p(z)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values (family-wise error control); NaN stays NaN."""
    idx = [i for i, p in enumerate(pvalues) if not math.isnan(p)]
    m = len(idx)
    out = [math.nan] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: pvalues[i])):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (false discovery rate); NaN stays NaN."""
    idx = [i for i, p in enumerate(pvalues) if not math.isnan(p)]
    m = len(idx)
    out = [math.nan] * len(pvalues)
    running = 1.0
    order = sorted(idx, key=lambda i: pvalues[i])
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, pvalues[i] * m / (rank + 1))
        out[i] = min(1.0, running)
    return out


def lead_metrics(code: np.ndarray, n_rounds: np.ndarray, winner: np.ndarray) -> dict[str, float]:
    """LeadChange and Decisiveness from per-game leader codes (analyses/lead_codes.sql:
    bits 2(r-1)..2r-1 the leader after round r, 0 level, 1 seat 0, 2 seat 1)."""
    games = pl.DataFrame({"n_rounds": np.asarray(n_rounds, dtype=np.int64),
                          "code": np.asarray(code, dtype=np.int64),
                          "winner": np.asarray(winner, dtype=np.int64)})
    return lead_metrics_of(lead_counts(games))


def lead_metrics_of(counts: pl.DataFrame) -> dict[str, float]:
    """LeadChange and Decisiveness from games counted per (rounds R, lead changes,
    decisive round d, decided) (targi_sim.runner.sums.lead_counts).

    LeadChange (Ludii): per game, the number of rounds r in 2..R whose set of leaders
    (seat 0, seat 1, or both when level) differs from round r-1's, divided by R-1;
    averaged over games with R >= 2.
    Decisiveness: for a game with a winner, d = 1 + the last round in which the final
    winner was not strictly ahead (d = 1 when ahead after every round; R + 1 when not
    ahead after the last round, e.g. won on a tie-break or on raid 4); the metric is the
    mean of (d - 1) / R: 0 = decided from round 1, 1 = decided only at the very end.
    """
    c = counts.filter(pl.col("games") > 0)
    if c.height == 0:
        return {"lead_change": math.nan, "decisiveness": math.nan,
                "decisive_round_mean": math.nan, "decided_games": 0.0}
    w, R = c["games"].to_numpy(), c["n_rounds"].to_numpy().astype(float)
    ch, d = c["changes"].to_numpy(), c["decisive"].to_numpy().astype(float)
    ok, dec = R >= 2, c["decided"].to_numpy() == 1
    n_ok, n_dec = float(w[ok].sum()), float(w[dec].sum())
    return {
        "lead_change": float((w * ch)[ok] @ (1 / (R[ok] - 1))) / n_ok if n_ok else math.nan,
        "decisiveness": float(w[dec] @ ((d[dec] - 1) / R[dec])) / n_dec if n_dec else math.nan,
        "decisive_round_mean": float(w[dec] @ d[dec]) / n_dec if n_dec else math.nan,
        "decided_games": n_dec,
    }


def _bit(mask: np.ndarray, k: int) -> np.ndarray:
    """Bit k of every mask as 0 or 1 (uint64: used as numbers, no conversion pass)."""
    return (mask >> np.uint64(k)) & np.uint64(1)


class _Clusters:
    """Per-cluster sums over the rows (game x player) of a masks query.

    Rows are put in cluster order once; when every cluster has the same number of
    rows (a run: 4 per seat-swapped pair, 2 per single game) a per-cluster sum is a
    row sum of a reshaped array, else a bincount.
    """

    def __init__(self, masks: pl.DataFrame) -> None:
        index, self.size = cluster_index(masks["pair_id"].to_numpy())
        self.order = np.argsort(index, kind="stable")
        self.index = index[self.order]
        rows = np.bincount(self.index, minlength=self.size)
        self.width = int(rows[0]) if self.size and rows.min() == rows.max() else 0
        self.points = self.column(masks, "points", pl.Float64)

    def column(self, masks: pl.DataFrame, name: str, dtype=pl.UInt64) -> np.ndarray:
        """A column of the masks in cluster order."""
        return masks[name].cast(dtype).to_numpy()[self.order]

    def sum(self, values: np.ndarray) -> np.ndarray:
        if self.width:  # strided adds: numpy reduces a short inner axis slowly
            out = values[0::self.width].astype(float)
            for j in range(1, self.width):
                out += values[j::self.width]
            return out
        return np.bincount(self.index, weights=values.astype(float), minlength=self.size)

    def count(self, rows: np.ndarray, weight: float = 1.0) -> np.ndarray:
        return weight * self.sum(rows)

    def points_of(self, rows: np.ndarray) -> np.ndarray:
        """Per-cluster points of the rows whose 0/1 flag `rows` is 1."""
        return self.sum(rows * self.points)


# per-card rates of card_mask_counts: (successes, trials) column names
CARD_SUMS = (("taken_games", "offered_games"), ("played_points", "played_n"),
             ("not_taken_points", "not_taken_n"))


def card_mask_counts(masks: pl.DataFrame, card_ids: Sequence[int | Sequence[int]],
                     groups: dict[str, Sequence[int]] | None = None
                     ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per-card counts from per game x player card masks (analyses/cards_tribe_masks.sql),
    with the per-pair sums of each rate (targi_sim.stats; see `with_rate`).

    offered_games: games in which the card was offered; taken_games: of those, games in
    which a player took it from the centre; played_n / played_points: players who played
    it and their points; not_taken_n / not_taken_points: players in games where it was
    offered who did not acquire it, and their points. Bit k of a mask is card id k.
    An entry of `card_ids` may be a class of identical cards (a sequence of ids, e.g.
    targi_sim.game.classes): one row for it, keyed by its first id, its copies' counts
    pooled. Returns (one row per entry of `card_ids`, one row per group of `groups`).
    Pooling, for a class as for a group, adds the cards' per-pair counts before they
    are squared, so the intervals still count each pair once (_pooled_row).
    """
    cl = _Clusters(masks)
    cols = {c: cl.column(masks, c) for c in ("offered", "acquired", "played", "centre")}
    groups = groups or {}
    pooled: dict[str, dict[str, np.ndarray] | None] = dict.fromkeys(groups)
    member = {k: g for g, ids in groups.items() for k in ids}
    rows = []
    for entry in card_ids:
        ids = (int(entry),) if isinstance(entry, (int, np.integer)) else tuple(map(int, entry))
        unit = None
        for k in ids:
            per = _card_counts(cl, cols, k)
            unit = _add(unit, per)
            if k in member:
                pooled[member[k]] = _add(pooled[member[k]], per)
        rows.append(_pooled_row({"card_id": ids[0]}, unit))
    group_rows = [_pooled_row({"group": g}, per) for g, per in pooled.items()]
    cards = pl.DataFrame(rows).with_columns(pl.col("card_id").cast(pl.Int32))
    counts = ("offered_games", "taken_games", "played_n", "not_taken_n")
    cards = cards.with_columns(pl.col(c).round().cast(pl.Int64) for c in counts)
    grouped = (pl.DataFrame(group_rows).with_columns(pl.col(c).round().cast(pl.Int64)
                                                     for c in counts)
               if group_rows else pl.DataFrame())
    return cards, grouped


def _card_counts(cl: _Clusters, cols: dict[str, np.ndarray], k: int) -> dict[str, np.ndarray]:
    """Card k's per-pair counts of every CARD_SUMS column (see card_mask_counts)."""
    o, a, p, c = (_bit(cols[n], k) for n in ("offered", "acquired", "played", "centre"))
    nt = o & (a ^ np.uint64(1))  # offered, not acquired
    return {"offered_games": cl.count(o, 0.5), "taken_games": cl.count(o & c),
            "played_n": cl.count(p), "played_points": cl.points_of(p),
            "not_taken_n": cl.count(nt), "not_taken_points": cl.points_of(nt)}


def _add(total: dict[str, np.ndarray] | None,
         per: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per-pair counts added column by column (None: nothing added yet)."""
    return dict(per) if total is None else {name: total[name] + v for name, v in per.items()}


def _pooled_row(row: dict, per: dict[str, np.ndarray] | None) -> dict:
    """`row` with the totals and per-pair sums of every rate of CARD_SUMS, from per-pair
    counts already added over the pooled cards (squares of the sums, not sums of
    squares: a pair holding two of the cards is still one unit)."""
    for x, n in CARD_SUMS:
        zero = np.zeros(0)
        row |= sums_columns(x, n, per[x] if per else zero, per[n] if per else zero)
    return row
