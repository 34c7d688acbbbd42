"""Drive the engine step by step from a hand-made position (scenario tests, examples).

A Scenario owns a GameState, the two strategies (usually `scripted` ones whose
choices the test spells out), the logs and the option scratch, and exposes the
engine's phases as methods. The same compiled functions as in a full game run.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from targi_sim.engine import acquire as acq
from targi_sim.engine import actions, rounds, scoring
from targi_sim.engine import layout as lay
from targi_sim.engine.batch import OPTION_BUFFER
from targi_sim.engine.buffers import make_logs
from targi_sim.engine.constants import N_STRAT_PARAMS, SK_SCRIPTED
from targi_sim.engine.policies import Policy, builtin
from targi_sim.game.deck import Deck
from targi_sim.game.record import log_frames
from targi_sim.game.rules import Rules
from targi_sim.game.state import GameState
from targi_sim.play.match import load_deck_and_rules
from targi_sim.players.strategy import Strategy, resolve_strategy, scripted

MODES = {
    "centre": acq.MODE_CENTRE,
    "tribal_expansion": acq.MODE_EXPANSION,
    "noble": acq.MODE_NOBLE,
    "ability": acq.MODE_ABILITY,
}


class Scenario:
    """A position plus everything needed to run engine phases on it."""

    def __init__(
        self,
        deck: str | Deck = "base",
        rules: str | Rules = "default",
        *,
        seed: int = 0,
        first_player: int = 0,
    ) -> None:
        d, r = load_deck_and_rules(deck, rules)
        self.state = GameState.new(d, r, seed=seed, first_player=first_player)
        self.SP = np.zeros((2, N_STRAT_PARAMS))
        self.policies: list[Policy] = [builtin(SK_SCRIPTED), builtin(SK_SCRIPTED)]
        self.L = make_logs(1, exact=True, trace_rows=20_000)
        self.O = np.zeros(OPTION_BUFFER, dtype=np.int64)
        self.script([], [])

    # ------------------------------------------------------------ strategies
    def use(self, p: int, strategy: str | Strategy) -> None:
        s = resolve_strategy(strategy)
        self.SP[p] = s.row()
        self.policies[p] = s.policy

    def script(self, p0: Sequence[int] | None = None, p1: Sequence[int] | None = None) -> None:
        """Scripted choices for each player (None leaves that player's strategy as is)."""
        for p, choices in ((0, p0), (1, p1)):
            if choices is not None:
                self.use(p, scripted(choices))

    @property
    def P(self) -> tuple[Policy, Policy]:
        return self.policies[0], self.policies[1]

    @property
    def S(self) -> np.ndarray:
        return self.state.S

    @property
    def players(self):
        return self.state.players

    def _args(self):
        return self.state.S, self.state.D, self.state.R, self.SP, self.L, self.P

    # ------------------------------------------------------------ phases
    def play_round(self) -> None:
        rounds.play_round(*self._args(), self.O)

    def play_to_end(self) -> None:
        rounds.play_to_end(*self._args(), self.O)

    def start_round(self) -> bool:
        """Move the robber (and resolve a raid it reaches); False if the game ended."""
        return bool(rounds.start_round(*self._args(), self.O))

    def raid(self, position: int) -> None:
        """Resolve the raid card at border position 0..15 for both players."""
        rounds.resolve_raid(*self._args(), position, self.O)

    def place_targis(self) -> None:
        """A whole placement phase (all six Targis, or as many as can be placed)."""
        self.state.S[lay.S_PLACE_K] = 0
        rounds.place_targis(*self._args(), self.O)

    def place_markers(self) -> None:
        rounds.place_markers(self.state.S, 0)
        rounds.place_markers(self.state.S, 1)

    def placement_options(self, p: int) -> list[int]:
        n = rounds.placement_options(self.state.S, self.state.D, p, self.O, False)
        return [int(x) for x in self.O[:n]]

    def resolve_actions(self, p: int) -> None:
        rounds.resolve_actions(*self._args(), p, self.O)

    def resolve_slot(self, p: int, slot: int) -> None:
        actions.resolve_slot(*self._args(), p, slot, self.O)

    def resolve_border(self, p: int, position: int) -> None:
        actions.resolve_border(*self._args(), p, position, self.O)

    def resolve_cell(self, p: int, cell: int) -> None:
        actions.resolve_cell(*self._args(), p, cell, self.O)

    def acquire(self, p: int, card: int, mode: str = "centre") -> str:
        """Acquire a tribe card; returns 'played', 'kept', 'discarded' or 'left'."""
        source = {"centre": 0, "tribal_expansion": 1}.get(mode, 2)
        out = acq.acquire(*self._args(), p, card, source, MODES[mode], self.O)
        return ("played", "kept", "discarded", "left")[out]

    def tribe_options(self, p: int, card: int, mode: str = "centre") -> list[int]:
        n = acq.tribe_options(self.state.S, self.state.D, self.state.R, p, card, MODES[mode],
                              self.O)
        return [int(x) for x in self.O[:n]]

    def end_round(self) -> None:
        rounds.end_round(*self._args(), self.O)

    def score(self, p: int) -> dict[str, int]:
        parts = scoring.score_parts(self.state.S, self.state.D, self.state.R, p)
        names = ("tokens", "card_vp", "ability_vp", "row_bonus", "total")
        return {k: int(v) for k, v in zip(names, parts, strict=True)}

    def winner(self) -> tuple[int, str]:
        """(winner or -1, tie-break used) as the game stands."""
        s0 = self.score(0)["total"]
        s1 = self.score(1)["total"]
        w, tb = scoring.decide_winner(self.state.S, self.state.D, self.state.R, s0, s1)
        return int(w), ("none", "gold", "goods", "draw")[tb]

    def logs(self) -> dict[str, pl.DataFrame]:
        return log_frames(self.L)
