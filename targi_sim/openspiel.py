"""Targi for OpenSpiel: importing this module registers the game `python_targi`.

    import pyspiel
    import targi_sim.openspiel
    game = pyspiel.load_game("python_targi", {"deck": "abilities-example"})
    state = game.new_initial_state()        # a chance node: the deal
    state.apply_action(7)                   # deal 7 (game 7 of `targi-sim run --seed 0`)
    state.legal_actions(), state.information_state_string(), state.observation_tensor()

Parameters: `deck` and `rules` (shipped names or file paths), `run_seed` and `deals`
(the deals are games 0..deals-1 of `targi-sim run --seed RUN_SEED`, one per deal),
`logs` (keep each game's record: `state.record()`). OpenSpiel's bots as targi-sim
strategies: `bot_strategy`, and the shipped `openspiel-mcts@N` / `openspiel-ismcts@N`;
a trained policy over the observation tensor: `agent_strategy`.
docs/ai.md says what the encoding holds and how fast each interface steps.
"""

from targi_sim.ai.agent import AgentStrategy, agent_strategy
from targi_sim.ai.bots import BotStrategy, ISMCTSStrategy, MCTSStrategy, bot_strategy
from targi_sim.ai.spiel import (
    GAME_NAME,
    PARAMETERS,
    TargiGame,
    TargiObserver,
    TargiState,
    load_game,
    resample_from_infostate,
)

__all__ = ["AgentStrategy", "BotStrategy", "GAME_NAME", "ISMCTSStrategy", "MCTSStrategy",
           "PARAMETERS", "TargiGame", "TargiObserver", "TargiState", "agent_strategy",
           "bot_strategy", "load_game", "resample_from_infostate"]
