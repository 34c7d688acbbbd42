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

A strategy that searches (an OpenSpiel bot, targi_sim.openspiel) sets `resamples = True`
and takes a third argument, `resample`: `resample(seed)` is a copy of the game in which
everything its player cannot know is re-dealt from `seed`, both seats decided from
Python (play.session.Game.resample). It never sees the game itself, and `targi-sim
strategies check` proves it decides on what its player may know. A `budget` makes its
name take one: `NAME@N` (`openspiel-ismcts@200`).
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
    #: True if `choose` takes a third argument, `resample(seed)` -> a re-dealt copy of the
    #: game (see the module docstring): for strategies that search.
    resamples: bool = False
    #: a search's budget per decision, set where the name is typed (`NAME@N`); None: the
    #: strategy takes none. `budget_unit` says what it counts, `min_budget` and
    #: `max_budget` its range.
    budget: int | None = None
    budget_unit: str = "simulations"
    min_budget: int = 1
    max_budget: int = 100_000

    random: np.random.Generator

    def new_game(self, seat: int, seed: int) -> None:
        """Called before each game; seeds `self.random` from the game's seed and seat."""
        self.random = np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32, seat, 7])

    def choose(self, view: View, decision: Decision) -> int:  # pragma: no cover - abstract
        """The index of the chosen option in `decision.options` (a strategy with
        `resamples = True` takes a third argument, `resample`)."""
        raise NotImplementedError(f"{type(self).__name__} must implement choose(view, decision)")


class FirstOption(PythonStrategy):
    """Always the first legal option: the simplest Python strategy (speed reference)."""

    name = "first-option"
    description = "always the first option (Python)"
    deterministic = True

    def choose(self, view: View, decision: Decision) -> int:
        return 0


__all__ = ["FirstOption", "PythonStrategy"]
