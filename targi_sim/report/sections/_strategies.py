"""Section 5, strategies: matchups, Elo, and the game shape by strategy."""

from __future__ import annotations

import polars as pl

from targi_sim.game.shape import PLAYER_FIGURES, PLAYER_NAMES
from targi_sim.stats.elo import fit_elo_model
from targi_sim.stats.rates import rate_of

from ..data import ReportData, cluster_sums_of, complement
from ..model import Section, Table, mark_low_n
from .common import clustered_mean_of


def strategies(d: ReportData, min_n: int) -> Section:
    """Win-rate matrix (both seats pooled) and Bradley-Terry Elo when >= 2 strategies."""
    pairs = d.matchups()
    names = sorted(set(pairs["p0_strategy"].to_list()) | set(pairs["p1_strategy"].to_list()))
    cross = pairs.filter(pl.col("p0_strategy") != pl.col("p1_strategy"))
    rows = []
    keyed: dict[tuple[str, str], list] = {}
    for m in cross.iter_rows(named=True):
        p0, p1 = m["p0_strategy"], m["p1_strategy"]
        a_, b_ = sorted((p0, p1))
        pts = cluster_sums_of(m, "points_p0", "games")  # seat 0's points, per pair
        wins = m["wins_p0"] if p0 == a_ else m["games"] - m["wins_p0"] - m["draws"]
        keyed.setdefault((a_, b_), []).append(
            (pts if p0 == a_ else complement(pts), wins, m["draws"]))
    for (a_, b_), parts in sorted(keyed.items()):
        pts = sum((p[0] for p in parts[1:]), parts[0][0])  # a pair plays one matchup
        wins = int(sum(p[1] for p in parts))
        draws = int(sum(p[2] for p in parts))
        n = int(pts.n)
        for x, y, w, l, flip in ((a_, b_, wins, n - wins - draws, False),
                                 (b_, a_, n - wins - draws, wins, True)):
            r = rate_of(complement(pts) if flip else pts)
            rows.append({"a": x, "b": y, "games": n, "wins_a": w, "draws": draws,
                         "losses_a": l, "points_a": w + 0.5 * draws, "rate_a": r.rate,
                         "rate_a_lo": r.lo, "rate_a_hi": r.hi, "design_effect": r.deff,
                         "pairs": r.clusters})
    matrix = pl.DataFrame(rows, schema={
        "a": pl.String, "b": pl.String, "games": pl.Int64, "wins_a": pl.Int64,
        "draws": pl.Int64, "losses_a": pl.Int64, "points_a": pl.Float64, "rate_a": pl.Float64,
        "rate_a_lo": pl.Float64, "rate_a_hi": pl.Float64, "design_effect": pl.Float64,
        "pairs": pl.Int64})
    matrix = mark_low_n(matrix, "games", min_n)
    mirror = pairs.filter(pl.col("p0_strategy") == pl.col("p1_strategy"))
    text = []
    tables = [Table("strategy_matrix", "Row strategy's rate against column strategy (both "
                    "seats pooled, draws = half; 95% interval with the pair as the unit)",
                    matrix, n_col="games", hidden=("points_a",),
                    shown=matrix.height > 0)]  # an empty one is still written as CSV
    in_matrix = sorted(set(matrix["a"].to_list()))
    if len(in_matrix) >= 2:
        fit = fit_elo_model(in_matrix, matrix)
        tables.append(Table("elo", "Elo (Bradley-Terry maximum likelihood, mean 1500; 95% "
                            "interval with the design effect of the pairs)", fit.table))
        tables.append(Table("elo_fit", "Elo fit per pair: observed vs fitted rate", fit.pairs))
        text.append(f"{len(in_matrix)} strategies play each other; Elo is fitted by "
                    "targi_sim.strength.tournament.fit_elo_model (one virtual draw per pair).")
        text.append(fit.verdict())
    else:
        plural = "y" if len(names) == 1 else "ies"
        text.append(f"This run holds {len(names)} strateg{plural} ({', '.join(names)}) in "
                    "mirror matches only; Elo needs at least two strategies that play each "
                    "other.")
    if len(names) >= 2:
        tables.append(strategy_shape(d, min_n))
        text.append("Game shape by strategy: how each strategy's own games look (cards kept, "
                    "where its VP come from, what raids cost it), the same figures as the "
                    "skill ladder's (docs/ladder.md).")
    if mirror.height:
        text.append(f"Mirror matches ({', '.join(sorted(set(mirror['p0_strategy'].to_list())))}) "
                    "are not part of the matrix: a strategy's rate against itself is 50% by "
                    "construction; see the first-player section for seat effects.")
    return Section("strategies", "5. Strategies", text=text, tables=tables)


SHAPE_FIGURES = PLAYER_NAMES  # targi_sim/game/shape.py


def strategy_shape(d: ReportData, min_n: int) -> Table:
    """Per strategy, the mean of each figure of its player-games (runner.sums `shape`)
    with a 95% interval with the pair as the unit."""
    rows = []
    for g in d.shape().iter_rows(named=True):
        row: dict[str, object] = {"strategy": g["strategy"], "player_games": int(g["n"]),
                                  "pairs": int(g["n>0"])}
        for f in SHAPE_FIGURES:
            m = clustered_mean_of(cluster_sums_of(g, f, "n"), g[f"{f}_sq"])
            row |= {f: m["mean"], f"{f}_lo": m["lo"], f"{f}_hi": m["hi"]}
        rows.append(row)
    out = mark_low_n(pl.DataFrame(rows), "player_games", min_n)
    figures = ", ".join(f.label for f in PLAYER_FIGURES)
    return Table("strategy_shape", f"Game shape by strategy, per player and game: {figures} "
                 "(95% interval with the pair as the unit)", out, n_col="player_games")
