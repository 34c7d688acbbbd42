"""Strategies in plain Python: no numba, no flat arrays, no compile step.

    from targi_sim import PythonStrategy, Play

    class OasisFirst(PythonStrategy):
        name = "oasis-first"
        def choose(self, view, decision):          # -> index into decision.options
            for i, option in enumerate(decision.options):
                if isinstance(option, Play) and "Oasis" in option.name:
                    return i
            return 0

A Python seat plays anywhere a strategy name does (`--p0 oasis_first.py`, tournaments,
`check`), against compiled strategies in the other seat; the engine stops at its
decisions (targi_sim.play.session). `view` is what the player may know (targi_sim.game.view),
`decision` the decision type, whose it is, and its options as named objects
(targi_sim.game.decisions). The same seed gives the same game: a strategy that wants
randomness draws from `self.random`, a generator seeded per game and seat.
Expect a few hundred games per second per core (docs/strategies.md says when to move
a strategy to TOML weights or a compiled plug-in).
"""

from __future__ import annotations

import numpy as np

from targi_sim.game.decisions import Decision
from targi_sim.game.view import View


class PythonStrategy:
    """Subclass and implement `choose`; optional `new_game` resets per-game state."""

    name: str = "python"
    description: str = ""
    #: True if `choose` uses no randomness: then a mirror match of this strategy plays
    #: one game per deal (its seat-swapped twin would be a relabelling).
    deterministic: bool = False

    random: np.random.Generator

    def new_game(self, seat: int, seed: int) -> None:
        """Called before each game; seeds `self.random` from the game's seed and seat."""
        self.random = np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32, seat, 7])

    def choose(self, view: View, decision: Decision) -> int:  # pragma: no cover - abstract
        """The index of the chosen option in `decision.options`."""
        raise NotImplementedError(f"{type(self).__name__} must implement choose(view, decision)")


class FirstOption(PythonStrategy):
    """Always the first legal option: the simplest Python strategy (speed reference)."""

    name = "first-option"
    description = "always the first option (Python)"
    deterministic = True

    def choose(self, view: View, decision: Decision) -> int:
        return 0


__all__ = ["FirstOption", "PythonStrategy"]
