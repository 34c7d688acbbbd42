"""Targi as a PettingZoo AEC environment (docs/ai.md).

Agents `player_0` and `player_1` are seats 0 and 1. Each step is one decision of the
agent to move; a decision with a single legal option is taken by the engine and never
asked. The observation is a dict: `observation`, the same float32 tensor as the
OpenSpiel game's (ai/encoding.py: what `game.view.View` holds for that seat, plus its
pending decision), and `action_mask`, the legal actions of the agent's pending decision
(all 0 when it is not to move). Actions are the OpenSpiel game's numbers
(ai/actions.py). Rewards: +1 to the winner and -1 to the loser when the game ends (0
each for a draw); no truncation.

`reset(seed=...)` picks the deal from the seed (the same seed, the same game);
`reset(options={"deal": k})` plays deal k, game k of `targi-sim run --seed RUN_SEED
--pairing one_per_deal`. `render_mode="ansi"`: `render()` returns the decisions since
the last call in the words of `targi-sim replay`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from targi_sim.ai.actions import NUM_ACTIONS
from targi_sim.ai.table import DEFAULT_DEALS, Narration, Position, Table, TableSettings
from targi_sim.game.record import GameRecord

try:
    import gymnasium
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:  # pragma: no cover - the ai extra is installed with the tests
    raise ImportError("targi_sim.pettingzoo needs PettingZoo: pip install 'targi-sim[ai]'") \
        from exc

AGENTS = ["player_0", "player_1"]


class TargiEnv(AECEnv):
    """The raw environment (`targi_sim.pettingzoo.env` adds PettingZoo's order and
    bounds checks)."""

    metadata = {"render_modes": ["ansi"], "name": "targi_v0", "is_parallelizable": False}

    def __init__(self, deck: str = "base", rules: str = "default",
                 render_mode: str | None = None, run_seed: int = 0,
                 deals: int = DEFAULT_DEALS) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi'; got {render_mode!r}")
        self.table = Table(TableSettings(deck, rules, run_seed, deals, logs=True))
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        encoding = self.table.encoding
        low, high = encoding.bounds()
        self._observation_spaces = {a: gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }) for a in AGENTS}
        self._action_spaces = {a: gymnasium.spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._position: Position | None = None
        self._narration: Narration | None = None

    def observation_space(self, agent: str):
        return self._observation_spaces[agent]

    def action_space(self, agent: str):
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: deal `options["deal"]`, else a deal drawn from `seed` (other
        options are ignored, as Gymnasium's are)."""
        if seed is not None or not hasattr(self, "_rng"):
            self._rng = np.random.default_rng(seed)
        deal = (options or {}).get("deal")
        if deal is None:
            deal = int(self._rng.integers(self.table.settings.deals))
        game = self.table.deal(int(deal))
        self._position = Position(game)
        self._narration = Narration(game)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[game.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        pos = self._position
        assert pos is not None, "call reset() first"
        view, who, decision = pos.observation(seat)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if decision is not None:
            mask[pos.legal()[0]] = 1
        return {"observation": self.table.encoding.tensor(view, seat, who, decision),
                "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        pos = self._position
        assert pos is not None and self._narration is not None
        self._cumulative_rewards[agent] = 0.0
        pos.apply(int(action))
        if self.render_mode == "ansi":
            self._narration.after_answer(pos.game)
        if pos.is_over:
            returns = pos.returns()
            self.rewards = {a: returns[i] for i, a in enumerate(AGENTS)}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            # the next agent to be told (and removed): the other seat first
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self.agent_selection = AGENTS[pos.current_player]

    def render(self) -> str | None:
        """The decisions since the last call (and the result once over), in words."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs render_mode='ansi'")
            return None
        assert self._narration is not None, "call reset() first"
        return "\n".join(self._narration.take())

    def record(self) -> GameRecord:
        """The finished game's record (the tables `targi-sim run` writes)."""
        if self._position is None or not self._position.is_over:
            raise ValueError("the game is not over yet")
        return self._position.game.record()

    def close(self) -> None:
        pass


def env(deck: str = "base", rules: str = "default", render_mode: str | None = None,
        run_seed: int = 0, deals: int = DEFAULT_DEALS):
    """The environment with PettingZoo's usual wrappers (bounds, call order)."""
    raw = TargiEnv(deck, rules, render_mode, run_seed, deals)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw))


raw_env = TargiEnv

__all__ = ["AGENTS", "TargiEnv", "env", "raw_env"]
