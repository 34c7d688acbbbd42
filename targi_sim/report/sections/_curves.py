"""Section 6, curves: the score race and lead changes round by round."""

from __future__ import annotations

import polars as pl

from .. import plots
from ..data import ReportData
from ..model import Section, Table, mark_low_n
from .common import make_plot


def curves(d: ReportData, min_n: int) -> Section:
    """Mean score, VP tokens, gold, goods and display size after each round."""
    df = d.curves(("seat", "strategy"))
    df = mark_low_n(df, "n", min_n)
    cols = [("score", "score"), ("vp_tokens", "VP tokens"), ("gold", "gold"),
            ("goods", "goods"), ("display", "display size")]
    roles = mark_low_n(d.curves(("role",)), "n", min_n)
    sec = Section("curves", "6. Curves per round", text=[
        "Means after each round over the games that reached it (n), by strategy and seat, "
        "and by role (round-1 first or second player; the amulet then alternates)."],
        tables=[Table("curves", "Per-round means by strategy and seat", df, n_col="n"),
                Table("curves_by_role", "Per-round means by role", roles, n_col="n")])
    sec.plots.append(make_plot("curves", "Per-round means by strategy and seat",
                           plots.curves(df, cols)))
    by_role = roles.with_columns(pl.col("role").alias("strategy"), pl.lit(0).alias("seat"))
    sec.plots.append(make_plot("curves_by_role", "Per-round means by role (round-1 first / second)",
                           plots.curves(by_role, cols, label=lambda s, _seat: s)))
    return sec
