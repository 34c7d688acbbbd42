"""Section 2, the first player's advantage and the score gap by round."""

from __future__ import annotations

import math

import polars as pl

from targi_sim.stats.rates import means_from_sums

from .. import plots
from ..data import ReportData, cluster_sums_of
from ..metrics import (
    drop_sums,
    half_test,
    with_rate,
)
from ..model import Section, Table, mark_low_n
from .common import headline_row, interval_plot, make_plot


def score_gaps(sums: pl.DataFrame) -> pl.DataFrame:
    """Per round: the mean first-minus-second score gap, its SD, and its 95% interval
    with the pair as the unit (sums: runner.sums `score_gap`, per round the pairs'
    count, gap and gap_sq sums and their per-pair products)."""
    out = []
    for r in sums.iter_rows(named=True):
        c, squares = cluster_sums_of(r, "gap", "n"), r["gap_sq"]
        if c.n == 0:
            continue
        sd = math.sqrt(max(squares - c.x * c.x / c.n, 0.0) / (c.n - 1)) if c.n > 1 else math.nan
        m = means_from_sums(c.clusters, c.x, c.n, c.xx, c.xn, c.nn, sd * sd)
        out.append({"round": r["round"], "n": int(c.n), "gap_mean": float(m["mean"]),
                    "gap_sd": sd, "gap_mean_lo": float(m["lo"]), "gap_mean_hi": float(m["hi"]),
                    "gap_mean_se": float(m["se"]), "gap_mean_deff": float(m["deff"])})
    return pl.DataFrame(out, schema={
        "round": pl.Int64, "n": pl.Int64, "gap_mean": pl.Float64, "gap_sd": pl.Float64,
        "gap_mean_lo": pl.Float64, "gap_mean_hi": pl.Float64, "gap_mean_se": pl.Float64,
        "gap_mean_deff": pl.Float64})


def first_player(d: ReportData, min_n: int, headline: list[dict]) -> Section:
    """Round-1 first player's rate: overall, per matchup, mirror matches, by end reason."""
    rows = []
    pairs = d.matchups()

    def scope(name: str, df: pl.DataFrame) -> None:
        if df.height == 0:
            return
        t = half_test(cluster_sums_of(df.select(pl.exclude("p0_strategy", "p1_strategy")
                                                .sum()).row(0, named=True),
                                      "first_points", "games"))
        n = int(df["games"].sum())
        rows.append({"scope": name, "n": n, "pairs": int(df["games>0"].sum()),
                     "first_wins": int(df["first_wins"].sum()), "draws": int(df["draws"].sum()),
                     "first_points": float(df["first_points"].sum()),
                     "first_rate": float(df["first_points"].sum()) / n,
                     "first_rate_lo": t["lo"], "first_rate_hi": t["hi"],
                     "z": t["z"], "p_value": t["p"], "design_effect": t["design_effect"]})

    scope("all games", pairs)
    mirror = pairs.filter(pl.col("p0_strategy") == pl.col("p1_strategy"))
    groups = sorted(pairs.group_by("p0_strategy", "p1_strategy"), key=lambda kv: kv[0])
    if mirror.height < pairs.height:  # else the same games as "all games"
        scope("mirror matches", mirror)
    if len(groups) > 1:  # one matchup: its row would repeat "all games"
        for (p0, p1), df in groups:
            scope(f"{p0} vs {p1}", df)
    table = pl.DataFrame(rows, schema={
        "scope": pl.String, "n": pl.Int64, "pairs": pl.Int64, "first_wins": pl.Int64,
        "draws": pl.Int64, "first_points": pl.Float64, "first_rate": pl.Float64,
        "first_rate_lo": pl.Float64, "first_rate_hi": pl.Float64, "z": pl.Float64,
        "p_value": pl.Float64, "design_effect": pl.Float64})
    table = mark_low_n(table, "n", min_n)

    overall = rows[0] if rows else None
    er = with_rate(d.end_reason(), "first_rate", "first_points", "n")
    er = mark_low_n(drop_sums(er), "n", min_n)
    for r in er.iter_rows(named=True):
        headline_row(headline, f"first player rate, {r['end_reason']}", "rate", r["first_rate"],
                  r["n"], r["first_points"], deff=r["first_rate_deff"], se=r["first_rate_se"])

    gap = mark_low_n(score_gaps(d.score_gap()), "n", min_n)
    text = ["The round-1 first player is the seat with the amulet in round 1 (it then "
            "alternates). The test against 50% and every interval treat each pair_id (a "
            "seat-swapped pair: same seed, first player swapped; or a game whose deal is "
            "played once) as one unit: z uses the cluster-robust variance of pair totals; "
            "the design effect is that variance over the binomial one."]
    if overall:
        text.append(f"Overall: first player rate {overall['first_points'] / overall['n']:.2%} "
                    f"({overall['first_rate_lo']:.2%}-{overall['first_rate_hi']:.2%}) over "
                    f"{overall['n']:,} games in {overall['pairs']:,} pairs, "
                    f"z = {overall['z']:.2f}, p = {overall['p_value']:.3g}, design effect "
                    f"{overall['design_effect']:.2f}.")
    sec = Section("first_player", "2. First-player advantage", text=text, tables=[
        Table("first_player", "Round-1 first player's rate (draws = half)", table, n_col="n",
              hidden=("first_points",)),
        Table("first_player_by_end_reason", "By end reason", er, n_col="n",
              hidden=("first_points",)),
        Table("score_gap", "Score gap after each round: first minus second player (mean, "
              "95% interval with the pair as the unit)", gap, n_col="n",
              hidden=("gap_mean_se",)),
    ])
    interval_plot(sec, "first_player_by_matchup", "Round-1 first player's rate by matchup "
                   "(95% intervals; dashed: 50%)",
                   table.filter(~pl.col("scope").is_in(["all games", "mirror matches"])),
                   "scope", "matchup")
    interval_plot(sec, "first_player_by_end_reason_plot", "Round-1 first player's rate by "
                   "end reason (95% intervals; dashed: 50%)", er, "end_reason", "end reason")
    if gap.height > 1:
        sec.plots.append(make_plot("score_gap", "Score gap per round (round-1 first - second)",
                               plots.score_gap(gap)))
    else:
        sec.text.append(f"No score-gap plot: {gap.height} round(s); the table has it.")
    return sec
