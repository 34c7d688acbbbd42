"""The Findings at the top of a report: sentences written by rules from its own tables.

Why: a designer should read the three things that matter without scrolling through
six sections. Each rule reads one table, states its number with n and interval, and
links to that table; a rule whose data are too thin says so in the small-n finding
instead of concluding. Thresholds (documented in docs/report.md, Findings):
ALPHA for every test, Holm's correction over the cards or symbols tested together,
and --min-n for "enough games".
"""

from __future__ import annotations

import math

import polars as pl

from targi_sim.game.shape import decided_by

from .metrics import holm, normal_two_sided_p
from .model import Finding, Report

ALPHA = 0.05
TOP = 3  # cards named per strongest / weakest finding
Z95 = 1.959963984540054


def _p(p: float) -> str:
    return "p < 1e-300" if p < 1e-300 else f"p = {p:.2g}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _interval(r: dict, c: str) -> str:
    return f"{_pct(r[c])} ({_pct(r[c + '_lo'])}–{_pct(r[c + '_hi'])})"


def _finite(*xs: object) -> bool:
    return all(isinstance(x, (int, float)) and math.isfinite(x) for x in xs)


def _table(report: Report, key: str) -> pl.DataFrame | None:
    try:
        t = report.table(key)
    except KeyError:
        return None
    return t.df


def points_words(share: float) -> str:
    """Where the points come from, in words, from the share of points from cards
    (targi_sim.game.shape.card_point_share), and decided_by's verdict."""
    if not _finite(share):
        return "nobody scored a point, so neither cards nor tokens decide the games"
    if decided_by(share) == "tokens":
        return (f"Tokens give {_pct(1 - share)} of the points: the games are decided by "
                "tokens, not cards")
    return (f"Cards (card VP and row bonuses) give {_pct(share)} of the points: the games "
            "are decided by cards, not tokens")


def display_full_words(share: float) -> str:
    """The share of games ended by a full display, saying so plainly at none or all."""
    if share == 0:
        return "no game ended by a full display"
    if share == 1:
        return "every game ended by a full display"
    return f"{_pct(share)} of the games ended by a full display"


def rounds_words(mean: float, shortest: int, longest: int) -> str:
    """How many rounds the games lasted; 'every game lasted R rounds' when none differ."""
    if shortest == longest:
        return f"every game lasted {longest} rounds"
    return f"games lasted {mean:.1f} rounds on average ({shortest} to {longest})"


def game_shape(report: Report, small: list[tuple[str, str]]) -> list[Finding]:
    """The game's shape, a description of the games played (no test, so stated at any
    n, with n): the share of points from cards or tokens and which decides the games,
    the share ended by a full display, and how many rounds they lasted."""
    df = _table(report, "game_shape")
    if df is None or df.height == 0:
        return []
    r = df.row(0, named=True)
    if not r["games"]:
        return []
    parts = [points_words(r["card_point_share"]), display_full_words(r["display_full_share"]),
             rounds_words(r["rounds_mean"], r["rounds_min"], r["rounds_max"])]
    return [Finding("game_shape", "; ".join(parts) + f" (n = {r['games']:,} games).",
                    "game_shape")]


def first_player(report: Report, small: list[tuple[str, str]]) -> list[Finding]:
    """The round-1 first player's rate against 50%, with interval and p-value."""
    df = _table(report, "first_player")
    if df is None or df.height == 0:
        return []
    r = df.row(0, named=True)
    if r["low_n"] or not _finite(r["p_value"], r["first_rate_lo"]):
        small.append((f"the first-player rate (n = {r['n']:,} games)", "first_player"))
        return []
    if r["p_value"] < ALPHA:
        verdict = (f"significantly {'above' if r['first_rate'] > 0.5 else 'below'} 50% "
                   f"({_p(r['p_value'])}): "
                   f"{'an advantage' if r['first_rate'] > 0.5 else 'a disadvantage'} "
                   "for the player who starts round 1")
    else:
        verdict = (f"not significantly different from 50% ({_p(r['p_value'])}): no "
                   "first-player effect is shown at this size")
    # a win rate with draws as half, not a share of the VP scored
    return [Finding("first_player", f"First player: the round-1 first player wins "
                    f"{_interval(r, 'first_rate')} of games, draws counted as half "
                    f"(n = {r['n']:,} games, {r['pairs']:,} pairs), {verdict}.",
                    "first_player")]


def _card_tests(df: pl.DataFrame, prefix: str) -> pl.DataFrame:
    """Graded cards with the two-sided p of their excess and Holm's adjustment."""
    graded = df.filter(pl.col("grade").is_not_null()
                       & pl.col(f"{prefix}_excess_lo").is_not_nan())
    if graded.height == 0:
        return graded.with_columns(pl.lit(None, pl.Float64).alias("p_holm"))
    se = (graded[f"{prefix}_excess_hi"] - graded[f"{prefix}_excess_lo"]) / (2 * Z95)
    z = (graded[f"{prefix}_excess"] / se).to_list()
    adjusted = holm([normal_two_sided_p(v) for v in z])  # as `compare` adjusts
    return graded.with_columns(pl.Series("p_holm", adjusted, dtype=pl.Float64))


def _ids(r: dict) -> str:
    """'card 7', or 'cards 14, 15' for a class of identical copies (card_ids, copies)."""
    if r.get("copies", 1) > 1:
        return f"cards {r['card_ids']}"
    return f"card {r['card_id']}"


def cards(report: Report, small: list[tuple[str, str]]) -> list[Finding]:
    """Strongest and weakest tribe cards for their VP and cost: graded cards whose
    excess over the grade model differs from 0 at ALPHA after Holm over the graded
    cards; at most TOP each."""
    df = _table(report, "cards_tribe")
    if df is None or "grade" not in df.columns:
        return []
    prefix = "value" if "value_excess" in df.columns else "played_wr"
    what = "causal value" if prefix == "value" else "WR played"
    low = int(df["low_n"].sum())
    if low:
        small.append((f"{low} of {df.height} tribe cards (identical copies counted once; "
                      "played_n below --min-n: not graded)", "cards_tribe"))
    tested = _card_tests(df, prefix)
    if tested.height == 0:
        return []
    out = []
    for sign, word in ((1, "Strongest"), (-1, "Weakest")):
        hits = (tested.filter((pl.col("p_holm") < ALPHA)
                              & (pl.col(f"{prefix}_excess") * sign > 0))
                .sort(f"{prefix}_excess", descending=sign > 0).head(TOP))
        if hits.height == 0:
            continue
        parts = [f"{r['name']} ({_ids(r)}, {r['vp']} VP, cost {r['cost']}): grade "
                 f"{r['grade']}, {what} {_pct(r[prefix])} vs {_pct(r[prefix + '_expected'])} "
                 f"expected, {100 * r[prefix + '_excess']:+.1f} points "
                 f"({100 * r[prefix + '_excess_lo']:+.1f} to "
                 f"{100 * r[prefix + '_excess_hi']:+.1f}; n = {r['played_n']:,})"
                 for r in hits.iter_rows(named=True)]
        out.append(Finding(f"{word.lower()}_cards", f"{word} tribe cards for their printed "
                           f"VP and cost: " + "; ".join(parts) + ".", "cards_tribe"))
    if not out:
        out.append(Finding("cards_in_line", f"No tribe card's {what} differs from what its "
                           f"printed VP and cost predict beyond chance (Holm over the "
                           f"{tested.height} graded cards, {ALPHA}).", "cards_tribe"))
    return out


def symbols(report: Report, small: list[tuple[str, str]]) -> list[Finding]:
    """Symbols whose WR played differs from the rate pooled over every card (z against
    it taken as fixed, Holm over the symbols with enough games)."""
    df = _table(report, "cards_symbol")
    tribe = _table(report, "cards_tribe")
    if df is None or tribe is None or df.height < 2:
        return []
    n = float(tribe["played_n"].sum())
    if n <= 0:
        return []
    pooled = float(tribe["played_points"].sum()) / n
    ok = df.filter(~pl.col("low_n") & (pl.col("played_wr_se") > 0))
    if ok.height < df.height:
        small.append((f"{df.height - ok.height} of {df.height} symbols (played_n below "
                      "--min-n)", "cards_symbol"))
    if ok.height == 0:
        return []
    z = ((ok["played_wr"] - pooled) / ok["played_wr_se"]).to_list()
    adjusted = holm([normal_two_sided_p(v) for v in z])
    parts = [f"{r['symbol']} {_interval(r, 'played_wr')} (n = {r['played_n']:,}; Holm "
             f"{_p(p)})" for r, p in zip(ok.iter_rows(named=True), adjusted, strict=True)
             if p < ALPHA]
    if not parts:
        return []
    return [Finding("symbols", "Symbols out of line: WR played against "
                    f"{_pct(pooled)} over every card played: " + "; ".join(parts) + ".",
                    "cards_symbol")]


def raids(report: Report, small: list[tuple[str, str]]) -> list[Finding]:
    """The raid that costs the most per player, and the share of decided games whose
    winner raids changed (exact VP effect, with its interval)."""
    per = _table(report, "raids_per_raid")
    change = _table(report, "raids_winner_change")
    out = []
    if per is not None and per.height:
        ok = per.filter(~pl.col("low_n"))
        if ok.height < per.height:
            small.append((f"{per.height - ok.height} of {per.height} raids (n below "
                          "--min-n)", "raids_per_raid"))
        if ok.height:
            r = ok.sort("vp_lost_mean", descending=True).row(0, named=True)
            out.append(Finding("raid", f"Largest raid: raid {r['raid']} costs "
                               f"{r['vp_lost_mean']:.2f} VP-equivalent per player facing it "
                               f"(mean over n = {r['n']:,} player-raids; the other raids "
                               "are in the table).", "raids_per_raid"))
    if change is not None and change.height:
        r = change.row(0, named=True)
        if r["low_n"] or not _finite(r["flipped_exact_share_lo"]):
            small.append((f"the raid-decided share (n = {int(r['decided']):,} decided games)",
                          "raids_winner_change"))
        else:
            out.append(Finding("raids_decide", "Raids change the winner of "
                               f"{_interval(r, 'flipped_exact_share')} of the decided games "
                               f"(VP paid and given; n = {int(r['decided']):,}).",
                               "raids_winner_change"))
    return out


def tiebreaks(report: Report, small: list[tuple[str, str]]) -> list[Finding]:
    """The share of games decided by a tie-break (equal scores; gold, then goods)."""
    df = _table(report, "viability")
    if df is None:
        return []
    rows = df.filter(pl.col("metric") == "Tie-break decided")
    if rows.height == 0:
        return []
    r = rows.row(0, named=True)
    if r["n"] < report.min_n or not _finite(r["value_lo"]):
        small.append((f"the tie-break share (n = {r['n']:,} games)", "viability"))
        return []
    return [Finding("tiebreaks", f"Tie-breaks decide {_pct(r['value'])} "
                    f"({_pct(r['value_lo'])}–{_pct(r['value_hi'])}) of the games "
                    f"(n = {r['n']:,}).", "viability")]


RULES = (game_shape, first_player, cards, symbols, raids, tiebreaks)


def findings(report: Report) -> list[Finding]:
    """Every rule's findings in order, then one naming what is too small to conclude."""
    small: list[tuple[str, str]] = []
    out = [f for rule in RULES for f in rule(report, small)]
    if small:
        out.append(Finding("small_n", f"Too few games to conclude (n below --min-n = "
                           f"{report.min_n:,}): " + "; ".join(t for t, _ in small)
                           + ". Their rows are greyed; more games shrink the intervals as "
                           "1/sqrt(games).", small[0][1]))
    return out
