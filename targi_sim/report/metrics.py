"""Statistics that are clearer in Python than in SQL: intervals, tests, grades, Ludii metrics.

Everything here works on small aggregated tables (one row per card, per matchup, ...)
or on numpy arrays of one value per game; nothing reads the run itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from ..stats import wilson_interval

GRADES = ("F", "D-", "D", "D+", "C-", "C", "C+", "B-", "B", "B+", "A-", "A", "A+")


def normal_two_sided_p(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    if math.isnan(z):
        return math.nan
    return math.erfc(abs(z) / math.sqrt(2.0))


def with_rate(df: pl.DataFrame, name: str, successes: str, n: str) -> pl.DataFrame:
    """Add `name` = successes / n and its 95% Wilson interval `name_lo`, `name_hi`.

    NaN where n == 0 (the interval is then 0..1: nothing is known).
    """
    s = df[successes].cast(pl.Float64).to_list()
    ns = df[n].cast(pl.Float64).to_list()
    rate, lo, hi = [], [], []
    for x, m in zip(s, ns, strict=True):
        m_int = int(round(m or 0))
        x = min(max(float(x or 0.0), 0.0), float(m_int))
        a, b = wilson_interval(x, m_int)
        rate.append(x / m_int if m_int else math.nan)
        lo.append(a)
        hi.append(b)
    return df.with_columns(
        pl.Series(name, rate, dtype=pl.Float64),
        pl.Series(f"{name}_lo", lo, dtype=pl.Float64),
        pl.Series(f"{name}_hi", hi, dtype=pl.Float64),
    )


def half_test_clustered(points: np.ndarray, games: np.ndarray) -> dict[str, float]:
    """Test a rate against 50% treating each cluster (seat-swapped pair) as one unit.

    points[i], games[i]: a cluster's points (draws as half) and games. The rate is
    sum(points) / sum(games); its variance is the cluster-robust (ratio) estimator
    k/(k-1) * sum((points_i - p * games_i)^2) / sum(games)^2. Returns rate, se, z, p and
    the design effect (that variance over the binomial p(1-p)/n).
    """
    points = np.asarray(points, dtype=float)
    games = np.asarray(games, dtype=float)
    k = len(points)
    n = games.sum()
    if k < 2 or n <= 0:
        return {"rate": math.nan, "se": math.nan, "z": math.nan, "p": math.nan,
                "design_effect": math.nan, "clusters": float(k)}
    p = points.sum() / n
    var = k / (k - 1) * float(((points - p * games) ** 2).sum()) / n**2
    se = math.sqrt(var)
    binom = 0.25 / n  # variance under the null p = 0.5
    z = (p - 0.5) / se if se > 0 else (0.0 if p == 0.5 else math.copysign(math.inf, p - 0.5))
    deff = var / (p * (1 - p) / n) if 0 < p < 1 else math.nan
    return {"rate": p, "se": se, "z": z, "p": normal_two_sided_p(z),
            "design_effect": deff, "binomial_se": math.sqrt(binom), "clusters": float(k)}


def two_proportion_test(x1: float, n1: float, x2: float, n2: float, *,
                        deff1: float = 1.0, deff2: float = 1.0) -> tuple[float, float]:
    """(z, two-sided p) of the pooled two-proportion z-test of x1/n1 against x2/n2.

    `deff1`, `deff2`: design effects of the two samples (correlated games, e.g. the
    first player's results within seat-swapped pairs); each sample's variance is
    multiplied by its own, i.e. n is replaced by the effective n / deff.
    """
    if n1 <= 0 or n2 <= 0:
        return math.nan, math.nan
    p = (x1 + x2) / (n1 + n2)
    var = p * (1 - p) * (deff1 / n1 + deff2 / n2)
    if var <= 0:
        return 0.0, 1.0
    z = (x2 / n2 - x1 / n1) / math.sqrt(var)
    return z, normal_two_sided_p(z)


def welch_test(m1: float, sd1: float, n1: float, m2: float, sd2: float,
               n2: float) -> tuple[float, float]:
    """(z, two-sided p) for a difference of means (large samples: normal approximation)."""
    if n1 < 2 or n2 < 2 or any(map(math.isnan, (m1, sd1, m2, sd2))):
        return math.nan, math.nan
    var = sd1**2 / n1 + sd2**2 / n2
    if var <= 0:
        return (0.0, 1.0) if m1 == m2 else (math.copysign(math.inf, m2 - m1), 0.0)
    z = (m2 - m1) / math.sqrt(var)
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


def leaders(code: np.ndarray, n_rounds: int) -> np.ndarray:
    """(games, n_rounds) array of the leader after each round: 0 level, 1 seat 0, 2 seat 1."""
    code = np.asarray(code, dtype=np.int64)
    shifts = 2 * np.arange(n_rounds, dtype=np.int64)
    return (code[:, None] >> shifts[None, :]) & 3


def lead_metrics(code: np.ndarray, n_rounds: np.ndarray, winner: np.ndarray) -> dict[str, float]:
    """LeadChange and Decisiveness from per-game leader codes (analyses/lead_codes.sql).

    LeadChange (Ludii): per game, the number of rounds r in 2..R whose set of leaders
    (seat 0, seat 1, or both when level) differs from round r-1's, divided by R-1;
    averaged over games with R >= 2.
    Decisiveness: for a game with a winner, d = 1 + the last round in which the final
    winner was not strictly ahead (d = 1 when ahead after every round; R + 1 when not
    ahead after the last round, e.g. won on a tie-break or on raid 4); the metric is the
    mean of (d - 1) / R: 0 = decided from round 1, 1 = decided only at the very end.
    """
    code = np.asarray(code, dtype=np.int64)
    R = np.asarray(n_rounds, dtype=np.int64)
    winner = np.asarray(winner, dtype=np.int64)
    if len(code) == 0:
        return {"lead_change": math.nan, "decisiveness": math.nan,
                "decisive_round_mean": math.nan, "decided_games": 0.0}
    width = int(R.max())
    lead = leaders(code, width)
    r_idx = np.arange(width)[None, :]
    valid = r_idx < R[:, None]
    changes = (lead[:, 1:] != lead[:, :-1]) & valid[:, 1:]
    denom = R - 1
    ok = denom >= 1
    lc = changes.sum(axis=1)[ok] / denom[ok]
    decided = winner >= 0
    w_code = np.where(winner == 0, 1, 2)
    not_ahead = (lead != w_code[:, None]) & valid
    # last round (1-based) where the winner was not strictly ahead; 0 if none
    last = np.where(not_ahead.any(axis=1),
                    width - np.argmax(not_ahead[:, ::-1], axis=1), 0)
    d = last + 1
    dec = ((d - 1) / R)[decided]
    return {
        "lead_change": float(lc.mean()) if lc.size else math.nan,
        "decisiveness": float(dec.mean()) if dec.size else math.nan,
        "decisive_round_mean": float(d[decided].mean()) if dec.size else math.nan,
        "decided_games": float(decided.sum()),
    }


def card_mask_counts(masks: pl.DataFrame, card_ids: Sequence[int]) -> pl.DataFrame:
    """Per-card counts from per game x player card masks (analyses/cards_tribe_masks.sql).

    offered_games: games in which the card was offered; taken_games: of those, games in
    which a player took it from the centre; played_n / played_points: players who played
    it and their points; not_taken_n / not_taken_points: players in games where it was
    offered who did not acquire it, and their points. Bit k of a mask is card id k.
    """
    pts = masks["points"].cast(pl.Float64).to_numpy()
    win, draw = pts == 1.0, pts == 0.5
    cols = {c: masks[c].cast(pl.UInt64).to_numpy() for c in
            ("offered", "acquired", "played", "centre")}
    one = np.uint64(1)
    nz = np.count_nonzero

    def points(x: np.ndarray) -> float:  # points are 1, 0.5 or 0
        return float(nz(x & win)) + 0.5 * float(nz(x & draw))

    rows = []
    for k in card_ids:
        bit = np.uint64(k)
        o, a, p, c = (((cols[n] >> bit) & one).astype(bool)
                      for n in ("offered", "acquired", "played", "centre"))
        nt = o & ~a
        rows.append((int(k), nz(o) // 2, nz(o & c), nz(p), points(p), nz(nt), points(nt)))
    return pl.DataFrame(rows, orient="row", schema={
        "card_id": pl.Int32, "offered_games": pl.Int64, "taken_games": pl.Int64,
        "played_n": pl.Int64, "played_points": pl.Float64, "not_taken_n": pl.Int64,
        "not_taken_points": pl.Float64})


def mask_counts(masks: pl.DataFrame, column: str, ids: Sequence[int], *, id_name: str,
                n_name: str, points_name: str) -> pl.DataFrame:
    """Per id k: rows (players in games) whose `column` mask has bit k set, and their
    points. Used for border positions used and goods cards taken."""
    pts = masks["points"].cast(pl.Float64).to_numpy()
    win, draw = pts == 1.0, pts == 0.5
    m = masks[column].cast(pl.UInt64).to_numpy()
    rows = []
    for k in ids:
        x = ((m >> np.uint64(k)) & np.uint64(1)).astype(bool)
        rows.append((int(k), int(np.count_nonzero(x)),
                     float(np.count_nonzero(x & win)) + 0.5 * float(np.count_nonzero(x & draw))))
    return pl.DataFrame(rows, orient="row", schema={
        id_name: pl.Int32, n_name: pl.Int64, points_name: pl.Float64})
