"""Known-answer tests of every report metric on the hand-built fixture (report_fixture.py).

Expected values are computed by hand in the comments, never by the code under test.
"""

from __future__ import annotations

import math

import pytest
from report_fixture import build_fixture

from targi_sim.report import ReportError, analyse, build_report, compare_runs, read_run_info
from targi_sim.report.metrics import (
    benjamini_hochberg,
    half_test_clustered,
    holm,
    lead_metrics,
    two_proportion_test,
)
from targi_sim.stats.grades import grade

approx = pytest.approx


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return build_fixture(tmp_path_factory.mktemp("fixture") / "run")


@pytest.fixture(scope="module")
def report(run_dir):
    return analyse(read_run_info(run_dir), min_n=1)


def rows(report, key, by):
    return {r[by]: r for r in report.table(key).df.iter_rows(named=True)}


def test_viability_metrics(report):
    v = rows(report, "viability", "metric")
    # first-player points: g0 1, g1 0, g2 0.5, g3 1 -> 2.5 / 4
    assert v["AdvantageP1"]["value"] == approx(0.625)
    assert v["Balance"]["value"] == approx(1 - abs(0.625 - 0.375))
    assert v["Drawishness"]["value"] == approx(0.25)
    assert v["Completion"]["value"] == approx(0.75)
    assert v["Duration (mean rounds)"]["value"] == approx(2.0)
    assert v["Duration (SD rounds)"]["value"] == approx(0.0)
    # leaders r1 -> r2: g0 p0->p0 (0), g1 level->p0 (1), g2 p1->level (1), g3 p0->p1 (1)
    assert v["LeadChange"]["value"] == approx(0.75)
    # decided games: g0 winner ahead from r1 (d=1: 0), g1 and g3 from r2 (d=2: 1/2)
    assert v["Decisiveness"]["value"] == approx((0 + 0.5 + 0.5) / 3)
    assert v["Decisiveness"]["n"] == 3
    # Wilson interval of 2.5/4 (stats.wilson_interval is tested elsewhere)
    assert 0 < v["AdvantageP1"]["value_lo"] < 0.625 < v["AdvantageP1"]["value_hi"] < 1


def test_strategy_seat_and_matchups(report):
    s = {(r["strategy"], r["seat"]): r for r in report.table("strategies_by_seat").df.iter_rows(
        named=True)}
    assert s[("A", 0)]["win_rate"] == approx(1.0)   # g0, g1 won
    assert s[("B", 1)]["win_rate"] == approx(0.0)
    assert s[("B", 0)]["win_rate"] == approx(0.25)  # g2 draw, g3 loss
    assert s[("A", 1)]["win_rate"] == approx(0.75)  # g2 draw, g3 win
    assert s[("B", 0)]["draw_rate"] == approx(0.5)
    m = {(r["p0_strategy"], r["p1_strategy"]): r for r in report.table("matchups").df.iter_rows(
        named=True)}
    assert m[("A", "B")]["games"] == 2 and m[("A", "B")]["p0_rate"] == approx(1.0)
    assert m[("B", "A")]["p0_rate"] == approx(0.25)
    length = report.table("game_length").df
    assert dict(zip(length["end_reason"], length["games"], strict=True)) == {
        "display_full": 3, "final_raid": 1}


def test_first_player(report):
    fp = rows(report, "first_player", "scope")
    a = fp["all games"]
    assert a["first_rate"] == approx(0.625) and a["n"] == 4 and a["pairs"] == 2
    # pair totals 1 and 1.5 (2 games each); p = 0.625;
    # var = 2/1 * ((1 - 1.25)^2 + (1.5 - 1.25)^2) / 4^2 = 0.015625, se 0.125, z = 1
    assert a["z"] == approx(1.0)
    assert a["p_value"] == approx(math.erfc(1 / math.sqrt(2)))
    assert fp["A vs B"]["first_rate"] == approx(0.5)   # g0 1, g1 0
    assert fp["B vs A"]["first_rate"] == approx(0.75)  # g2 .5, g3 1
    assert "mirror matches" not in fp
    er = rows(report, "first_player_by_end_reason", "end_reason")
    assert er["display_full"]["first_rate"] == approx(1.5 / 3)
    assert er["final_raid"]["first_rate"] == approx(1.0)
    gap = rows(report, "score_gap", "round")
    # first - second: r1 g0 +1, g1 0, g2 -1, g3 -2; r2 g0 +3, g1 -1, g2 0, g3 +2
    assert gap[1]["gap_mean"] == approx(-0.5)
    assert gap[2]["gap_mean"] == approx(1.0)


def test_tribe_cards(report):
    c = rows(report, "cards_tribe", "card_id")
    c0, c1, c2 = c[0], c[1], c[2]
    assert (c0["offered_rounds"], c1["offered_rounds"], c2["offered_rounds"]) == (2, 4, 3)
    assert (c0["offered_games"], c1["offered_games"], c2["offered_games"]) == (2, 2, 2)
    assert (c0["acquire_rate"], c1["acquire_rate"], c2["acquire_rate"]) == (1.0, 0.5, 0.5)
    # acquisitions (a kept card's later `hand` row is not a second acquisition)
    assert (c0["acquired"], c1["acquired"], c2["acquired"]) == (3, 1, 2)
    assert c2["acquisition_rows"] == 3 and c2["kept"] == 2 and c0["discarded"] == 1
    assert (c0["round_mean"], c1["round_mean"], c2["round_mean"]) == (1.0, 2.0, 1.5)
    # played: card 0 by g0 p0 (win) and g2 p1 (draw); card 1 g1 p0 (win); card 2 g3 p0 (loss)
    assert (c0["played_n"], c0["played_wr"]) == (2, approx(0.75))
    assert (c1["played_n"], c1["played_wr"]) == (1, approx(1.0))
    assert (c2["played_n"], c2["played_wr"]) == (1, approx(0.0))
    # offered, not acquired by that player: card 0: g0 p1 (0), g2 p0 (.5)
    assert (c0["not_taken_n"], c0["not_taken_wr"]) == (2, approx(0.25))
    # card 1: g0 p0 (1), g0 p1 (0), g1 p1 (0); card 2: g0 p0 (1), g2 p0 (.5), g2 p1 (.5)
    assert (c1["not_taken_n"], c1["not_taken_wr"]) == (3, approx(1 / 3))
    assert (c2["not_taken_n"], c2["not_taken_wr"]) == (3, approx(2 / 3))
    assert c0["improvement"] == approx(0.5)
    assert c2["improvement"] == approx(-2 / 3)
    assert c0["cost"] == "2s2p1d" and c1["cost"] == "1g"
    # three cards cannot fit WR played on VP and cost (tests/test_report_findings.py
    # has the grading's known answers): no grade
    assert (c0["grade"], c1["grade"], c2["grade"]) == (None, None, None)


def test_fixture_cards_stand_alone(report):
    """The fixture's stored deck does not load, so nothing shows two of its cards to be
    copies: every card is its own class (one copy, its own id)."""
    c = rows(report, "cards_tribe", "card_id")
    assert [(r["copies"], r["card_ids"]) for r in c.values()] == [(1, "0"), (1, "1"), (1, "2")]


@pytest.fixture(scope="module")
def pooled(run_dir):
    """The fixture with cards 0 and 1 declared one class of copies (they are not: the
    test is of the pooling's arithmetic)."""
    import numpy as np

    from targi_sim.game.classes import CardClasses

    classes = CardClasses(((0, 1), (2,)), np.array([0, 0, 1]), ("Targia 3VP = 1VP", "Well 2VP"))
    return analyse(read_run_info(run_dir), min_n=1, classes=classes)


def test_a_class_is_one_row_its_copies_counts_summed(pooled, report):
    c = rows(pooled, "cards_tribe", "card_id")
    assert sorted(c) == [0, 2]
    k = c[0]
    assert (k["name"], k["copies"], k["card_ids"], k["vp"], k["cost"]) == (
        "Targia 3VP = 1VP", 2, "0, 1", 3, "2s2p1d")  # printed columns: the first card's
    # offers 2 + 4 rounds; acquisitions 3 + 1, rounds 1, 1, 1 and 2; played 2 + 1
    assert (k["offered_rounds"], k["acquired"], k["played_n"]) == (6, 4, 3)
    assert k["round_mean"] == approx(5 / 4) and k["acquired_per_game"] == approx(4 / 4)
    # copy-games offered: card 0 in g0, g2; card 1 in g0, g1; taken from the centre:
    # card 0 in g0 and g2, card 1 in g1
    assert (k["offered_games"], k["taken_games"], k["acquire_rate"]) == (4, 3, approx(3 / 4))
    # players who played a copy: g0 p0 (win), g2 p1 (draw), g1 p0 (win)
    assert k["played_wr"] == approx(2.5 / 3)
    # offered, not acquired, per copy: card 0 g0 p1 (0), g2 p0 (.5); card 1 g0 p0 (1: it
    # took card 0, not card 1), g0 p1 (0), g1 p1 (0)
    assert (k["not_taken_n"], k["not_taken_wr"]) == (5, approx(1.5 / 5))
    assert c[2]["played_wr"] == rows(report, "cards_tribe", "card_id")[2]["played_wr"]


def test_a_class_interval_adds_its_copies_per_pair_before_squaring(pooled):
    """Pair 0 holds g0, g1, pair 1 g2, g3. WR played per pair: (x, n) = (2, 2), (0.5, 1),
    r = 5/6: var = 2/1 * ((2 - 5/3)^2 + (0.5 - 5/6)^2) / 3^2 = 4/81, se 2/9. Each copy's
    rows as their own clusters (card 0: (1, 1), (0.5, 1); card 1: (1, 1)) would give
    3/2 * (1/36 + 1/9 + 1/36) / 9 = 1/36, se 1/6. Acquire rate per pair (2, 3), (1, 1),
    r = 3/4: var = 2 * (0.25^2 + 0.25^2) / 4^2, se 1/8 (per copy: 3/16)."""
    k = rows(pooled, "cards_tribe", "card_id")[0]
    assert k["played_wr_se"] == approx(2 / 9)
    assert k["acquire_rate_se"] == approx(1 / 8)
    # the same pooling as a symbol's: cards 0 and 1 are the symbol Targia
    t = rows(pooled, "cards_symbol", "symbol")["Targia"]
    assert t["cards"] == 2
    for col in ("played_wr", "played_wr_se", "acquire_rate_se", "not_taken_wr_se"):
        assert k[col] == approx(t[col])


def test_symbols(report):
    s = rows(report, "cards_symbol", "symbol")
    t = s["Targia"]
    assert t["cards"] == 2 and t["played_n"] == 3
    assert t["played_wr"] == approx(2.5 / 3)
    assert t["not_taken_wr"] == approx(1.5 / 5)
    assert t["acquire_rate"] == approx(3 / 4)
    assert t["round_mean"] == approx((1 * 3 + 2 * 1) / 4)
    assert s["Well"]["played_wr"] == approx(0.0)


def test_border_and_goods_cards(report):
    b = rows(report, "cards_border", "position")
    # 8 game-rounds; robber on 13 in round 1, on 14 in round 2
    assert b[1]["placements"] == 8 and b[1]["use_rate"] == approx(1.0)
    assert b[5]["placements"] == 7 and b[5]["use_rate"] == approx(7 / 8)
    assert b[7]["use_rate"] == approx(1 / 8)
    assert b[13]["open_rounds"] == 4 and b[13]["use_rate"] == approx(0.0)
    # seat 0 uses 1 in all games: points 1, 1, .5, 0; seat 1 uses 5: 0, 0, .5, 1
    assert b[1]["used_n"] == 4 and b[1]["used_wr"] == approx(2.5 / 4)
    assert b[5]["used_wr"] == approx(1.5 / 4)
    assert b[7]["used_n"] == 1 and b[7]["used_wr"] == approx(1.0)
    g = rows(report, "cards_goods", "card_id")
    assert (g[0]["taken"], g[0]["taken_centre"], g[0]["taken_border"]) == (2, 1, 1)
    assert g[0]["taker_n"] == 1 and g[0]["taker_wr"] == approx(1.0)
    assert g[0]["goods_per_game"] == approx(2 * 1 / 4)
    assert g[1]["goods_per_take"] == 2 and g[1]["goods_per_game"] == approx(0.5)
    assert g[1]["taker_wr"] == approx(0.0)
    assert g[2]["gold_per_game"] == approx(0.25) and g[2]["taker_wr"] == approx(1.0)


def test_raids(report):
    mix = {(r["raid"], r["paid"]): r for r in report.table("raids_payments").df.iter_rows(
        named=True)}
    assert mix[(1, "vp")]["share"] == approx(0.5) and mix[(1, "goods")]["share"] == approx(0.5)
    assert mix[(1, "vp")]["payer_wr"] == approx(0.5)    # g0p0 1, g1p1 0, g2 .5 + .5
    assert mix[(1, "goods")]["payer_wr"] == approx(0.5)  # g0p1 0, g1p0 1, g3p0 0, g3p1 1
    assert mix[(4, "none")]["payer_wr"] == approx(0.0)
    per = rows(report, "raids_per_raid", "raid")
    # raid 1: 4 x 1 VP + 4 x 1 good x 0.5 = 6 over 8; raid 4: (3 bonus + 1 gold x 2) / 2
    assert per[1]["vp_lost_mean"] == approx(0.75)
    assert per[4]["vp_lost_mean"] == approx(2.5)
    assert per[1]["wr_vp_minus_goods"] == approx(0.0)
    sw = report.table("raids_winner_change").df.row(0, named=True)
    # decided: g0 (swing -1), g1 (margin 1, swing 1 -> flips), g3 (margin 2, swing 3 -> flips)
    assert sw["decided"] == 3
    assert sw["flipped_exact_share"] == approx(2 / 3)
    # VP-equivalent swings: g0 -0.5, g1 0.5 < 1, g3 3.5 - 2.5 = 1 < 2 -> none
    assert sw["flipped_eq_share"] == approx(0.0)


def test_strategies_matrix_and_elo(report):
    m = {(r["a"], r["b"]): r for r in report.table("strategy_matrix").df.iter_rows(named=True)}
    # A: wins g0, g1, g3, draw g2 -> 3.5 / 4
    assert m[("A", "B")]["games"] == 4 and m[("A", "B")]["rate_a"] == approx(0.875)
    assert m[("B", "A")]["rate_a"] == approx(0.125)
    elo = rows(report, "elo", "strategy")
    # Bradley-Terry with one virtual draw: odds (3.5 + .5) / (.5 + .5) = 4
    assert elo["A"]["elo"] - elo["B"]["elo"] == approx(400 * math.log10(4), rel=1e-6)
    assert elo["A"]["elo"] + elo["B"]["elo"] == approx(3000)


def test_game_shape_by_strategy(report, run_dir):
    """Recomputed from the fixture's Parquet files with polars, per player-game."""
    import polars as pl

    games = pl.read_parquet(run_dir / "games" / "part-000000.parquet")
    rounds = pl.read_parquet(run_dir / "rounds" / "part-000000.parquet")
    raids = pl.read_parquet(run_dir / "raids" / "part-000000.parquet")
    last = rounds.filter(pl.col("round") == pl.col("round").max().over("game_id"))
    shape = rows(report, "strategy_shape", "strategy")
    for name in ("A", "B"):
        seats = [(g["game_id"], p) for g in games.iter_rows(named=True) for p in (0, 1)
                 if g[f"p{p}_strategy"] == name]
        tokens = [games.filter(pl.col("game_id") == g)[f"tokens_p{p}"][0] for g, p in seats]
        cards = [last.filter((pl.col("game_id") == g) & (pl.col("player") == p))
                 ["display_count"].sum() for g, p in seats]
        paid = [raids.filter((pl.col("game_id") == g) & (pl.col("player") == p))["amount"].sum()
                for g, p in seats]
        r = shape[name]
        assert r["player_games"] == len(seats)
        assert r["token_vp"] == approx(sum(tokens) / len(seats))
        assert r["cards"] == approx(sum(cards) / len(seats))
        assert r["raid_losses"] == approx(sum(paid) / len(seats))
        assert r["card_vp"] == 0 and r["row_bonus"] == 0
        assert r["token_vp_lo"] <= r["token_vp"] <= r["token_vp_hi"]


def test_curves(report):
    c = {(r["round"], r["seat"], r["strategy"]): r
         for r in report.table("curves").df.iter_rows(named=True)}
    r1 = c[(1, 0, "A")]  # g0, g1 seat 0 after round 1: scores 5, 4
    assert r1["n"] == 2 and r1["score"] == approx(4.5) and r1["vp_tokens"] == approx(4.5)
    assert r1["gold"] == approx(1) and r1["goods"] == approx(2) and r1["display"] == approx(0)
    r2 = c[(2, 1, "A")]  # g2, g3 seat 1 after round 2: scores 5, 8
    assert r2["score"] == approx(6.5) and r2["goods"] == approx(4) and r2["display"] == 2


def test_low_n_rows_are_marked_not_dropped(run_dir):
    rep = analyse(read_run_info(run_dir), min_n=2)
    c = rows(rep, "cards_tribe", "card_id")
    assert len(c) == 3
    assert (c[0]["low_n"], c[1]["low_n"], c[2]["low_n"]) == (False, True, True)
    assert c[1]["grade"] is None  # fewer than 2 eligible cards: no grades


def test_statistics_helpers():
    assert holm([0.01, 0.04, 0.03]) == approx([0.03, 0.06, 0.06])
    assert benjamini_hochberg([0.01, 0.04, 0.03]) == approx([0.03, 0.04, 0.04])
    # 50/100 vs 60/100: pooled .55, se sqrt(.55*.45*.02) = .070356, z = 1.4213
    z, p = two_proportion_test(50, 100, 60, 100)
    assert z == approx(1.42134, rel=1e-4) and p == approx(0.15521, rel=1e-3)
    # design effect 2 in both samples: variance doubles, z shrinks by sqrt(2)
    z2, p2 = two_proportion_test(50, 100, 60, 100, deff1=2.0, deff2=2.0)
    assert z2 == approx(1.42134 / 2**0.5, rel=1e-4) and p2 > p
    assert [grade(z) for z in (0, 0.2, 0.5, 1.9, 2.2, -0.5, -1.2, -3)] == [
        "C", "C+", "B-", "A", "A+", "C-", "D-", "F"]
    t = half_test_clustered([1.0, 1.5], [2, 2])
    assert t["z"] == approx(1.0)
    # leader codes: game 1 leader p0 then p1 (code 1 | 2 << 2), winner 1 -> d = 2 of 2
    lm = lead_metrics([1 | (2 << 2)], [2], [1])
    assert lm["lead_change"] == approx(1.0) and lm["decisiveness"] == approx(0.5)


def test_build_report_writes_everything(run_dir, tmp_path):
    out = build_report(run_dir, tmp_path / "rep", min_n=2)
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html and "class='low'" in html
    assert "†" in (out / "report.md").read_text()
    for key in ("viability", "cards_tribe", "cards_border", "raids_payments", "elo", "curves"):
        assert (out / "tables" / f"{key}.csv").is_file()
        assert (out / "tables" / f"{key}.parquet").is_file()
    assert not list(out.rglob(".*.tmp"))


def test_default_out_dir(run_dir):
    out = build_report(run_dir, None, min_n=1)
    assert out == run_dir / "report" and (out / "report.html").is_file()


def test_compare_same_run_and_refusal(run_dir, tmp_path):
    out = compare_runs(run_dir, run_dir, tmp_path / "cmp", min_n=1)
    import polars as pl

    df = pl.read_parquet(out / "tables" / "compare_headline.parquet")
    assert (df["change"].drop_nans().abs() < 1e-12).all()
    cards = pl.read_parquet(out / "tables" / "compare_cards.parquet")
    assert cards.height == 3 * 3  # three cards x (acquire rate, WR played, WR not taken)
    assert not pl.read_parquet(out / "tables" / "compare_significant.parquet").height
    other = build_fixture(tmp_path / "other", strategies=("A", "C"))
    with pytest.raises(ReportError, match="different strategies"):
        compare_runs(run_dir, other, tmp_path / "x")
    compare_runs(run_dir, other, tmp_path / "y", allow_different_strategies=True)


def test_refuses_incomplete_and_missing(tmp_path):
    bad = build_fixture(tmp_path / "inc", status="incomplete")
    with pytest.raises(ReportError, match="not complete"):
        build_report(bad)
    with pytest.raises(ReportError, match="does not exist"):
        build_report(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReportError, match="not a run directory"):
        build_report(tmp_path / "empty")


def test_curves_by_role(report):
    c = {(r["round"], r["role"]): r for r in report.table("curves_by_role").df.iter_rows(
        named=True)}
    # round-1 first player after round 1: g0 s0 5, g1 s1 4, g2 s0 4, g3 s1 4 -> 17/4
    assert c[(1, "first")]["score"] == approx(17 / 4)
    # second player after round 2: g0 s1 7, g1 s0 9, g2 s1 5, g3 s0 6 -> 27/4
    assert c[(2, "second")]["score"] == approx(27 / 4) and c[(2, "second")]["n"] == 4


def test_vp_rates_follow_the_deck_trades(tmp_path):
    """Raid losses are valued at the deck's own best VP trades (base: 2 goods -> 1 VP,
    1 gold -> 1 VP; base-token-economy: 4 goods -> 3 VP, 1 gold -> 2 VP); a designer's
    changed trade moves them; no deck text falls back."""
    from targi_sim import load_deck
    from targi_sim._utils.paths import data_dir
    from targi_sim.report.values import rates_from_deck, rates_from_manifest

    base = rates_from_deck(load_deck("base"))
    assert (base.goods_vp, base.gold_vp) == (0.5, 1.0)
    tokens = rates_from_deck(load_deck("base-token-economy"))
    assert (tokens.goods_vp, tokens.gold_vp) == (0.75, 2.0)
    text = (data_dir() / "decks" / "base-token-economy.toml").read_text(encoding="utf-8")
    old = '{ give = "gold", give_amount = 1, get = "vp", get_amount = 2 }'
    assert old in text
    cheaper = text.replace(old, '{ give = "gold", give_amount = 1, get = "vp", get_amount = 3 }')
    assert rates_from_manifest({"deck": {"content": cheaper}}).gold_vp == 3.0
    fallback = rates_from_manifest({"deck": {"name": "x"}})
    assert (fallback.goods_vp, fallback.gold_vp) == (0.5, 2.0)
