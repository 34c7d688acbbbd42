"""Section 5, strategies: matchups, Elo, and the game shape by strategy."""

from __future__ import annotations

import numpy as np
import polars as pl

from targi_sim.game.shape import PLAYER_FIGURES, PLAYER_NAMES
from targi_sim.runner.queries import Analyses
from targi_sim.stats.elo import fit_elo_model
from targi_sim.stats.rates import (
    cluster_index,
    clustered_rate,
    per_cluster,
)

from ..model import Section, Table, mark_low_n
from .common import clustered_mean


def strategies(a: Analyses, min_n: int, pairs: pl.DataFrame) -> Section:
    """Win-rate matrix (both seats pooled) and Bradley-Terry Elo when >= 2 strategies
    (`pairs`: analyses/pairs.sql)."""
    names = sorted(set(pairs["p0_strategy"].to_list()) | set(pairs["p1_strategy"].to_list()))
    cross = pairs.filter(pl.col("p0_strategy") != pl.col("p1_strategy"))
    rows = []
    keyed: dict[tuple[str, str], list] = {}
    for (p0, p1), df in cross.group_by("p0_strategy", "p1_strategy"):
        a_, b_ = sorted((p0, p1))
        seat_a = 0 if p0 == a_ else 1
        games = df["games"].to_numpy()
        w0 = df["wins_p0"].to_numpy()
        dr = df["draws"].to_numpy()
        pts0 = df["points_p0"].to_numpy()
        wins_a = w0 if seat_a == 0 else games - w0 - dr
        pts_a = pts0 if seat_a == 0 else games - pts0
        keyed.setdefault((a_, b_), []).append((df["pair_id"].to_numpy(), games, wins_a, dr,
                                               pts_a))
    for (a_, b_), parts in sorted(keyed.items()):
        ids = np.concatenate([p[0] for p in parts])
        games = np.concatenate([p[1] for p in parts]).astype(float)
        wins = int(np.concatenate([p[2] for p in parts]).sum())
        draws = int(np.concatenate([p[3] for p in parts]).sum())
        pts = np.concatenate([p[4] for p in parts])
        index, size = cluster_index(ids)  # a deal may hold games of both seat orders
        deal_pts, deal_games = per_cluster(index, size, pts, games)
        n = int(games.sum())
        for x, y, w, l, flip in ((a_, b_, wins, n - wins - draws, False),
                                 (b_, a_, n - wins - draws, wins, True)):
            r = clustered_rate(deal_games - deal_pts if flip else deal_pts, deal_games)
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
        tables.append(strategy_shape(a, min_n))
        text.append("Game shape by strategy: how each strategy's own games look (cards kept, "
                    "where its VP come from, what raids cost it), the same figures as the "
                    "skill ladder's (docs/ladder.md).")
    if mirror.height:
        text.append(f"Mirror matches ({', '.join(sorted(set(mirror['p0_strategy'].to_list())))}) "
                    "are not part of the matrix: a strategy's rate against itself is 50% by "
                    "construction; see the first-player section for seat effects.")
    return Section("strategies", "5. Strategies", text=text, tables=tables)


SHAPE_FIGURES = PLAYER_NAMES  # targi_sim/game/shape.py


def strategy_shape(a: Analyses, min_n: int) -> Table:
    """Per strategy, the mean of each figure of its player-games (analyses/
    strategy_shape.sql) with a 95% interval with the pair as the unit."""
    df = a.frame("strategy_shape")
    rows = []
    for (strategy,), g in sorted(df.group_by("strategy"), key=lambda kv: kv[0]):
        n_i = g["n"].to_numpy()
        row: dict[str, object] = {"strategy": strategy, "player_games": int(n_i.sum()),
                                  "pairs": g.height}
        for f in SHAPE_FIGURES:
            m = clustered_mean(g[f].to_numpy(), n_i, g[f"{f}_sq"].to_numpy())
            row |= {f: m["mean"], f"{f}_lo": m["lo"], f"{f}_hi": m["hi"]}
        rows.append(row)
    out = mark_low_n(pl.DataFrame(rows), "player_games", min_n)
    figures = ", ".join(f.label for f in PLAYER_FIGURES)
    return Table("strategy_shape", f"Game shape by strategy, per player and game: {figures} "
                 "(95% interval with the pair as the unit)", out, n_col="player_games")
