"""Scenario tests for docs/rules.md §6.2 (raids) and the raid-4 game end of §7, each built
from an explicit position. Raid cards sit on border positions 3, 7, 11, 15 (cards
4, 8, 12, 16)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scenario_helpers import new, res, setres, trace

from targi_sim.engine.constants import END_FINAL_RAID
from targi_sim.play.scenario import Scenario

RAID_POS = {1: 3, 2: 7, 3: 11, 4: 15}
PAY_GOODS, PAY_VP = 0, 1
SALT, PEPPER, DATES = 0, 1, 2


def raids(sc: Scenario) -> list[tuple]:
    r = sc.logs()["raids"]
    return list(zip(r["raid"], r["player"], r["paid"], r["amount"], r["opponent_bonus"],
                    strict=True))


# ------------------------------------------------------------------ paying
@pytest.mark.parametrize(
    "raid,goods,vp", [(1, 1, 1), (2, 2, 1), (3, 3, 2)],
)
def test_raid_pay_vp(raid, goods, vp):
    sc = new()
    setres(sc, 0, 3, 3, 3, 1, 5)
    setres(sc, 1, 3, 3, 3, 1, 5)
    sc.script([PAY_VP], [PAY_VP])
    sc.raid(RAID_POS[raid])
    assert sc.state.error == 0
    for p in (0, 1):
        assert res(sc, p) == {"salt": 3, "pepper": 3, "dates": 3, "gold": 1, "vp": 5 - vp}
    assert raids(sc) == [(raid, 0, "vp", vp, 0), (raid, 1, "vp", vp, 0)]
    modes = trace(sc, "raid_mode")
    assert modes["n_options"].to_list() == [2, 2]


@pytest.mark.parametrize(
    "raid,kinds",
    [(1, [DATES]), (2, [SALT, PEPPER]), (2, [DATES, DATES]), (3, [SALT, SALT, PEPPER]),
     (3, [SALT, PEPPER, DATES])],
)
def test_raid_pay_goods_of_chosen_kinds(raid, kinds):
    sc = new()
    setres(sc, 0, 3, 3, 3, 1, 5)
    setres(sc, 1, 3, 3, 3, 1, 5)
    sc.script([PAY_GOODS, *kinds], [PAY_VP])
    sc.raid(RAID_POS[raid])
    assert sc.state.error == 0
    expect = {"salt": 3, "pepper": 3, "dates": 3, "gold": 1, "vp": 5}
    for k in kinds:
        expect[("salt", "pepper", "dates")[k]] -= 1
    assert res(sc, 0) == expect
    assert raids(sc)[0] == (raid, 0, "goods", len(kinds), 0)
    assert trace(sc, "raid_good").height == len(kinds)


def test_raid_goods_kinds_offered_are_those_held():
    sc = new()
    setres(sc, 0, 2, 0, 1, 0, 5)
    setres(sc, 1, 0, 0, 0, 0, 1)
    sc.script([PAY_GOODS, DATES], [])
    sc.raid(RAID_POS[2])
    assert sc.state.error == 0
    goods = trace(sc, "raid_good").filter(trace(sc, "raid_good")["player"] == 0)
    # salt or dates; then only salt is left (not asked)
    assert goods["n_options"].to_list() == [2, 1]
    assert goods["choice"].to_list() == [DATES, SALT]
    assert res(sc, 0) == {"salt": 1, "pepper": 0, "dates": 0, "gold": 0, "vp": 5}


def test_raid_goods_cannot_be_paid_with_gold():
    sc = new()
    setres(sc, 0, 1, 0, 0, 3, 1)  # 1 good + 3 gold, raid 2 wants 2 goods
    setres(sc, 1, 0, 0, 0, 0, 1)
    sc.raid(RAID_POS[2])
    assert sc.state.error == 0
    # only VP was possible: not asked, paid
    assert res(sc, 0) == {"salt": 1, "pepper": 0, "dates": 0, "gold": 3, "vp": 0}
    assert raids(sc)[0] == (2, 0, "vp", 1, 0)


def test_raid_only_goods_possible_asks_no_mode():
    sc = new()
    setres(sc, 0, 0, 3, 0, 0, 1)  # raid 3 needs 2 VP: only goods
    setres(sc, 1, 0, 0, 0, 0, 2)
    sc.raid(RAID_POS[3])
    assert sc.state.error == 0
    assert res(sc, 0) == {"salt": 0, "pepper": 0, "dates": 0, "gold": 0, "vp": 1}
    assert res(sc, 1) == {"salt": 0, "pepper": 0, "dates": 0, "gold": 0, "vp": 0}
    assert raids(sc) == [(3, 0, "goods", 3, 0), (3, 1, "vp", 2, 0)]


@pytest.mark.parametrize("mode,expect", [(PAY_GOODS, (0, 3)), (PAY_VP, (1, 0))])
def test_raid_4_gold_or_vp_and_game_ends(mode, expect):
    sc = new()
    setres(sc, 0, 5, 5, 5, 1, 3)
    setres(sc, 1, 5, 5, 5, 1, 3)
    sc.script([mode], [mode])
    sc.raid(RAID_POS[4])
    assert sc.state.error == 0
    for p in (0, 1):
        r = res(sc, p)
        assert (r["gold"], r["vp"]) == expect
        assert (r["salt"], r["pepper"], r["dates"]) == (5, 5, 5)  # goods are no payment
    paid = "gold" if mode == PAY_GOODS else "vp"
    amount = 1 if mode == PAY_GOODS else 3
    assert raids(sc) == [(4, 0, paid, amount, 0), (4, 1, paid, amount, 0)]
    assert sc.state.over
    assert sc.state.end_reason == END_FINAL_RAID


# ------------------------------------------------------------------ cannot pay
@pytest.mark.parametrize("raid,vp_cost", [(1, 1), (2, 1), (3, 2), (4, 3)])
@pytest.mark.parametrize(
    "variant,bonus",
    [("opponent_gains_fixed", None), ("opponent_gains_raid_vp", "cost"), ("nothing", 0)],
)
def test_cannot_pay_variants(raid, vp_cost, variant, bonus):
    sc = new(raid_unpaid=variant)
    # p0 has one good too few and one VP too few (and no gold)
    setres(sc, 0, raid - 1 if raid < 4 else 5, 0, 0, 0, vp_cost - 1)
    setres(sc, 1, 0, 0, 0, 0, vp_cost)  # p1 pays with VP (its only option)
    sc.raid(RAID_POS[raid])
    assert sc.state.error == 0
    want = {None: 3, "cost": vp_cost, 0: 0}[bonus]
    r0, r1 = res(sc, 0), res(sc, 1)
    assert r0["vp"] == vp_cost - 1  # p0 pays nothing
    assert r0["salt"] == (raid - 1 if raid < 4 else 5)
    assert r1["vp"] == vp_cost - vp_cost + want
    assert raids(sc) == [(raid, 0, "none", 0, want), (raid, 1, "vp", vp_cost, 0)]


def test_fixed_bonus_is_configurable():
    sc = new(raid_unpaid="opponent_gains_fixed", raid_unpaid_vp=5)
    setres(sc, 0)
    setres(sc, 1, 0, 0, 0, 0, 0)
    sc.raid(RAID_POS[1])
    # both cannot pay: p0 (first) gives p1 5 VP, which p1 then uses to pay
    assert res(sc, 1)["vp"] == 4
    assert res(sc, 0)["vp"] == 0
    assert raids(sc) == [(1, 0, "none", 0, 5), (1, 1, "vp", 1, 0)]


@pytest.mark.parametrize("first", [0, 1])
def test_first_player_pays_first(first):
    """Both players broke: the first cannot pay, so the second gains 3 VP and can then pay
    raid 1 with VP. Who gets the bonus depends on who pays first (under the reading
    that gives the opponent 3 VP; the default's unpaid raid gives nothing)."""
    sc = new(first=first, raid_unpaid="opponent_gains_fixed")
    setres(sc, 0)
    setres(sc, 1)
    sc.state.set_round(3)
    sc.state.robber = 2
    assert sc.start_round()
    assert sc.state.error == 0
    second = 1 - first
    assert raids(sc) == [(1, first, "none", 0, 3), (1, second, "vp", 1, 0)]
    assert res(sc, first)["vp"] == 0
    assert res(sc, second)["vp"] == 2
    assert sc.logs()["raids"]["round"].to_list() == [4, 4]
    assert sc.state.robber == 4
    assert sc.state.round == 4


def test_raid_goods_then_vp_order_in_trace():
    sc = new(first=1)
    setres(sc, 0, 1, 1, 1, 0, 3)
    setres(sc, 1, 1, 1, 1, 0, 3)
    sc.script([PAY_GOODS, PEPPER], [PAY_VP])
    sc.raid(RAID_POS[1])
    assert sc.state.error == 0
    assert trace(sc)["player"].to_list() == [1, 0, 0]
    assert res(sc, 1)["vp"] == 2
    assert res(sc, 0) == {"salt": 1, "pepper": 0, "dates": 1, "gold": 0, "vp": 3}


# ------------------------------------------------------------------ raid 4 ends the game
def test_raid_4_ends_the_game_immediately():
    sc = new()
    sc.state.set_round(12)  # round 12 was played on card 15
    sc.state.robber = 14
    sc.script([PAY_VP], [PAY_GOODS])
    sc.play_round()
    assert sc.state.error == 0
    assert sc.state.over
    assert sc.state.end_reason == END_FINAL_RAID
    assert sc.state.round == 12  # no 13th round
    assert sc.state.robber == 15
    # nothing but the raid was decided; no round was logged
    assert set(trace(sc)["decision"].to_list()) == {"raid_mode"}
    assert sc.logs()["rounds"].height == 0
    assert res(sc, 0)["vp"] == 1 and res(sc, 1)["gold"] == 0
    sc.play_to_end()
    assert sc.state.round == 12


def test_variant_finish_round_after_raid_4():
    sc = new(final_raid_end="finish_round")
    sc.state.set_round(12)
    sc.state.robber = 14
    sc.script([PAY_VP], [PAY_VP])
    assert sc.start_round()
    assert sc.state.error == 0
    assert not sc.state.over
    assert sc.state.robber == 0  # moved on past raid 4 to card 1
    assert sc.state.round == 13
    assert res(sc, 0)["vp"] == 1 and res(sc, 1)["vp"] == 1


def test_variant_finish_round_plays_exactly_one_more_round():
    sc = new(final_raid_end="finish_round")
    sc.state.set_round(12)
    sc.state.robber = 14
    sc.use(0, "random")
    sc.use(1, "random")
    sc.play_to_end()
    assert sc.state.over
    assert sc.state.end_reason == END_FINAL_RAID
    assert sc.state.round == 13
    rounds = sc.logs()["rounds"]
    assert rounds["round"].to_list() == [13, 13]
    assert rounds["robber_card"].to_list() == [1, 1]
    assert sc.logs()["raids"]["raid"].to_list() == [4, 4]


# ------------------------------------------------------------------ paying what they have
@pytest.mark.parametrize("raid,held,cost", [(2, 1, 2), (3, 2, 3)])
def test_pay_what_they_have_pays_the_goods_they_hold(raid, held, cost):
    """raid_unpaid = "pay_what_they_have" (the Swedish reading): a player short of the
    goods and of the VP pays what they hold of one option, and the opponent gains
    nothing."""
    sc = new(raid_unpaid="pay_what_they_have")
    setres(sc, 0, held, 0, 0, 0, 0)  # goods too few, no VP: only the goods option
    setres(sc, 1, 5, 0, 0, 0, 5)
    sc.script([], [PAY_GOODS] + [SALT] * cost)
    sc.raid(RAID_POS[raid])
    assert sc.state.error == 0
    assert res(sc, 0)["salt"] == 0 and res(sc, 0)["vp"] == 0
    assert res(sc, 1)["vp"] == 5  # the opponent gains nothing
    assert raids(sc)[0] == (raid, 0, "goods", held, 0)


def test_pay_what_they_have_lets_the_player_choose_between_partial_options():
    sc = new(raid_unpaid="pay_what_they_have")
    setres(sc, 0, 1, 0, 0, 0, 1)  # raid 3: 3 goods or 2 VP; holds 1 good and 1 VP
    setres(sc, 1, 5, 0, 0, 0, 5)
    sc.script([PAY_VP], [PAY_VP])
    sc.raid(RAID_POS[3])
    assert sc.state.error == 0
    assert res(sc, 0) == {"salt": 1, "pepper": 0, "dates": 0, "gold": 0, "vp": 0}
    assert raids(sc)[0] == (3, 0, "vp", 1, 0)
    assert trace(sc, "raid_mode")["n_options"].to_list()[0] == 2


def test_pay_what_they_have_with_nothing_gives_the_opponent_the_fixed_bonus():
    sc = new(raid_unpaid="pay_what_they_have")
    setres(sc, 0, 0, 0, 0, 0, 0)
    setres(sc, 1, 5, 0, 0, 0, 5)
    sc.script([], [PAY_VP])
    sc.raid(RAID_POS[2])
    assert raids(sc)[0] == (2, 0, "none", 0, 3)
    assert res(sc, 1)["vp"] == 5 + 3 - 1


def test_a_custom_raid_costing_goods_and_gold_charges_both(tmp_path):
    """A deck may give a raid a cost in goods and gold together: its first option costs
    both (before, only the goods were charged)."""
    from targi_sim import load_deck

    text = (Path(__file__).resolve().parent.parent / "data" / "decks" / "base.toml").read_text()
    start = text.index("kind = \"raid\"\nraid = 2")
    end = text.index("\n\n", start)
    block = text[start:end]
    changed = block.replace("gold = 0", "gold = 1")
    assert changed != block, "raid 2's block in base.toml should name its gold cost"
    path = tmp_path / "deck.toml"
    path.write_text(text.replace(block, changed).replace('name = "base"', 'name = "gg"', 1))
    sc = Scenario(load_deck(path), "raid-opponent-gains-fixed")
    setres(sc, 0, 2, 0, 0, 1, 0)  # 2 goods and 1 gold: exactly the first option
    setres(sc, 1, 2, 0, 0, 0, 0)  # goods but no gold: cannot pay it, nor the VP
    sc.script([SALT, SALT], [])
    sc.raid(RAID_POS[2])
    assert sc.state.error == 0
    assert res(sc, 0)["salt"] == 0 and res(sc, 0)["gold"] == 0
    assert res(sc, 1)["salt"] == 2  # could not pay: pays nothing
    assert raids(sc) == [(2, 0, "goods_and_gold", 2, 0), (2, 1, "none", 0, 3)]
    assert sc.logs()["raids"]["gold"].to_list() == [1, 0]
