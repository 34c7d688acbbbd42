"""The space of uncertain values: the deck and rules facts the sources leave open ([S],
[D] in docs/rules.md), each with the readings they allow.

Why a file: which values are uncertain, and how far, is a judgement about sources that
a designer must be able to read, question and change without touching code. One format
serves `calibrate` (and is meant for `balance`):

    name = "economy"
    description = "..."

    [[parameter]]
    path = "border.Silversmith.trades[1].get_amount"   # a --set path (docs/sweep.md)
    values = [1, 2]                                    # the readings the sources allow
    source = "docs/rules.md section 3 [S]: ..."         # why these values
    note = "1 gold -> N VP"                             # optional, for people

Every value is checked by loading the deck (or rules) with it, so a value the loaders
refuse is named with its file and parameter before any game is played. The deck's
current value always belongs to the space (it is added when a file leaves it out):
the current economy is the first candidate of every search.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from targi_sim._utils.paths import data_dir
from targi_sim.errors import DataError, FieldReader, InputError, read_toml
from targi_sim.game import deck_edit as E
from targi_sim.game.deck import Deck
from targi_sim.game.rules import Rules

SPACE_KEYS = ("name", "description", "parameter")
PARAMETER_KEYS = ("path", "values", "source", "note")


@dataclass(frozen=True)
class Parameter:
    """One uncertain value: its --set path, the readings allowed, the current one."""

    path: str
    values: tuple[Any, ...]
    current: Any
    source: str
    note: str = ""
    edit: E.Edit | None = None

    @property
    def label(self) -> str:
        return self.note or self.path


@dataclass(frozen=True)
class Space:
    """A named list of parameters (the coordinates of a calibration)."""

    name: str
    description: str
    parameters: tuple[Parameter, ...]
    path: Path | None = None

    @property
    def size(self) -> int:
        """How many economies the space holds (the product of the readings)."""
        n = 1
        for p in self.parameters:
            n *= len(p.values)
        return n

    def current(self) -> dict[str, Any]:
        return {p.path: p.current for p in self.parameters}


def resolve_calibration_file(kind: str, name_or_path: str | Path) -> Path:
    """A shipped file of data/calibration/ by name (e.g. "economy-space") or a path."""
    from targi_sim.game.deck import resolve

    names = sorted(p.stem for p in (data_dir() / "calibration").glob("*.toml"))
    return resolve(kind, "calibration", name_or_path, names)


def _comparable(value: Any) -> str:
    return E.describe(value)


def load_space(name_or_path: str | Path, deck: Deck, rules: Rules) -> Space:
    """Read and check a space file against `deck` and `rules` (DataError naming the file,
    parameter and what is allowed on any problem)."""
    path = resolve_calibration_file("space file", name_or_path)
    _, data = read_toml(path)
    top = FieldReader(path, None, data)
    top.check_keys(SPACE_KEYS, required=("parameter",))
    items = top.get_list("parameter")
    if not items:
        raise top.error("parameter", items, "at least one [[parameter]]", "is empty")
    params: list[Parameter] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        where = f"parameter {i + 1}"
        r = FieldReader(path, where, item)
        r.check_keys(PARAMETER_KEYS, required=("path", "values", "source"))
        text = r.get_str("path")
        where = f"parameter {i + 1} ({text})"
        r = FieldReader(path, where, item)
        try:
            edit = E.parse_path(text, deck)
        except InputError as exc:
            raise r.error("path", text, "a deck or rules path as sweep's `set` takes "
                          "(docs/sweep.md)",
                          f"names nothing: {exc}") from None
        if text in seen:
            raise r.error("path", text, "each path once", "appears twice")
        seen.add(text)
        values = r.get_list("values")
        if not values:
            raise r.error("values", values, "one or more TOML values", "is empty")
        if len({_comparable(v) for v in values}) != len(values):
            raise r.error("values", values, "distinct values", "repeats a value")
        current = E.current_value(edit, deck, rules)
        if edit.root == "border" and edit.keys == ("times",) and current is None:
            current = "any"
        for v in values:
            _check_value(path, where, edit, v, deck, rules)
        vals = list(values)
        if current is not None and _comparable(current) not in {_comparable(v) for v in vals}:
            vals.insert(0, current)
        params.append(Parameter(text, tuple(vals), current, r.get_str("source"),
                                r.get_str("note", ""), edit))
    return Space(top.get_str("name", path.stem), top.get_str("description", ""),
                 tuple(params), path)


def _check_value(path: Path, where: str, edit: E.Edit, value: Any, deck: Deck,
                 rules: Rules) -> None:
    """The deck (or rules) with this one value must load."""
    try:
        if edit.is_rules:
            E.check_rules(rules, E.rules_overrides([(edit, value)]), "x")
        else:
            E.check_deck(E.apply_deck_edits(deck, [(edit, value)], deck.name), "x")
    except DataError as exc:
        field = f"{exc.field} " if exc.field else ""
        raise DataError(path, where, "values", value, exc.allowed,
                        f"holds a value the {'rules' if edit.is_rules else 'deck'} loader "
                        f"refuses ({field}{exc.problem or 'has a bad value'})") from None


def economy(space: Space, choice: dict[str, Any], deck: Deck, rules: Rules,
            name: str) -> tuple[Deck, Rules, str]:
    """The deck and rules with the chosen values, and the deck's TOML text."""
    edits = [(p.edit, choice[p.path]) for p in space.parameters]
    deck_edits = [(e, v) for e, v in edits if not e.is_rules]
    rules_edits = [(e, v) for e, v in edits if e.is_rules]
    text = E.apply_deck_edits(deck, deck_edits, name)
    new_deck = E.check_deck(text, f"{name} (calibration candidate)")
    new_rules = (E.check_rules(rules, E.rules_overrides(rules_edits), name) if rules_edits
                 else rules)
    return new_deck, new_rules, text


def changes(space: Space, choice: dict[str, Any]) -> list[dict[str, Any]]:
    """The parameters whose chosen value differs from the current one."""
    out = []
    for p in space.parameters:
        new = choice[p.path]
        if _comparable(new) != _comparable(p.current):
            out.append({"path": p.path, "note": p.note, "old": p.current, "new": new,
                        "readings": list(p.values), "source": p.source,
                        "is_rules": p.edit.is_rules})
    return out


def value_key(value: Any) -> str:
    """A value as text: the key Optuna's categorical choices and caches use."""
    return _comparable(value)


def parse_value(text: str) -> Any:
    """value_key's inverse."""
    return tomllib.loads(f"v = {text}")["v"]


__all__ = ["Parameter", "Space", "changes", "economy", "load_space", "parse_value",
           "resolve_calibration_file", "value_key"]
