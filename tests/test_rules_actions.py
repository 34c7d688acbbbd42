"""Scenario tests for docs/rules.md §3 (every border card) and §6.5 (action order, centre
cells and their replacement), each built from an explicit position.

Base deck ids: border position b = card b + 1. Goods ids (expansion order of
[[goods]]): 0-1 salt, 2-3 pepper, 4-5 date, 6 2 salt, 7 2 pepper, 8 2 dates,
9 salt+pepper, 10 salt+date, 11 pepper+date, 12-14 one good of your choice,
15-17 gold, 18 VP. Tribe ids 0-8 Targia, 9-17 Camel Rider, 18-26 Camp, 27-35 Well,
36-44 Oasis.
"""

from __future__ import annotations

import pytest
from scenario_helpers import new, plus, res, trace

from targi_sim.engine import actions
from targi_sim.engine import layout as lay
from targi_sim.engine.acquire import OPT_DISCARD, OPT_KEEP, OPT_LEAVE, OPT_PLAY
from targi_sim.play.scenario import Scenario

NOBLE, DATES_2, SALT_3, MERCHANT, PEPPER_6, DATES_7 = 0, 1, 2, 4, 5, 6
FATA_MORGANA, SILVERSMITH, PEPPER_11, CARAVAN, EXPANSION, SALT_15 = 8, 9, 10, 12, 13, 14
G, T, EMPTY = lay.CELL_GOODS, lay.CELL_TRIBE, lay.CELL_EMPTY
CAMP_3VP = 19  # cost pepper 1, dates 1, gold 1
# The Merchant's 3 goods -> 1 gold and the 1-good choice card: tests of those rules play the
# deck that keeps them (base's calibrated Merchant trades 2 goods, its choice card gives 2).
TOKEN = "base-token-economy"
START = {"salt": 2, "pepper": 2, "dates": 2, "gold": 1, "vp": 4}


def trade(t: int, given: int, received: int) -> int:
    return t * 64 + given * 8 + received


def trade_options(sc: Scenario, p: int, b: int) -> list[int]:
    n = actions.trade_options(sc.S, sc.state.D, p, b, sc.O)
    return [int(x) for x in sc.O[:n]]


# ------------------------------------------------------------------ action order
def test_player_chooses_action_order_salt_then_merchant():
    """Resolving Salt before the Merchant makes the 3-salt trade possible."""
    sc = new(TOKEN)
    sc.players[0].place([MERCHANT, SALT_3])
    # action slot 1 (Salt) first; then the Merchant (only one left: not asked):
    # 3 salt -> 1 gold, then stop
    sc.script([1, trade(0, 0, 3), -1], [])
    sc.resolve_actions(0)
    assert sc.state.error == 0
    assert res(sc, 0) == plus(salt=-2, gold=1)
    acts = trace(sc, "action")
    # the single remaining slot is traced but not asked (no script entry used)
    assert acts["choice"].to_list() == [1, 0]
    assert acts["n_options"].to_list() == [2, 1]


def test_player_chooses_action_order_merchant_first_cannot_use_later_salt():
    sc = new(TOKEN)
    sc.players[0].place([MERCHANT, SALT_3])
    sc.script([0, -1], [])
    sc.resolve_actions(0)
    assert sc.state.error == 0
    # with 2 salt the 3-goods trade was not on offer
    first_trades = trace(sc, "trade").row(0, named=True)
    assert first_trades["n_options"] == 1 + 6  # stop + six 2-for-1 swaps
    assert res(sc, 0) == plus(salt=1)


def test_every_targi_and_marker_is_resolved_once():
    sc = new()
    sc.players[0].place([DATES_2, SALT_3, PEPPER_6], [5])
    sc.state.set_cell(5, G, 15)  # 1 gold
    sc.state.set_tribe_deck([30])
    # slots: 0 1 2 Targis, 3 the marker; choose 3, 2, 0 then 1 is left
    sc.script([3, 1, 2, 0], [])  # 3 = marker, 1 = take goods, 2, 0
    sc.resolve_actions(0)
    assert sc.state.error == 0
    assert res(sc, 0) == plus(dates=1, salt=1, pepper=1, gold=1)
    acts = trace(sc, "action")
    assert acts["n_options"].to_list() == [4, 3, 2, 1]
    assert acts["choice"].to_list() == [3, 2, 0, 1]


def _round_with_gains(first: int) -> Scenario:
    sc = new(first=first)
    sc.state.robber = 12  # card 13; round 1 keeps it there
    # p1: cards 1 2 3 (all columns: no marker); p0: cards 6 7 15 (all rows: none)
    sc.state.set_goods_deck([0, 1, 2])
    return sc


@pytest.mark.parametrize("first", [0, 1])
def test_first_player_resolves_all_actions_then_second(first):
    sc = _round_with_gains(first)
    p0_place = [PEPPER_6, DATES_7, SALT_15]
    p1_place = [NOBLE, DATES_2, SALT_3]
    # action order: first option offered each time (slot 0, then 1, 2 left)
    sc.script(p0_place + [0, 1], p1_place + [0, 1])
    sc.play_round()
    assert sc.state.error == 0
    acts = trace(sc, "action")
    players = acts["player"].to_list()
    # every first-player action decision precedes every second-player one
    assert players == [first] * 3 + [1 - first] * 3
    assert res(sc, 0) == plus(pepper=1, dates=1, salt=1)
    assert res(sc, 1) == plus(dates=1, salt=1)
    assert sc.state.first_player == 1 - first  # amulet passed
    assert sc.state.round == 1


# ------------------------------------------------------------------ gain cards
@pytest.mark.parametrize(
    "pos,kind",
    [(DATES_2, "dates"), (SALT_3, "salt"), (PEPPER_6, "pepper"), (DATES_7, "dates"),
     (PEPPER_11, "pepper"), (SALT_15, "salt")],
)
def test_gain_cards(pos, kind):
    sc = new()
    sc.resolve_border(1, pos)
    assert res(sc, 1) == plus(**{kind: 1})
    assert res(sc, 0) == START
    assert sc.state.error == 0
    assert trace(sc).height == 0  # nothing to decide


# ------------------------------------------------------------------ Merchant
def test_merchant_options():
    sc = new(TOKEN)
    sc.players[0].set_resources(salt=3, pepper=2, dates=1, gold=0)
    assert trade_options(sc, 0, MERCHANT) == [
        -1,
        trade(0, 0, 3),  # 3 salt -> gold
        trade(1, 0, 1), trade(1, 0, 2),  # 2 salt -> pepper / dates
        trade(1, 1, 0), trade(1, 1, 2),  # 2 pepper -> salt / dates
    ]


def test_merchant_several_trades_until_nothing_is_affordable():
    sc = new(TOKEN)
    sc.players[0].set_resources(salt=5, pepper=0, dates=0, gold=0)
    sc.script([trade(0, 0, 3), trade(1, 0, 1)], [])
    sc.resolve_border(0, MERCHANT)
    assert sc.state.error == 0
    assert res(sc, 0) == {"salt": 0, "pepper": 1, "dates": 0, "gold": 1, "vp": 4}
    assert trace(sc, "trade").height == 2  # no third question: nothing affordable


def test_merchant_stop():
    sc = new()
    sc.players[0].set_resources(salt=4, pepper=0, dates=0, gold=0)
    sc.script([trade(1, 0, 2), -1], [])
    sc.resolve_border(0, MERCHANT)
    assert sc.state.error == 0
    assert res(sc, 0) == {"salt": 2, "pepper": 0, "dates": 1, "gold": 0, "vp": 4}


def test_merchant_cannot_swap_into_the_same_kind():
    sc = new()
    sc.players[0].set_resources(salt=2, pepper=0, dates=0)
    sc.script([trade(1, 0, 0)], [])
    sc.resolve_border(0, MERCHANT)
    assert sc.state.error != 0  # 2 salt -> salt is not an option


def test_merchant_with_nothing_affordable_asks_nothing():
    sc = new()
    sc.players[0].set_resources(salt=1, pepper=1, dates=1, gold=3)
    sc.resolve_border(0, MERCHANT)
    assert res(sc, 0) == {"salt": 1, "pepper": 1, "dates": 1, "gold": 3, "vp": 4}
    assert trace(sc).height == 0


# ------------------------------------------------------------------ Silversmith
# These tests spell out the table 1 gold -> 2 VP, 2 goods -> 1 VP, 4 goods -> 3 VP: the
# deck base-token-economy (the base deck's Silversmith is calibrated: docs/calibrate.md).
TOKENS = "base-token-economy"


def test_silversmith_options():
    sc = new(deck=TOKENS)
    sc.players[0].set_resources(salt=4, pepper=2, dates=1, gold=1, vp=0)
    assert trade_options(sc, 0, SILVERSMITH) == [
        -1,
        trade(2, 3, 4),  # 1 gold -> 2 VP
        trade(3, 0, 4), trade(3, 1, 4),  # 2 salt / 2 pepper -> 1 VP
        trade(4, 0, 4),  # 4 salt -> 3 VP
    ]


def test_calibrated_base_silversmith_pays_one_vp_a_gold_two_or_four_goods():
    """The base deck's calibrated table: 1 gold -> 1 VP, 2 goods of a kind -> 1 VP,
    4 goods of a kind -> 1 VP (trades 2, 3 and 4 of the deck)."""
    sc = new()
    sc.players[0].set_resources(salt=5, pepper=3, dates=0, gold=2, vp=0)
    assert trade_options(sc, 0, SILVERSMITH) == [-1, trade(2, 3, 4), trade(3, 0, 4),
                                                 trade(3, 1, 4), trade(4, 0, 4)]
    sc.script([trade(4, 0, 4), trade(2, 3, 4), trade(3, 1, 4), -1], [])  # then stop
    sc.resolve_border(0, SILVERSMITH)
    assert sc.state.error == 0
    assert res(sc, 0) == {"salt": 1, "pepper": 1, "dates": 0, "gold": 1, "vp": 3}


def test_silversmith_all_three_trades():
    sc = new(deck=TOKENS)
    sc.players[0].set_resources(salt=4, pepper=2, dates=1, gold=1, vp=0)
    sc.script([trade(2, 3, 4), trade(4, 0, 4), trade(3, 1, 4)], [])
    sc.resolve_border(0, SILVERSMITH)
    assert sc.state.error == 0
    assert res(sc, 0) == {"salt": 0, "pepper": 0, "dates": 1, "gold": 0, "vp": 2 + 3 + 1}


def test_silversmith_repeated_trade_and_stop():
    sc = new(deck=TOKENS)
    sc.players[0].set_resources(salt=0, pepper=0, dates=6, gold=2, vp=0)
    sc.script([trade(3, 2, 4), trade(3, 2, 4), -1], [])
    sc.resolve_border(0, SILVERSMITH)
    assert sc.state.error == 0
    assert res(sc, 0) == {"salt": 0, "pepper": 0, "dates": 2, "gold": 2, "vp": 2}


def _deck_with_times(tmp_path, card: str, times) -> str:
    """A copy of the base deck whose exchange card `card` allows `times` trades."""
    from targi_sim.game.deck import load_deck
    from targi_sim.game.deck_edit import apply_deck_edits, parse_path

    base = load_deck("base-token-economy")
    text = apply_deck_edits(base, [(parse_path(f"border.{card}.times", base), times)],
                            "times")
    path = tmp_path / "times.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_silversmith_times_one_stops_after_one_trade_without_asking(tmp_path):
    """times = 1: after one trade the action ends though more is affordable."""
    sc = new(deck=_deck_with_times(tmp_path, "Silversmith", 1))
    sc.players[0].set_resources(salt=0, pepper=0, dates=6, gold=2, vp=0)
    sc.script([trade(2, 3, 4)], [])
    sc.resolve_border(0, SILVERSMITH)
    assert sc.state.error == 0
    assert res(sc, 0) == {"salt": 0, "pepper": 0, "dates": 6, "gold": 1, "vp": 2}
    assert trace(sc, "trade").height == 1


def test_merchant_times_two_allows_exactly_two(tmp_path):
    sc = new(deck=_deck_with_times(tmp_path, "Merchant", 2))
    sc.players[0].set_resources(salt=9, pepper=0, dates=0, gold=0)
    sc.script([trade(0, 0, 3), trade(0, 0, 3)], [])
    sc.resolve_border(0, MERCHANT)
    assert sc.state.error == 0
    assert res(sc, 0)["gold"] == 2 and res(sc, 0)["salt"] == 3
    assert trace(sc, "trade").height == 2


def test_times_any_is_the_default(tmp_path):
    """"any" reads as the unedited deck: the same engine data."""
    from targi_sim.game.deck import load_deck

    any_deck = load_deck(_deck_with_times(tmp_path, "Silversmith", "any"))
    assert (any_deck.border_amount == load_deck("base-token-economy").border_amount).all()


@pytest.mark.parametrize("bad", [0, -1, 65, 1.5, "twice", True])
def test_times_out_of_range_names_the_field(tmp_path, bad):
    from targi_sim.errors import DataError
    from targi_sim.game.deck import load_deck

    with pytest.raises(DataError, match="times"):
        load_deck(_deck_with_times(tmp_path, "Silversmith", bad))


# ------------------------------------------------------------------ Noble
def test_noble_play_pays_cost_and_places_card():
    sc = new()
    sc.players[0].hand = CAMP_3VP
    sc.players[0].set_display([[0, 1]])
    assert sc.tribe_options(0, CAMP_3VP, "noble") == [
        OPT_LEAVE, OPT_DISCARD, OPT_PLAY, OPT_PLAY + 1, OPT_PLAY + 2,
    ]
    sc.script([OPT_PLAY + 0], [])
    sc.resolve_border(0, NOBLE)
    assert sc.state.error == 0
    assert sc.players[0].hand == -1
    assert sc.players[0].display == [[0, 1, CAMP_3VP], [], []]
    assert res(sc, 0) == plus(pepper=-1, dates=-1, gold=-1)
    acq = sc.logs()["acquisitions"].row(0, named=True)
    assert (acq["card_id"], acq["source"], acq["outcome"], acq["row"], acq["col"]) == (
        CAMP_3VP, "hand", "played", 0, 2,
    )


def test_noble_discard():
    sc = new()
    sc.players[0].hand = CAMP_3VP
    sc.script([OPT_DISCARD], [])
    sc.resolve_border(0, NOBLE)
    assert sc.state.error == 0
    assert sc.players[0].hand == -1
    assert sc.state.tribe_discard == [CAMP_3VP]
    assert res(sc, 0) == START
    assert sc.players[0].display_count == 0


def test_noble_leave_keeps_the_hand_card():
    sc = new()
    sc.players[0].hand = CAMP_3VP
    sc.script([OPT_LEAVE], [])
    sc.resolve_border(0, NOBLE)
    assert sc.state.error == 0
    assert sc.players[0].hand == CAMP_3VP
    assert sc.state.tribe_discard == []
    assert res(sc, 0) == START


def test_noble_cannot_play_an_unaffordable_hand_card():
    sc = new()
    sc.players[0].hand = CAMP_3VP
    sc.players[0].set_resources(gold=0)
    assert sc.tribe_options(0, CAMP_3VP, "noble") == [OPT_LEAVE, OPT_DISCARD]


def test_noble_with_empty_hand_does_nothing():
    sc = new()
    sc.resolve_border(0, NOBLE)
    assert trace(sc).height == 0
    assert res(sc, 0) == START


# ------------------------------------------------------------------ Fata Morgana
def _fata_morgana_position(sc: Scenario) -> None:
    # p0: Targi on Fata Morgana, markers on cells 0 (already resolved) and 4
    sc.players[0].place([FATA_MORGANA], [0, 4])
    sc.S[lay.S_PLAYER + lay.P_DONE + 3] = 1  # marker 0 resolved
    sc.players[1].place([], [2])  # p1 marker on cell 2
    sc.state.set_cell(6, T, 30, face_up=False)  # replaced this round: face down
    sc.state.set_cell(7, EMPTY, -1)


def test_fata_morgana_options_only_unresolved_marker_to_free_face_up_card():
    sc = new()
    _fata_morgana_position(sc)
    sc.script([-1], [])
    sc.resolve_border(0, FATA_MORGANA)
    assert sc.state.error == 0
    fm = trace(sc, "fata_morgana").row(0, named=True)
    opts = sorted(int(x) for x in sc.O[: fm["n_options"]])
    # marker 1 (cell 4) may go to 1, 3, 5, 8: not 0 / 4 (own markers), 2 (p1's marker),
    # 6 (face down), 7 (empty); marker 0 is resolved and may not move
    assert opts == [-1, 16 + 1, 16 + 3, 16 + 5, 16 + 8]
    assert sc.players[0].markers == [0, 4]


def test_fata_morgana_moves_the_marker_and_it_resolves_at_the_new_card():
    sc = new()
    _fata_morgana_position(sc)
    sc.state.set_cell(8, G, 16)  # 1 gold
    sc.state.set_cell(4, G, 18)  # 1 VP
    sc.state.set_tribe_deck([33])
    # action order: Fata Morgana (slot 0) first -> move marker 1 to cell 8;
    # then the marker (only slot left): take the goods
    sc.script([0, 16 + 8, 1], [])
    sc.resolve_actions(0)
    assert sc.state.error == 0
    assert sc.players[0].markers == [0, 8]
    assert sc.state.cell(4) == (G, 18, True, -1)  # untouched, marker gone
    # taken, replaced face down; the resolved marker was taken back
    assert sc.state.cell(8) == (T, 33, False, -1)
    assert res(sc, 0) == plus(gold=1)


def test_fata_morgana_may_move_a_marker_onto_a_resolved_markers_card():
    """A resolved marker has been taken back, so its card holds no marker: Fata Morgana
    may move another marker there (docs/rules.md 6.5). Here marker 1's goods card is
    left (skipped) and stays face up; Fata Morgana then moves marker 2 onto it."""
    sc = new()
    sc.players[0].place([FATA_MORGANA], [0, 4])
    sc.state.set_cell(0, G, 16)
    sc.state.set_cell(4, G, 18)
    sc.script([0], [])  # marker 1 (slot 3): leave the goods card
    sc.resolve_slot(0, 3)
    assert sc.state.cell(0) == (G, 16, True, -1)  # the marker was taken back
    sc.script([16 + 0], [])  # Fata Morgana: marker 2 (code 16 + cell) onto cell 0
    sc.resolve_border(0, FATA_MORGANA)
    assert sc.state.error == 0, "cell 0 was not offered to Fata Morgana"
    assert sc.players[0].markers == [0, 0] and sc.state.cell(0)[3] == 0


def test_fata_morgana_without_unresolved_marker_asks_nothing():
    sc = new()
    sc.players[0].place([FATA_MORGANA], [3])
    sc.S[lay.S_PLAYER + lay.P_DONE + 3] = 1
    sc.resolve_border(0, FATA_MORGANA)
    assert sc.players[0].markers == [3, -1]
    assert trace(sc, "fata_morgana")["n_options"].to_list() == [1]
    assert sc.state.error == 0


# ------------------------------------------------------------------ Caravan
@pytest.mark.parametrize(
    "card,delta",
    [(9, {"salt": 1, "pepper": 1}), (6, {"salt": 2}), (15, {"gold": 1}), (18, {"vp": 1}),
     (11, {"pepper": 1, "dates": 1})],
)
def test_caravan_takes_top_goods_card_and_discards_it(card, delta):
    sc = new()
    sc.state.set_goods_deck([0, 1, card])
    sc.state.set_goods_discard([4])
    sc.resolve_border(0, CARAVAN)
    assert sc.state.error == 0
    assert res(sc, 0) == plus(**delta)
    assert sc.state.goods_deck == [0, 1]
    assert sc.state.goods_discard == [4, card]


@pytest.mark.parametrize("kind,name", [(0, "salt"), (1, "pepper"), (2, "dates")])
def test_caravan_good_of_your_choice(kind, name):
    sc = new(TOKEN)
    sc.state.set_goods_deck([12])
    sc.script([kind], [])
    sc.resolve_border(0, CARAVAN)
    assert sc.state.error == 0
    assert res(sc, 0) == plus(**{name: 1})
    choose = trace(sc, "choose_good").row(0, named=True)
    assert choose["n_options"] == 3
    assert sc.state.goods_discard == [12]


def test_caravan_on_empty_goods_deck_reshuffles_the_discard():
    sc = new()
    sc.state.set_goods_deck([])
    sc.state.set_goods_discard([7])
    sc.resolve_border(0, CARAVAN)
    assert res(sc, 0) == plus(pepper=2)
    assert sc.state.goods_deck == []
    assert sc.state.goods_discard == [7]


def test_caravan_with_no_goods_cards_anywhere_does_nothing():
    sc = new()
    sc.state.set_goods_deck([])
    sc.state.set_goods_discard([])
    sc.resolve_border(0, CARAVAN)
    assert res(sc, 0) == START
    assert sc.state.error == 0


# ------------------------------------------------------------------ Tribal Expansion
def test_tribal_expansion_skip_leaves_deck():
    sc = new()
    sc.state.set_tribe_deck([1, CAMP_3VP])
    sc.script([0], [])
    sc.resolve_border(0, EXPANSION)
    assert sc.state.error == 0
    assert sc.state.tribe_deck == [1, CAMP_3VP]
    assert res(sc, 0) == START


def test_tribal_expansion_draw_and_play():
    sc = new()
    sc.state.set_tribe_deck([1, CAMP_3VP])
    assert sc.tribe_options(0, CAMP_3VP, "tribal_expansion") == [
        OPT_DISCARD, OPT_KEEP, OPT_PLAY, OPT_PLAY + 1, OPT_PLAY + 2,
    ]
    sc.script([1, OPT_PLAY + 2], [])
    sc.resolve_border(0, EXPANSION)
    assert sc.state.error == 0
    assert sc.state.tribe_deck == [1]
    assert sc.players[0].display == [[], [], [CAMP_3VP]]
    assert res(sc, 0) == plus(pepper=-1, dates=-1, gold=-1)
    acq = sc.logs()["acquisitions"].row(0, named=True)
    assert (acq["source"], acq["outcome"]) == ("tribal_expansion", "played")


def test_tribal_expansion_draw_and_keep():
    sc = new()
    sc.state.set_tribe_deck([1, CAMP_3VP])
    sc.script([1, OPT_KEEP], [])
    sc.resolve_border(0, EXPANSION)
    assert sc.state.error == 0
    assert sc.players[0].hand == CAMP_3VP
    assert res(sc, 0) == START


def test_tribal_expansion_draw_and_discard():
    sc = new()
    sc.state.set_tribe_deck([1, CAMP_3VP])
    sc.script([1, OPT_DISCARD], [])
    sc.resolve_border(0, EXPANSION)
    assert sc.state.error == 0
    assert sc.state.tribe_discard == [CAMP_3VP]
    assert sc.players[0].hand == -1


def test_tribal_expansion_with_full_hand_cannot_keep():
    sc = new()
    sc.players[0].hand = 5
    assert sc.tribe_options(0, CAMP_3VP, "tribal_expansion") == [
        OPT_DISCARD, OPT_PLAY, OPT_PLAY + 1, OPT_PLAY + 2,
    ]
    sc.players[0].set_resources(gold=0)
    # neither keep nor play: the drawn card can only be discarded (not asked)
    assert sc.tribe_options(0, CAMP_3VP, "tribal_expansion") == [OPT_DISCARD]
    sc.state.set_tribe_deck([CAMP_3VP])
    sc.script([1], [])
    sc.resolve_border(0, EXPANSION)
    assert sc.state.error == 0
    assert sc.state.tribe_discard == [CAMP_3VP]
    assert sc.players[0].hand == 5


def test_tribal_expansion_on_empty_tribe_deck_gets_nothing():
    sc = new()
    sc.state.set_tribe_deck([])
    sc.state.set_tribe_discard([3])
    sc.script([], [])
    sc.resolve_border(0, EXPANSION)
    assert sc.state.error == 0
    assert sc.players[0].hand == -1
    assert sc.state.tribe_deck == [] and sc.state.tribe_discard == [3]
    # nothing to draw, so the player is not even asked (the tribe discard is never reshuffled)
    assert trace(sc, "tribal_expansion").height == 0
    assert trace(sc, "tribe").height == 0


# ------------------------------------------------------------------ centre cells
def test_centre_goods_taken_is_replaced_by_face_down_tribe_card():
    sc = new()
    sc.state.set_cell(4, G, 10)  # salt + date
    sc.state.set_tribe_deck([2, 30])
    sc.state.set_goods_discard([])
    sc.script([1], [])
    sc.resolve_cell(0, 4)
    assert sc.state.error == 0
    assert res(sc, 0) == plus(salt=1, dates=1)
    assert sc.state.goods_discard == [10]
    assert sc.state.cell(4)[:3] == (T, 30, False)
    assert sc.state.tribe_deck == [2]


def test_centre_goods_left_is_unchanged():
    sc = new()
    sc.state.set_cell(4, G, 10)
    sc.state.set_tribe_deck([2, 30])
    sc.script([0], [])
    sc.resolve_cell(0, 4)
    assert sc.state.error == 0
    assert res(sc, 0) == START
    assert sc.state.cell(4)[:3] == (G, 10, True)
    assert sc.state.tribe_deck == [2, 30]


def test_centre_good_of_your_choice():
    sc = new(TOKEN)
    sc.state.set_cell(0, G, 13)
    sc.script([1, 1], [])
    sc.resolve_cell(0, 0)
    assert sc.state.error == 0
    assert res(sc, 0) == plus(pepper=1)


@pytest.mark.parametrize(
    "choice,where",
    [(OPT_PLAY + 1, "display"), (OPT_KEEP, "hand"), (OPT_DISCARD, "discard")],
)
def test_centre_tribe_card_taken_is_replaced_by_face_down_goods_card(choice, where):
    sc = new()
    sc.state.set_cell(3, T, CAMP_3VP)
    sc.state.set_goods_deck([0, 15])
    sc.state.set_tribe_discard([])
    assert sc.tribe_options(0, CAMP_3VP, "centre") == [
        OPT_LEAVE, OPT_DISCARD, OPT_KEEP, OPT_PLAY, OPT_PLAY + 1, OPT_PLAY + 2,
    ]
    sc.script([choice], [])
    sc.resolve_cell(0, 3)
    assert sc.state.error == 0
    assert sc.state.cell(3)[:3] == (G, 15, False)
    assert sc.state.goods_deck == [0]
    p = sc.players[0]
    if where == "display":
        assert p.display == [[], [CAMP_3VP], []]
        assert res(sc, 0) == plus(pepper=-1, dates=-1, gold=-1)
    elif where == "hand":
        assert p.hand == CAMP_3VP and p.display_count == 0
        assert res(sc, 0) == START
    else:
        assert sc.state.tribe_discard == [CAMP_3VP] and p.hand == -1
        assert res(sc, 0) == START


def test_centre_tribe_card_left_is_unchanged():
    sc = new()
    sc.state.set_cell(3, T, CAMP_3VP)
    sc.state.set_goods_deck([0, 15])
    sc.script([OPT_LEAVE], [])
    sc.resolve_cell(0, 3)
    assert sc.state.error == 0
    assert sc.state.cell(3)[:3] == (T, CAMP_3VP, True)
    assert sc.state.goods_deck == [0, 15]
    assert sc.logs()["acquisitions"].height == 0


def test_centre_tribe_replacement_reshuffles_empty_goods_deck():
    sc = new()
    sc.state.set_cell(3, T, CAMP_3VP)
    sc.state.set_goods_deck([])
    sc.state.set_goods_discard([8])
    sc.script([OPT_KEEP], [])
    sc.resolve_cell(0, 3)
    assert sc.state.error == 0
    assert sc.state.cell(3)[:3] == (G, 8, False)
    assert sc.state.goods_deck == [] and sc.state.goods_discard == []


def test_centre_tribe_replacement_without_any_goods_card_leaves_cell_empty():
    sc = new()
    sc.state.set_cell(3, T, CAMP_3VP)
    sc.state.set_goods_deck([])
    sc.state.set_goods_discard([])
    sc.script([OPT_KEEP], [])
    sc.resolve_cell(0, 3)
    assert sc.state.cell(3)[:2] == (EMPTY, -1)


def test_centre_goods_replacement_with_empty_tribe_deck_leaves_cell_empty():
    sc = new()
    sc.state.set_cell(2, G, 15)
    sc.state.set_tribe_deck([])
    sc.state.set_tribe_discard([4, 5])  # never reshuffled
    sc.script([1], [])
    sc.resolve_cell(0, 2)
    assert sc.state.error == 0
    assert res(sc, 0) == plus(gold=1)
    assert sc.state.cell(2)[:2] == (EMPTY, -1)
    assert sc.state.tribe_deck == [] and sc.state.tribe_discard == [4, 5]


def test_empty_and_face_down_cells_give_nothing():
    sc = new()
    sc.state.set_cell(2, EMPTY, -1)
    sc.state.set_cell(5, T, CAMP_3VP, face_up=False)
    sc.resolve_cell(0, 2)
    sc.resolve_cell(0, 5)
    assert trace(sc).height == 0
    assert res(sc, 0) == START
    assert sc.state.cell(5)[:3] == (T, CAMP_3VP, False)


def test_face_down_cards_are_turned_up_at_round_end():
    sc = new()
    sc.state.set_cell(4, G, 10)
    sc.state.set_cell(3, T, CAMP_3VP)
    sc.state.set_tribe_deck([30])
    sc.state.set_goods_deck([16])
    sc.script([1, OPT_KEEP], [])
    sc.resolve_cell(0, 4)
    sc.resolve_cell(0, 3)
    assert sc.state.cell(4)[:3] == (T, 30, False)
    assert sc.state.cell(3)[:3] == (G, 16, False)
    sc.end_round()
    assert sc.state.error == 0
    assert sc.state.cell(4)[:3] == (T, 30, True)
    assert sc.state.cell(3)[:3] == (G, 16, True)
    assert all(sc.state.cell(c)[2] for c in range(9))


def test_second_player_cannot_take_a_card_replaced_this_round():
    """p0 takes the goods card under its marker; Fata Morgana may not send p1's marker
    to the face-down replacement."""
    sc = new()
    for c in range(9):
        sc.state.set_cell(c, G, 0)
    sc.state.set_cell(0, G, 15)
    sc.state.set_tribe_deck([30])
    sc.players[0].place([], [0])
    sc.players[1].place([FATA_MORGANA], [8])
    sc.script([1], [-1])
    sc.resolve_actions(0)
    assert sc.state.cell(0)[:3] == (T, 30, False)
    sc.resolve_border(1, FATA_MORGANA)
    assert sc.state.error == 0
    fm = trace(sc, "fata_morgana").row(0, named=True)
    opts = sorted(int(x) for x in sc.O[: fm["n_options"]])
    # cells 1..7 are free face-up cards; cell 0 is face down, cell 8 holds the marker
    assert opts == [-1] + [c for c in range(1, 8)]


def test_cards_are_conserved_through_centre_and_border_actions():
    """From the dealt position: take a centre goods card, a centre tribe card (keep),
    Caravan and Tribal Expansion (discard): every card is still somewhere, once."""
    sc = new(seed=5)
    st = sc.state
    sc.players[0].set_resources(salt=5, pepper=5, dates=5, gold=3)
    choice_cards = (12, 13, 14)  # "one good of your choice": one more answer (salt)
    centre_goods = st.cell(4)[1]
    script = [1] + ([0] if centre_goods in choice_cards else []) + [OPT_KEEP, 1, OPT_DISCARD]
    # the centre tribe card is replaced from the goods deck, then Caravan draws the next
    caravan_goods = st.goods_deck[-2]
    script += [0] if caravan_goods in choice_cards else []
    sc.script(script, [])
    sc.resolve_cell(0, 4)  # goods: take
    sc.resolve_cell(0, 3)  # tribe: keep
    sc.resolve_border(0, EXPANSION)  # draw, discard
    sc.resolve_border(0, CARAVAN)
    assert sorted(st.tribe_cards_everywhere()) == list(range(45))
    assert sorted(st.goods_cards_everywhere()) == list(range(19))
    assert sc.state.error == 0
    assert len(st.tribe_discard) == 1 and sc.players[0].hand >= 0
    assert st.cell(4)[0] == T and st.cell(3)[0] == G


def test_the_round_log_keeps_where_a_marker_was_placed_and_where_it_moved():
    """marker_cell_* is the cell a marker was placed on, marker_moved_* the cell Fata
    Morgana moved it to (-1 if it did not move), so a replay can show the move."""
    sc = new()
    sc.players[0].place([FATA_MORGANA], [0, 4])
    sc.state.set_cell(8, G, 16)
    sc.state.set_cell(4, G, 18)
    sc.state.set_cell(0, G, 17)
    sc.state.set_tribe_deck([33, 34, 35])
    # FM first (slot 0): marker 2 to cell 8; then marker 1 (slot 3) and marker 2, taking both
    sc.script([0, 16 + 8, 3, 1, 1], [])
    sc.resolve_actions(0)
    assert sc.state.error == 0
    sc.end_round()
    row = sc.logs()["rounds"].filter(sc.logs()["rounds"]["player"] == 0).row(0, named=True)
    assert (row["marker_cell_1"], row["marker_cell_2"]) == (0, 4)
    assert (row["marker_moved_1"], row["marker_moved_2"]) == (-1, 8)
