"""Hostile and accidental card and rules values (issue 13, item 3).

Every value a deck or rules file can set has an upper bound derived from what one game
can hold (targi_sim/engine/limits.py, docs/data-format.md "Bounds"). The reproducers below
each used to load and then wrap a log column, crash the engine, hang it, or fill the
memory; the property test plays random decks drawn within the bounds and checks that
the logs hold exactly what the engine computed.
"""

from __future__ import annotations

import tempfile
import time
import tomllib
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toml_writer import dumps

from targi_sim import DataError, game_plan, load_deck, load_rules, prepare_match
from targi_sim._utils.paths import data_dir
from targi_sim.engine import limits
from targi_sim.engine.buffers import table
from targi_sim.engine.constants import ABILITY_NAMES, SYMBOL_NAMES
from targi_sim.engine.logs import H_OVERFLOW, MAX_GOODS_ROWS
from targi_sim.game.record import GAME_COLUMNS
from targi_sim.play.games import run_batch
from targi_sim.runner.tables import LOGS, SCHEMAS, games_table, log_table

RAID_POSITIONS = (4, 8, 12, 16)


def base_deck() -> dict[str, Any]:
    with open(data_dir() / "decks" / "base.toml", "rb") as f:
        return tomllib.load(f)


def border(deck: dict[str, Any], position: int) -> dict[str, Any]:
    return next(b for b in deck["border"] if b["position"] == position)


def write(folder: Path, data: dict[str, Any], name: str) -> Path:
    path = folder / name
    path.write_text(dumps(data), encoding="utf-8")
    return path


def deck_error(tmp_path: Path, deck: dict[str, Any], *needles: str) -> str:
    path = write(tmp_path, deck, "hostile.toml")
    with pytest.raises(DataError) as info:
        load_deck(path)
    msg = str(info.value)
    for needle in (str(path), *needles):
        assert needle in msg, (needle, msg)
    return msg


def rules_error(tmp_path: Path, settings_: dict[str, Any], *needles: str) -> str:
    path = write(tmp_path, {"base": "default", **settings_}, "hostile-rules.toml")
    with pytest.raises(DataError) as info:
        load_rules(path)
    msg = str(info.value)
    for needle in (str(path), *needles):
        assert needle in msg, (needle, msg)
    return msg


# ------------------------------------------------------------- the reproducers


def test_a_border_gain_of_6000_vp_is_refused(tmp_path):
    """Used to give negative scores (-5,528) and a winner with the lower score."""
    d = base_deck()
    border(d, 2)["gain"] = {"vp": 6000}
    deck_error(tmp_path, d, "border card 2 (Dates)", "'gain.vp'", "6000", "0..10")


def test_a_huge_row_bonus_is_refused(tmp_path):
    """row_bonus_same_symbol = 40000 used to log -25,536."""
    rules_error(tmp_path, {"row_bonus_same_symbol": 40000}, "'row_bonus_same_symbol'",
                "40000", "0..100")


@pytest.mark.parametrize("where", ["gain", "start"])
def test_100000_dates_are_refused(tmp_path, where):
    """dates = 100000 used to log negative discards (an int8 column wrapped)."""
    if where == "gain":
        d = base_deck()
        border(d, 2)["gain"] = {"dates": 100000}
        deck_error(tmp_path, d, "'gain.dates'", "100000", "0..10")
    else:
        rules_error(tmp_path, {"start": {"dates": 100000}}, "'start.dates'", "0..100")


def test_a_tribe_card_worth_40000_vp_is_refused(tmp_path):
    """Used to end in an ArrowInvalid traceback writing cards.parquet."""
    d = base_deck()
    d["tribe"][3]["vp"] = 40000
    deck_error(tmp_path, d, "tribe card 3 (", "'vp'", "40000", "0..20")


def test_drawing_60_goods_cards_is_refused(tmp_path):
    """draw_goods amount = 60 used to stop the run with `engine log overflow`."""
    d = base_deck()
    card = next(b for b in d["border"] if b["kind"] == "draw_goods")
    card["amount"] = 60
    deck_error(tmp_path, d, f"border card {card['position']}", "'amount'", "60", "1..20")


def test_draw_goods_cards_may_not_add_up_beyond_a_games_goods_rows(tmp_path):
    """Six Targis on six draw_goods cards of 4 each would draw 24 goods cards a round."""
    d = base_deck()
    gains = [b for b in d["border"] if b["kind"] == "gain"]
    assert len(gains) == 6
    for b in gains:
        del b["gain"]
        b.update(kind="draw_goods", amount=4)
    deck_error(tmp_path, d, "'amount'", "24", "at most 20")
    for b in gains[:5]:
        b["amount"] = 3  # 5 x 3 + 4 = 19: fits
    assert load_deck(write(tmp_path, d, "ok.toml")).border_amount.max() == 4


def test_a_billion_goods_copies_are_refused_before_they_are_made(tmp_path):
    """count = 1000000000 used to be expanded first (about 20 GB before it was stopped)."""
    d = base_deck()
    d["goods"][0]["count"] = 1_000_000_000
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        deck_error(tmp_path, d, "goods card 0 (", "'count'", "1000000000", "1..64")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - t0 < 2.0
    assert peak < 50 * 2**20
    d["goods"][0]["count"] = 60  # within 1..64, but 18 more cards follow
    deck_error(tmp_path, d, "goods card 64 (2 salt)", "'count'", "at most 64 goods cards")


def test_a_deck_whose_raids_never_end_the_game_is_refused(tmp_path):
    """With ends_game false on all four raids, the engine played a game forever."""
    d = base_deck()
    for pos in RAID_POSITIONS:
        border(d, pos)["ends_game"] = False
    deck_error(tmp_path, d, "'ends_game'", "could never end")


def test_trade_tables_fit_the_engines_option_buffer(tmp_path):
    d = base_deck()
    merchant = next(b for b in d["border"] if b["kind"] == "exchange")
    trade = {"give": "same_good", "give_amount": 1, "get": "any_good", "get_amount": 1}
    merchant["trades"] = [dict(trade) for _ in range(17)]
    deck_error(tmp_path, d, f"border card {merchant['position']}", "'trades'", "at most 16")
    merchant["trades"] = [dict(trade, get_amount=6)]
    deck_error(tmp_path, d, "'trades[1].get_amount'", "1..5")
    exchanges = [b for b in d["border"] if b["kind"] in ("gain", "exchange")][:3]
    for b in exchanges:
        for key in ("gain", "trades"):
            b.pop(key, None)
        b.update(kind="exchange", trades=[dict(trade) for _ in range(11)])
    total = sum(len(b.get("trades", [])) for b in d["border"])
    assert total > 32
    deck_error(tmp_path, d, "deck: field 'trades'", f"got {total}", "at most 32")


# ------------------------------------------------------------- the derivation holds


def test_the_worst_case_game_fits_every_log_column():
    """The bounds' own arithmetic: a game with every value at its bound still fits."""
    worst = limits.worst_case()
    rounds = {f.name: f.type for f in SCHEMAS["rounds"]}
    games = {f.name: f.type for f in SCHEMAS["games"]}
    assert str(games["score_p0"]) == str(rounds["score_now"]) == "int16"
    assert worst["score"] <= limits.INT16_MAX
    assert str(rounds["goods_discarded"]) == str(rounds["gold_discarded"]) == "int16"
    assert worst["discarded in a round"] <= limits.INT16_MAX
    assert worst["holding at a round's end"] <= limits.INT16_MAX
    assert worst["goods rows per game"] <= MAX_GOODS_ROWS
    assert worst["trade options"] < limits.TRADE_OPTION_ROOM
    assert str(rounds["cards_acquired"]) == "int8"
    assert worst["cards acquired in a round"] <= limits.INT8_MAX


# ------------------------------------------------------------- property: random decks


GAIN = st.integers(0, limits.GAIN)
SMALL_COST = st.one_of(st.integers(0, 3), st.integers(0, limits.COST))


@st.composite
def trades(draw) -> list[dict[str, Any]]:
    out = []
    for _ in range(draw(st.integers(1, 4))):
        give = draw(st.sampled_from(["same_good", "gold", "salt", "pepper", "dates"]))
        gets = ["gold", "vp", "any_good", "salt", "pepper", "dates"]
        if give != "gold":
            gets.append("other_good")
        out.append({"give": give, "give_amount": draw(st.integers(1, limits.TRADE_GIVE)),
                    "get": draw(st.sampled_from(gets)),
                    "get_amount": draw(st.integers(1, limits.TRADE_GET))})
    return out


@st.composite
def abilities(draw) -> dict[str, Any] | None:
    kind = draw(st.sampled_from([k for k in ABILITY_NAMES if k != "none"] + [None]))
    if kind is None:
        return None
    symbol = st.sampled_from(SYMBOL_NAMES)
    if kind in ("immediate", "income"):
        gains = {k: draw(GAIN) for k in ("salt", "pepper", "dates", "gold", "vp")}
        gains["vp"] = max(gains["vp"], 1)
        return {"kind": kind, **gains}
    if kind == "raid_immunity":
        return {"kind": kind, "raid": draw(st.integers(0, 4))}
    if kind == "discount":
        return {"kind": kind, "resource": draw(st.sampled_from(["salt", "pepper", "dates",
                                                                 "gold"])),
                "amount": draw(st.integers(1, limits.DISCOUNT))}
    if kind == "set_vp":
        return {"kind": kind, "symbol": draw(symbol),
                "set_size": draw(st.integers(1, limits.SET_SIZE)),
                "vp": draw(st.integers(0, limits.ABILITY_VP))}
    if kind == "position_vp":
        return {"kind": kind, "vp": draw(st.integers(0, limits.ABILITY_VP)),
                "column": draw(st.integers(1, 4))}
    return {"kind": kind}


@st.composite
def decks(draw) -> dict[str, Any]:
    d = base_deck()
    d["name"] = "hypothesis"
    kinds = ["gain", "exchange", "noble", "fata_morgana", "draw_goods", "draw_tribe"]
    for b in d["border"]:
        if b["position"] in RAID_POSITIONS:
            for key in ("goods", "gold", "vp"):
                b[key] = draw(st.integers(0, limits.RAID_COST))
            b["ends_game"] = b["position"] == 16 or draw(st.booleans())
            continue
        kind = draw(st.sampled_from(kinds))
        keep = {k: b[k] for k in ("position", "name", "source", "confidence")}
        b.clear()
        b.update(keep, kind=kind)
        if kind == "gain":
            b["gain"] = {k: draw(GAIN) for k in ("salt", "pepper", "dates", "gold", "vp")}
        elif kind == "exchange":
            b["trades"] = draw(trades())
        elif kind == "draw_goods":
            b["amount"] = draw(st.integers(1, 6))
        elif kind == "draw_tribe":
            b["amount"] = draw(st.integers(1, limits.DRAW_TRIBE))
    draws = sorted((b for b in d["border"] if b.get("kind") == "draw_goods"),
                   key=lambda b: -b["amount"])[:2 * limits.TARGIS]
    while sum(b["amount"] for b in draws) > limits.DRAW_GOODS:  # the deck-level bound
        max(draws, key=lambda b: b["amount"])["amount"] -= 1
    d["goods"] = []
    for i in range(draw(st.integers(5, 12))):
        card = {k: draw(GAIN) for k in ("salt", "pepper", "dates", "gold", "vp", "choose_one")}
        card["salt"] = max(card["salt"], 1)
        d["goods"].append({"name": f"goods {i}", "count": draw(st.integers(1, 3)), **card,
                           "source": "test", "confidence": "low"})
    for card in d["tribe"]:
        card["vp"] = draw(st.integers(0, limits.TRIBE_VP))
        card["cost"] = {k: draw(SMALL_COST) for k in ("salt", "pepper", "dates", "gold")}
        ability = draw(abilities())
        if ability:
            card["ability"] = ability
    return d


RULES = st.fixed_dictionaries({
    "max_goods": st.integers(0, limits.HOLDING_LIMIT),
    "max_gold": st.integers(0, limits.HOLDING_LIMIT),
    "raid_unpaid": st.sampled_from(["opponent_gains_fixed", "opponent_gains_raid_vp",
                                    "nothing"]),
    "raid_unpaid_vp": st.integers(0, limits.RAID_UNPAID_VP),
    "final_raid_end": st.sampled_from(["immediate", "finish_round"]),
    "row_bonus_same_symbol": st.integers(0, limits.ROW_BONUS),
    "row_bonus_all_different": st.integers(0, limits.ROW_BONUS),
    "start": st.fixed_dictionaries({k: st.integers(0, limits.START)
                                    for k in ("salt", "pepper", "dates", "gold", "vp")}),
})


def _check_tables(tables: dict, rules: dict[str, Any]) -> None:
    """The logs' invariants for one batch of games (narrowed Arrow columns)."""
    g = tables["games"].to_pydict()
    for i in range(len(g["game_id"])):
        s0, s1 = g["score_p0"][i], g["score_p1"][i]
        for p, score in enumerate((s0, s1)):
            parts = sum(g[f"{k}_p{p}"][i] for k in ("tokens", "card_vp", "ability_vp",
                                                     "row_bonus"))
            assert score == parts >= 0, (i, p, score, parts)
            assert 0 <= g[f"gold_p{p}"][i] <= rules["max_gold"]
            assert 0 <= g[f"goods_p{p}"][i] <= rules["max_goods"]
        if s0 != s1:
            assert g["winner"][i] == (0 if s0 > s1 else 1) and g["tiebreak"][i] == "none"
        else:
            assert g["tiebreak"][i] != "none"
        assert 1 <= g["rounds"][i] <= limits.ROUNDS
    r = tables["rounds"].to_pydict()
    for i in range(len(r["game_id"])):
        assert r["goods_discarded"][i] >= 0 and r["gold_discarded"][i] >= 0
        goods = r["salt"][i] + r["pepper"][i] + r["dates"][i]
        assert min(r["salt"][i], r["pepper"][i], r["dates"][i], r["gold"][i],
                   r["vp_tokens"][i]) >= 0
        assert goods <= rules["max_goods"] and r["gold"][i] <= rules["max_gold"]
        assert 0 <= r["display_count"][i] <= 12 and r["score_now"][i] >= r["vp_tokens"][i]
    raids = tables["raids"].to_pydict()
    assert all(a >= 0 for a in raids["amount"]) and all(b >= 0 for b in raids["opponent_bonus"])


def _play_and_narrow(match, seed: int, games: int) -> list[dict]:
    """Play like a run chunk does, and check every narrowed column against the engine's
    own int32 log (a wrapped value differs from it)."""
    seeds, first, ids = game_plan(games, seed)
    batches: list[dict] = []

    def flush(L: np.ndarray, done: int, nxt: int) -> None:
        assert L[H_OVERFLOW] == 0, "engine log overflow"
        narrowed = {}
        for name, t, columns in LOGS:
            raw = table(L, t)
            narrowed[name] = log_table(name, raw, columns, match.deck.tribe_symbol)
            for field in SCHEMAS[name]:
                if field.name in columns and str(field.type) in ("int8", "int16"):
                    values = narrowed[name][field.name].to_numpy()
                    assert np.array_equal(values, raw[:, columns.index(field.name)]), \
                        (name, field.name)
        batches.append(narrowed)

    G, _ = run_batch(match, seeds, first, ids, on_flush=flush)
    batches[0]["games"] = games_table(G, seeds, True, match.strategies)  # checks every value
    for field in SCHEMAS["games"]:
        if str(field.type) == "int16":
            column = GAME_COLUMNS.index(field.name)
            assert np.array_equal(batches[0]["games"][field.name].to_numpy(), G[:, column])
    for later in batches[1:]:
        later["games"] = batches[0]["games"].slice(0, 0)
    return batches


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deck=decks(), rules=RULES, seed=st.integers(0, 2**31 - 1),
       p1=st.sampled_from(["random", "greedy", "balanced"]))
def test_random_decks_within_the_bounds_log_exactly_what_the_engine_computed(deck, rules,
                                                                             seed, p1):
    """Property: any deck and rules within the bounds play to the end, nothing wraps
    (the narrowed Parquet columns equal the engine's values), and the logs are
    consistent (the winner has the higher score, a score is the sum of its parts, no
    negative discards or holdings, holdings within the round-end limits)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        loaded_deck = load_deck(write(folder, deck, "deck.toml"))
        loaded_rules = load_rules(write(folder, {"base": "default", **rules}, "rules.toml"))
    match = prepare_match(("random", p1), loaded_deck, loaded_rules)
    batches = _play_and_narrow(match, seed, games=4)
    assert batches[0]["games"].num_rows == 4
    for tables in batches:
        _check_tables(tables, rules)


def test_replay_says_when_a_games_decisions_overflow_its_trace(monkeypatch):
    """A deck at the extreme bounds can make more decisions than replay's trace holds;
    the replay then says it shows only the first ones (here: a trace of 50 rows)."""
    from typer.testing import CliRunner

    from targi_sim.cli.app import app
    from targi_sim.play import games as api

    monkeypatch.setattr(api, "MAX_TRACE_ROWS", 50)
    result = CliRunner().invoke(app, ["replay", "--seed", "3", "--p0", "random", "--p1",
                                      "random"])
    assert result.exit_code == 0, result.output
    assert "only the first 50 decisions" in result.output
    monkeypatch.undo()
    full = CliRunner().invoke(app, ["replay", "--seed", "3", "--p0", "random"])
    assert full.exit_code == 0 and "only the first" not in full.output
