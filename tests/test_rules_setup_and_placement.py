"""Scenario tests for docs/rules.md §1-2 (setup, geometry) and §6.1, 6.3, 6.4 (robber,
Targi placement, tribe markers), each built from an explicit position.

Border positions are 0-based: position b holds card number b + 1.
"""

from __future__ import annotations

import pytest
from scenario_helpers import new, trace

from targi_sim.engine import layout as lay
from targi_sim.engine.constants import END_FINAL_RAID
from targi_sim.play.scenario import Scenario

RAID_POSITIONS = (3, 7, 11, 15)
NON_RAID = [b for b in range(16) if b not in RAID_POSITIONS]
# docs/rules.md §2: cards pointing along central columns / rows (card numbers)
COLUMN_CARDS = {1: 0, 11: 0, 2: 1, 10: 1, 3: 2, 9: 2}
ROW_CARDS = {15: 0, 5: 0, 14: 1, 6: 1, 13: 2, 7: 2}
FACING_CARDS = [(1, 11), (2, 10), (3, 9), (5, 15), (6, 14), (7, 13)]


def set_border(sc: Scenario, positions: dict[int, int]) -> None:
    """Put Targis of the given owners on border positions (board only)."""
    for b, owner in positions.items():
        sc.S[lay.S_BORDER_TARGI + b] = owner


# ------------------------------------------------------------------ setup (§1, §2)
@pytest.mark.parametrize("first", [0, 1])
@pytest.mark.parametrize("seed", [0, 7, 12345])
def test_setup_tokens_and_first_player(first, seed):
    sc = Scenario("base", "default", seed=seed, first_player=first)
    for pl in sc.players:
        assert pl.resources() == {"salt": 2, "pepper": 2, "dates": 2, "gold": 1, "vp": 4}
        assert pl.hand == -1
        assert pl.display == [[], [], []]
        assert pl.display_count == 0
        assert pl.targis == [-1, -1, -1]
        assert pl.markers == [-1, -1]
    assert sc.state.first_player == first
    assert sc.state.robber == 0  # card 1
    assert sc.state.round == 0
    assert not sc.state.over
    assert sc.state.error == 0


@pytest.mark.parametrize("seed", [0, 3, 99])
def test_setup_centre_is_g_t_g__t_g_t__g_t_g_face_up(seed):
    sc = Scenario("base", "default", seed=seed)
    kinds = [sc.state.cell(c)[0] for c in range(9)]
    G, T = lay.CELL_GOODS, lay.CELL_TRIBE
    assert kinds == [G, T, G, T, G, T, G, T, G]
    for c in range(9):
        kind, card, up, marker = sc.state.cell(c)
        assert up and marker == -1 and card >= 0
    for b in range(16):
        assert sc.state.border_targi(b) == -1


@pytest.mark.parametrize("seed", [0, 3, 99])
def test_setup_decks_45_tribe_19_goods_conserved(seed):
    sc = Scenario("base", "default", seed=seed)
    st = sc.state
    assert len(st.tribe_deck) == 45 - 4
    assert len(st.goods_deck) == 19 - 5
    assert st.tribe_discard == [] and st.goods_discard == []
    assert sorted(st.tribe_cards_everywhere()) == list(range(45))
    assert sorted(st.goods_cards_everywhere()) == list(range(19))
    # the centre is dealt from the shuffled decks, so it differs between seeds
    # but the decks are permutations
    assert sorted(st.tribe_deck + [st.cell(c)[1] for c in (1, 3, 5, 7)]) == list(range(45))


def test_setup_shuffles_depend_on_seed():
    decks = {tuple(Scenario("base", "default", seed=s).state.tribe_deck) for s in range(5)}
    assert len(decks) == 5


# ------------------------------------------------------------------ robber (§6.1)
def _broke(sc: Scenario) -> None:
    """Nobody can pay any raid: raids resolve without any decision."""
    for pl in sc.players:
        pl.set_resources(salt=0, pepper=0, dates=0, gold=0, vp=0)


def test_robber_starts_on_card_1_and_round_1_does_not_move_it():
    sc = new()
    assert sc.start_round()
    assert sc.state.robber == 0
    assert sc.state.round == 1


def test_robber_moves_clockwise_skips_raids_and_at_most_12_rounds():
    sc = new(raid_unpaid="nothing")
    _broke(sc)
    robbers = []
    while sc.start_round():
        robbers.append(sc.state.robber)
        assert len(robbers) <= 12
    # cards 1 2 3 (raid 4) 5 6 7 (raid 8) 9 10 11 (raid 12) 13 14 15 (raid 16: end)
    assert robbers == [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14]
    assert sc.state.round == 12
    assert sc.state.over
    assert sc.state.end_reason == END_FINAL_RAID
    assert sc.state.robber == 15
    raids = sc.logs()["raids"]
    # each raid resolved once per player, in order 1..4, before rounds 4, 7, 10 and "13"
    assert raids["raid"].to_list() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert raids["round"].to_list() == [4, 4, 7, 7, 10, 10, 13, 13]
    assert sc.state.error == 0


@pytest.mark.parametrize("raid_pos", RAID_POSITIONS[:3])
def test_robber_lands_on_raid_resolves_it_and_moves_on(raid_pos):
    sc = new(raid_unpaid="nothing")
    _broke(sc)
    sc.state.set_round(5)
    sc.state.robber = raid_pos - 1
    assert sc.start_round()
    assert sc.state.robber == raid_pos + 1  # never hosts a round on a raid card
    assert sc.state.round == 6
    raids = sc.logs()["raids"]
    assert raids["raid"].to_list() == [RAID_POSITIONS.index(raid_pos) + 1] * 2


def test_full_game_robber_route_in_rounds_log():
    sc = new()
    sc.use(0, "random")
    sc.use(1, "random")
    sc.play_to_end()
    rounds = sc.logs()["rounds"]
    robber_cards = rounds.filter(rounds["player"] == 0)["robber_card"].to_list()
    expected = [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15]
    assert 1 <= len(robber_cards) <= 12
    assert robber_cards == expected[: len(robber_cards)]
    assert sc.state.over


# ------------------------------------------------------------------ placement (§6.3)
def test_placement_excludes_robber_card_and_raid_cards():
    sc = new()
    sc.state.robber = 4  # card 5
    expected = [b for b in NON_RAID if b != 4]
    assert sc.placement_options(0) == expected
    assert sc.placement_options(1) == expected


def test_placement_excludes_occupied_cards_for_both_players():
    sc = new()
    sc.state.robber = 0
    sc.players[0].place([1])  # card 2
    sc.players[1].place([13])  # card 14
    for p in (0, 1):
        assert 1 not in sc.placement_options(p)
        assert 13 not in sc.placement_options(p)


@pytest.mark.parametrize("a,b", FACING_CARDS)
def test_facing_an_opponents_targi_is_illegal_facing_own_is_allowed(a, b):
    sc = new()
    sc.state.robber = 12 if 13 not in (a, b) else 1  # a robber away from both cards
    pa, pb = a - 1, b - 1
    sc.players[1].place([pa])
    assert pb not in sc.placement_options(0)  # faces opponent's Targi
    assert pb in sc.placement_options(1)  # faces own Targi
    sc2 = new()
    sc2.state.robber = sc.state.robber
    sc2.players[0].place([pb])
    assert pa not in sc2.placement_options(1)
    assert pa in sc2.placement_options(0)


@pytest.mark.parametrize("a,b", FACING_CARDS)
def test_facing_the_robber_is_allowed(a, b):
    sc = new()
    sc.state.robber = a - 1
    opts = sc.placement_options(0)
    assert a - 1 not in opts
    assert b - 1 in opts


def test_first_player_places_first_and_players_alternate():
    sc = new(first=1)
    sc.state.robber = 12  # card 13
    sc.script([4, 5, 6], [0, 1, 2])  # p0: cards 5 6 7, p1: cards 1 2 3
    sc.place_targis()
    assert sc.state.error == 0
    places = trace(sc, "place")
    assert places["player"].to_list() == [1, 0, 1, 0, 1, 0]
    assert places["choice"].to_list() == [0, 4, 1, 5, 2, 6]
    assert places["context"].to_list() == [0, 0, 1, 1, 2, 2]  # which Targi
    # p1: 11 free; p0: 10 free, card 11 faces p1's card 1 -> 9; p1: 9 free, card 15
    # faces p0's card 5 -> 8; p0: 8 free, cards 10 and 11 face p1 -> 6; p1: 7 free,
    # cards 14 and 15 face p0 -> 5; p0: 6 free, cards 9 10 11 face p1 -> 3
    assert places["n_options"].to_list() == [11, 9, 8, 6, 5, 3]
    assert sc.players[1].targis == [0, 1, 2]
    assert sc.players[0].targis == [4, 5, 6]
    for b, owner in {0: 1, 1: 1, 2: 1, 4: 0, 5: 0, 6: 0}.items():
        assert sc.state.border_targi(b) == owner


def test_placement_option_counts_follow_the_rules():
    sc = new(first=0)
    sc.state.robber = 12  # card 13
    # p0 card 1, p1 card 2, p0 card 3, p1 card 5, p0 card 6, p1 card 7
    sc.script([0, 2, 5], [1, 4, 6])
    sc.place_targis()
    assert sc.state.error == 0
    n = trace(sc, "place")["n_options"].to_list()
    # 11 free cards (12 non-raid minus robber) at the start
    # p1: 10 free, card 11 faces p0's card 1 -> 9
    # p0: 9 free, card 10 faces p1's card 2 -> 8
    # p1: 8 free, cards 11 and 9 face p0 -> 6
    # p0: 7 free, cards 10 and 15 face p1 -> 5
    # p1: 6 free (1 2 3 5 6 gone + robber on 13): cards 9 11 14 face p0 -> 3
    assert n == [11, 9, 8, 6, 5, 3]


def _every_pair_held_by_p1(sc: Scenario) -> None:
    """p1 holds one card of every facing pair; the robber stands on card 1."""
    sc.state.robber = 0
    set_border(sc, {10: 1, 1: 1, 2: 1, 4: 1, 5: 1, 6: 1})


def test_no_legal_card_leaves_targi_unplaced():
    sc = new(first=0)
    _every_pair_held_by_p1(sc)
    assert sc.placement_options(0) == []
    assert sc.placement_options(1) == [8, 9, 12, 13, 14]
    sc.script([], [8, 9, 12])
    sc.place_targis()
    assert sc.state.error == 0
    assert sc.players[0].targis == [-1, -1, -1]
    assert sc.players[1].targis == [8, 9, 12]
    assert set(trace(sc, "place")["player"].to_list()) == {1}
    sc.place_markers()
    assert sc.players[0].markers == [-1, -1]


def test_variant_ignore_facing_when_no_legal_card():
    sc = new(first=0, no_legal_placement="ignore_facing")
    _every_pair_held_by_p1(sc)
    sc.script([8, 12], [9, 13])
    sc.place_targis()
    assert sc.state.error == 0
    # p0 had no legal card each time, so it could place facing p1's Targis
    assert sc.players[0].targis == [8, 12, 14]
    # p1's third Targi: every card is taken or the robber's -> unplaced
    assert sc.players[1].targis == [9, 13, -1]
    places = trace(sc, "place")
    assert places["player"].to_list() == [0, 1, 0, 1, 0]
    assert places["n_options"].to_list() == [5, 4, 3, 2, 1]


def _p1_on_all_but_card_11(sc: Scenario) -> None:
    """Robber on card 1; p1 on cards 2 3 5 6 7: p0's only legal card is 11 (faces robber)."""
    sc.state.robber = 0
    set_border(sc, {1: 1, 2: 1, 4: 1, 5: 1, 6: 1})


def test_variant_ignore_facing_only_when_no_legal_card_exists():
    sc = new(first=0, no_legal_placement="ignore_facing")
    _p1_on_all_but_card_11(sc)
    assert sc.placement_options(0) == [10]
    sc.script([9, 13], [8, 12])
    sc.place_targis()
    assert sc.state.error == 0
    places = trace(sc, "place")
    assert places["player"].to_list() == [0, 1, 0, 1, 0, 1]
    # p0's first Targi: one legal card (11), the facing-blocked cards are not offered;
    # its later Targis have no legal card, so the restriction is lifted for them
    assert places["n_options"].to_list() == [1, 5, 4, 3, 2, 1]
    assert sc.players[0].targis == [10, 9, 13]
    assert sc.players[1].targis == [8, 12, 14]


def test_default_same_position_leaves_later_targis_unplaced():
    sc = new(first=0)
    _p1_on_all_but_card_11(sc)
    sc.script([], [8, 12, 9])
    sc.place_targis()
    assert sc.state.error == 0
    assert sc.players[0].targis == [10, -1, -1]
    assert sc.players[1].targis == [8, 12, 9]
    places = trace(sc, "place")
    assert places["player"].to_list() == [0, 1, 1, 1]
    assert places["n_options"].to_list() == [1, 5, 4, 3]


# ------------------------------------------------------------------ markers (§6.4)
@pytest.mark.parametrize("col_card,col", sorted(COLUMN_CARDS.items()))
@pytest.mark.parametrize("row_card,row", sorted(ROW_CARDS.items()))
def test_marker_goes_on_the_crossing_cell(col_card, col, row_card, row):
    sc = new()
    sc.players[0].place([col_card - 1, row_card - 1])
    sc.place_markers()
    assert sc.players[0].markers == [row * 3 + col, -1]
    assert sc.state.cell(row * 3 + col)[3] == 0
    assert sum(sc.state.cell(c)[3] == 0 for c in range(9)) == 1


def test_two_columns_and_one_row_give_two_markers():
    sc = new()
    sc.players[0].place([0, 2, 5])  # cards 1 (col 0), 3 (col 2), 6 (row 1)
    sc.place_markers()
    assert sorted(sc.players[0].markers) == [3, 5]
    assert [sc.state.cell(c)[3] for c in range(9)] == [-1, -1, -1, 0, -1, 0, -1, -1, -1]


def test_one_column_and_two_rows_give_two_markers():
    sc = new()
    sc.players[1].place([9, 4, 12])  # cards 10 (col 1), 5 (row 0), 13 (row 2)
    sc.place_markers()
    assert sorted(sc.players[1].markers) == [1, 7]
    assert sc.state.cell(1)[3] == 1 and sc.state.cell(7)[3] == 1


def test_two_targis_on_the_same_line_give_one_marker():
    sc = new()
    sc.players[0].place([1, 9, 13])  # cards 2 and 10 (both col 1), 14 (row 1)
    sc.place_markers()
    assert sc.players[0].markers == [4, -1]
    assert [sc.state.cell(c)[3] for c in range(9)].count(0) == 1


@pytest.mark.parametrize("targis", [[0, 1, 2], [4, 5, 6], [0, 10, 9], [14, 4, 13]])
def test_three_parallel_targis_give_no_marker(targis):
    sc = new()
    sc.players[0].place(targis)
    sc.place_markers()
    assert sc.players[0].markers == [-1, -1]
    assert all(sc.state.cell(c)[3] == -1 for c in range(9))


def test_unplaced_targis_count_for_nothing():
    sc = new()
    sc.players[0].place([0, -1, -1])
    sc.players[1].place([-1, 5, -1])
    sc.place_markers()
    assert sc.players[0].markers == [-1, -1]
    assert sc.players[1].markers == [-1, -1]


def test_both_players_markers_in_play_round():
    """Round 1 with scripted placement: markers land where the geometry says."""
    sc = new(first=0)
    sc.state.robber = 12  # card 13 (set before round 1: the robber does not move)
    # p0: cards 1 (col 0), 15 (row 0), 3 (col 2) -> cells 0 and 2
    # p1: cards 2 (col 1), 6 (row 1), 7 (row 2) -> cells 4 and 7
    sc.script([0, 14, 2], [1, 5, 6])
    sc.start_round()
    sc.place_targis()
    sc.place_markers()
    assert sc.state.error == 0
    assert sorted(sc.players[0].markers) == [0, 2]
    assert sorted(sc.players[1].markers) == [4, 7]
    owners = [sc.state.cell(c)[3] for c in range(9)]
    assert owners == [0, -1, 0, -1, 1, -1, -1, 1, -1]
