"""A trained agent back in targi-sim: a policy over the frameworks' observation and action
numbers, as a strategy that plays wherever a strategy does.

The policy sees exactly what the PettingZoo environment shows an agent (the observation
tensor and the action mask of ai/encoding.py and ai/actions.py), built from the View
and the decision a Python strategy is given: so a policy trained on either framework
plays here unchanged, and `targi-sim strategies check` holds it to the View.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from targi_sim.ai.actions import NUM_ACTIONS, action_of, describe
from targi_sim.ai.encoding import ME, Encoding
from targi_sim.game.decisions import Decision
from targi_sim.game.view import View
from targi_sim.players.python_strategy import PythonStrategy

Policy = Callable[[dict[str, np.ndarray]], int]


class AgentStrategy(PythonStrategy):
    """Asks `act({"observation": ..., "action_mask": ...}) -> action number`."""

    def __init__(self, act: Policy, name: str = "agent", description: str = "",
                 deterministic: bool = False) -> None:
        self.act = act
        self.name = name
        self.description = description or f"a trained agent ({name})"
        self.deterministic = deterministic
        self._encodings: dict[int, Encoding] = {}

    def observation(self, view: View, decision: Decision) -> dict[str, np.ndarray]:
        """What the PettingZoo environment would show this seat now."""
        enc = self._encodings.get(id(view.deck))
        if enc is None:
            enc = self._encodings[id(view.deck)] = Encoding(view.deck)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        for v in decision.values:
            mask[action_of(decision.type, v)] = 1
        return {"observation": enc.tensor(view, view.player, ME, decision),
                "action_mask": mask}

    def choose(self, view: View, decision: Decision) -> int:
        action = int(self.act(self.observation(view, decision)))
        for i, v in enumerate(decision.values):
            if action_of(decision.type, v) == action:
                return i
        raise ValueError(f"the agent answered action {action} ({describe(action)}), which is "
                         f"not legal at this {decision.type!r} decision")


def agent_strategy(act: Policy, name: str = "agent", description: str = "",
                   deterministic: bool = False) -> AgentStrategy:
    """A policy `act(observation) -> action` (observation: the PettingZoo dict) as a
    targi-sim strategy, in one call: `play_games(1000, strategies=(it, "balanced"))`.
    Its randomness, if any, should come from `strategy.random` (seeded per game) for
    games that repeat; `deterministic=True` if it has none."""
    return AgentStrategy(act, name, description, deterministic)


__all__ = ["AgentStrategy", "agent_strategy"]
