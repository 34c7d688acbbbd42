"""Deck and rules loading: the shipped files, and one test per kind of malformed input.

Why: the card data is the least certain part of the rules, so designers edit it; a bad
edit must fail with a message naming file, card, field and the allowed values.
"""

from __future__ import annotations

import copy
import csv
import pickle
import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from toml_writer import dumps

from targi_sim._utils.paths import data_dir
from targi_sim.engine import constants as C
from targi_sim.errors import DataError, UsageError
from targi_sim.game.deck import list_decks, load_deck
from targi_sim.game.rules import list_rules, load_rules

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


# --------------------------------------------------------------------- helpers
def base_data() -> dict[str, Any]:
    with open(data_dir() / "decks" / "base.toml", "rb") as f:
        return tomllib.load(f)


def write(tmp_path: Path, data: dict[str, Any], name: str = "bad.toml") -> Path:
    path = tmp_path / name
    path.write_text(dumps(data), encoding="utf-8")
    return path


def deck_error(tmp_path: Path, data: dict[str, Any]) -> str:
    path = write(tmp_path, data)
    with pytest.raises(DataError) as info:
        load_deck(path)
    msg = str(info.value)
    assert str(path) in msg
    assert "\n" not in msg
    return msg


def assert_names(msg: str, *parts: str) -> None:
    for part in parts:
        assert part in msg, f"{part!r} not in: {msg}"


# --------------------------------------------------------------------- shipped data
def test_base_deck_sizes() -> None:
    d = load_deck("base")
    assert d.name == "base"
    assert len(d.border_names) == 16 and d.border_kind.shape == (16,)
    assert len(d.goods_names) == 19 and d.goods.shape == (19, 6)
    assert len(d.tribe_names) == 45 and d.tribe_cost.shape == (45, 4)
    assert d.tribe_ab_params.shape == (45, C.N_AB_PARAMS)
    assert d.tribe_cost.dtype == np.int32 and d.goods.dtype == np.int32
    assert (d.tribe_ability == C.AB_NONE).all() and not d.tribe_has_alt.any()
    assert len(d.tribe_source) == len(d.tribe_confidence) == 45
    assert len(d.goods_source) == 19 and len(d.border_confidence) == 16
    assert set(d.tribe_confidence + d.goods_confidence + d.border_confidence) <= {
        "high",
        "medium",
        "low",
    }
    assert d.tribe_names[0] == "Targia 3VP #1"


def test_base_deck_border_cards() -> None:
    d = load_deck("base")
    assert list(d.raid_number) == [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4]
    assert [int(x) for x in d.raid_ends_game].index(1) == 15 and d.raid_ends_game.sum() == 1
    assert list(d.raid_goods[[3, 7, 11, 15]]) == [1, 2, 3, 0]
    assert list(d.raid_gold[[3, 7, 11, 15]]) == [0, 0, 0, 1]
    assert list(d.raid_vp[[3, 7, 11, 15]]) == [1, 1, 2, 3]
    assert d.border_kind[0] == C.BK_NOBLE and d.border_kind[8] == C.BK_FATA_MORGANA
    assert d.border_kind[12] == C.BK_DRAW_GOODS and d.border_amount[12] == 1
    assert d.border_kind[13] == C.BK_DRAW_TRIBE and d.border_amount[13] == 1
    merchant = slice(d.border_trade_lo[4], d.border_trade_hi[4])
    assert list(
        zip(
            d.trade_give[merchant],
            d.trade_give_amount[merchant],
            d.trade_get[merchant],
            d.trade_get_amount[merchant],
            strict=True,
        )
    ) == [(C.TG_SAME_GOOD, 2, C.TR_GOLD, 1), (C.TG_SAME_GOOD, 2, C.TR_OTHER_GOOD, 1)]  # calibrated
    smith = slice(d.border_trade_lo[9], d.border_trade_hi[9])
    assert list(
        zip(
            d.trade_give[smith],
            d.trade_give_amount[smith],
            d.trade_get[smith],
            d.trade_get_amount[smith],
            strict=True,
        )
    ) == [  # calibrated (docs/calibrate.md): base-token-economy keeps 2 / 2 -> 1 / 4 -> 3
        (C.TG_GOLD, 1, C.TR_VP, 1),
        (C.TG_SAME_GOOD, 2, C.TR_VP, 1),
        (C.TG_SAME_GOOD, 4, C.TR_VP, 1),
    ]
    for i in range(16):
        if d.border_kind[i] != C.BK_EXCHANGE:
            assert d.border_trade_lo[i] == d.border_trade_hi[i]
    gains = {i + 1: tuple(d.border_gain[i]) for i in range(16) if d.border_kind[i] == C.BK_GAIN}
    assert gains == {
        2: (0, 0, 1, 0, 0),
        3: (1, 0, 0, 0, 0),
        6: (0, 1, 0, 0, 0),
        7: (0, 0, 1, 0, 0),
        11: (0, 1, 0, 0, 0),
        15: (1, 0, 0, 0, 0),
    }


def test_base_deck_vp_pattern_per_symbol() -> None:
    d = load_deck("base")
    for s in range(C.N_SYMBOLS):
        vps = d.tribe_vp[d.tribe_symbol == s]
        assert len(vps) == 9
        assert Counter(int(v) for v in vps) == {3: 2, 2: 3, 1: 4}


def test_base_deck_goods_totals() -> None:
    d = load_deck("base")
    assert list(d.goods.sum(axis=0)) == [6, 6, 6, 3, 1, 6]  # salt pepper dates gold vp choose
    # (choose: 3 choice cards of 2 goods each, calibrated; docs/calibrate.md)


@pytest.mark.skipif(not (SHARED_DATA / "tribe-cards.csv").is_file(), reason="no shared CSV")
def test_base_deck_matches_tribe_csv() -> None:
    d = load_deck("base")
    with open(SHARED_DATA / "tribe-cards.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == d.n_tribe
    for i, row in enumerate(rows):
        assert C.SYMBOL_NAMES[d.tribe_symbol[i]] == row["symbol"], i
        assert d.tribe_vp[i] == int(row["vp"]), i
        assert list(d.tribe_cost[i]) == [int(row[k]) for k in ("salt", "pepper", "dates", "gold")]
        assert d.tribe_confidence[i] == row["confidence"]
        assert d.tribe_source[i] == row["source"]


def test_example_deck_exercises_every_ability() -> None:
    d = load_deck("abilities-example")
    assert "EXAMPLE" in d.description
    kinds = Counter(int(a) for a in d.tribe_ability)
    for kind in range(1, len(C.ABILITY_NAMES)):
        assert kinds[kind] >= 2, C.ABILITY_NAMES[kind]
    assert d.tribe_has_alt.sum() >= 3
    assert (d.tribe_alt_cost[d.tribe_has_alt == 0] == 0).all()
    # the same cards as the base deck apart from abilities and alternative costs
    base = load_deck("base")
    assert (d.tribe_cost == base.tribe_cost).all() and (d.tribe_vp == base.tribe_vp).all()
    assert (d.goods == base.goods).all() and (d.border_kind == base.border_kind).all()
    # symbol filters absent -> -1, other unused params 0
    disc = d.tribe_ab_params[d.tribe_ability == C.AB_DISCOUNT]
    assert set(disc[:, 2]) == {-1, C.SYMBOL_NAMES.index("Well")}
    pos = d.tribe_ab_params[d.tribe_ability == C.AB_POSITION_VP]
    assert set(pos[:, 1]) <= {0, 1, 2, 3}
    none = d.tribe_ab_params[d.tribe_ability == C.AB_NONE]
    assert (none == 0).all()


def test_every_shipped_file_loads() -> None:
    decks = list_decks()
    assert {"base", "abilities-example"} <= set(decks)
    for name in decks:
        d = load_deck(name)
        assert len(d.sha256) == 64 and d.content
    rules = list_rules()
    assert {
        "default",
        "raid-opponent-gains-fixed",
        "raid-pay-what-they-have",
        "finish-round-after-raid4",
        "tiebreak-gold-only",
    } <= set(rules)
    for name in rules:
        r = load_rules(name)
        assert r.vector.shape == (C.N_RULES,) and r.vector.dtype == np.int32


def test_deck_by_path_and_unknown_name(tmp_path: Path) -> None:
    path = data_dir() / "decks" / "base.toml"
    assert load_deck(path).sha256 == load_deck(str(path)).sha256 == load_deck("base").sha256
    with pytest.raises(UsageError, match="base"):
        load_deck("no-such-deck")


def test_rules_default_vector() -> None:
    r = load_rules("default")
    v = r.vector
    assert v[C.RL_RAID_UNPAID] == 2 and v[C.RL_RAID_UNPAID_VP] == 3  # "nothing"
    assert v[C.RL_NO_LEGAL_PLACEMENT] == 0 and v[C.RL_RAID4_END] == 0
    assert v[C.RL_TIEBREAK] == 0 and v[C.RL_FULL_DISPLAY] == 0
    assert v[C.RL_MAX_GOODS] == 10 and v[C.RL_MAX_GOLD] == 3 and v[C.RL_HAND_LIMIT] == 1
    start = [C.RL_START_SALT, C.RL_START_PEPPER, C.RL_START_DATES, C.RL_START_GOLD, C.RL_START_VP]
    assert list(v[start]) == [2, 2, 2, 1, 4]
    assert v[C.RL_ROW_SAME_BONUS] == 4 and v[C.RL_ROW_DIFF_BONUS] == 2
    assert r.settings["tiebreak"] == "gold_then_goods"


def test_rules_variants_inherit() -> None:
    default = load_rules("default").vector
    for name, index, value in [
        ("raid-opponent-gains-fixed", C.RL_RAID_UNPAID, 0),
        ("finish-round-after-raid4", C.RL_RAID4_END, 1),
        ("tiebreak-gold-only", C.RL_TIEBREAK, 1),
    ]:
        v = load_rules(name).vector
        assert v[index] == value
        diff = np.flatnonzero(v != default)
        assert list(diff) == [index]


def test_rules_content_is_standalone_and_reloadable(tmp_path: Path) -> None:
    r = load_rules("tiebreak-gold-only")
    path = tmp_path / "resolved.toml"
    path.write_text(r.content)
    again = load_rules(path)
    assert (again.vector == r.vector).all() and again.sha256 == r.sha256


def test_rules_with_overrides() -> None:
    r = load_rules().with_overrides(tiebreak="goods_plus_gold", start={"vp": 6})
    assert r.vector[C.RL_TIEBREAK] == 2 and r.vector[C.RL_START_VP] == 6
    assert r.vector[C.RL_START_GOLD] == 1
    assert r.sha256 != load_rules().sha256
    with pytest.raises(DataError, match="gold_only"):
        load_rules().with_overrides(tiebreak="coin_flip")
    with pytest.raises(DataError, match="tiebreak"):
        load_rules().with_overrides(tie_break="gold_only")
    with pytest.raises(DataError, match="negative"):
        load_rules().with_overrides(max_gold=-1)


def test_errors_pickle() -> None:
    err = DataError("x.toml", "tribe card 0 (", "vp", -1, "an integer >= 0", "must not be negative")
    assert str(pickle.loads(pickle.dumps(err))) == str(err)
    u = UsageError("deck", "x", ["base"])
    assert str(pickle.loads(pickle.dumps(u))) == str(u)


# --------------------------------------------------------------------- malformed decks
def test_file_not_found(tmp_path: Path) -> None:
    path = tmp_path / "missing.toml"
    with pytest.raises(DataError) as info:
        load_deck(path)
    assert_names(str(info.value), str(path), "not found")


def test_file_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "binary.toml"
    path.write_bytes(b'name = "\xff\xfe"\n')
    with pytest.raises(DataError) as info:
        load_deck(path)
    assert_names(str(info.value), str(path), "cannot be read")


def test_toml_syntax_error_reports_line(tmp_path: Path) -> None:
    path = tmp_path / "syntax.toml"
    path.write_text('name = "x"\ndescription = "y"\nborder = [\nthis is not toml\n')
    with pytest.raises(DataError) as info:
        load_deck(path)
    assert_names(str(info.value), str(path), "line 4", "not valid TOML")


def test_missing_required_field(tmp_path: Path) -> None:
    d = base_data()
    del d["tribe"][11]["vp"]
    assert_names(
        deck_error(tmp_path, d),
        "tribe card 11:",
        "'vp'",
        "missing",
        "required fields: symbol, vp, cost",
    )


def test_missing_deck_section(tmp_path: Path) -> None:
    d = base_data()
    del d["goods"]
    assert_names(deck_error(tmp_path, d), "deck", "'goods'", "missing", "required fields")


def test_unknown_field_lists_allowed(tmp_path: Path) -> None:
    d = base_data()
    d["tribe"][3]["colour"] = "red"
    assert_names(
        deck_error(tmp_path, d),
        "tribe card 3 (",
        "'colour'",
        "not a known field",
        "'symbol'",
        "'alt_cost'",
        "'ability'",
    )


def test_unknown_border_field(tmp_path: Path) -> None:
    d = base_data()
    d["border"][1]["amount"] = 2  # a gain card has no `amount`
    assert_names(deck_error(tmp_path, d), "border card 2 (Dates)", "'amount'", "'gain'")


def test_wrong_type(tmp_path: Path) -> None:
    d = base_data()
    d["tribe"][0]["vp"] = "three"
    assert_names(
        deck_error(tmp_path, d), "tribe card 0:", "'vp'", "'three'", "wrong type",
        "an integer 0..20",
    )


def test_bool_is_not_an_integer(tmp_path: Path) -> None:
    d = base_data()
    d["goods"][0]["salt"] = True
    assert_names(deck_error(tmp_path, d), "goods card 0 (1 salt)", "'salt'", "wrong type")


def test_negative_amount(tmp_path: Path) -> None:
    d = base_data()
    d["tribe"][4]["cost"]["salt"] = -1
    assert_names(
        deck_error(tmp_path, d), "tribe card 4 (", "'cost.salt'", "negative", "-1",
        "an integer 0..50",
    )


def test_unknown_cost_resource(tmp_path: Path) -> None:
    d = base_data()
    d["tribe"][2]["cost"]["water"] = 1
    assert_names(deck_error(tmp_path, d), "tribe card 2 (", "'cost.water'", "'gold'")


def test_unknown_border_kind(tmp_path: Path) -> None:
    d = base_data()
    d["border"][4]["kind"] = "market"
    assert_names(
        deck_error(tmp_path, d),
        "border card 5 (Merchant)",
        "'kind'",
        "'market'",
        "'exchange'",
        "'fata_morgana'",
    )


def test_unknown_symbol(tmp_path: Path) -> None:
    d = base_data()
    d["tribe"][20]["symbol"] = "Camels"
    assert_names(
        deck_error(tmp_path, d),
        "tribe card 20:",
        "'symbol'",
        "'Camels'",
        "'Camel Rider'",
        "'Oasis'",
    )


def test_unknown_ability_kind(tmp_path: Path) -> None:
    d = base_data()
    d["tribe"][0]["ability"] = {"kind": "fly"}
    assert_names(
        deck_error(tmp_path, d),
        "tribe card 0 (",
        "'ability.kind'",
        "'fly'",
        "'immediate'",
        "'move_two'",
    )


@pytest.mark.parametrize(
    "side,bad,allowed", [("give", "silk", "'same_good'"), ("get", "camel", "'other_good'")]
)
def test_unknown_trade_side(tmp_path: Path, side: str, bad: str, allowed: str) -> None:
    d = base_data()
    d["border"][9]["trades"][1][side] = bad
    assert_names(
        deck_error(tmp_path, d),
        "border card 10 (Silversmith)",
        f"'trades[2].{side}'",
        repr(bad),
        allowed,
    )


def test_other_good_needs_goods_given(tmp_path: Path) -> None:
    d = base_data()
    d["border"][4]["trades"][0]["give"] = "gold"
    d["border"][4]["trades"][0]["get"] = "other_good"
    assert_names(
        deck_error(tmp_path, d), "border card 5 (Merchant)", "'trades[1].get'", "same_good"
    )


def test_empty_trades(tmp_path: Path) -> None:
    d = base_data()
    d["border"][4]["trades"] = []
    assert_names(deck_error(tmp_path, d), "border card 5 (Merchant)", "'trades'", "empty")


def test_unknown_confidence(tmp_path: Path) -> None:
    d = base_data()
    d["goods"][2]["confidence"] = "sure"
    assert_names(
        deck_error(tmp_path, d),
        "goods card 4 (1 date)",
        "'confidence'",
        "'sure'",
        "'high'",
        "'medium'",
        "'low'",
    )


def test_border_positions_once_each(tmp_path: Path) -> None:
    d = base_data()
    d["border"][2]["position"] = 2
    assert_names(deck_error(tmp_path, d), "'position'", "used twice", "1..16 exactly once")


def test_border_position_out_of_range(tmp_path: Path) -> None:
    d = base_data()
    d["border"][2]["position"] = 17
    assert_names(deck_error(tmp_path, d), "border entry 2 (", "'position'", "17", "1..16")


def test_border_count(tmp_path: Path) -> None:
    d = base_data()
    del d["border"][5]
    assert_names(deck_error(tmp_path, d), "'border'", "15", "exactly 16")


def test_raid_off_corner(tmp_path: Path) -> None:
    d = base_data()
    d["border"][3]["position"], d["border"][4]["position"] = 5, 4  # swap Raid 1 / Merchant
    msg = deck_error(tmp_path, d)
    assert_names(msg, "border card 4 (Merchant)", "'kind'", "'raid'", "4, 8, 12, 16")


def test_raid_order(tmp_path: Path) -> None:
    d = base_data()
    d["border"][3]["raid"], d["border"][7]["raid"] = 2, 1
    assert_names(
        deck_error(tmp_path, d), "border card 4 (Raid 1)", "'raid'", "out of order", "clockwise"
    )


def test_tribe_count_too_small_and_too_large(tmp_path: Path) -> None:
    d = base_data()
    d["tribe"] = d["tribe"][:8]
    assert_names(deck_error(tmp_path, d), "'tribe'", "8", f"9..{C.MAX_TRIBE}")
    d = base_data()
    d["tribe"] = d["tribe"] * 2
    assert_names(deck_error(tmp_path, d), "'tribe'", "90", f"9..{C.MAX_TRIBE}")


def test_goods_count(tmp_path: Path) -> None:
    d = base_data()
    d["goods"] = d["goods"][:2]  # 2 + 2 cards
    assert_names(deck_error(tmp_path, d), "'goods'", "4", f"5..{C.MAX_GOODS_CARDS}")


def test_goods_count_field_expands(tmp_path: Path) -> None:
    d = base_data()
    d["goods"][0]["count"] = 5
    deck = load_deck(write(tmp_path, d))
    assert deck.n_goods == 22 and deck.goods_names[:5] == ("1 salt",) * 5


def test_zero_cost_and_minimal_deck_allowed(tmp_path: Path) -> None:
    d = base_data()
    d["tribe"] = d["tribe"][:9]
    d["tribe"][0]["cost"] = {}
    deck = load_deck(write(tmp_path, d))
    assert deck.n_tribe == 9 and deck.tribe_cost[0].sum() == 0


@pytest.mark.parametrize(
    "ability,field,allowed",
    [
        (
            {"kind": "set_vp", "symbol": "Dragon", "set_size": 2, "vp": 1},
            "'ability.symbol'",
            "'Well'",
        ),
        (
            {"kind": "set_vp", "symbol": "Well", "set_size": 0, "vp": 1},
            "'ability.set_size'",
            "an integer 1..12",
        ),
        ({"kind": "position_vp", "vp": 2, "column": 5}, "'ability.column'", "1..4"),
        ({"kind": "position_vp", "vp": 2, "column": 0}, "'ability.column'", "1..4"),
        ({"kind": "raid_immunity", "raid": 5}, "'ability.raid'", "0..4"),
        ({"kind": "discount", "resource": "vp", "amount": 1}, "'ability.resource'", "'gold'"),
        (
            {"kind": "discount", "resource": "salt", "amount": 1, "symbol": "Dune"},
            "'ability.symbol'",
            "'Targia'",
        ),
        ({"kind": "immediate"}, "'ability.salt'", "at least one"),
        ({"kind": "move_two", "vp": 1}, "'ability.vp'", "'kind'"),
    ],
)
def test_ability_params_out_of_range(
    tmp_path: Path, ability: dict[str, Any], field: str, allowed: str
) -> None:
    d = base_data()
    d["tribe"][6]["ability"] = ability
    assert_names(deck_error(tmp_path, d), "tribe card 6 (", field, allowed)


def test_ability_param_vector(tmp_path: Path) -> None:
    d = base_data()
    d["tribe"][0]["ability"] = {
        "kind": "position_vp",
        "vp": 2,
        "column": 4,
        "symbol": "Camel Rider",
    }
    d["tribe"][1]["ability"] = {"kind": "discount", "resource": "gold", "amount": 1}
    d["tribe"][2]["ability"] = {"kind": "income", "dates": 1, "vp": 2}
    d["tribe"][3]["alt_cost"] = {"gold": 2}
    deck = load_deck(write(tmp_path, copy.deepcopy(d)))
    assert list(deck.tribe_ab_params[0]) == [2, 3, 1, 0, 0, 0]
    assert list(deck.tribe_ab_params[1]) == [C.GOLD, 1, -1, 0, 0, 0]
    assert list(deck.tribe_ab_params[2]) == [0, 0, 1, 0, 2, 0]
    assert deck.tribe_has_alt[3] == 1 and list(deck.tribe_alt_cost[3]) == [0, 0, 0, 2]


# --------------------------------------------------------------------- malformed rules
def _rules_file(tmp_path: Path, text: str, name: str = "bad.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def rules_error(path: Path) -> str:
    with pytest.raises(DataError) as info:
        load_rules(path)
    msg = str(info.value)
    assert str(path) in msg and "\n" not in msg
    return msg


def test_rules_unknown_key(tmp_path: Path) -> None:
    path = _rules_file(tmp_path, 'base = "default"\ntie_break = "gold_only"\n')
    assert_names(
        rules_error(path), "'tie_break'", "not a known field", "'tiebreak'", "'raid_unpaid'"
    )


def test_rules_bad_enum(tmp_path: Path) -> None:
    path = _rules_file(tmp_path, 'base = "default"\nfinal_raid_end = "later"\n')
    assert_names(rules_error(path), "'final_raid_end'", "'later'", "'immediate'", "'finish_round'")


def test_rules_negative_and_wrong_type(tmp_path: Path) -> None:
    path = _rules_file(tmp_path, 'base = "default"\nmax_goods = -2\n')
    assert_names(rules_error(path), "'max_goods'", "negative", "-2")
    path = _rules_file(tmp_path, 'base = "default"\nstart = { vp = "four" }\n', "b.toml")
    assert_names(rules_error(path), "'start.vp'", "wrong type")
    path = _rules_file(tmp_path, 'base = "default"\nstart = { coins = 1 }\n', "c.toml")
    assert_names(rules_error(path), "'start.coins'", "'salt'")


def test_rules_missing_key_without_base(tmp_path: Path) -> None:
    text = (data_dir() / "rules" / "default.toml").read_text()
    text = re.sub(r"(?m)^tiebreak = .*$", "", text)
    path = _rules_file(tmp_path, text)
    assert_names(rules_error(path), "'tiebreak'", "missing", "required fields")


def test_rules_unknown_base_and_cycle(tmp_path: Path) -> None:
    path = _rules_file(tmp_path, 'base = "nope"\n')
    assert_names(rules_error(path), "'base'", "'nope'", "default")
    a = _rules_file(tmp_path, 'base = "b.toml"\n', "a.toml")
    _rules_file(tmp_path, 'base = "a.toml"\n', "b.toml")
    assert_names(rules_error(a), "'base'", "cycle")


def test_rules_local_base_path(tmp_path: Path) -> None:
    _rules_file(tmp_path, (data_dir() / "rules" / "default.toml").read_text(), "mine.toml")
    path = _rules_file(tmp_path, 'base = "mine.toml"\nmax_gold = 5\n', "v.toml")
    r = load_rules(path)
    assert r.vector[C.RL_MAX_GOLD] == 5 and r.name == "v"


def test_rules_unknown_name() -> None:
    with pytest.raises(UsageError, match="default"):
        load_rules("no-such-rules")
