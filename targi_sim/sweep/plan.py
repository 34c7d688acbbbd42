"""What a sweep plays: axes of variation, and the variants of their grid.

Why a grid of axes: a designer asks "what if the Merchant paid 2 goods, or 4, and the
final raid finished the round?" -- each question is an axis (a `--set` path and its
values, the rules files, the strategy pairs), and the variants are their combinations
(or, with one_at_a_time, each value on its own). Level 0 of every axis is the baseline:
the deck and rules as given (a `--set` axis) or the first listed file or pair. Every
variant plays the same deals as the baseline (the same run seed), so their differences
are measured on common random numbers (targi_sim.sweep.paired).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from targi_sim.game import deck_edit as E
from targi_sim.game.deck import load_deck
from targi_sim.game.rules import load_rules
from targi_sim.players.strategy import resolve_strategy

from ..errors import DataError, FieldReader, InputError, read_toml

MAX_VARIANTS = 200
BASELINE = "as given"


@dataclass(frozen=True)
class Axis:
    """One dimension of the sweep. kind: set (a deck or rules path), rules (a rules
    file), strategies (a p0:p1 pair). levels[0] is the baseline level (None for a set
    axis: the value as given)."""

    name: str
    kind: str
    levels: tuple[Any, ...]
    labels: tuple[str, ...]
    edit: E.Edit | None = None


@dataclass(frozen=True)
class Variant:
    key: str
    coords: tuple[int, ...]  # the level of each axis
    label: str

    @property
    def is_baseline(self) -> bool:
        return not any(self.coords)


@dataclass(frozen=True)
class SweepSpec:
    """Everything that decides a sweep's games (with the engine and the files' content)."""

    games: int
    seed: int = 0
    deck: str = "base"
    rules: tuple[str, ...] = ("default",)
    strategies: tuple[str, ...] = ("balanced:balanced",)
    sets: tuple[str, ...] = ()  # "PATH = V1, V2" expressions
    one_at_a_time: bool = False
    chunk_size: int | None = None
    name: str = "sweep"
    set_values: tuple[tuple[str, tuple[Any, ...]], ...] = field(default=())  # from a file


def _pair(text: str) -> tuple[str, str]:
    parts = [p.strip() for p in text.split(":")]
    if len(parts) != 2 or not all(parts):
        raise InputError(f"`strategies`: {text!r} is not a pair; write P0:P1, e.g. "
                         "balanced:balanced,tuned:balanced")
    return parts[0], parts[1]


def build_axes(spec: SweepSpec) -> list[Axis]:
    """Every axis of the sweep, checked (UsageError, DataError or InputError)."""
    deck = load_deck(spec.deck)
    rules = [load_rules(r) for r in spec.rules]
    if len(set(spec.rules)) != len(spec.rules):
        raise InputError(f"`rules` names a file twice: {','.join(spec.rules)}")
    axes: list[Axis] = []
    entries = [(*E.split_set(s),) for s in spec.sets]
    parsed = [(p, E.parse_values(v, f"{p} = {v}")) for p, v in entries]
    parsed += [(p, list(vals)) for p, vals in spec.set_values]
    seen: set[str] = set()
    for path, values in parsed:
        edit = E.parse_path(path, deck)
        ident = f"{edit.root}:{edit.entry}:{edit.keys}"
        if ident in seen:
            raise InputError(f"`set` path {path!r} is set twice; list all its values in one "
                             "`set`")
        seen.add(ident)
        now = E.current_value(edit, deck, rules[0])
        levels: list[Any] = [None]
        for v in values:
            if v != now and v not in levels[1:]:
                levels.append(v)
        labels = [f"{BASELINE} ({E.describe(now)})" if now is not None else BASELINE]
        labels += [E.describe(v) for v in levels[1:]]
        axes.append(Axis(edit.text, "set", tuple(levels), tuple(labels), edit))
    if len(rules) > 1:
        axes.append(Axis("rules", "rules", tuple(spec.rules), tuple(r.name for r in rules)))
    pairs = [_pair(s) for s in spec.strategies]
    if len(set(pairs)) != len(pairs):
        raise InputError(f"`strategies` names a pair twice: {','.join(spec.strategies)}")
    for p0, p1 in pairs:
        resolve_strategy(p0)
        resolve_strategy(p1)
    if len(pairs) > 1:
        axes.append(Axis("strategies", "strategies", tuple(pairs),
                         tuple(f"{a}:{b}" for a, b in pairs)))
    varied = [a for a in axes if len(a.levels) > 1]
    if not varied:
        raise InputError("nothing to sweep: give `set` PATH = VALUES with a value that differs "
                         "from the deck's, two or more `rules`, or two or more `strategies`")
    return varied


def variants(axes: list[Axis], one_at_a_time: bool) -> list[Variant]:
    """The baseline first, then the grid (or each axis's levels alone)."""
    n = len(axes)
    if one_at_a_time:
        coords = [(0,) * n] + [tuple(level if j == i else 0 for j in range(n))
                               for i, a in enumerate(axes) for level in range(1, len(a.levels))]
    else:
        coords = list(itertools.product(*(range(len(a.levels)) for a in axes)))
    if len(coords) > MAX_VARIANTS:
        raise InputError(f"the sweep has {len(coords)} variants; at most {MAX_VARIANTS} (use "
                         "`one_at_a_time` or fewer values)")
    width = max(2, len(str(len(coords) - 1)))
    out = []
    for i, c in enumerate(coords):
        parts = [f"{a.name} = {a.labels[level]}" for a, level in zip(axes, c, strict=True)
                 if level]
        out.append(Variant(f"v{i:0{width}d}", c, "; ".join(parts) or "baseline"))
    return out


@dataclass(frozen=True)
class VariantInputs:
    """What one variant's run plays: deck and rules (a name, or a TOML text to write)."""

    deck_text: str | None  # None: the spec's deck as given
    rules_text: str | None  # None: rules_name as given
    rules_name: str
    p0: str
    p1: str


def variant_inputs(spec: SweepSpec, axes: list[Axis], v: Variant) -> VariantInputs:
    """The deck and rules of a variant, validated (DataError naming the --set path)."""
    deck = load_deck(spec.deck)
    rules_name, (p0, p1) = spec.rules[0], _pair(spec.strategies[0])
    deck_edits, rule_edits = [], []
    for a, level in zip(axes, v.coords, strict=True):
        if a.kind == "rules":
            rules_name = a.levels[level]
        elif a.kind == "strategies":
            p0, p1 = a.levels[level]
        elif level:
            (rule_edits if a.edit.is_rules else deck_edits).append((a.edit, a.levels[level]))
    label = f"`set` ({v.label})"
    deck_text = None
    if deck_edits:
        deck_text = E.apply_deck_edits(deck, deck_edits, f"{deck.name}+{v.key}")
        E.check_deck(deck_text, label)
    rules_text = None
    if rule_edits:
        rules = E.check_rules(load_rules(rules_name), E.rules_overrides(rule_edits), label)
        rules_text = rules.content
    return VariantInputs(deck_text, rules_text, rules_name, p0, p1)


def load_sweep_file(path: str | Path) -> dict[str, Any]:
    """A sweep TOML file (data/sweeps/*.toml) as SweepSpec keyword arguments; DataError
    naming the file, field and allowed values."""
    p = Path(path)
    _, data = read_toml(p)
    r = FieldReader(p, "sweep", data)
    r.check_keys(("name", "description", "games", "seed", "deck", "rules", "strategies",
                  "one_at_a_time", "set"))
    out: dict[str, Any] = {"name": r.get_str("name", p.stem)}
    r.get_str("description", "")
    if "games" in data:
        out["games"] = r.get_int("games", lo=1, hi=10**9)
    if "seed" in data:
        out["seed"] = r.get_int("seed", hi=2**31 - 1)
    if "deck" in data:
        out["deck"] = r.get_str("deck")
    for key in ("rules", "strategies"):
        if key in data:
            value = data[key]
            if isinstance(value, str):
                value = [value]
            if not (isinstance(value, list) and value and all(isinstance(x, str) for x in value)):
                raise r.error(key, data[key], "a string or a list of strings")
            out[key] = tuple(value)
    if "one_at_a_time" in data:
        out["one_at_a_time"] = r.get_bool("one_at_a_time")
    sets = []
    for i, item in enumerate(r.get_list("set") if "set" in data else []):
        s = FieldReader(p, f"set #{i + 1}", item)
        s.check_keys(("path", "values", "note"), required=("path", "values"))
        values = s.get_list("values")
        if not values:
            raise s.error("values", values, "one or more TOML values", "is empty")
        sets.append((s.get_str("path"), tuple(values)))
    out["set_values"] = tuple(sets)
    return out


def resolve_file_path(path: str | Path) -> Path:
    """A sweep file by path, or a shipped name (data/sweeps/<name>.toml)."""
    from targi_sim._utils.paths import data_dir
    from targi_sim.game.deck import resolve

    names = sorted(p.stem for p in (data_dir() / "sweeps").glob("*.toml"))
    return resolve("sweep file", "sweeps", path, names)


__all__ = ["Axis", "DataError", "SweepSpec", "Variant", "VariantInputs", "build_axes",
           "load_sweep_file", "resolve_file_path", "variant_inputs", "variants"]
