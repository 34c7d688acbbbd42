"""Proposals: small edits of tribe cards' printed VP and costs, applied to a deck in
memory (for play) and written back into the deck's TOML text (for the designer)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from targi_sim.engine import limits as L
from targi_sim.game.deck import COST_KEYS, Deck

from .settings import FIELDS, Space

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


def problem(deck: Deck, edits: Edits, space: Space) -> str | None:
    """Why these edits leave the space (None if they are inside it)."""
    if len(edits) > space.max_changes:
        return f"{len(edits)} changed cards (at most {space.max_changes})"
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
    giving the old value, and explicit names on cards whose automatic name (symbol,
    VP, number) would otherwise change."""
    text = deck.content
    starts = [m for m in _BLOCK.finditer(text)]
    tribe = [i for i, m in enumerate(starts) if m.group(1) == "tribe"]
    if len(tribe) != deck.n_tribe:
        raise RenderError(f"{deck.path}: found {len(tribe)} [[tribe]] blocks, "
                          f"expected {deck.n_tribe}")
    new_vp = apply_edits(deck, edits).tribe_vp
    renamed = _names_that_move(deck, new_vp)
    pieces, last = [], 0
    for card, i in enumerate(tribe):
        m = starts[i]
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        block = text[m.start():end]
        if card in edits or card in renamed:
            block = _edit_block(deck, card, block, edits.get(card, {}), card in renamed)
        pieces.append(text[last:m.start()])
        pieces.append(block)
        last = end
    pieces.append(text[last:])
    return header + "".join(pieces)


def _names_that_move(deck: Deck, new_vp: np.ndarray) -> set[int]:
    """Cards without a `name` whose automatic name differs under the new VPs."""
    import tomllib

    named = [isinstance(t, dict) and "name" in t
             for t in tomllib.loads(deck.content).get("tribe", [])]

    def auto(vps: np.ndarray) -> list[str]:
        seen: dict[tuple[int, int], int] = {}
        out = []
        for c in range(deck.n_tribe):
            if named[c]:
                out.append("named")
                continue
            key = (int(deck.tribe_symbol[c]), int(vps[c]))
            seen[key] = seen.get(key, 0) + 1
            out.append(f"{key}#{seen[key]}")
        return out
    before, after = auto(deck.tribe_vp), auto(new_vp)
    return {c for c in range(deck.n_tribe) if before[c] != after[c]}


def _edit_block(deck: Deck, card: int, block: str, new: dict[str, int], name: bool) -> str:
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
    if name and not has_name:
        lines.insert(1, f'name = "{deck.tribe_names[card]}"  # kept: its automatic name '
                        "would change with the new VPs")
    return "\n".join(lines)
