"""The levels of play of a search (`balance --levels`, `calibrate --levels`), weakest
first, and which of them are re-tuned for every candidate deck."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from targi_sim.engine import constants as C
from targi_sim.errors import ConfigError
from targi_sim.players.strategy import Strategy, level_spec, resolve_strategy, searches_with


@dataclass(frozen=True)
class Levels:
    """The levels as typed (a tree search given its level budget: `expert` ->
    `expert@50`), their strategies, and the levels re-tuned per candidate, both as typed
    (`retuned_specs`) and by strategy name (`retuned`)."""

    specs: tuple[str, ...]
    strategies: tuple[Strategy, ...]
    retuned: tuple[str, ...]
    retuned_specs: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.strategies)


def resolve_levels(levels: Sequence[str], retune: Sequence[str] | None = None,
                   field: str = "levels", retune_field: str = "retune") -> Levels:
    """The levels of `levels` (strategy names or files). A tree search typed without a
    budget plays the level budget of players.strategy.level_spec. Re-tuned: `retune`'s
    levels (each must be a heuristic level, named as typed or by its strategy's name),
    or by default every heuristic level after the first (the first is the fixed
    reference player). ConfigError names `field` or `retune_field`."""
    if len(levels) < 1:
        raise ConfigError(field, "needs at least one strategy")
    specs = tuple(level_spec(s) for s in levels)
    if len(set(specs)) != len(specs):
        raise ConfigError(field, f"repeats a strategy: {', '.join(specs)}")
    strategies = tuple(resolve_strategy(s) for s in specs)
    names = [s.name for s in strategies]
    if retune is None:
        chosen = [i for i in range(1, len(specs)) if strategies[i].kind == C.SK_HEURISTIC]
    else:
        chosen = []
        for r in retune:
            if r not in specs and r not in names:
                raise ConfigError(retune_field, f"{r!r} is not one of `{field}` "
                                                f"({', '.join(specs)})")
            i = specs.index(r) if r in specs else names.index(r)
            if strategies[i].kind != C.SK_HEURISTIC:
                raise ConfigError(retune_field, f"{r!r}: only heuristic strategies can be "
                                                f"re-tuned; it is of kind "
                                                f"{strategies[i].kind_name}")
            chosen.append(i)
    return Levels(specs, strategies, tuple(names[i] for i in chosen),
                  tuple(specs[i] for i in chosen))


def moving_levels(names: Sequence[str], strategies: Sequence[Strategy],
                  retuned: Sequence[str]) -> set[int]:
    """The levels a candidate deck changes: those re-tuned for it, and the search levels
    whose rollouts play a re-tuned level (players.strategy.follow_retuned). The others
    can be measured before any re-tune."""
    moving = {i for i, n in enumerate(names) if n in retuned}
    return moving | {i for i, s in enumerate(strategies)
                     if any(searches_with(s, strategies[j]) for j in moving)}


__all__ = ["Levels", "moving_levels", "resolve_levels"]
