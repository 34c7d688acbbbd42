"""A Python strategy's view holds only what its player may know (docs/rules.md §8).

The view is handed to arbitrary Python code, so "hidden" must mean unreachable, not
merely undocumented: walking every attribute reachable from a View (dir(), __dict__,
containers, closures, numpy arrays) must find no copy of the state array, and two
positions that differ only in what the player cannot know must give views equal
attribute for attribute.
"""

from __future__ import annotations

import gc
import types

import numpy as np

from targi_sim import PythonStrategy, new_game, play_games
from targi_sim.engine import layout as lay
from targi_sim.engine.information import redeal
from targi_sim.game.deck import Deck
from targi_sim.game.view import View

_SKIP = (types.ModuleType, type, types.CodeType, types.BuiltinFunctionType)


def _materialise(obj: object) -> None:
    """Read every public and private attribute, so lazily built ones exist to be walked."""
    if type(obj).__module__.startswith("targi_sim.game.view"):
        for name in dir(obj):
            if not name.startswith("__"):
                getattr(obj, name)


def _reachable(view: View, deck: Deck) -> list[object]:
    """Every object reachable from `view` (the deck's own card tables aside)."""
    seen: set[int] = set()
    out: list[object] = []
    todo: list[object] = [view]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, _SKIP) or obj is deck:
            continue
        seen.add(id(obj))
        out.append(obj)
        _materialise(obj)
        if isinstance(obj, types.FunctionType):  # only what it closes over, not its module
            todo.extend(c.cell_contents for c in obj.__closure__ or ())
            todo.extend(obj.__defaults__ or ())
            continue
        if isinstance(obj, np.ndarray) and obj.base is not None:
            todo.append(obj.base)
        todo.extend(gc.get_referents(obj))
        if hasattr(obj, "__dict__"):
            todo.extend(vars(obj).values())
    return out


def _dump(obj: object, deck: Deck, depth: int = 0) -> object:
    """A comparable picture of everything reachable from `obj`, attribute by attribute."""
    assert depth < 20
    if obj is deck:
        return "<deck>"
    if isinstance(obj, np.ndarray):
        return ("array", obj.shape, obj.tolist())
    if isinstance(obj, dict):
        return tuple(sorted((k, _dump(v, deck, depth + 1)) for k, v in obj.items()))
    if isinstance(obj, list | tuple):
        return tuple(_dump(v, deck, depth + 1) for v in obj)
    if hasattr(obj, "__dict__") and not isinstance(obj, _SKIP):
        _materialise(obj)
        return (type(obj).__name__,
                tuple(sorted((k, _dump(v, deck, depth + 1)) for k, v in vars(obj).items())))
    return obj


class WalksItsView(PythonStrategy):
    """Walks everything reachable from each view it is given; plays the first option."""

    name = "walks-its-view"
    deterministic = True

    def __init__(self) -> None:
        self.views = 0
        self.state_sized: list[tuple[int, ...]] = []

    def choose(self, view, decision):
        self.views += 1
        for obj in _reachable(view, view.deck):
            if isinstance(obj, np.ndarray) and obj.size >= lay.S_CORE:
                self.state_sized.append(obj.shape)
        return 0


def test_no_state_array_is_reachable_from_a_view_in_a_real_game():
    walker = WalksItsView()
    play_games(2, seed=4, strategies=(walker, "balanced"), logs=False)
    assert walker.views > 50
    assert walker.state_sized == []


def test_views_of_positions_differing_only_in_hidden_cards_are_equal():
    slots = np.zeros(256, dtype=np.int64)
    for seed in (1, 6):
        g = new_game(seed, p1="balanced")
        rng = np.random.default_rng(seed)
        checked = differed = 0
        while not g.is_over:
            p = g.decision.player
            S = np.zeros(lay.S_SIZE, dtype=np.int64)
            S[:lay.S_CORE] = g.frozen
            S2 = S.copy()
            redeal(S2, p, seed * 1000 + checked, slots)  # deck order, face-down cards, ...
            differed += not np.array_equal(S[:lay.S_CORE], S2[:lay.S_CORE])
            deck = g.match.deck
            assert _dump(View(S, deck, p), deck) == _dump(View(S2, deck, p), deck), (
                f"seed {seed}, decision {checked}")
            checked += 1
            g.apply(int(rng.integers(len(g.decision.options))))
        assert differed > 20  # the re-deals did change hidden cards
