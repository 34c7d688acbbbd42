"""Scenario tests for docs/rules.md §6.8 (round end: limits, amulet) and §7 (scoring,
row bonuses, tie-breaks and their variants), each built from an explicit position.

Base tribe ids: 0-8 Targia, 9-17 Camel Rider, 18-26 Camp, 27-35 Well, 36-44 Oasis.
Printed VP per symbol block: ids +0,+1 = 3 VP, +2..+4 = 2 VP, +5..+8 = 1 VP.
"""

from __future__ import annotations

import pytest
from scenario_helpers import new, setres, trace

from targi_sim.engine import layout as lay
from targi_sim.play.scenario import Scenario

SALT, PEPPER, DATES = 0, 1, 2
TARGIA, RIDER, CAMP, WELL, OASIS = 0, 9, 18, 27, 36  # first id of each symbol


def round_row(sc: Scenario, p: int) -> dict:
    r = sc.logs()["rounds"]
    return r.filter(r["player"] == p).row(0, named=True)


# ------------------------------------------------------------------ limits
def test_goods_above_10_discarded_by_players_choice_and_gold_above_3():
    sc = new()
    setres(sc, 0, 6, 5, 2, 5, 4)  # 13 goods, 5 gold
    sc.script([PEPPER, PEPPER, SALT], [])
    sc.end_round()
    assert sc.state.error == 0
    assert sc.players[0].resources() == {
        "salt": 5, "pepper": 3, "dates": 2, "gold": 3, "vp": 4,
    }
    row = round_row(sc, 0)
    assert (row["goods_discarded"], row["gold_discarded"]) == (3, 2)
    assert (row["salt"], row["pepper"], row["dates"], row["gold"]) == (5, 3, 2, 3)
    assert trace(sc, "discard_good")["n_options"].to_list() == [3, 3, 3]


def test_discard_choice_only_offers_kinds_held():
    sc = new()
    setres(sc, 1, 12, 0, 1)
    sc.script([], [DATES])
    sc.end_round()
    assert sc.state.error == 0
    # 13 goods: salt or dates first; then only salt is left (not asked)
    assert trace(sc, "discard_good")["n_options"].to_list() == [2, 1, 1]
    assert sc.players[1].resources()["salt"] == 10
    assert sc.players[1].resources()["dates"] == 0


def test_at_the_limits_nothing_is_discarded():
    sc = new()
    setres(sc, 0, 4, 3, 3, 3, 4)
    setres(sc, 1, 10, 0, 0, 0, 0)
    sc.end_round()
    assert trace(sc).height == 0
    assert sc.players[0].resources() == {"salt": 4, "pepper": 3, "dates": 3, "gold": 3, "vp": 4}
    assert sc.players[1].resources()["salt"] == 10
    assert (round_row(sc, 0)["goods_discarded"], round_row(sc, 0)["gold_discarded"]) == (0, 0)


def test_limits_are_configurable():
    sc = new(max_goods=5, max_gold=1)
    setres(sc, 0, 7, 0, 0, 2)
    sc.end_round()
    assert sc.players[0].resources()["salt"] == 5
    assert sc.players[0].resources()["gold"] == 1


@pytest.mark.parametrize("first", [0, 1])
def test_first_player_discards_first(first):
    sc = new(first=first)
    setres(sc, 0, 6, 6, 0)
    setres(sc, 1, 6, 6, 0)
    sc.script([SALT, SALT], [PEPPER, PEPPER])
    sc.end_round()
    assert sc.state.error == 0
    assert trace(sc, "discard_good")["player"].to_list() == [first] * 2 + [1 - first] * 2
    assert sc.players[0].resources()["salt"] == 4
    assert sc.players[1].resources()["pepper"] == 4


# ------------------------------------------------------------------ round end bookkeeping
@pytest.mark.parametrize("first", [0, 1])
def test_amulet_passes_and_board_is_cleared(first):
    sc = new(first=first)
    sc.players[0].place([0, 4], [0])
    sc.players[1].place([1], [])
    sc.state.set_cell(4, lay.CELL_TRIBE, 20, face_up=False)
    sc.state.set_round(3)
    sc.end_round()
    assert sc.state.first_player == 1 - first
    for b in range(16):
        assert sc.state.border_targi(b) == -1
    for c in range(9):
        assert sc.state.cell(c)[3] == -1 and sc.state.cell(c)[2]
    for pl in sc.players:
        assert pl.targis == [-1, -1, -1] and pl.markers == [-1, -1]
    rows = sc.logs()["rounds"]
    assert rows["round"].to_list() == [3, 3]
    assert rows.filter(rows["player"] == first)["is_first"].to_list() == [True]
    assert round_row(sc, 0)["targi_card_1"] == 1 and round_row(sc, 0)["targi_card_2"] == 5
    assert round_row(sc, 0)["marker_cell_1"] == 0


def test_amulet_alternates_over_rounds():
    sc = new(first=1)
    firsts = []
    for _ in range(4):
        firsts.append(sc.state.first_player)
        sc.end_round()
    assert firsts == [1, 0, 1, 0]


# ------------------------------------------------------------------ scoring
def test_score_tokens_only():
    sc = new()
    setres(sc, 0, 3, 3, 3, 3, 7)
    assert sc.score(0) == {"tokens": 7, "card_vp": 0, "ability_vp": 0, "row_bonus": 0,
                           "total": 7}


def test_score_row_of_four_same_symbol_plus_4():
    sc = new()
    sc.players[0].set_display([[TARGIA + 0, TARGIA + 1, TARGIA + 2, TARGIA + 5]])
    setres(sc, 0, vp=4)
    assert sc.score(0) == {"tokens": 4, "card_vp": 3 + 3 + 2 + 1, "ability_vp": 0,
                           "row_bonus": 4, "total": 4 + 9 + 4}


def test_score_row_of_four_different_symbols_plus_2():
    sc = new()
    sc.players[1].set_display([[], [TARGIA + 5, RIDER + 5, CAMP + 2, OASIS + 0]])
    setres(sc, 1, vp=0)
    assert sc.score(1) == {"tokens": 0, "card_vp": 1 + 1 + 2 + 3, "ability_vp": 0,
                           "row_bonus": 2, "total": 9}


@pytest.mark.parametrize(
    "row",
    [
        [TARGIA + 0, TARGIA + 1, TARGIA + 2],  # incomplete, same symbol
        [TARGIA + 5, RIDER + 5, CAMP + 5],  # incomplete, all different
        [TARGIA + 5, TARGIA + 6, RIDER + 5, CAMP + 5],  # full, 3 symbols
        [TARGIA + 5, TARGIA + 6, RIDER + 5, RIDER + 6],  # full, 2 symbols
    ],
)
def test_score_rows_without_bonus(row):
    sc = new()
    sc.players[0].set_display([row])
    assert sc.score(0)["row_bonus"] == 0


def test_score_full_display_all_rows_counted_and_gold_is_not_scored():
    sc = new()
    sc.players[0].set_display([
        [WELL + 5, WELL + 6, WELL + 7, WELL + 8],  # 4 x 1 VP, same: +4
        [TARGIA + 0, RIDER + 0, CAMP + 0, OASIS + 0],  # 4 x 3 VP, different: +2
        [WELL + 0, WELL + 1, OASIS + 5, OASIS + 6],  # 3+3+1+1, mixed: 0
    ])
    setres(sc, 0, 9, 9, 9, 3, 10)
    s = sc.score(0)
    assert s == {"tokens": 10, "card_vp": 4 + 12 + 8, "ability_vp": 0, "row_bonus": 6,
                 "total": 10 + 24 + 6}


def test_row_bonuses_are_configurable():
    sc = new(row_bonus_same_symbol=7, row_bonus_all_different=0)
    sc.players[0].set_display([
        [WELL + 5, WELL + 6, WELL + 7, WELL + 8],
        [TARGIA + 0, RIDER + 0, CAMP + 0, OASIS + 0],
    ])
    assert sc.score(0)["row_bonus"] == 7


def test_final_score_in_round_log():
    sc = new()
    sc.players[1].set_display([[TARGIA + 0, RIDER + 0, CAMP + 0, OASIS + 0]])
    sc.end_round()
    assert round_row(sc, 1)["score_now"] == 4 + 12 + 2


# ------------------------------------------------------------------ winner, tie-breaks
def _equal_scores(sc: Scenario) -> None:
    setres(sc, 0, vp=10)
    setres(sc, 1, vp=10)


def test_winner_by_points():
    sc = new()
    _equal_scores(sc)
    setres(sc, 1, vp=11)
    assert sc.winner() == (1, "none")
    sc.players[0].set_display([[WELL + 8]])  # +1 VP card -> 11 vs 11, then gold/goods
    setres(sc, 0, 0, 0, 0, 1, 10)
    assert sc.winner() == (0, "gold")


@pytest.mark.parametrize("variant", ["gold_then_goods", "gold_only", "goods_plus_gold"])
def test_tiebreak_gold_beats_more_goods_by_default(variant):
    sc = new(tiebreak=variant)
    _equal_scores(sc)
    setres(sc, 0, 0, 0, 0, 2, 10)
    setres(sc, 1, 3, 3, 3, 1, 10)
    expect = {
        "gold_then_goods": (0, "gold"),
        "gold_only": (0, "gold"),
        "goods_plus_gold": (1, "goods"),  # 2 vs 10 resources
    }[variant]
    assert sc.winner() == expect


@pytest.mark.parametrize("variant", ["gold_then_goods", "gold_only", "goods_plus_gold"])
def test_tiebreak_equal_gold_then_goods(variant):
    sc = new(tiebreak=variant)
    _equal_scores(sc)
    setres(sc, 0, 1, 1, 0, 2, 10)
    setres(sc, 1, 1, 1, 1, 2, 10)
    expect = {
        "gold_then_goods": (1, "goods"),
        "gold_only": (-1, "draw"),
        "goods_plus_gold": (1, "goods"),
    }[variant]
    assert sc.winner() == expect


@pytest.mark.parametrize("variant", ["gold_then_goods", "gold_only", "goods_plus_gold"])
def test_tiebreak_full_draw(variant):
    sc = new(tiebreak=variant)
    _equal_scores(sc)
    setres(sc, 0, 3, 0, 1, 2, 10)
    setres(sc, 1, 0, 2, 2, 2, 10)
    assert sc.winner() == (-1, "draw")


def test_tiebreak_goods_plus_gold_draw_when_sums_equal():
    sc = new(tiebreak="goods_plus_gold")
    _equal_scores(sc)
    setres(sc, 0, 0, 0, 0, 3, 10)  # 3 gold
    setres(sc, 1, 1, 1, 1, 0, 10)  # 3 goods
    assert sc.winner() == (-1, "draw")
    sc_default = new()
    _equal_scores(sc_default)
    setres(sc_default, 0, 0, 0, 0, 3, 10)
    setres(sc_default, 1, 1, 1, 1, 0, 10)
    assert sc_default.winner() == (0, "gold")


def test_tiebreak_variant_file_gold_only():
    sc = Scenario("base", "tiebreak-gold-only")
    _equal_scores(sc)
    setres(sc, 0, 5, 0, 0, 1, 10)
    setres(sc, 1, 0, 0, 0, 1, 10)
    assert sc.winner() == (-1, "draw")


def test_hand_card_and_resources_other_than_vp_are_not_scored():
    sc = new()
    sc.players[0].hand = TARGIA + 0
    setres(sc, 0, 9, 9, 9, 3, 6)
    assert sc.score(0) == {"tokens": 6, "card_vp": 0, "ability_vp": 0, "row_bonus": 0,
                           "total": 6}
