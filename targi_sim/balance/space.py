"""Proposals: small edits of tribe cards' printed VP and costs, applied to a deck in
memory (for play) and written back into the deck's TOML text (for the designer)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from targi_sim.engine import limits as L
from targi_sim.fairness.settings import FIELDS, Space
from targi_sim.game.classes import CardClasses
from targi_sim.game.deck import COST_KEYS, Deck

Edits = dict[int, dict[str, int]]  # card id -> field -> new value (changed fields only)


def value_of(deck: Deck, card: int, fld: str) -> int:
    if fld == "vp":
        return int(deck.tribe_vp[card])
    return int(deck.tribe_cost[card, COST_KEYS.index(fld)])


def edits_from_deltas(deck: Deck, deltas: Mapping[int, Mapping[str, int]]) -> Edits:
    """New values from deltas, dropping fields (and cards) that do not change."""
    out: Edits = {}
    for card, d in deltas.items():
        new = {f: value_of(deck, card, f) + int(v) for f, v in d.items() if int(v) != 0}
        if new:
            out[int(card)] = new
    return out


def expand(edits: Edits, classes: CardClasses | None) -> Edits:
    """The edits of each class's first card applied to every copy of the class."""
    if classes is None:
        return edits
    out: Edits = {}
    for card, new in edits.items():
        for c in classes.members[int(classes.of_card[card])]:
            out[int(c)] = dict(new)
    return out


def split_classes(edits: Edits, classes: CardClasses) -> list[int]:
    """Classes whose copies the edits leave different (a proposal must not)."""
    bad = []
    for k, m in enumerate(classes.members):
        if len({edits_key({0: edits.get(c, {})}) for c in m}) > 1:
            bad.append(k)
    return bad


def problem(deck: Deck, edits: Edits, space: Space,
            classes: CardClasses | None = None) -> str | None:
    """Why these edits leave the space (None if they are inside it): too many changed
    classes, a class's copies edited apart, a field out of bounds."""
    changed = len(edits) if classes is None else len({int(classes.of_card[c]) for c in edits})
    if changed > space.max_changes:
        return f"{changed} changed cards (at most {space.max_changes})"
    if classes is not None and split_classes(edits, classes):
        k = split_classes(edits, classes)[0]
        return f"the copies of {classes.label(k)} would differ"
    for card, new in edits.items():
        cost = [new.get(k, value_of(deck, card, k)) for k in COST_KEYS]
        for f, v in new.items():
            if f not in space.fields:
                return f"field {f} of {deck.tribe_names[card]} may not change"
            if abs(v - value_of(deck, card, f)) > space.step:
                return f"{f} of {deck.tribe_names[card]} moves by more than {space.step}"
            if v < 0 or (f == "vp" and v > L.TRIBE_VP) or (f != "vp" and v > L.COST):
                return f"{f} of {deck.tribe_names[card]} would be {v}"
        if "vp" in new and new["vp"] < min(space.min_vp, value_of(deck, card, "vp")):
            return f"{deck.tribe_names[card]} would be worth less than {space.min_vp} VP"
        if sum(cost) < space.min_total_cost:
            return f"{deck.tribe_names[card]} would cost less than {space.min_total_cost}"
    return None


def apply_edits(deck: Deck, edits: Edits) -> Deck:
    """The deck with the edits, for play (the text and hash stay the base deck's: a
    proposal is written out with `render_deck` and loaded back before it is trusted)."""
    vp = deck.tribe_vp.copy()
    cost = deck.tribe_cost.copy()
    for card, new in edits.items():
        for f, v in new.items():
            if f == "vp":
                vp[card] = v
            else:
                cost[card, COST_KEYS.index(f)] = v
    return replace(deck, tribe_vp=vp.astype(np.int32), tribe_cost=cost.astype(np.int32))


def edits_key(edits: Edits) -> str:
    """A canonical text for a set of edits (the cache key of a candidate)."""
    return ";".join(f"{c}:" + ",".join(f"{f}={v}" for f, v in sorted(new.items()))
                    for c, new in sorted(edits.items())) or "-"


def describe(deck: Deck, edits: Edits) -> list[dict]:
    """One row per changed field: card_id, name, field, old, new."""
    rows = []
    for card, new in sorted(edits.items()):
        for f in FIELDS:
            if f in new:
                rows.append({"card_id": card, "name": deck.tribe_names[card], "field": f,
                             "old": value_of(deck, card, f), "new": new[f]})
    return rows


_BLOCK = re.compile(r"^\[\[(\w+)\]\]", re.M)


class RenderError(ValueError):
    """The deck's TOML is laid out in a way the writer cannot edit line by line."""


def _cost_line(values: list[int], key: str = "cost") -> str:
    parts = [f"{k} = {v}" for k, v in zip(COST_KEYS, values, strict=True) if v]
    return f"{key} = {{ {', '.join(parts)} }}" if parts else f"{key} = {{}}"


def render_deck(deck: Deck, edits: Edits, header: str = "") -> str:
    """The deck's own TOML text with the edited fields rewritten, each with a comment
    giving the old value. A card whose VP changes is named for its new VP (as the deck's
    automatic names are); a card whose automatic name would otherwise shift (its number
    among its symbol and VP) keeps its old name explicitly."""
    text = deck.content
    starts = [m for m in _BLOCK.finditer(text)]
    tribe = [i for i, m in enumerate(starts) if m.group(1) == "tribe"]
    if len(tribe) != deck.n_tribe:
        raise RenderError(f"{deck.path}: found {len(tribe)} [[tribe]] blocks, "
                          f"expected {deck.n_tribe}")
    names = new_names(deck, apply_edits(deck, edits).tribe_vp)
    pieces, last = [], 0
    for card, i in enumerate(tribe):
        m = starts[i]
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        block = text[m.start():end]
        if card in edits or card in names:
            block = _edit_block(deck, card, block, edits.get(card, {}), names.get(card))
        pieces.append(text[last:m.start()])
        pieces.append(block)
        last = end
    pieces.append(text[last:])
    return header + "".join(pieces)


def new_names(deck: Deck, new_vp: np.ndarray) -> dict[int, tuple[str, str]]:
    """card -> (explicit name, why) for the cards without a `name` whose automatic name
    changes under the new VPs: a card whose VP changed gets "<symbol> <VP>VP #k" for its
    new VP (k: the first number no other card's name uses), the others keep theirs."""
    import tomllib

    from targi_sim.engine.constants import SYMBOL_NAMES

    named = [isinstance(t, dict) and "name" in t
             for t in tomllib.loads(deck.content).get("tribe", [])]

    def auto(vps: np.ndarray) -> list[str]:
        seen: dict[tuple[int, int], int] = {}
        out = []
        for c in range(deck.n_tribe):
            if named[c]:
                out.append(deck.tribe_names[c])
                continue
            key = (int(deck.tribe_symbol[c]), int(vps[c]))
            seen[key] = seen.get(key, 0) + 1
            out.append(f"{SYMBOL_NAMES[key[0]]} {key[1]}VP #{seen[key]}")
        return out
    before, after = auto(deck.tribe_vp), auto(new_vp)
    moved = [c for c in range(deck.n_tribe) if before[c] != after[c]]
    out = {c: (deck.tribe_names[c], "kept: its automatic name would change with the new VPs")
           for c in moved if new_vp[c] == deck.tribe_vp[c]}
    used = {deck.tribe_names[c] for c in range(deck.n_tribe) if c not in moved or c in out}
    for c in moved:
        if c in out:
            continue
        head = f"{SYMBOL_NAMES[int(deck.tribe_symbol[c])]} {int(new_vp[c])}VP #"
        k = 1
        while f"{head}{k}" in used:
            k += 1
        used.add(f"{head}{k}")
        out[c] = (f"{head}{k}", f"was {deck.tribe_names[c]}: named for its new VP")
    return out


def _edit_block(deck: Deck, card: int, block: str, new: dict[str, int],
                name: tuple[str, str] | None) -> str:
    lines = block.split("\n")
    has_name = any(re.match(r"\s*name\s*=", ln) for ln in lines)

    def find(key: str) -> int:
        for k, ln in enumerate(lines):
            if re.match(rf"\s*{key}\s*=", ln):
                return k
        raise RenderError(f"{deck.path}: tribe card {card} ({deck.tribe_names[card]}) "
                          f"has no one-line `{key} = ...` to rewrite")

    if "vp" in new:
        k = find("vp")
        lines[k] = f"vp = {new['vp']}  # was {value_of(deck, card, 'vp')}"
    if any(f in new for f in COST_KEYS):
        k = find("cost")
        old = [value_of(deck, card, f) for f in COST_KEYS]
        values = [new.get(f, old[j]) for j, f in enumerate(COST_KEYS)]
        old_text = _cost_line(old)[len("cost = "):]
        lines[k] = f"{_cost_line(values)}  # was {old_text}"
    if name is not None and not has_name:
        lines.insert(1, f'name = "{name[0]}"  # {name[1]}')
        old = f": {deck.tribe_names[card]}"
        if lines[0].endswith(old):  # the [[tribe]] line's comment names the card too
            lines[0] = lines[0][: -len(old)] + f": {name[0]}"
    return "\n".join(lines)
