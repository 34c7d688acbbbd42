"""Strategies as the engine sees them: a kind code and a row of numeric parameters.

The engine reads a strategy as one float64 row (kind in column 0). This module
builds those rows; richer data-defined strategies plug in here by producing
their own rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .constants import HC_KEY, N_STRAT_PARAMS, SK_GREEDY, SK_RANDOM, SK_SCRIPTED
from .engine.policy import SCRIPT_START
from .errors import UsageError


@dataclass(frozen=True, eq=False)
class Strategy:
    """A named compiled policy: `kind` selects the code path, `params` tunes it."""

    name: str
    kind: int
    params: np.ndarray = field(default_factory=lambda: np.zeros(N_STRAT_PARAMS))
    description: str = ""

    def row(self) -> np.ndarray:
        """The engine's parameter row; the heuristic's cache columns start empty (NaN)."""
        row = np.zeros(N_STRAT_PARAMS, dtype=np.float64)
        row[:] = self.params
        row[0] = self.kind
        if self.kind >= SK_GREEDY:
            row[HC_KEY:] = np.nan
        return row


RANDOM = Strategy("random", SK_RANDOM, description="uniformly random over the legal options")

BUILTIN: dict[str, Strategy] = {"random": RANDOM}


def scripted(choices: Sequence[int], name: str = "scripted") -> Strategy:
    """A test strategy that answers each multi-option decision with the next value.

    Decisions with a single legal option are not asked and consume nothing. A
    scripted value that is not legal sets the state's error flag (see GameState).
    """
    if len(choices) > N_STRAT_PARAMS - SCRIPT_START:
        raise ValueError(f"at most {N_STRAT_PARAMS - SCRIPT_START} scripted choices")
    params = np.zeros(N_STRAT_PARAMS)
    params[SCRIPT_START:SCRIPT_START + len(choices)] = choices
    params[SCRIPT_START + len(choices):] = -999
    return Strategy(name, SK_SCRIPTED, params, "replays a fixed list of choices")


def available_strategies() -> list[str]:
    return sorted(BUILTIN)


def resolve_strategy(spec: str | Strategy) -> Strategy:
    """A Strategy from a Strategy or a known name; unknown names list the valid ones."""
    if isinstance(spec, Strategy):
        return spec
    if spec in BUILTIN:
        return BUILTIN[spec]
    raise UsageError("strategy", spec, available_strategies())


def strategy_matrix(strategies: Sequence[str | Strategy]) -> tuple[np.ndarray, tuple[str, str]]:
    """The engine's SP array (one row per seat) and the two names."""
    if len(strategies) != 2:
        raise ValueError("a game needs exactly two strategies (seat 0 and seat 1)")
    s0, s1 = (resolve_strategy(s) for s in strategies)
    return np.vstack([s0.row(), s1.row()]), (s0.name, s1.name)
