"""Do the card conclusions hold between two levels of play? A grade that moves by two
letters or more between two rungs' mirrors is either a real change or the noise of two
finite runs: each move is tested.

Why a test and not the letters alone: a grade is a third of a standard deviation of the
cards' spread per step, and at the few hundred games a search rung can afford, a card's
win rate when played carries an interval several steps wide. So for every card (and
symbol) graded at both rungs, the change of what its grade reads -- a card's win rate when
played in excess of what its printed VP and cost predict, a symbol's win rate when played
against the mean of the symbols -- is divided by its standard error (the two runs are
independent; each run's standard error is pair-clustered, from its report), a two-sided
p-value taken, and Holm's correction applied over all the cards (symbols) compared. A move
of two letters or more is then *significant* (Holm-adjusted p < alpha) or *noise*.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy import stats
from statsmodels.stats.multitest import multipletests

from targi_sim.stats.grades import Z95

LETTERS = "ABCDF"
FLIP_LETTERS = 2  # a grade that moves by this many letters (A -> C) is a changed conclusion
ALPHA = 0.05

MOVE_SCHEMA = {"kind": pl.String, "name": pl.String, "lower": pl.String, "upper": pl.String,
               "grade_lower": pl.String, "grade_upper": pl.String, "letters": pl.Int64,
               "value_lower": pl.Float64, "value_upper": pl.Float64, "change": pl.Float64,
               "change_se": pl.Float64, "p": pl.Float64, "p_holm": pl.Float64,
               "verdict": pl.String}


def letter_step(grade: str | None) -> int | None:
    """A grade's letter as a number (A 0 ... F 4); None for no grade."""
    return LETTERS.index(grade[0]) if grade and grade[0] in LETTERS else None


def _graded(t: pl.DataFrame) -> pl.DataFrame:
    t = t.filter(pl.col("grade").is_not_null())
    return t.filter(~pl.col("low_n")) if "low_n" in t.columns else t


def card_values(cards: pl.DataFrame) -> pl.DataFrame:
    """name, grade, value, se of a report's `cards_tribe` table: the grade reads the win
    rate when played in excess of the VP-and-cost line, with its 95% interval."""
    t = _graded(cards)
    return t.select("name", "grade", pl.col("played_wr_excess").alias("value"),
                    ((pl.col("played_wr_excess_hi") - pl.col("played_wr_excess_lo"))
                     / (2 * Z95)).alias("se"))


def symbol_values(symbols: pl.DataFrame) -> pl.DataFrame:
    """name, grade, value, se of a report's `cards_symbol` table: the grade reads a
    symbol's win rate when played against the mean of the graded symbols."""
    t = _graded(symbols)
    mean = t["played_wr"].mean() if t.height else math.nan
    return t.select(pl.col("symbol").alias("name"), "grade",
                    (pl.col("played_wr") - mean).alias("value"),
                    pl.col("played_wr_se").alias("se"))


def grade_moves(lower: pl.DataFrame, upper: pl.DataFrame, kind: str, name_lower: str,
                name_upper: str, alpha: float = ALPHA) -> pl.DataFrame:
    """Every row graded at both rungs (the `*_values` frames of the two mirrors): its
    grades, letters moved, the change of its value with a z-test, Holm over the rows, and
    a verdict for a move of FLIP_LETTERS letters or more: "significant" or "noise"."""
    both = lower.join(upper, on="name", suffix="_u")
    if not both.height:
        return pl.DataFrame(schema=MOVE_SCHEMA)
    change = (both["value_u"] - both["value"]).to_numpy()
    se = np.sqrt(both["se"].to_numpy() ** 2 + both["se_u"].to_numpy() ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, change / se, np.nan)
    p = 2 * stats.norm.sf(np.abs(z))
    ok = np.isfinite(p)
    holm = np.full(len(p), np.nan)
    if ok.any():
        holm[ok] = multipletests(p[ok], alpha=alpha, method="holm")[1]
    rows = []
    for i, r in enumerate(both.iter_rows(named=True)):
        a, b = letter_step(r["grade"]), letter_step(r["grade_u"])
        letters = abs(a - b) if a is not None and b is not None else 0
        verdict = ""
        if letters >= FLIP_LETTERS:
            verdict = "significant" if holm[i] < alpha else "noise"
        rows.append({"kind": kind, "name": r["name"], "lower": name_lower,
                     "upper": name_upper, "grade_lower": r["grade"], "grade_upper": r["grade_u"],
                     "letters": letters, "value_lower": r["value"], "value_upper": r["value_u"],
                     "change": float(change[i]), "change_se": float(se[i]), "p": float(p[i]),
                     "p_holm": float(holm[i]), "verdict": verdict})
    return pl.DataFrame(rows, schema=MOVE_SCHEMA)


def report_moves(lower_report, upper_report, name_lower: str, name_upper: str,
                 alpha: float = ALPHA) -> pl.DataFrame:
    """grade_moves for symbols and cards between two mirrors' reports."""
    return pl.concat([
        grade_moves(symbol_values(lower_report.table("cards_symbol").df),
                    symbol_values(upper_report.table("cards_symbol").df), "symbol",
                    name_lower, name_upper, alpha),
        grade_moves(card_values(lower_report.table("cards_tribe").df),
                    card_values(upper_report.table("cards_tribe").df), "card",
                    name_lower, name_upper, alpha)])


def move_lines(moves: pl.DataFrame) -> list[str]:
    """One line per move of two letters or more, with its verdict."""
    out = []
    for r in moves.filter(pl.col("verdict") != "").iter_rows(named=True):
        what = ("the excess of its win rate when played over its VP and cost"
                if r["kind"] == "card" else "its win rate when played against the symbols'")
        out.append(
            f"{r['name']} is {r['grade_lower']} at {r['lower']} but {r['grade_upper']} at "
            f"{r['upper']}: {r['verdict'].upper()} ({what} moved {r['change']:+.3f} "
            f"± {Z95 * r['change_se']:.3f}, Holm-adjusted p = {r['p_holm']:.2g})")
    return out


__all__ = ["FLIP_LETTERS", "card_values", "grade_moves", "letter_step", "move_lines",
           "report_moves", "symbol_values"]
