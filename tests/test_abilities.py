"""Scenario tests for the tribe-card ability kinds of docs/rules.md §5 with the
abilities-example deck (invented abilities; card ids = [[tribe]] order, 0-based).

Ability cards used (id: name, symbol, VP, cost -> ability):
  0 Amenokal     Targia 3   2s2p1d or 2g  -> 2 VP per 3 Targia (set_vp)
  2 Veiled Envoy Targia 2   1s2p1d        -> play the hand card (play_hand)
  5 Salt Trader  Targia 1   2p1g          -> +1 salt +1 pepper (immediate)
  8 Dune Guide   Targia 1   1d1g          -> swap two display cards (move_two)
  9 Caravan Guard  Rider 3  2s2p1d        -> immune to every raid
 11 Outrider     Rider 2    2s1p1d        -> immune to raid 2
 14 Lone Rider   Rider 1    1g            -> 2 VP per Camel Rider in column 4
 15 Scout        Rider 1    1g            -> +1 gold (immediate)
 18 Chieftain    Camp 3     2s1p2d        -> later cards cost 1 date less
 20 Tent Maker   Camp 2     1p1g          -> +1 pepper each round end (income)
 22 Elder        Camp 2     1s2p1d        -> play the hand card
 27 Well Keeper  Well 3     1s2p2d        -> later Well cards cost 1 salt less
 29 Water Carrier Well 2    2s1p1d        -> +1 dates each round end
 32 Deep Well    Well 1     2s1d          -> 1 VP per 2 Well
 36 Palm Grove   Oasis 3    1s2p2d        -> 1 VP per card in column 1
 38 Date Harvest Oasis 2    1s1p1g        -> +1 VP each round end
 40 Mirage       Oasis 2    1p1g          -> swap two display cards
 42 Spring       Oasis 1    2s1p          -> +1 VP (immediate)
"""

from __future__ import annotations

import pytest
from scenario_helpers import new as new_scenario
from scenario_helpers import res, setres, trace

from targi_sim.engine.acquire import OPT_DISCARD, OPT_KEEP, OPT_LEAVE, OPT_PLAY
from targi_sim.engine.constants import END_FINAL_RAID
from targi_sim.play.scenario import Scenario

AMENOKAL, ENVOY, SALT_TRADER, DUNE_GUIDE = 0, 2, 5, 8
GUARD, OUTRIDER, LONE_RIDER, SCOUT = 9, 11, 14, 15
CHIEFTAIN, TENT_MAKER, ELDER = 18, 20, 22
WELL_KEEPER, WATER_CARRIER, DEEP_WELL = 27, 29, 32
PALM_GROVE, DATE_HARVEST, MIRAGE, SPRING = 36, 38, 40, 42
RAID_POS = {1: 3, 2: 7, 3: 11, 4: 15}
START = {"salt": 2, "pepper": 2, "dates": 2, "gold": 1, "vp": 4}
PLAY_ROWS = [OPT_PLAY, OPT_PLAY + 1, OPT_PLAY + 2]


def new(first: int = 0, **overrides) -> Scenario:
    return new_scenario("abilities-example", first, **overrides)


def acquisitions(sc: Scenario) -> list[tuple]:
    acq = sc.logs()["acquisitions"]
    return list(zip(acq["card_id"], acq["source"], acq["outcome"], acq["row"], acq["col"],
                    strict=True))


# ------------------------------------------------------------------ immediate
@pytest.mark.parametrize(
    "card,after",
    [
        (SALT_TRADER, {"salt": 3, "pepper": 1, "dates": 2, "gold": 0, "vp": 4}),
        (SPRING, {"salt": 0, "pepper": 1, "dates": 2, "gold": 1, "vp": 5}),
        (SCOUT, {"salt": 2, "pepper": 2, "dates": 2, "gold": 1, "vp": 4}),
    ],
)
def test_immediate_bonus_when_placed(card, after):
    sc = new()
    sc.script([OPT_PLAY], [])
    sc.acquire(0, card)
    assert sc.state.error == 0
    assert res(sc, 0) == after
    assert res(sc, 1) == START


def test_immediate_bonus_when_played_from_hand_with_noble():
    sc = new()
    sc.players[0].hand = SPRING
    sc.script([OPT_PLAY + 1], [])
    sc.resolve_border(0, 0)  # Noble
    assert sc.state.error == 0
    assert res(sc, 0) == {"salt": 0, "pepper": 1, "dates": 2, "gold": 1, "vp": 5}


@pytest.mark.parametrize("choice", [OPT_KEEP, OPT_DISCARD, OPT_LEAVE])
def test_no_immediate_bonus_unless_placed(choice):
    sc = new()
    sc.script([choice], [])
    sc.acquire(0, SPRING)
    assert sc.state.error == 0
    assert res(sc, 0) == START


# ------------------------------------------------------------------ income
def test_income_every_round_end():
    sc = new()
    sc.players[0].set_display([[TENT_MAKER, WATER_CARRIER], [DATE_HARVEST]])
    sc.players[1].set_display([[TENT_MAKER]])
    sc.end_round()
    assert res(sc, 0) == {"salt": 2, "pepper": 3, "dates": 3, "gold": 1, "vp": 5}
    assert res(sc, 1) == {"salt": 2, "pepper": 3, "dates": 2, "gold": 1, "vp": 4}
    sc.end_round()
    assert res(sc, 0) == {"salt": 2, "pepper": 4, "dates": 4, "gold": 1, "vp": 6}
    assert res(sc, 1)["pepper"] == 4


def test_income_is_not_paid_from_the_hand():
    sc = new()
    sc.players[0].hand = TENT_MAKER
    sc.end_round()
    assert res(sc, 0) == START


def test_income_counts_towards_round_end_limit():
    sc = new()
    sc.players[0].set_display([[TENT_MAKER]])
    setres(sc, 0, 5, 3, 2, 0, 0)  # 10 goods: income makes 11
    sc.script([0], [])  # discard a salt
    sc.end_round()
    assert sc.state.error == 0
    assert res(sc, 0) == {"salt": 4, "pepper": 4, "dates": 2, "gold": 0, "vp": 0}
    assert trace(sc, "discard_good").height == 1


# ------------------------------------------------------------------ raid immunity
@pytest.mark.parametrize("raid", [1, 2, 3, 4])
def test_immunity_to_every_raid(raid):
    sc = new(raid_unpaid="opponent_gains_fixed")  # an unpaid raid gives the opponent 3 VP
    sc.players[0].set_display([[GUARD]])
    setres(sc, 0)  # could pay nothing
    setres(sc, 1, 0, 0, 0, 0, 0)
    sc.raid(RAID_POS[raid])
    assert sc.state.error == 0
    raids = sc.logs()["raids"]
    assert raids["paid"].to_list() == ["immune", "none"]
    assert raids["opponent_bonus"].to_list() == [0, 3]
    assert res(sc, 0)["vp"] == 3  # p1 could not pay: p0 gains 3
    assert res(sc, 1)["vp"] == 0  # the immune p0 gave p1 nothing
    if raid == 4:
        assert sc.state.over and sc.state.end_reason == END_FINAL_RAID


def test_immunity_to_one_specific_raid():
    sc = new()
    sc.players[0].set_display([[OUTRIDER]])
    setres(sc, 0, 5, 5, 5, 1, 5)
    setres(sc, 1, 0, 0, 0, 0, 5)
    sc.script([1], [])
    sc.raid(RAID_POS[2])
    assert res(sc, 0) == {"salt": 5, "pepper": 5, "dates": 5, "gold": 1, "vp": 5}
    sc.raid(RAID_POS[1])  # not protected: pays (VP, script)
    assert sc.state.error == 0
    assert res(sc, 0)["vp"] == 4
    assert sc.logs()["raids"]["paid"].to_list() == ["immune", "vp", "vp", "vp"]


def test_immunity_card_in_hand_does_not_protect():
    sc = new()
    sc.players[0].hand = GUARD
    setres(sc, 0, 0, 0, 0, 0, 2)
    setres(sc, 1, 0, 0, 0, 0, 2)
    sc.raid(RAID_POS[1])
    assert res(sc, 0)["vp"] == 1


# ------------------------------------------------------------------ discount
def test_discount_on_one_resource_for_any_symbol():
    sc = new()
    sc.players[0].set_display([[CHIEFTAIN]])
    setres(sc, 0, 0, 0, 0, 1, 0)
    card = 21  # Camp 2 VP: 1 date + 1 gold -> 1 gold
    assert sc.tribe_options(0, card) == [OPT_LEAVE, OPT_DISCARD, OPT_KEEP, *PLAY_ROWS]
    sc.script([OPT_PLAY + 1], [])
    sc.acquire(0, card)
    assert sc.state.error == 0
    assert res(sc, 0) == {"salt": 0, "pepper": 0, "dates": 0, "gold": 0, "vp": 0}
    # a card of another symbol is discounted too: Targia 2s1d -> 2s
    setres(sc, 0, 2, 0, 0, 0, 0)
    sc.script([OPT_PLAY + 2], [])
    sc.acquire(0, 7)
    assert sc.state.error == 0
    assert sc.players[0].display == [[CHIEFTAIN], [card], [7]]
    assert res(sc, 0)["salt"] == 0


def test_discount_only_reduces_the_named_resource_and_not_below_zero():
    sc = new()
    sc.players[0].set_display([[CHIEFTAIN]])
    setres(sc, 0, 0, 0, 1, 1, 0)
    card = 4  # Targia: 2 dates + 1 gold -> 1 date + 1 gold
    sc.script([OPT_PLAY], [])
    sc.acquire(0, card)
    assert res(sc, 0) == {"salt": 0, "pepper": 0, "dates": 0, "gold": 0, "vp": 0}
    setres(sc, 0, 0, 0, 5, 0, 0)
    assert sc.tribe_options(0, 6) == [OPT_LEAVE, OPT_DISCARD, OPT_KEEP]  # 1p1g: no dates
    assert sc.state.error == 0


def test_discount_with_symbol_filter():
    sc = new()
    sc.players[0].set_display([[WELL_KEEPER]])
    setres(sc, 0, 0, 0, 0, 1, 0)
    # Well 1 VP, 1 salt + 1 gold -> 1 gold: playable
    assert sc.tribe_options(0, 33) == [OPT_LEAVE, OPT_DISCARD, OPT_KEEP, *PLAY_ROWS]
    # Oasis 1 VP, 1 salt + 1 gold: not a Well, no discount, unaffordable
    assert sc.tribe_options(0, 44) == [OPT_LEAVE, OPT_DISCARD, OPT_KEEP]
    sc.script([OPT_PLAY], [])
    sc.acquire(0, 33)
    assert res(sc, 0)["gold"] == 0 and res(sc, 0)["salt"] == 0


def test_discount_applies_to_the_alternative_cost():
    sc = new()
    sc.players[0].set_display([[WELL_KEEPER]])
    setres(sc, 0, 0, 0, 0, 1, 0)
    card = 30  # Well: 1s1p2d, or 1s1g -> 1g with the discount
    assert sc.tribe_options(0, card) == [
        OPT_LEAVE, OPT_DISCARD, OPT_KEEP, OPT_PLAY + 3, OPT_PLAY + 4, OPT_PLAY + 5,
    ]


def test_discount_card_does_not_discount_itself():
    sc = new()
    setres(sc, 0, 2, 1, 1, 0, 0)  # Chieftain costs 2s1p2d: one date short
    assert sc.tribe_options(0, CHIEFTAIN) == [OPT_LEAVE, OPT_DISCARD, OPT_KEEP]


# ------------------------------------------------------------------ end-game VP
@pytest.mark.parametrize("wells,bonus", [([], 0), ([27], 1), ([27, 28], 1), ([27, 28, 31], 2)])
def test_set_vp_per_complete_set(wells, bonus):
    sc = new()
    sc.players[0].set_display([[DEEP_WELL, *wells], [1]])  # Deep Well counts itself
    assert sc.score(0)["ability_vp"] == bonus


def test_set_vp_of_three_targia():
    sc = new()
    sc.players[0].set_display([[AMENOKAL, 1, 3], [4, 6, 7], [WELL_KEEPER]])
    s = sc.score(0)
    assert s["ability_vp"] == 2 * 2  # 6 Targia = 2 sets of 3
    assert s["card_vp"] == 3 + 3 + 2 + 2 + 1 + 1 + 3


def test_position_vp_symbol_in_column():
    sc = new()
    sc.players[0].set_display([
        [1, 3, 4, 10],  # column 4: Camel Rider
        [LONE_RIDER, 6, 7, 13],  # column 4: Camel Rider
        [19, 21, 24, 25],  # column 4: Camp
    ])
    assert sc.score(0)["ability_vp"] == 2 * 2
    assert sc.score(0)["row_bonus"] == 4  # the all-Camp row


def test_position_vp_any_symbol_in_column_1():
    sc = new()
    sc.players[1].set_display([[PALM_GROVE, 1], [3], []])
    assert sc.score(1)["ability_vp"] == 2
    assert sc.score(1)["total"] == 4 + 3 + 3 + 2 + 2


def test_end_game_abilities_only_count_from_the_display():
    sc = new()
    sc.players[0].hand = DEEP_WELL
    sc.players[0].set_display([[27, 28]])
    assert sc.score(0)["ability_vp"] == 0


# ------------------------------------------------------------------ play hand
def test_play_hand_plays_the_hand_card_paying_its_cost():
    sc = new()
    sc.players[0].hand = 19  # Camp 3 VP: 1p1d1g
    setres(sc, 0, 1, 3, 2, 1, 0)
    # Veiled Envoy to row 0 (1s2p1d), then the hand card to row 1
    sc.script([OPT_PLAY + 0, OPT_PLAY + 1], [])
    assert sc.acquire(0, ENVOY) == "played"
    assert sc.state.error == 0
    assert sc.players[0].display == [[ENVOY], [19], []]
    assert sc.players[0].hand == -1
    assert res(sc, 0) == {"salt": 0, "pepper": 0, "dates": 0, "gold": 0, "vp": 0}
    assert acquisitions(sc) == [
        (ENVOY, "centre", "played", 0, 0), (19, "hand", "played", 1, 0),
    ]
    # the Envoy (hand full: no keep), then the hand card: leave it or play it in any row
    tribe = trace(sc, "tribe")
    assert tribe["context"].to_list() == [ENVOY, 19]
    assert tribe["n_options"].to_list() == [5, 4]


def test_play_hand_may_leave_the_hand_card():
    sc = new()
    sc.players[0].hand = 19
    setres(sc, 0, 1, 3, 2, 1, 0)
    sc.script([OPT_PLAY, OPT_LEAVE], [])
    sc.acquire(0, ENVOY)
    assert sc.state.error == 0
    assert sc.players[0].hand == 19
    assert res(sc, 0) == {"salt": 0, "pepper": 1, "dates": 1, "gold": 1, "vp": 0}


def test_play_hand_with_unaffordable_hand_card_asks_nothing():
    sc = new()
    sc.players[0].hand = 19
    setres(sc, 0, 1, 2, 1, 0, 0)  # exactly the Envoy; no gold for the hand card
    sc.script([OPT_PLAY], [])
    sc.acquire(0, ELDER)
    assert sc.state.error == 0
    assert sc.players[0].hand == 19
    assert trace(sc, "tribe")["n_options"].to_list() == [5, 1]


def test_play_hand_card_that_is_itself_play_hand_ends_the_chain():
    sc = new()
    sc.players[0].hand = ELDER
    setres(sc, 0, 2, 4, 2, 0, 0)
    sc.script([OPT_PLAY, OPT_PLAY], [])
    sc.acquire(0, ENVOY)
    assert sc.state.error == 0
    assert sc.players[0].display == [[ENVOY, ELDER], [], []]
    assert sc.players[0].hand == -1
    assert trace(sc, "tribe").height == 2


def test_play_hand_when_kept_does_nothing():
    sc = new()
    sc.players[1].hand = -1
    sc.script([], [OPT_KEEP])
    sc.acquire(1, ENVOY)
    assert sc.players[1].hand == ENVOY
    assert trace(sc, "tribe").height == 1


def test_play_hand_from_the_noble_with_empty_hand_afterwards():
    sc = new()
    sc.players[0].hand = ENVOY
    sc.script([OPT_PLAY], [])
    sc.resolve_border(0, 0)
    assert sc.state.error == 0
    assert sc.players[0].display == [[ENVOY], [], []]
    assert trace(sc, "tribe").height == 1


# ------------------------------------------------------------------ move two
def test_move_two_swaps_two_display_cards():
    sc = new()
    sc.players[0].set_display([[AMENOKAL, 1], [GUARD]])
    sc.script([OPT_PLAY + 1, 1 + 0 * 12 + 5], [])  # swap slot 0 and slot 5 (row 1 col 1)
    sc.acquire(0, DUNE_GUIDE)
    assert sc.state.error == 0
    assert sc.players[0].display == [[DUNE_GUIDE, 1], [GUARD, AMENOKAL], []]
    assert res(sc, 0) == {"salt": 2, "pepper": 2, "dates": 1, "gold": 0, "vp": 4}
    ab = trace(sc, "ability").row(0, named=True)
    assert ab["n_options"] == 1 + 6  # decline + every pair of the 4 occupied slots
    assert ab["context"] == DUNE_GUIDE


def test_move_two_may_be_declined():
    sc = new()
    sc.players[0].set_display([[AMENOKAL, 1], [GUARD]])
    sc.script([OPT_PLAY + 1, 0], [])
    sc.acquire(0, MIRAGE)
    assert sc.state.error == 0
    assert sc.players[0].display == [[AMENOKAL, 1], [GUARD, MIRAGE], []]


def test_move_two_cannot_move_a_card_into_an_empty_slot():
    sc = new()
    sc.players[0].set_display([[AMENOKAL, 1]])
    sc.script([OPT_PLAY + 0, 1 + 0 * 12 + 4], [])  # slot 4 (row 1) is empty
    sc.acquire(0, MIRAGE)
    assert sc.state.error != 0
    assert sc.players[0].display_count == 3


def test_move_two_changes_position_scoring():
    sc = new()
    sc.players[0].set_display([[LONE_RIDER, 1, 3, 10]])
    setres(sc, 0, 0, 1, 0, 1, 0)
    assert sc.score(0)["ability_vp"] == 2  # card 10 (Camel Rider) in column 4
    sc.script([OPT_PLAY + 1, 1 + 3 * 12 + 4], [])  # swap column 4 with the Mirage
    sc.acquire(0, MIRAGE)
    assert sc.state.error == 0
    assert sc.players[0].display == [[LONE_RIDER, 1, 3, MIRAGE], [10], []]
    assert sc.score(0)["ability_vp"] == 0
