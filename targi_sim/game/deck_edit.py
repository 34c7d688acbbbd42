"""`--set PATH = V1, V2`: a small, validated path grammar over the deck TOML and rules.

Why: a designer sweeping a trade rate or a card cost should name it as it reads in the
deck file, not copy and edit a file per variant. A path names one value:

    tribe['Oasis 3VP #1'].cost          a tribe card by name (or tribe[12]: entry 12)
    tribe[3].cost.salt                  one key of a table
    border.Silversmith.trades[1].get_amount   a border card by name (or border[10]:
                                        position 10), a trade by number (from 1)
    goods['1 gold'].gold                a goods entry by name (or goods[11])
    rules.final_raid_end                a rules setting; rules.start.gold

Values are TOML values (`{salt=1, pepper=1}`, `2`, `"finish_round"`; a bare word such
as `finish_round` is read as a string). A path that names nothing gets an `InputError`
naming the path and the allowed keys, cards or numbers; a value the deck or rules
loader refuses gets its `DataError` (file, card, field, allowed values), the file being
the `--set` expression.
"""

from __future__ import annotations

import re
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from targi_sim._utils import toml_out
from targi_sim.errors import DataError, InputError
from targi_sim.game import deck as D
from targi_sim.game.rules import SETTING_KEYS, START, Rules

ROOTS = ("tribe", "border", "goods", "rules")
_TRADE_KEYS = ("give", "give_amount", "get", "get_amount")
# keys of the tables inside an entry: table key -> allowed keys
_SUBTABLES = {"cost": D.COST_KEYS, "alt_cost": D.COST_KEYS, "gain": D.GAIN_KEYS}

_TOKEN = re.compile(r"""\s*(?:
    (?P<dot>\.)\s*(?P<name>[A-Za-z_][A-Za-z0-9_-]*)
  | \[\s*(?P<int>-?\d+)\s*\]
  | \[\s*(?P<str>'[^']*'|"(?:[^"\\]|\\.)*")\s*\]
)""", re.VERBOSE)


@dataclass(frozen=True)
class Edit:
    """One parsed path: its root, the entry it selects (None for rules) and the keys
    below it (str for a table key, int for a 1-based list index). A tribe card is
    selected by its card_id (0-based, as in the run tables), a border card by its
    position, a goods entry by its 1-based place in the [[goods]] list."""

    text: str
    root: str
    entry: int | None  # index into the deck's [[root]] list
    entry_label: str
    keys: tuple[str | int, ...]

    @property
    def is_rules(self) -> bool:
        return self.root == "rules"


def _tokens(text: str, rest: str) -> list[tuple[str, str | int]]:
    out, pos = [], 0
    while pos < len(rest):
        if not rest[pos:].strip():
            break
        m = _TOKEN.match(rest, pos)
        if not m:
            raise InputError(f"`set` path {text!r}: cannot read {rest[pos:].strip()!r}; a path "
                             "is ROOT then .key, [number] or ['name'] parts, e.g. "
                             "tribe['Oasis 3VP #1'].cost or border.Silversmith.trades[1]"
                             ".get_amount")
        if m.group("name") is not None:
            out.append(("key", m.group("name")))
        elif m.group("int") is not None:
            out.append(("index", int(m.group("int"))))
        else:
            out.append(("name", tomllib.loads(f"v = {m.group('str')}")["v"]))
        pos = m.end()
    return out


def _names(kind: str, deck: D.Deck, items: list[dict]) -> list[str]:
    if kind == "tribe":
        return list(deck.tribe_names)
    return [str(item.get("name", "")) for item in items]


def _select(text: str, kind: str, token: tuple[str, str | int], deck: D.Deck,
            items: list[dict]) -> tuple[int, str]:
    """(index into items, a label) of the entry `token` selects, or InputError."""
    names = _names(kind, deck, items)
    how, what = token
    if how == "index":
        if kind == "border":
            positions = [item.get("position") for item in items]
            if what in positions:
                return positions.index(what), f"border card {what} ({names[positions.index(what)]})"
            raise InputError(f"`set` path {text!r}: border[{what}] names no card; allowed: "
                             f"positions 1..{len(items)}")
        if kind == "tribe":  # by card_id, the tribe card's number in every table
            if not 0 <= int(what) < len(items):
                raise InputError(f"`set` path {text!r}: tribe[{what}] names no card; allowed: "
                                 f"card_id 0..{len(items) - 1}")
            return int(what), f"tribe card {what} ({names[int(what)]})"
        if not 1 <= int(what) <= len(items):
            raise InputError(f"`set` path {text!r}: {kind}[{what}] names no entry; allowed: "
                             f"1..{len(items)} (the order of [[{kind}]] entries in the deck)")
        i = int(what) - 1
        return i, f"{kind} #{what} ({names[i]})"
    hits = [i for i, n in enumerate(names) if n == what]
    if not hits:
        listed = ", ".join(repr(n) for n in dict.fromkeys(names))
        raise InputError(f"`set` path {text!r}: no {kind} card named {what!r}; allowed: "
                         f"{listed}")
    if len(hits) > 1:
        if kind == "border":
            where = ", ".join(f"border[{items[i].get('position')}]" for i in hits)
        else:
            where = ", ".join(f"{kind}[{i if kind == 'tribe' else i + 1}]" for i in hits)
        raise InputError(f"`set` path {text!r}: {len(hits)} {kind} entries are named {what!r}; "
                         f"name one by number: {where}")
    i = hits[0]
    label = (f"border card {items[i].get('position')} ({what})" if kind == "border"
             else f"tribe card {i} ({what})" if kind == "tribe" else f"{kind} #{i + 1} ({what})")
    return i, label


def _entry_keys(kind: str, item: dict) -> tuple[str, ...]:
    if kind == "tribe":
        return tuple(k for k in D._TRIBE_FIELDS if k != "name")
    if kind == "goods":
        return tuple(k for k in D._GOODS_FIELDS if k != "name")
    card_kind = item.get("kind")
    return tuple(k for k in D._COMMON + D._BORDER_FIELDS.get(card_kind, ())
                 if k not in ("position", "name", "kind"))


def _sub_keys(key: str, current: Any) -> tuple[str, ...] | None:
    """The keys a table under `key` may hold (None: not a table we know)."""
    if key in _SUBTABLES:
        return _SUBTABLES[key]
    if key == "ability" and isinstance(current, dict):
        return ("kind", *D._ABILITY_FIELDS.get(current.get("kind"), ()))
    return None


def parse_path(text: str, deck: D.Deck) -> Edit:
    """Parse and resolve a --set path against `deck` (InputError if it names nothing)."""
    text = text.strip()
    m = re.match(r"\s*([A-Za-z_]+)", text)
    root = m.group(1) if m else ""
    if root not in ROOTS:
        raise InputError(f"`set` path {text!r}: it must start with one of {', '.join(ROOTS)}")
    tokens = _tokens(text, text[m.end():])
    if root == "rules":
        return _rules_path(text, tokens)
    data = tomllib.loads(deck.content)
    items = data.get(root, [])
    if not tokens:
        raise InputError(f"`set` path {text!r}: name a {root} card: {root}[number], "
                         f"{root}['name']" + (f" or {root}.Name" if root == "border" else ""))
    index, label = _select(text, root, tokens[0], deck, items)
    keys: list[str | int] = []
    current: Any = items[index]
    allowed: tuple[str, ...] | None = _entry_keys(root, items[index])
    parent_key = ""
    for how, what in tokens[1:]:
        if how == "key":
            if not isinstance(current, dict) and current is not None:
                raise InputError(f"`set` path {text!r}: {parent_key or label} is not a table; "
                                 "no key can follow it")
            if allowed is not None and what not in allowed:
                raise InputError(f"`set` path {text!r}: {label} has no field {what!r} here; "
                                 f"allowed: {', '.join(allowed)}")
            keys.append(what)
            current = current.get(what) if isinstance(current, dict) else None
            allowed = _sub_keys(str(what), current)
            parent_key = str(what)
        elif how == "index":
            if not isinstance(current, list):
                raise InputError(f"`set` path {text!r}: {parent_key or label} is not a list; "
                                 "[number] cannot follow it")
            if not 1 <= int(what) <= len(current):
                raise InputError(f"`set` path {text!r}: {parent_key}[{what}] does not exist; "
                                 f"allowed: 1..{len(current)}")
            keys.append(int(what))
            current = current[int(what) - 1]
            allowed = _TRADE_KEYS if parent_key == "trades" else None
        else:
            raise InputError(f"`set` path {text!r}: ['{what}'] may only select the card")
    if not keys:
        raise InputError(f"`set` path {text!r}: name a field of {label}; allowed: "
                         f"{', '.join(_entry_keys(root, items[index]))}")
    return Edit(text, root, index, label, tuple(keys))


def _rules_path(text: str, tokens: list) -> Edit:
    settings = tuple(k for k in SETTING_KEYS if k != "start")
    allowed = ", ".join((*settings, *(f"start.{k}" for k in START)))
    keys = [what for how, what in tokens if how == "key"]
    if len(keys) != len(tokens) or not keys:
        raise InputError(f"`set` path {text!r}: a rules path is rules.SETTING; allowed: "
                         f"{allowed}")
    if keys[0] == "start" and len(keys) == 2 and keys[1] in START:
        return Edit(text, "rules", None, "rules", tuple(keys))
    if len(keys) == 1 and keys[0] in settings:
        return Edit(text, "rules", None, "rules", tuple(keys))
    raise InputError(f"`set` path {text!r}: no rules setting {'.'.join(keys)!r}; allowed: "
                     f"{allowed}")


def current_value(edit: Edit, deck: D.Deck, rules: Rules) -> Any:
    """The value the path names in the unedited deck or rules (None when absent)."""
    if edit.is_rules:
        value: Any = rules.settings
    else:
        value = tomllib.loads(deck.content)[edit.root][edit.entry]
    for k in edit.keys:
        if isinstance(k, int):
            value = value[k - 1]
        elif isinstance(value, dict):
            value = value.get(k)
        else:
            return None
    return value


def apply_deck_edits(deck: D.Deck, edits: list[tuple[Edit, Any]], name: str) -> str:
    """The deck's TOML with every (path, value) applied and `name` as its name."""
    data = tomllib.loads(deck.content)
    data["name"] = name
    for edit, value in edits:
        target: Any = data[edit.root][edit.entry]
        for k in edit.keys[:-1]:
            if isinstance(k, int):
                target = target[k - 1]
            else:
                target = target.setdefault(k, {})
        last = edit.keys[-1]
        if isinstance(last, int):
            target[last - 1] = value
        else:
            target[last] = value
    return toml_out.dumps(data)


def check_deck(text: str, label: str) -> D.Deck:
    """Load an edited deck's TOML; a DataError names the --set expression as its file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "deck.toml"
        path.write_text(text, encoding="utf-8")
        try:
            return D.load_deck(path)
        except DataError as exc:
            raise DataError(label, exc.where, exc.field, exc.got, exc.allowed,
                            exc.problem) from None


def rules_overrides(edits: list[tuple[Edit, Any]]) -> dict[str, Any]:
    """The `Rules.with_overrides` arguments of the rules edits."""
    out: dict[str, Any] = {}
    for edit, value in edits:
        if edit.keys[0] == "start":
            out.setdefault("start", {})[edit.keys[1]] = value
        else:
            out[str(edit.keys[0])] = value
    return out


def check_rules(rules: Rules, overrides: dict[str, Any], label: str) -> Rules:
    """`rules` with the overrides applied; a DataError names the --set expression."""
    try:
        return rules.with_overrides(**overrides)
    except DataError as exc:
        raise DataError(label, exc.where, exc.field, exc.got, exc.allowed, exc.problem) from None


_BARE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def _split_top(text: str) -> list[str]:
    """Split on commas outside braces, brackets and quotes."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def parse_values(text: str, expr: str) -> list[Any]:
    """`V1, V2, ...` as TOML values; a bare word is a string. InputError if unreadable."""
    parts = _split_top(text)
    if not any(parts):
        raise InputError(f"`set` {expr!r}: no values after '='; give one or more, separated by "
                         "commas")
    items = []
    for p in parts:
        if not p:
            raise InputError(f"`set` {expr!r}: an empty value between commas")
        items.append(json_quote(p) if _BARE.match(p) and p not in ("true", "false", "inf",
                                                                     "nan") else p)
    try:
        return tomllib.loads("v = [" + ", ".join(items) + "]")["v"]
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"`set` {expr!r}: the values are not TOML values ({exc}); e.g. 2, "
                         "{salt = 1, pepper = 1}, finish_round") from None


def json_quote(word: str) -> str:
    return '"' + word + '"'


def split_set(expr: str) -> tuple[str, str]:
    """`PATH = VALUES` -> (path, values text); InputError without a top-level '='."""
    depth, quote = 0, ""
    for i, ch in enumerate(expr):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "=" and depth == 0:
            return expr[:i].strip(), expr[i + 1:].strip()
    raise InputError(f"`set` {expr!r}: expected PATH = VALUE[, VALUE...], e.g. "
                     "\"border.Merchant.trades[1].give_amount = 2, 4\"")


def describe(value: Any) -> str:
    """A value as it reads in TOML, for labels."""
    return toml_out.value(value).replace("{ ", "{").replace(" }", "}")


__all__ = ["Edit", "apply_deck_edits", "check_deck", "check_rules", "current_value",
           "describe", "parse_path", "parse_values", "rules_overrides", "split_set"]
