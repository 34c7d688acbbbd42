"""Load a deck TOML file into the flat int32 arrays the compiled engine reads.

Why: card data (trade rates, goods amounts, costs, abilities) is the least certain part
of the rules, so it lives in editable files; this module is the only place that turns
names into the integer codes of `constants.py` and refuses malformed files early with
a `DataError` naming file, card, field and allowed values.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from targi_sim._utils.paths import data_dir
from targi_sim.engine import constants as C
from targi_sim.engine import limits as L
from targi_sim.errors import DataError, FieldReader, UsageError, read_text, read_toml

CONFIDENCES = ("high", "medium", "low")
COST_KEYS = ("salt", "pepper", "dates", "gold")
GAIN_KEYS = ("salt", "pepper", "dates", "gold", "vp")
RESOURCE_INDEX = {"salt": C.SALT, "pepper": C.PEPPER, "dates": C.DATES, "gold": C.GOLD}
RAID_POSITIONS = (4, 8, 12, 16)  # clockwise: raid 1, 2, 3, 4
MIN_TRIBE = 9  # three rounds' worth of the central tribe cells
MIN_GOODS = 5  # the initial central layout holds 5 goods cards

_COMMON = ("position", "name", "kind", "source", "confidence")
_BORDER_FIELDS = {
    "raid": ("raid", "goods", "gold", "vp", "ends_game"),
    "gain": ("gain",),
    "exchange": ("trades", "times"),
    "noble": (),
    "fata_morgana": (),
    "draw_goods": ("amount",),
    "draw_tribe": ("amount",),
}
_GOODS_FIELDS = ("name", "count", *GAIN_KEYS, "choose_one", "source", "confidence")
_TRIBE_FIELDS = ("name", "symbol", "vp", "cost", "alt_cost", "ability", "source", "confidence")
_ABILITY_FIELDS = {
    "immediate": GAIN_KEYS,
    "income": GAIN_KEYS,
    "raid_immunity": ("raid",),
    "discount": ("resource", "amount", "symbol"),
    "set_vp": ("symbol", "set_size", "vp"),
    "position_vp": ("vp", "column", "symbol"),
    "play_hand": (),
    "move_two": (),
}
_GOOD_GIVES = ("same_good", "salt", "pepper", "dates")


def _i32(values: Any, shape: tuple[int, ...] | None = None) -> np.ndarray:
    arr = np.asarray(values, dtype=np.int32)
    return arr.reshape(shape) if shape is not None else arr


@dataclass(frozen=True, eq=False)
class Deck:
    """A validated deck: names, provenance and int32 arrays indexed by card."""

    name: str
    path: Path
    content: str
    sha256: str
    description: str
    border_names: tuple[str, ...]
    border_source: tuple[str, ...]
    border_confidence: tuple[str, ...]
    border_kind: np.ndarray
    border_gain: np.ndarray
    border_amount: np.ndarray
    border_trade_lo: np.ndarray
    border_trade_hi: np.ndarray
    trade_give: np.ndarray
    trade_give_amount: np.ndarray
    trade_get: np.ndarray
    trade_get_amount: np.ndarray
    raid_number: np.ndarray
    raid_goods: np.ndarray
    raid_gold: np.ndarray
    raid_vp: np.ndarray
    raid_ends_game: np.ndarray
    goods_names: tuple[str, ...]
    goods_source: tuple[str, ...]
    goods_confidence: tuple[str, ...]
    goods: np.ndarray
    tribe_names: tuple[str, ...]
    tribe_source: tuple[str, ...]
    tribe_confidence: tuple[str, ...]
    tribe_symbol: np.ndarray
    tribe_vp: np.ndarray
    tribe_cost: np.ndarray
    tribe_alt_cost: np.ndarray
    tribe_has_alt: np.ndarray
    tribe_ability: np.ndarray
    tribe_ab_params: np.ndarray
    # the `name` the file gives, when it is a shipped deck's name but the content is not
    # that deck's: `name` is then the file's name, so no report calls a copy "base"
    declared_name: str = ""

    @property
    def n_tribe(self) -> int:
        return len(self.tribe_names)

    @property
    def n_goods(self) -> int:
        return len(self.goods_names)


def list_decks() -> list[str]:
    """Names of the decks shipped in `data/decks/`."""
    return sorted(p.stem for p in (data_dir() / "decks").glob("*.toml"))


def resolve(kind: str, folder: str, name_or_path: str | Path, valid: list[str]) -> Path:
    """A bare name -> data/<folder>/<name>.toml (UsageError if unknown); else a path."""
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or text.endswith(".toml") or "/" in text or "\\" in text:
        return Path(name_or_path)
    path = data_dir() / folder / f"{text}.toml"
    if not path.is_file():
        raise UsageError(kind, text, valid)
    return path


_LOADED: dict[tuple[str, str], Deck] = {}


def _impersonates(path: Path, name: str, text: str) -> bool:
    """True if a deck file outside data/decks/ gives itself a shipped deck's name but
    differs from that deck (a copy of base.toml that was edited and kept its name)."""
    shipped = data_dir() / "decks" / f"{name}.toml"
    if name not in list_decks() or path.resolve() == shipped.resolve():
        return False
    try:
        return shipped.read_text(encoding="utf-8") != text
    except OSError:
        return False


def load_deck(name_or_path: str | Path) -> Deck:
    """Load and validate a deck by shipped name ("base") or by file path.

    A file whose text was loaded before in this process gives the same Deck again
    (decks are immutable): `new_game` in a loop does not parse and check it each time."""
    path = resolve("deck", "decks", name_or_path, list_decks())
    key = (str(path.resolve()), read_text(path))
    if key in _LOADED:
        return _LOADED[key]
    if len(_LOADED) > 64:
        _LOADED.clear()
    _LOADED[key] = deck = _load_deck(path)
    return deck


def _load_deck(path: Path) -> Deck:
    text, data = read_toml(path)
    top = FieldReader(path, "deck", data)
    top.check_keys(
        ("name", "description", "border", "goods", "tribe"),
        required=("name", "border", "goods", "tribe"),
    )
    b = _load_border(path, top.get_list("border"))
    g = _load_goods(path, top.get_list("goods"))
    t = _load_tribe(path, top.get_list("tribe"))
    name = top.get_str("name")
    declared = name if _impersonates(path, name, text) else ""
    return Deck(
        name=path.name if declared else name,
        declared_name=declared,
        path=path,
        content=text,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        description=top.get_str("description", ""),
        **b,
        **g,
        **t,
    )


def _provenance(r: FieldReader) -> tuple[str, str]:
    return r.get_str("source"), r.get_choice("confidence", CONFIDENCES)


def _entries(path: Path, items: list[Any], label: str) -> list[FieldReader]:
    """A reader per entry, named by its index from 0 (the numbering of card_id) and its
    name when it has one; loaders refine `where` once they know the card's id."""
    out = []
    for i, item in enumerate(items):
        name = item.get("name") if isinstance(item, dict) else None
        out.append(FieldReader(path, f"{label} {i}" + (f" ({name})" if isinstance(name, str)
                                                        else ""), item))
    return out


def _load_border(path: Path, items: list[Any]) -> dict[str, Any]:
    if len(items) != C.N_BORDER:
        raise DataError(
            path,
            "deck",
            "border",
            len(items),
            "exactly 16 [[border]] entries",
            "has the wrong number of cards",
        )
    by_pos: dict[int, FieldReader] = {}
    for r in _entries(path, items, "border entry"):
        pos = r.get_int("position", lo=1, hi=C.N_BORDER)
        if pos in by_pos:
            raise r.error("position", pos, "each of 1..16 exactly once", "is used twice")
        name = r.data.get("name")
        r.where = f"border card {pos}" + (f" ({name})" if isinstance(name, str) else "")
        by_pos[pos] = r
    out: dict[str, Any] = {
        k: []
        for k in (
            "names",
            "source",
            "confidence",
            "kind",
            "gain",
            "amount",
            "lo",
            "hi",
            "raid",
            "raid_goods",
            "raid_gold",
            "raid_vp",
            "raid_ends",
        )
    }
    trades: list[tuple[int, int, int, int]] = []
    for pos in range(1, C.N_BORDER + 1):
        r = by_pos[pos]
        kind = r.get_choice("kind", C.BORDER_KIND_NAMES)
        optional = ("times",) if kind == "exchange" else ()
        r.check_keys(_COMMON + _BORDER_FIELDS[kind],
                     required=("name",) + tuple(k for k in _BORDER_FIELDS[kind]
                                                if k not in optional))
        is_corner = pos in RAID_POSITIONS
        if is_corner != (kind == "raid"):
            allowed = "'raid'" if is_corner else "any kind except 'raid'"
            raise r.error(
                "kind",
                kind,
                allowed + " (raid cards sit exactly on 4, 8, 12, 16)",
                "is not allowed at this position",
            )
        out["names"].append(r.get_str("name"))
        src, conf = _provenance(r)
        out["source"].append(src)
        out["confidence"].append(conf)
        out["kind"].append(C.BORDER_KIND_NAMES.index(kind))
        gain = (r.get_table("gain", GAIN_KEYS).ints(GAIN_KEYS, hi=L.GAIN) if kind == "gain"
                else [0] * 5)
        out["gain"].append(gain)
        most = L.DRAW_GOODS if kind == "draw_goods" else L.DRAW_TRIBE
        if kind.startswith("draw_"):
            out["amount"].append(r.get_int("amount", lo=1, hi=most))
        elif kind == "exchange" and r.data.get("times", "any") != "any":
            # trades per action; absent or "any" = any number (stored as 0)
            times = r.data["times"]
            if isinstance(times, bool) or not isinstance(times, int) or not (
                    1 <= times <= L.TRADES_PER_ACTION):
                raise r.error("times", times, f'"any" or a whole number 1..'
                              f"{L.TRADES_PER_ACTION}", "is not allowed")
            out["amount"].append(times)
        else:
            out["amount"].append(0)
        out["lo"].append(len(trades))
        if kind == "exchange":
            trades.extend(_load_trades(r))
        out["hi"].append(len(trades))
        raid = [0, 0, 0, 0, 0]
        if kind == "raid":
            expected = RAID_POSITIONS.index(pos) + 1
            number = r.get_int("raid", lo=1, hi=4)
            if number != expected:
                raise r.error(
                    "raid",
                    number,
                    f"{expected} (raids 1..4 run clockwise on positions 4, 8, 12, 16)",
                    "is out of order",
                )
            raid = [
                number,
                r.get_int("goods", hi=L.RAID_COST),
                r.get_int("gold", hi=L.RAID_COST),
                r.get_int("vp", hi=L.RAID_COST),
                int(r.get_bool("ends_game")),
            ]
        for key, value in zip(
            ("raid", "raid_goods", "raid_gold", "raid_vp", "raid_ends"), raid, strict=True
        ):
            out[key].append(value)
    _check_game_ends(path, out["raid_ends"])
    _check_draw_goods(path, by_pos, out["kind"], out["amount"])
    if len(trades) > L.TRADES_PER_DECK:
        raise DataError(path, "deck", "trades", len(trades),
                        f"at most {L.TRADES_PER_DECK} trades over all exchange cards "
                        "(the engine's trade table)", "has too many entries")
    return {
        "border_names": tuple(out["names"]),
        "border_source": tuple(out["source"]),
        "border_confidence": tuple(out["confidence"]),
        "border_kind": _i32(out["kind"]),
        "border_gain": _i32(out["gain"], (C.N_BORDER, 5)),
        "border_amount": _i32(out["amount"]),
        "border_trade_lo": _i32(out["lo"]),
        "border_trade_hi": _i32(out["hi"]),
        "trade_give": _i32([t[0] for t in trades]),
        "trade_give_amount": _i32([t[1] for t in trades]),
        "trade_get": _i32([t[2] for t in trades]),
        "trade_get_amount": _i32([t[3] for t in trades]),
        "raid_number": _i32(out["raid"]),
        "raid_goods": _i32(out["raid_goods"]),
        "raid_gold": _i32(out["raid_gold"]),
        "raid_vp": _i32(out["raid_vp"]),
        "raid_ends_game": _i32(out["raid_ends"]),
    }


def _check_game_ends(path: Path, ends: list[int]) -> None:
    """A deck whose raids never end the game would be played forever."""
    if not any(ends):
        raise DataError(path, "deck", "ends_game", None,
                        "true on at least one raid card (usually raid 4, position 16)",
                        "is false on every raid card, so a game could never end")


def _check_draw_goods(path: Path, by_pos: dict[int, FieldReader], kinds: list[int],
                      amounts: list[int]) -> None:
    """All six Targis of a round may stand on draw_goods cards: their draws together
    must fit the goods rows one game may log (docs/data-format.md, Bounds)."""
    draw = C.BORDER_KIND_NAMES.index("draw_goods")
    cards = sorted(((amounts[i], i + 1) for i in range(C.N_BORDER) if kinds[i] == draw),
                   reverse=True)[:2 * L.TARGIS]
    total = sum(a for a, _ in cards)
    if total > L.DRAW_GOODS:
        names = ", ".join(f"{pos} ({by_pos[pos].data.get('name')})" for _, pos in cards)
        raise DataError(path, f"border cards {names}", "amount", total,
                        f"at most {L.DRAW_GOODS} added up over the six largest (a round's "
                        "Targis can stand on six cards)", "adds up to too much")


def _load_trades(r: FieldReader) -> list[tuple[int, int, int, int]]:
    rules = r.get_list("trades")
    if not rules:
        raise r.error(
            "trades", rules, "at least one {give, give_amount, get, get_amount}", "is empty"
        )
    if len(rules) > L.TRADES_PER_CARD:
        raise r.error("trades", len(rules), f"at most {L.TRADES_PER_CARD} trades per card",
                      "has too many entries")
    out = []
    for i, item in enumerate(rules):
        t = FieldReader(r.path, r.where, item, f"trades[{i + 1}].")
        t.check_keys(
            ("give", "give_amount", "get", "get_amount"),
            required=("give", "give_amount", "get", "get_amount"),
        )
        give = t.get_choice("give", C.TRADE_GIVE_NAMES)
        get = t.get_choice("get", C.TRADE_GET_NAMES)
        if get == "other_good" and give not in _GOOD_GIVES:
            raise t.error(
                "get",
                get,
                f"'other_good' only when giving goods ({', '.join(_GOOD_GIVES)})",
                "does not fit the give side",
            )
        out.append(
            (
                C.TRADE_GIVE_NAMES.index(give),
                t.get_int("give_amount", lo=1, hi=L.TRADE_GIVE),
                C.TRADE_GET_NAMES.index(get),
                t.get_int("get_amount", lo=1, hi=L.TRADE_GET),
            )
        )
    return out


def _load_goods(path: Path, items: list[Any]) -> dict[str, Any]:
    names, sources, confs, rows = [], [], [], []
    for r in _entries(path, items, "goods entry"):
        name = r.data.get("name")
        r.where = f"goods card {len(rows)}" + (f" ({name})" if isinstance(name, str) else "")
        r.check_keys(_GOODS_FIELDS, required=("name", "source", "confidence"))
        row = [r.get_int(k, 0, hi=L.GAIN) for k in GAIN_KEYS] + [
            r.get_int("choose_one", 0, hi=L.GAIN)]
        if not any(row):
            raise r.error(
                "salt",
                0,
                "at least one of salt, pepper, dates, gold, vp, choose_one > 0",
                "leaves the card empty",
            )
        count = r.get_int("count", 1, lo=1, hi=L.GOODS_COUNT)
        if len(rows) + count > C.MAX_GOODS_CARDS:  # checked before the copies are made
            raise r.error("count", count, f"at most {C.MAX_GOODS_CARDS} goods cards in all "
                          f"({len(rows)} before this entry)", "makes too many cards")
        src, conf = _provenance(r)
        for _ in range(count):
            names.append(r.get_str("name"))
            sources.append(src)
            confs.append(conf)
            rows.append(row)
    if not MIN_GOODS <= len(rows) <= C.MAX_GOODS_CARDS:
        raise DataError(
            path,
            "deck",
            "goods",
            len(rows),
            f"{MIN_GOODS}..{C.MAX_GOODS_CARDS} goods cards (counting `count`)",
            "has the wrong number of cards",
        )
    return {
        "goods_names": tuple(names),
        "goods_source": tuple(sources),
        "goods_confidence": tuple(confs),
        "goods": _i32(rows, (len(rows), 6)),
    }


def _load_tribe(path: Path, items: list[Any]) -> dict[str, Any]:
    if not MIN_TRIBE <= len(items) <= C.MAX_TRIBE:
        raise DataError(
            path,
            "deck",
            "tribe",
            len(items),
            f"{MIN_TRIBE}..{C.MAX_TRIBE} [[tribe]] entries (one per card)",
            "has the wrong number of cards",
        )
    cols: dict[str, list[Any]] = {
        k: []
        for k in (
            "names",
            "source",
            "confidence",
            "symbol",
            "vp",
            "cost",
            "alt",
            "has_alt",
            "ability",
            "params",
        )
    }
    auto: Counter[tuple[str, int]] = Counter()
    for i, r in enumerate(_entries(path, items, "tribe card")):
        # one numbering in user-facing text: the card_id of every table (from 0), with
        # the card's name beside it (its default name when the fields allow one)
        name = r.data.get("name")
        raw_symbol, raw_vp = r.data.get("symbol"), r.data.get("vp")
        if not isinstance(name, str) and raw_symbol in C.SYMBOL_NAMES \
                and type(raw_vp) is int:
            name = f"{raw_symbol} {raw_vp}VP #{auto[raw_symbol, raw_vp] + 1}"
        r.where = f"tribe card {i}" + (f" ({name})" if isinstance(name, str) else "")
        r.check_keys(_TRIBE_FIELDS, required=("symbol", "vp", "cost", "source", "confidence"))
        symbol = r.get_choice("symbol", C.SYMBOL_NAMES)
        vp = r.get_int("vp", hi=L.TRIBE_VP)
        if "name" in r.data:
            name = r.get_str("name")
        else:
            auto[symbol, vp] += 1
            name = f"{symbol} {vp}VP #{auto[symbol, vp]}"
        cols["names"].append(name)
        src, conf = _provenance(r)
        cols["source"].append(src)
        cols["confidence"].append(conf)
        cols["symbol"].append(C.SYMBOL_NAMES.index(symbol))
        cols["vp"].append(vp)
        cols["cost"].append(r.get_table("cost").ints(COST_KEYS, hi=L.COST))
        has_alt = "alt_cost" in r.data
        cols["alt"].append(r.get_table("alt_cost").ints(COST_KEYS, hi=L.COST) if has_alt
                           else [0] * 4)
        cols["has_alt"].append(int(has_alt))
        kind, params = _load_ability(r) if "ability" in r.data else (C.AB_NONE, [0] * 6)
        cols["ability"].append(kind)
        cols["params"].append(params)
    n = len(items)
    return {
        "tribe_names": tuple(cols["names"]),
        "tribe_source": tuple(cols["source"]),
        "tribe_confidence": tuple(cols["confidence"]),
        "tribe_symbol": _i32(cols["symbol"]),
        "tribe_vp": _i32(cols["vp"]),
        "tribe_cost": _i32(cols["cost"], (n, 4)),
        "tribe_alt_cost": _i32(cols["alt"], (n, 4)),
        "tribe_has_alt": _i32(cols["has_alt"]),
        "tribe_ability": _i32(cols["ability"]),
        "tribe_ab_params": _i32(cols["params"], (n, C.N_AB_PARAMS)),
    }


def _load_ability(r: FieldReader) -> tuple[int, list[int]]:
    """Map the named TOML params to the 6-int vector documented in constants.py."""
    a = r.get_table("ability")
    kinds = [k for k in C.ABILITY_NAMES if k != "none"]
    kind = a.get_choice("kind", kinds)
    a.check_keys(("kind",) + _ABILITY_FIELDS[kind])
    p = [0] * C.N_AB_PARAMS

    def symbol_or_none() -> int:
        if "symbol" not in a.data:
            return -1
        return C.SYMBOL_NAMES.index(a.get_choice("symbol", C.SYMBOL_NAMES))

    if kind in ("immediate", "income"):
        p[:5] = [a.get_int(k, 0, hi=L.GAIN) for k in GAIN_KEYS]
        if not any(p):
            raise a.error(
                "salt", 0, "at least one of salt, pepper, dates, gold, vp > 0", "gives nothing"
            )
    elif kind == "raid_immunity":
        p[0] = a.get_int("raid", lo=0, hi=4)
    elif kind == "discount":
        p[0] = RESOURCE_INDEX[a.get_choice("resource", COST_KEYS)]
        p[1] = a.get_int("amount", lo=1, hi=L.DISCOUNT)
        p[2] = symbol_or_none()
    elif kind == "set_vp":
        p[0] = C.SYMBOL_NAMES.index(a.get_choice("symbol", C.SYMBOL_NAMES))
        p[1] = a.get_int("set_size", lo=1, hi=L.SET_SIZE)
        p[2] = a.get_int("vp", hi=L.ABILITY_VP)
    elif kind == "position_vp":
        p[0] = a.get_int("vp", hi=L.ABILITY_VP)
        p[1] = a.get_int("column", lo=1, hi=C.DISPLAY_COLS) - 1
        p[2] = symbol_or_none()
    return C.ABILITY_NAMES.index(kind), p
