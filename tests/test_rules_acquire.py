"""Scenario tests for docs/rules.md §6.6-6.7 (acquiring tribe cards, the display) and the
display-full game end of §7, each built from an explicit position.

Base tribe ids: 0-8 Targia, 9-17 Camel Rider, 18-26 Camp, 27-35 Well, 36-44 Oasis.
"""

from __future__ import annotations

import pytest
from scenario_helpers import new, plus, res

from targi_sim.engine import layout as lay
from targi_sim.engine.acquire import OPT_DISCARD, OPT_KEEP, OPT_LEAVE, OPT_PLAY
from targi_sim.engine.constants import END_DISPLAY_FULL
from targi_sim.play.scenario import Scenario

CAMP_3VP = 19  # cost pepper 1, dates 1, gold 1
TARGIA_3VP = 0  # cost salt 2, pepper 2, dates 1
START = {"salt": 2, "pepper": 2, "dates": 2, "gold": 1, "vp": 4}
PLAY_ROWS = [OPT_PLAY, OPT_PLAY + 1, OPT_PLAY + 2]
ELEVEN = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11]]
TWELVE = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]


def acquisitions(sc: Scenario) -> list[tuple]:
    acq = sc.logs()["acquisitions"]
    return list(zip(acq["player"], acq["card_id"], acq["source"], acq["outcome"],
                    acq["row"], acq["col"], strict=True))


# ------------------------------------------------------------------ pay and place
def test_play_pays_cost_and_goes_to_leftmost_free_slot_of_chosen_row():
    sc = new()
    sc.players[0].set_display([[1, 2], [3]])
    sc.script([OPT_PLAY + 0], [])
    assert sc.acquire(0, CAMP_3VP, "centre") == "played"
    assert sc.state.error == 0
    assert sc.players[0].display == [[1, 2, CAMP_3VP], [3], []]
    assert sc.players[0].display_count == 4
    assert res(sc, 0) == plus(pepper=-1, dates=-1, gold=-1)
    assert acquisitions(sc) == [(0, CAMP_3VP, "centre", "played", 0, 2)]


@pytest.mark.parametrize("row,col", [(0, 2), (1, 1), (2, 0)])
def test_rows_fill_in_parallel(row, col):
    sc = new()
    sc.players[1].set_display([[1, 2], [3]])
    sc.script([], [OPT_PLAY + row])
    sc.acquire(1, TARGIA_3VP, "centre")
    assert sc.state.error == 0
    slot = lay.S_PLAYER + lay.P_SIZE + lay.P_DISPLAY + row * 4 + col
    assert sc.S[slot] == TARGIA_3VP
    assert res(sc, 1) == plus(salt=-2, pepper=-2, dates=-1)
    assert acquisitions(sc)[0][4:] == (row, col)


def test_a_full_row_is_not_offered():
    sc = new()
    sc.players[0].set_display([[1, 2, 3, 4], [5]])
    assert sc.tribe_options(0, CAMP_3VP) == [
        OPT_LEAVE, OPT_DISCARD, OPT_KEEP, OPT_PLAY + 1, OPT_PLAY + 2,
    ]
    sc.script([OPT_PLAY + 0], [])
    sc.acquire(0, CAMP_3VP)
    assert sc.state.error != 0  # row 0 is full


def test_centre_options_with_empty_hand_and_affordable_card():
    sc = new()
    assert sc.tribe_options(0, CAMP_3VP, "centre") == [
        OPT_LEAVE, OPT_DISCARD, OPT_KEEP, *PLAY_ROWS,
    ]


def test_keep_in_hand_only_if_hand_empty():
    sc = new()
    sc.script([OPT_KEEP], [])
    assert sc.acquire(0, CAMP_3VP) == "kept"
    assert sc.players[0].hand == CAMP_3VP
    assert res(sc, 0) == START  # keeping costs nothing
    assert acquisitions(sc) == [(0, CAMP_3VP, "centre", "kept", -1, -1)]
    # now the hand is full: no keep option, the card can be played, left or discarded
    assert sc.tribe_options(0, 5, "centre") == [OPT_LEAVE, OPT_DISCARD, *PLAY_ROWS]
    sc.script([OPT_DISCARD], [])
    assert sc.acquire(0, 5) == "discarded"
    assert sc.state.error == 0
    assert sc.players[0].hand == CAMP_3VP  # the hand card cannot be swapped
    assert sc.state.tribe_discard == [5]


def test_cannot_afford_means_no_play_options():
    sc = new()
    sc.players[0].set_resources(gold=0)  # CAMP_3VP needs 1 gold
    assert sc.tribe_options(0, CAMP_3VP, "centre") == [OPT_LEAVE, OPT_DISCARD, OPT_KEEP]
    sc.players[0].set_resources(gold=1, pepper=0)
    assert sc.tribe_options(0, CAMP_3VP, "centre") == [OPT_LEAVE, OPT_DISCARD, OPT_KEEP]
    sc.players[0].set_resources(pepper=1, dates=1, gold=1, salt=0)  # exactly the cost
    assert sc.tribe_options(0, CAMP_3VP, "centre") == [
        OPT_LEAVE, OPT_DISCARD, OPT_KEEP, *PLAY_ROWS,
    ]
    sc.script([OPT_PLAY + 0], [])
    sc.acquire(0, CAMP_3VP)
    assert res(sc, 0) == {"salt": 0, "pepper": 0, "dates": 0, "gold": 0, "vp": 4}


def test_cards_acquired_counted_in_round_log():
    sc = new()
    sc.script([OPT_KEEP, OPT_PLAY], [])
    sc.acquire(0, CAMP_3VP)
    sc.acquire(0, TARGIA_3VP, "tribal_expansion")
    sc.end_round()
    rounds = sc.logs()["rounds"]
    row = rounds.filter(rounds["player"] == 0).row(0, named=True)
    assert row["cards_acquired"] == 2
    assert row["display_count"] == 1
    assert row["hand_card"] == CAMP_3VP


# ------------------------------------------------------------------ full display
def test_full_display_no_play_hand_or_discard():
    sc = new()
    sc.players[0].set_display(TWELVE)
    sc.players[0].set_resources(salt=9, pepper=9, dates=9, gold=3)
    assert sc.tribe_options(0, CAMP_3VP, "centre") == [OPT_LEAVE, OPT_DISCARD, OPT_KEEP]
    assert sc.tribe_options(0, CAMP_3VP, "tribal_expansion") == [OPT_DISCARD, OPT_KEEP]
    assert sc.tribe_options(0, CAMP_3VP, "noble") == [OPT_LEAVE, OPT_DISCARD]
    sc.players[0].hand = 20
    assert sc.tribe_options(0, CAMP_3VP, "centre") == [OPT_LEAVE, OPT_DISCARD]
    assert sc.tribe_options(0, CAMP_3VP, "tribal_expansion") == [OPT_DISCARD]


def test_full_display_variant_discard_only():
    sc = new(full_display="discard_only")
    sc.players[0].set_display(TWELVE)
    sc.players[0].set_resources(salt=9, pepper=9, dates=9, gold=3)
    assert sc.tribe_options(0, CAMP_3VP, "centre") == [OPT_LEAVE, OPT_DISCARD]
    assert sc.tribe_options(0, CAMP_3VP, "tribal_expansion") == [OPT_DISCARD]
    # a display that is not full is unaffected by the variant
    sc.players[0].set_display(ELEVEN)
    assert sc.tribe_options(0, CAMP_3VP, "centre") == [
        OPT_LEAVE, OPT_DISCARD, OPT_KEEP, OPT_PLAY + 2,
    ]


# ------------------------------------------------------------------ alternative costs
def test_alternative_cost_only():
    sc = new("abilities-example")
    card = 23  # Camp 1 VP: cost pepper 2 + dates 1, or 1 gold
    sc.players[0].set_resources(salt=0, pepper=0, dates=0, gold=1)
    assert sc.tribe_options(0, card) == [
        OPT_LEAVE, OPT_DISCARD, OPT_KEEP, OPT_PLAY + 3, OPT_PLAY + 4, OPT_PLAY + 5,
    ]
    sc.script([OPT_PLAY + 3 + 1], [])
    sc.acquire(0, card)
    assert sc.state.error == 0
    assert sc.players[0].display == [[], [card], []]
    assert res(sc, 0) == {"salt": 0, "pepper": 0, "dates": 0, "gold": 0, "vp": 4}


def test_primary_cost_only():
    sc = new("abilities-example")
    card = 23
    sc.players[0].set_resources(gold=0)
    assert sc.tribe_options(0, card) == [OPT_LEAVE, OPT_DISCARD, OPT_KEEP, *PLAY_ROWS]


def test_both_costs_player_chooses_which_to_pay():
    sc = new("abilities-example")
    card = 23
    assert sc.tribe_options(0, card) == [
        OPT_LEAVE, OPT_DISCARD, OPT_KEEP, *PLAY_ROWS, OPT_PLAY + 3, OPT_PLAY + 4, OPT_PLAY + 5,
    ]
    sc.script([OPT_PLAY + 2], [])
    sc.acquire(0, card)
    assert res(sc, 0) == plus(pepper=-2, dates=-1)
    sc2 = new("abilities-example")
    sc2.script([OPT_PLAY + 5], [])
    sc2.acquire(0, card)
    assert sc2.state.error == 0
    assert res(sc2, 0) == plus(gold=-1)
    assert sc2.players[0].display == [[], [], [card]]


def test_base_deck_has_no_alternative_costs():
    sc = new()
    sc.players[0].set_resources(salt=9, pepper=9, dates=9, gold=3)
    for card in range(45):
        opts = sc.tribe_options(0, card)
        assert max(opts) == OPT_PLAY + 2


# ------------------------------------------------------------------ display full -> end
def test_completing_the_display_ends_the_game_after_the_round_both_players_finish():
    sc = new(first=0)
    sc.state.robber = 12  # card 13; round 1: the robber stays
    p0, p1 = sc.players
    p0.set_display(ELEVEN)  # row 2 has one free slot
    sc.state.set_cell(0, lay.CELL_TRIBE, CAMP_3VP)
    sc.state.set_goods_deck([17])
    # p0: cards 1 (Noble, col 0), 11 (Pepper, col 0: facing own), 15 (Salt, row 0)
    #     -> one marker, on cell 0
    # p1: cards 2, 3, 9 (Dates, Salt, Fata Morgana: all columns, no marker)
    sc.script(
        [0, 10, 14,            # placement
         3, OPT_PLAY + 2,      # marker first: play the card in row 2 (12th card)
         0, 1],                # Noble (empty hand), Pepper; Salt is left (not asked)
        [1, 2, 8,              # placement
         0, 1],                # Dates, Salt; Fata Morgana left (nothing to move)
    )
    sc.play_round()
    assert sc.state.error == 0
    assert p0.display_count == 12
    assert p0.display[2] == [9, 10, 11, CAMP_3VP]
    assert p0.resources() == {"salt": 3, "pepper": 2, "dates": 1, "gold": 0, "vp": 4}
    # the second player still resolved all actions of that round
    assert p1.resources() == plus(dates=1, salt=1)
    assert sc.state.over
    assert sc.state.end_reason == END_DISPLAY_FULL
    assert sc.state.round == 1
    rounds = sc.logs()["rounds"]
    assert rounds.height == 2  # the round ended normally for both players
    sc.play_to_end()  # nothing more is played
    assert sc.state.round == 1
    assert sc.logs()["rounds"].height == 2


def test_completing_the_display_mid_round_does_not_stop_the_round():
    sc = new()
    sc.players[0].set_display(ELEVEN)
    sc.script([OPT_PLAY + 2], [])
    sc.acquire(0, CAMP_3VP)
    assert not sc.state.over  # only at the end of the round
    assert sc.S[lay.S_END_AFTER_ROUND] == 1
    sc.players[1].place([1])
    sc.resolve_actions(1)
    assert res(sc, 1) == plus(dates=1)
    sc.end_round()
    assert sc.state.over
    assert sc.state.end_reason == END_DISPLAY_FULL


def test_eleven_cards_do_not_end_the_game():
    sc = new()
    sc.players[0].set_display([[1, 2, 3, 4], [5, 6, 7, 8], [9]])
    sc.script([OPT_PLAY + 2], [])
    sc.acquire(0, CAMP_3VP)
    sc.end_round()
    assert not sc.state.over


# ------------------------------------------------------------------ when a kept card plays
def _keep_then_noble(**rules) -> Scenario:
    """Round 3: p0 keeps a tribe card from the centre, then resolves the Noble."""
    sc = new(**rules)
    sc.state.set_round(3)
    sc.players[0].set_resources(salt=5, pepper=5, dates=5, gold=3, vp=0)
    sc.script([OPT_KEEP], [])
    assert sc.acquire(0, 19, "centre") == "kept"
    return sc


def test_a_card_kept_this_round_cannot_be_played_with_the_noble():
    """docs/rules.md 6.6 (Spanish source): a kept card is played only in a following
    round; the Noble may still discard it."""
    sc = _keep_then_noble()
    assert sc.tribe_options(0, 19, "noble") == [OPT_LEAVE, OPT_DISCARD]
    sc.state.set_round(4)
    assert sc.tribe_options(0, 19, "noble")[:2] == [OPT_LEAVE, OPT_DISCARD]
    assert OPT_PLAY in sc.tribe_options(0, 19, "noble")


def test_the_same_round_reading_is_a_rules_setting():
    sc = _keep_then_noble(hand_card_play="same_round")
    assert OPT_PLAY in sc.tribe_options(0, 19, "noble")


def test_a_hand_card_played_with_the_noble_in_a_later_round():
    sc = _keep_then_noble()
    sc.state.set_round(4)
    sc.script([OPT_PLAY], [])
    assert sc.acquire(0, 19, "noble") == "played"
    assert sc.players[0].hand == -1
    assert sc.S[lay.S_PLAYER + lay.P_HAND_KNOWN] == 0
