"""A match: the validated, packed inputs of games (deck, rules, two seats' strategies).

Below everything that plays: sessions, batches and pairing import it, it imports none
of them (play it with targi_sim.play.games.run_batch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from targi_sim.engine import layout as lay
from targi_sim.engine.plugin import PluginError, compile_policy
from targi_sim.engine.policies import Policy
from targi_sim.errors import FileProblem
from targi_sim.game.deck import Deck, load_deck
from targi_sim.game.rules import Rules, load_rules
from targi_sim.players.evaluation import fill_evaluations
from targi_sim.players.strategy import PythonSeat, Strategy, resolve_pair, seat_policies

StrategySpec = str | Strategy
Policies = tuple  # (policy seat 0, policy seat 1[, build marker]): see engine/ask.py


@dataclass(frozen=True, eq=False)
class Match:
    """Validated and packed inputs of a run: deck, rules and the two seats' strategies
    (their parameter rows SP, their policies P and the policies of their rollouts PB)."""

    deck: Deck
    rules: Rules
    D: np.ndarray
    R: np.ndarray
    SP: np.ndarray
    strategies: tuple[str, str]
    P: Policies
    PB: Policies
    python: tuple[PythonSeat | None, PythonSeat | None] = (None, None)
    specs: tuple[str, str] = ("", "")  # each seat's name, or path if it does not ship

    @property
    def has_python(self) -> bool:
        """True if a seat is decided by a Python strategy (targi_sim.play.session)."""
        return any(seat is not None for seat in self.python)



def compile_policies(*policies: Policy) -> None:
    """Compile (or load from the cache) each policy now; a plugin that does not compile
    raises PluginError (one line)."""
    for policy in policies:
        compile_policy(policy)


def load_deck_and_rules(deck: str | Deck, rules: str | Rules) -> tuple[Deck, Rules]:
    """Loaded objects pass through; names and paths are loaded and validated."""
    d = deck if isinstance(deck, Deck) else load_deck(deck)
    r = rules if isinstance(rules, Rules) else load_rules(rules)
    return d, r


def prepare_match(
    strategies: Sequence[StrategySpec] = ("random", "random"),
    deck: str | Deck = "base",
    rules: str | Rules = "default",
) -> Match:
    """Load and validate everything before a game is played.

    Raises UsageError for unknown names and DataError for malformed files (a plugin
    that numba cannot compile included).
    """
    pair = resolve_pair(strategies)
    d, r = load_deck_and_rules(deck, rules)
    P, PB = seat_policies(pair)
    try:
        compile_policies(*(x for x in (*P, *PB) if isinstance(x, Policy)))
    except PluginError as exc:
        raise FileProblem(str(exc)) from None
    SP = np.vstack([s.row() for s in pair])
    D, R = lay.pack_deck(d), r.vector.astype(np.int64)
    fill_evaluations(SP, D, R, PB)  # a search seat's cut playouts: fitted on this deck
    return Match(d, r, D, R, SP,
                 (pair[0].name, pair[1].name), P, PB, (pair[0].python, pair[1].python),
                 (pair[0].spec, pair[1].spec))
