"""OpenSpiel's bots as targi-sim strategies: `openspiel-mcts@N`, `openspiel-ismcts@N`
(data/strategies/), and any bot through `bot_strategy`.

A bot searches an OpenSpiel state; a strategy must not see the game (that would be
peeking). So at each decision the strategy draws a seed from its own generator (seeded
from the game's seed and its seat: `PythonStrategy.new_game`), asks for a copy of the
game in which everything its player cannot know is re-dealt (`resample(seed)`,
play.session.Game.resample) and hands the bot that world as a `python_targi` state.
ISMCTS re-deals again at every simulation (its resampler draws its seeds from the same
seeded generator); MCTS searches the one world it is given, as it would any
perfect-information game (a single determinisation). Both roll out with random moves
and pick moves as OpenSpiel ships them. `targi-sim strategies check openspiel-ismcts@N`
proves that the answers depend only on what the player may know.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from targi_sim.ai.spiel import TargiGame, resample_from_infostate
from targi_sim.ai.table import Table
from targi_sim.game.decisions import Decision
from targi_sim.game.view import View
from targi_sim.play.match import Match
from targi_sim.play.session import Game
from targi_sim.players.python_strategy import PythonStrategy

UCT_C = 2.0  # OpenSpiel's examples (open_spiel/python/examples/mcts.py): uct_c 2,
ROLLOUTS = 1  # one random rollout per leaf
_GAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

BotFactory = Callable[[TargiGame, np.random.RandomState], Any]


def spiel_game(match: Match) -> TargiGame:
    """The `python_targi` game of a match's deck and rules (one per match)."""
    game = _GAMES.get(match)
    if game is None:
        game = TargiGame(table=Table.of(match))
        _GAMES[match] = game
    return game


class BotStrategy(PythonStrategy):
    """A targi-sim strategy that asks an OpenSpiel bot at each decision (module
    docstring). Subclass it and implement `make_bot`, or call `bot_strategy`."""

    name = "openspiel-bot"
    description = "an OpenSpiel bot searching re-dealt copies of the game"
    resamples = True

    def make_bot(self, game: TargiGame, rng: np.random.RandomState) -> Any:
        """A fresh bot for one decision; `rng` is seeded from the game: give it to the
        bot (and its evaluator) so that the same game gets the same answers."""
        raise NotImplementedError(f"{type(self).__name__} must implement make_bot(game, rng)")

    def choose(self, view: View, decision: Decision,
               resample: Callable[[int], Game] | None = None) -> int:
        if resample is None:
            raise ValueError(f"{self.name} searches re-dealt copies of the game: it plays "
                             "only where targi-sim hands it `resample` (resamples = True)")
        seed = int(self.random.integers(2**62))
        world = resample(seed)
        game = spiel_game(world.match)
        state = game.state_at(world)
        rng = np.random.RandomState(seed % 2**32)
        bot = self.make_bot(game, rng)
        if hasattr(bot, "set_resampler"):  # ISMCTS: re-deal with the engine, seeded
            bot.set_resampler(lambda s, p: resample_from_infostate(
                s, p, int(rng.randint(0, 2**62, dtype=np.int64))))
        action = int(bot.step(state))
        index = state.option_index(action)
        if index is None:
            raise ValueError(f"the bot answered action {action}, which is not legal here")
        return index


class MCTSStrategy(BotStrategy):
    """OpenSpiel's MCTSBot (python/algorithms/mcts.py), random rollouts, `budget`
    simulations per decision, on one re-dealt world per decision."""

    name = "openspiel-mcts"
    description = "OpenSpiel's MCTS bot (random rollouts) on one re-deal per decision"
    budget = 100
    budget_unit = "simulations"
    max_budget = 100_000
    min_budget = 2  # one simulation only expands the root: no child to choose

    def make_bot(self, game: TargiGame, rng: np.random.RandomState) -> Any:
        from open_spiel.python.algorithms import mcts

        evaluator = mcts.RandomRolloutEvaluator(ROLLOUTS, random_state=rng)
        return mcts.MCTSBot(game, UCT_C, max(2, int(self.budget or 2)), evaluator,
                            random_state=rng)


class ISMCTSStrategy(BotStrategy):
    """OpenSpiel's ISMCTSBot (python/algorithms/ismcts.py), random rollouts, `budget`
    simulations per decision, each on a fresh re-deal of what the player cannot know."""

    name = "openspiel-ismcts"
    description = "OpenSpiel's information-set MCTS bot (random rollouts)"
    budget = 100
    budget_unit = "simulations"
    max_budget = 100_000
    min_budget = 2  # its final policy needs a visited child: one simulation only expands

    def make_bot(self, game: TargiGame, rng: np.random.RandomState) -> Any:
        from open_spiel.python.algorithms import ismcts, mcts

        evaluator = mcts.RandomRolloutEvaluator(ROLLOUTS, random_state=rng)
        return ismcts.ISMCTSBot(game, evaluator, UCT_C, max(2, int(self.budget or 2)),
                                random_state=rng)


class _FactoryStrategy(BotStrategy):
    def __init__(self, factory: BotFactory, name: str, description: str) -> None:
        self._factory = factory
        self.name = name
        self.description = description

    def make_bot(self, game: TargiGame, rng: np.random.RandomState) -> Any:
        return self._factory(game, rng)


def bot_strategy(bot: Any, name: str = "openspiel-bot", description: str = "") -> BotStrategy:
    """Any OpenSpiel bot as a targi-sim strategy, in one call: `bot` is a function
    `(game, rng) -> bot` (a fresh bot per decision, seeded from the game: the same game
    gets the same answers and `strategies check` can prove it) or a bot object (used as
    it is, with its own randomness). The result plays wherever a strategy does from
    Python (`play_games(..., strategies=(it, "balanced"))`, `new_game(p0=it)`)."""
    factory: BotFactory = bot if callable(bot) and not hasattr(bot, "step") else (
        lambda game, rng: bot)
    return _FactoryStrategy(factory, name, description or f"OpenSpiel bot {name!r}")


__all__ = ["BotStrategy", "ISMCTSStrategy", "MCTSStrategy", "bot_strategy", "spiel_game"]
