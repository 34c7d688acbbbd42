"""Known answers for the report's Findings rules, the cost- and VP-adjusted grades and
the HTML/Markdown rendering (sortable tables, anchors, collapsed wide tables).

Every Findings rule is run on a table where its finding must appear and on one where
it must not. Tables are built by hand (no run needed) with the columns the report has.
"""

from __future__ import annotations

import math
import re

import numpy as np
import polars as pl
import pytest
import statsmodels.api as sm
from report_fixture import build_fixture

from targi_sim.game.shape import card_point_share, decided_by
from targi_sim.report import analyse, read_run_info
from targi_sim.report.findings import findings
from targi_sim.report.html import render_html
from targi_sim.report.markdown import render_markdown
from targi_sim.report.model import Report, Section, Table
from targi_sim.report.sections import grade_tribe
from targi_sim.report.sections.common import interval_plot as _interval_plot
from targi_sim.stats.grades import grade_values, grades

approx = pytest.approx


# ---------------------------------------------------------------- grades (part 3)

def _cards(outlier: float = 0.0) -> pl.DataFrame:
    """12 cards on the exact line 0.40 + 0.05 vp - 0.01 cost, plus small alternating
    noise, and card 11 (1 VP, cost 1: the cheapest) `outlier` above its line."""
    vp = [3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1]
    cost = [5, 4, 3, 5, 4, 3, 4, 2, 3, 2, 3, 1]
    noise = [0.004, -0.004] * 6
    value = [0.40 + 0.05 * v - 0.01 * c + e for v, c, e in zip(vp, cost, noise, strict=True)]
    value[11] += outlier
    return pl.DataFrame({"card_id": list(range(12)), "vp": vp, "cost": cost,
                         "value": value, "se": [0.01] * 12})


def test_grades_compare_like_with_like():
    """The Camp 1VP #4 reproducer: a cheap 1 VP card that beats its line. A z-score of
    raw WR played grades by printed VP (every 3 VP card above C, every 1 VP card below)
    and calls the outlier about C; the adjusted grade gives it the top grade and puts
    the cards on the line near C whatever their VP."""
    df = _cards(outlier=0.035)
    raw_z, raw = grades(df["value"].to_list(), [True] * 12)
    assert all(g[0] in "AB" for g in raw[:4]) and all(g[0] in "DF" for g in raw[8:11])
    assert raw[11] == "C"  # the outlier looks average on raw WR
    graded, model = grade_values(df)
    g = graded["grade"].to_list()
    assert g[11] == "A" and graded["residual_z"].arg_max() == 11
    assert not any(x[0] in "AF" for x in g[:11]), g  # VP no longer sets the grade
    # the fit: statsmodels OLS (equal se) on the same data gives the same line and R²
    x = sm.add_constant(np.column_stack([df["vp"].to_numpy(), df["cost"].to_numpy()]))
    ols = sm.OLS(df["value"].to_numpy(), x).fit()
    assert (model.intercept, model.per_vp, model.per_cost) == approx(tuple(ols.params))
    assert model.r2 == approx(ols.rsquared)
    assert graded["residual"].to_numpy() == approx(ols.resid)
    # interval of a residual with equal se s: 1.96 s sqrt(1 - h_ii) (I - H idempotent)
    h = ols.get_influence().hat_matrix_diag
    half = (graded["residual_hi"] - graded["residual_lo"]).to_numpy() / 2
    assert half == approx(1.959964 * 0.01 * np.sqrt(1 - h), rel=1e-5)
    assert graded["residual_lo"][11] > 0  # beats its line beyond noise
    # lack of fit: chi² = sum (residual / se)² on 12 - 3 df
    assert model.chi2 == approx(float((ols.resid**2).sum()) / 0.01**2)
    assert model.df == 9 and model.p_lack_of_fit > 0.05  # se 0.01: within noise
    _, tight = grade_values(df.with_columns(pl.lit(0.003).alias("se")))
    assert tight.p_lack_of_fit < 0.05 and "real differences" in tight.describe()


def test_grade_model_says_when_it_fits_noise_only():
    df = _cards(outlier=0.0).with_columns(pl.lit(0.05).alias("se"))
    _, model = grade_values(df)
    assert model.p_lack_of_fit > 0.05
    assert "within sampling noise" in model.describe()
    flat = df.with_columns(pl.Series("value", [0.5 + 0.004 * (-1) ** k for k in range(12)]))
    _, model = grade_values(flat)
    assert model.r2 < 0.3 and "explain little" in model.describe()


def test_too_few_cards_get_no_grade_and_ineligible_cards_none():
    graded, model = grade_values(_cards().head(3))
    assert graded["grade"].null_count() == 3 and "no grades" in model.describe()
    eligible = pl.Series([k != 5 for k in range(12)])
    graded, model = grade_values(_cards(0.06), eligible=eligible)
    assert model.cards == 11 and graded["grade"][5] is None
    assert math.isfinite(graded["residual"][5])  # still compared with the line


def test_grade_on_a_generic_value_table():
    """Causal card values (card_id, value, se) replace WR played when given."""
    tribe = _cards().rename({"value": "played_wr", "se": "played_wr_se"}).with_columns(
        pl.lit(0).alias("cost_salt"), pl.col("cost").alias("cost_pepper"),
        pl.lit(0).alias("cost_dates"), pl.lit(0).alias("cost_gold"), pl.lit(False).alias("low_n"),
        pl.col("card_id").cast(pl.Int32)).drop("cost")
    values = _cards(outlier=0.1).select("card_id", "value", "se").reverse()
    graded, model = grade_tribe(tribe, values)
    assert model.value_name == "causal card value"
    assert graded.filter(pl.col("card_id") == 11)["grade"][0] == "A+"
    assert graded["value"].to_list() == values.sort("card_id")["value"].to_list()
    plain, model = grade_tribe(tribe)
    assert model.value_name == "WR played" and "value" not in plain.columns


# ---------------------------------------------------------------- Findings (part 1)

def _first(rate: float, lo: float, hi: float, p: float, n: int = 4000,
           low: bool = False) -> Table:
    return Table("first_player", "fp", pl.DataFrame({
        "scope": ["all games"], "n": [n], "pairs": [n], "first_rate": [rate],
        "first_rate_lo": [lo], "first_rate_hi": [hi], "p_value": [p], "low_n": [low]}))


def _tribe(excess: list[float], half: float, low: list[bool] | None = None) -> Table:
    """k rows, one per class; the last class is two copies (cards k-1 and k)."""
    k = len(excess)
    low = low or [False] * k
    copies = [1] * (k - 1) + [2]
    return Table("cards_tribe", "t", pl.DataFrame({
        "card_id": list(range(k)), "name": [f"Card {i}" for i in range(k)],
        "copies": copies, "card_ids": [str(i) if c == 1 else f"{i}, {i + 1}"
                                       for i, c in enumerate(copies)],
        "vp": [1] * k, "cost": ["1g"] * k, "played_n": [1000] * k,
        "played_points": [500.0] * k, "played_wr": [0.5 + e for e in excess],
        "played_wr_expected": [0.5] * k, "played_wr_excess": excess,
        "played_wr_excess_lo": [e - half for e in excess],
        "played_wr_excess_hi": [e + half for e in excess],
        "grade": [None if x else "C" for x in low], "low_n": low}))


def _symbols(wr: list[float], se: float) -> Table:
    k = len(wr)
    return Table("cards_symbol", "s", pl.DataFrame({
        "symbol": [f"S{i}" for i in range(k)], "played_n": [1000] * k, "played_wr": wr,
        "played_wr_lo": [w - 1.96 * se for w in wr], "played_wr_hi": [w + 1.96 * se for w in wr],
        "played_wr_se": [se] * k, "low_n": [False] * k}))


def _raids(decided: int = 3000, low: bool = False) -> list[Table]:
    return [Table("raids_per_raid", "r", pl.DataFrame({
        "raid": [1, 2, 3, 4], "n": [8000] * 4, "vp_lost_mean": [0.5, 1.25, 0.75, 3.0],
        "low_n": [False] * 4})),
        Table("raids_winner_change", "w", pl.DataFrame({
            "decided": [decided], "flipped_exact_share": [0.14],
            "flipped_exact_share_lo": [0.13], "flipped_exact_share_hi": [0.15],
            "low_n": [low]}))]


def _viability(value: float, n: int) -> Table:
    return Table("viability", "v", pl.DataFrame({
        "metric": ["Tie-break decided"], "value": [value], "n": [n],
        "value_lo": [value - 0.01], "value_hi": [value + 0.01]}))


def _report(*tables: Table, min_n: int = 500) -> Report:
    return Report("t", [], [Section("s", "S", tables=list(tables))], min_n)


def _rules(report: Report) -> dict[str, str]:
    return {f.rule: f.text for f in findings(report)}


def test_first_player_finding():
    sig = _rules(_report(_first(0.458, 0.455, 0.460, 1e-30)))["first_player"]
    assert "45.8% (45.5%–46.0%)" in sig and "significantly below 50%" in sig
    # a win rate with draws as half, which "of the points" read as a VP share
    assert "wins 45.8% (45.5%–46.0%) of games, draws counted as half" in sig
    assert "points" not in sig
    assert "n = 4,000 games" in sig
    ns = _rules(_report(_first(0.51, 0.47, 0.55, 0.6)))["first_player"]
    assert "not significantly different" in ns
    small = _rules(_report(_first(0.6, 0.2, 0.9, 0.5, n=10, low=True)))
    assert "first_player" not in small and "first-player rate (n = 10" in small["small_n"]


def test_strongest_and_weakest_card_findings():
    # 10 cards: card 0 +8 points, card 9 -7 points, intervals +-2 points; Holm over 10
    excess = [0.08, 0, 0.001, -0.001, 0, 0.002, -0.002, 0, 0.001, -0.07]
    f = _rules(_report(_tribe(excess, 0.02)))
    assert "Card 0 (card 0" in f["strongest_cards"] and "+8.0 points (+6.0 to +10.0" \
        in f["strongest_cards"]
    assert "Card 9 (cards 9, 10, 1 VP" in f["weakest_cards"]  # a class of two copies
    assert "Card 0" not in f["weakest_cards"]
    assert "cards_in_line" not in f
    # the same excesses with intervals of +-10 points: nothing beyond chance
    f = _rules(_report(_tribe(excess, 0.10)))
    assert "strongest_cards" not in f and "weakest_cards" not in f
    assert "No tribe card" in f["cards_in_line"]
    # ungraded (low-n) cards are never named, and are listed as too small
    low = [True] + [False] * 9
    f = _rules(_report(_tribe(excess, 0.02, low)))
    assert "Card 0" not in f.get("strongest_cards", "")
    assert "1 of 10 tribe cards" in f["small_n"]


def test_symbols_out_of_line_finding():
    tribe = _tribe([0.0] * 4, 0.02)  # pooled WR played: 2000 / 4000 = 50%
    f = _rules(_report(tribe, _symbols([0.50, 0.51, 0.45, 0.50, 0.49], 0.005)))
    assert "S2 45.0%" in f["symbols"] and "S0" not in f["symbols"]
    f = _rules(_report(tribe, _symbols([0.50, 0.505, 0.495, 0.50, 0.498], 0.005)))
    assert "symbols" not in f


def test_raid_and_tiebreak_findings():
    f = _rules(_report(*_raids(), _viability(0.086, 4000)))
    assert "raid 4 costs 3.00 VP-equivalent" in f["raid"]
    assert "14.0% (13.0%–15.0%)" in f["raids_decide"] and "n = 3,000" in f["raids_decide"]
    assert "8.6% (7.6%–9.6%)" in f["tiebreaks"]
    per, change = _raids(decided=40, low=True)
    per.df = per.df.with_columns(pl.lit(True).alias("low_n"))  # every raid below --min-n
    f = _rules(_report(per, change, _viability(0.1, 40)))
    assert "raid" not in f and "raids_decide" not in f and "tiebreaks" not in f
    assert "4 of 4 raids" in f["small_n"]
    assert "raid-decided share" in f["small_n"] and "tie-break share" in f["small_n"]


def _shape(card_vp: float, row_bonus: float, token_vp: float, display: float,
           rounds: tuple[float, int, int], games: int = 4000) -> Table:
    share = card_point_share(card_vp, row_bonus, token_vp)
    return Table("game_shape", "g", pl.DataFrame({
        "games": [games], "rounds_mean": [rounds[0]], "rounds_min": [rounds[1]],
        "rounds_max": [rounds[2]], "display_full_share": [display],
        "player_games": [2 * games], "token_vp": [token_vp], "card_vp": [card_vp],
        "row_bonus": [row_bonus], "card_point_share": [share],
        "decided_by": [decided_by(share)]}))


def test_game_shape_finding_says_what_decides_the_games():
    # tokens 15.5 of 25 VP a player: 62% from tokens, 38% from cards (card VP + row bonus)
    f = _rules(_report(_shape(8.0, 1.5, 15.5, 0.0, (12.0, 12, 12))))["game_shape"]
    assert f == ("Tokens give 62.0% of the points: the games are decided by tokens, not "
                 "cards; no game ended by a full display; every game lasted 12 rounds "
                 "(n = 4,000 games).")
    # cards 6 + 1 of 10 VP: decided by cards; some games end early on a full display
    f = _rules(_report(_shape(6.0, 1.0, 3.0, 0.125, (11.5, 8, 12))))["game_shape"]
    assert f.startswith("Cards (card VP and row bonuses) give 70.0% of the points: the "
                        "games are decided by cards, not tokens; ")
    assert "12.5% of the games ended by a full display" in f
    assert "games lasted 11.5 rounds on average (8 to 12)" in f
    f = _rules(_report(_shape(1.0, 0.0, 1.0, 1.0, (9.0, 9, 9))))["game_shape"]
    assert "decided by cards" in f  # half and half: decided_by's boundary
    assert "every game ended by a full display; every game lasted 9 rounds" in f
    assert "game_shape" not in _rules(_report(_first(0.5, 0.45, 0.55, 0.9)))


def test_game_shape_finding_of_the_fixture_run(fixture_report):
    """The 4-game fixture: every VP from tokens, 3 of 4 games end by a full display, every
    game lasts 2 rounds (tests/report_fixture.py)."""
    shape = fixture_report.table("game_shape").df.row(0, named=True)
    assert shape["token_vp"] == (10 + 7 + 9 + 8 + 5 + 5 + 6 + 8) / 8
    assert shape["card_vp"] == 0 and shape["row_bonus"] == 0
    assert shape["card_point_share"] == 0 and shape["decided_by"] == "tokens"
    assert shape["display_full_share"] == 0.75
    text = {f.rule: f.text for f in fixture_report.findings}["game_shape"]
    assert text == ("Tokens give 100.0% of the points: the games are decided by tokens, not "
                    "cards; 75.0% of the games ended by a full display; every game lasted 2 "
                    "rounds (n = 4 games).")
    assert fixture_report.findings[0].rule == "game_shape"


def test_no_small_n_finding_when_everything_is_large():
    f = _rules(_report(_first(0.458, 0.455, 0.460, 1e-30), _tribe([0.0] * 5, 0.02)))
    assert "small_n" not in f


# ---------------------------------------------------------------- rendering (part 2)

@pytest.fixture(scope="module")
def fixture_report(tmp_path_factory):
    run = build_fixture(tmp_path_factory.mktemp("findings") / "run")
    return analyse(read_run_info(run), min_n=1)


def test_html_tables_sort_scroll_and_link(fixture_report):
    html = render_html(fixture_report)
    assert html.index("id='findings'") < html.index("id='overview'")
    ids = set(re.findall(r"id='([^']+)'", html))
    for target in re.findall(r"href='#([^']+)'", html):
        assert target in ids, target  # every finding and contents link has its anchor
    assert "<table class='sortable' id='cards_tribe'>" in html
    assert "<details id='cards_tribe-full'>" in html  # the wide table, collapsed
    assert "<th title='printed victory points'>vp</th>" in html
    assert "overflow-x:auto" in html and "position:sticky;left:0" in html
    assert "addEventListener('click'" in html
    assert "http://" not in html and "https://" not in html  # nothing from the network
    # the compact card table puts the name first, beside its number
    compact = html[html.index("id='cards_tribe'>"):html.index("id='cards_tribe-full'")]
    heads = re.findall(r"<th[^>]*>([^<]+)</th>", compact)
    assert heads[:2] == ["name", "card_id"] and "offered_rounds" not in heads
    md = render_markdown(fixture_report)
    for target in re.findall(r"\]\(#([^)]+)\)", md):
        assert f'<a id="{target}"></a>' in md, target
    assert "## Findings" in md and md.index("## Findings") < md.index("## 1. Overview")


def test_rates_in_percent_where_the_table_mixes_kinds(fixture_report):
    md = render_markdown(fixture_report)
    assert "| AdvantageP1 | 62.5% (" in md  # the viability table: rates in %
    assert "| Balance | 0.75 |" in md


def test_a_plot_of_one_category_is_a_sentence():
    sec = Section("s", "S")
    one = pl.DataFrame({"end_reason": ["final_raid"], "n": [10], "first_rate": [0.4],
                        "first_rate_lo": [0.2], "first_rate_hi": [0.6], "low_n": [False]})
    _interval_plot(sec, "k", "t", one, "end_reason", "end reason")
    assert not sec.plots and sec.text == [
        "No first-player plot by end reason: this run has one end reason (final_raid); "
        "the table above has its rate."]
    two = pl.concat([one, one.with_columns(pl.lit("display_full").alias("end_reason"))])
    _interval_plot(sec, "k", "t", two, "end_reason", "end reason")
    assert len(sec.plots) == 1 and sec.plots[0].png[:4] == b"\x89PNG"


def test_analyse_takes_card_values(tmp_path):
    """The hook for causal card values: `analyse(run, card_values=...)` grades on them
    and says so (the fixture's three cards are too few for a grade)."""
    from targi_sim.report import plots

    run = build_fixture(tmp_path / "run")
    values = pl.DataFrame({"card_id": [0, 1, 2], "value": [0.1, 0.2, 0.3], "se": [0.01] * 3})
    with plots.skipped():
        report = analyse(read_run_info(run), 1, card_values=values)
    tribe = report.table("cards_tribe").df.sort("card_id")
    assert tribe["value"].to_list() == [0.1, 0.2, 0.3]
    text = " ".join(next(s for s in report.sections if s.key == "cards").text)
    assert "causal card value" in text and "at least 4 cards" in text
