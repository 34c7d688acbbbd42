"""Targi for PettingZoo: an AEC environment.

    import targi_sim.pettingzoo
    env = targi_sim.pettingzoo.env(deck="base", render_mode="ansi")
    env.reset(seed=1)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"]
        action = None if termination else int(mask.nonzero()[0][0])
        env.step(action)

The observation is the OpenSpiel game's tensor (what the seat may know, docs/ai.md)
with the action mask; actions are the OpenSpiel game's numbers; +1 / -1 at the end.
A trained policy comes back as a strategy with `agent_strategy(act)`.
"""

from targi_sim.ai.aec import AGENTS, TargiEnv, env, raw_env
from targi_sim.ai.agent import AgentStrategy, agent_strategy

__all__ = ["AGENTS", "AgentStrategy", "TargiEnv", "agent_strategy", "env", "raw_env"]
