"""Targi as an OpenSpiel game, `python_targi` (docs/ai.md).

Sequential, two players, zero-sum (+1 / -1, a draw 0 each), imperfect information,
terminal rewards. Chance is one explicit chance node at the start, the deal: outcome
`k` is deal `k` of a `Table` (game k of `targi-sim run --seed RUN_SEED --pairing
one_per_deal`), after which the engine's own seeded streams deal every card, exactly as
in `targi-sim run`. Why not a chance node per card: the compiled engine shuffles and
draws inside a round, so a game played through OpenSpiel would no longer be the game
the engine plays; and why not sampled stochastic: a state is then a pure function of its
action history, so cloning, serialisation and replays are exact and every OpenSpiel
algorithm that samples chance (MCTS, ISMCTS, the RL environment) handles it.

The information state and the observation are the same thing: what `game.view.View`
holds for the seat, plus its pending decision (ai/encoding.py). They are not perfect
recall (the moves that led here are not in them); the View is what the engine's own
players and its determinisation condition on. `resample_from_infostate` re-deals what
the player to decide cannot know with the engine's determinisation
(`play.session.Game.resample`): ISMCTS asks for nothing else, and another player's is
refused (a seat not to decide could not keep the pending decision, which may depend on
cards it cannot see).
"""

from __future__ import annotations

import hashlib
import pickle
from functools import lru_cache
from typing import Any

import numpy as np

from targi_sim.ai.actions import NUM_ACTIONS, describe
from targi_sim.ai.encoding import NOBODY, Encoding
from targi_sim.ai.table import DEFAULT_DEALS, Position, Table, TableSettings
from targi_sim.errors import ConfigError
from targi_sim.game.record import GameRecord
from targi_sim.game.view import View
from targi_sim.play.session import EXTERNAL, Game

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - the ai extra is installed with the tests
    raise ImportError("targi_sim.openspiel needs OpenSpiel: pip install 'targi-sim[ai]'") \
        from exc

GAME_NAME = "python_targi"
PARAMETERS: dict[str, Any] = {"deck": "base", "rules": "default", "run_seed": 0,
                              "deals": DEFAULT_DEALS, "logs": True}
MAX_GAME_LENGTH = 3000  # decisions in one game (random play: about 240; see docs/ai.md)

GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Targi (targi-sim engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


@lru_cache(maxsize=16)
def _table(settings: TableSettings) -> Table:
    return Table(settings)


def table_for(params: dict[str, Any]) -> Table:
    """The table of a game's parameters (validated; one per process and settings)."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ConfigError(unknown[0], f"is not a parameter of {GAME_NAME}; its parameters "
                          f"are {', '.join(PARAMETERS)}")
    return _table(TableSettings(**{**PARAMETERS, **params}))


class TargiGame(pyspiel.Game):
    """`pyspiel.load_game("python_targi", {"deck": ..., "rules": ...})` makes one."""

    def __init__(self, params: dict[str, Any] | None = None, *, table: Table | None = None):
        params = {**PARAMETERS, **dict(params or {})}
        self.table = table if table is not None else table_for(params)
        s = self.table.settings
        info = pyspiel.GameInfo(num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=s.deals,
                                num_players=2, min_utility=-1.0, max_utility=1.0,
                                utility_sum=0.0, max_game_length=MAX_GAME_LENGTH)
        super().__init__(GAME_TYPE, info, {"deck": s.deck, "rules": s.rules,
                                           "run_seed": s.run_seed, "deals": s.deals,
                                           "logs": s.logs})
        self._outcomes: list[tuple[int, float]] | None = None

    def new_initial_state(self) -> TargiState:
        return TargiState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> TargiObserver:
        return TargiObserver(self.table.encoding, iig_obs_type, params)

    def deal_outcomes(self) -> list[tuple[int, float]]:
        if self._outcomes is None:
            n = self.table.settings.deals
            self._outcomes = [(k, 1.0 / n) for k in range(n)]
        return self._outcomes

    def state_at(self, game: Game) -> TargiState:
        """A state at a session game's pending decision: a world a bot searches from
        (both seats decided from Python: `Game.resample(seed, detach=True)`). It has no
        history and cannot be serialised (how it was reached is not known here)."""
        if game.match.strategies != (EXTERNAL, EXTERNAL):
            raise ValueError("a state needs a game whose two seats are decided from Python")
        state = TargiState(self)
        state._w = _World(Position(game), None)
        return state


class _World:
    """The session game behind a state. A deep copy (OpenSpiel's clone) clones the game;
    pickling (serialisation) keeps how it was reached and replays it."""

    __slots__ = ("pos", "recipe")

    def __init__(self, pos: Position, recipe: tuple | None) -> None:
        self.pos = pos
        self.recipe = recipe  # (settings, deal, events): an event is an action or (player, seed)

    def __deepcopy__(self, memo) -> _World:
        return _World(self.pos.copy(), self.recipe)

    def __reduce__(self):
        if self.recipe is None:
            raise pickle.PicklingError("a state made from a game mid-way (a bot's world) "
                                       "cannot be serialised: serialise states that start "
                                       "from the deal")
        return (_rebuild, (self.recipe,))

    def apply(self, action: int) -> None:
        self.pos.apply(action)
        if self.recipe is not None:
            settings, deal, events = self.recipe
            self.recipe = (settings, deal, (*events, int(action)))

    def resampled(self, player: int, seed: int) -> _World:
        game = self.pos.game.resample(seed, detach=True)
        recipe = None
        if self.recipe is not None:
            settings, deal, events = self.recipe
            recipe = (settings, deal, (*events, (int(player), int(seed))))
        return _World(Position(game), recipe)


def _rebuild(recipe: tuple) -> _World:
    settings, deal, events = recipe
    world = _World(Position(_table(settings).deal(deal)), (settings, deal, ()))
    for event in events:
        if isinstance(event, tuple):
            world = world.resampled(*event)
        else:
            world.apply(event)
    return world


class TargiState(pyspiel.State):
    """A position of `python_targi`: before the deal (a chance node), at a decision of
    either seat, or over. `view(p)` and `record()` read it the targi-sim way."""

    def __init__(self, game: TargiGame) -> None:
        super().__init__(game)
        self._w: _World | None = None

    # ------------------------------------------------------------ OpenSpiel's API
    def current_player(self) -> int:
        if self._w is None:
            return pyspiel.PlayerId.CHANCE
        p = self._w.pos.current_player
        return pyspiel.PlayerId.TERMINAL if p is None else p

    def _legal_actions(self, player: int) -> list[int]:
        return list(self._w.pos.legal()[0]) if self._w is not None else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.get_game().deal_outcomes()

    def _apply_action(self, action: int) -> None:
        if self._w is None:
            game = self.get_game()
            table = game.table
            self._w = _World(Position(table.deal(int(action))),
                             (table.settings, int(action), ()))
        else:
            self._w.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return self._w.pos.action_text(action) if self._w is not None else describe(action)

    def is_terminal(self) -> bool:
        return self._w is not None and self._w.pos.is_over

    def returns(self) -> list[float]:
        return [0.0, 0.0] if self._w is None else self._w.pos.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler) -> TargiState:
        """OpenSpiel's resampling (its ISMCTS calls it): the seed comes from the sampler."""
        return resample_from_infostate(self, player_id, int(probability_sampler() * 2**53))

    def __str__(self) -> str:
        if self._w is None:
            return "Targi: the cards are not dealt yet"
        g = self._w.pos.game
        d = g.decision
        h = hashlib.sha256(np.ascontiguousarray(g.frozen).tobytes())
        if d is not None:
            h.update(np.asarray(d.values, dtype=np.int64).tobytes())
            h.update(g.round_answers().tobytes())
        where = "over" if d is None else f"seat {d.player} to decide: {d.type}"
        return (f"Targi deal {g.game_id}, round {g.view(0).round}, scores "
                f"{g.scores[0]}-{g.scores[1]}, {where} [state {h.hexdigest()[:16]}]")

    # ------------------------------------------------------------ targi-sim's side
    def option_index(self, action: int) -> int | None:
        """The index of `action` in the pending decision's options (None if not legal)."""
        return None if self._w is None else self._w.pos.legal()[1].get(int(action))

    def view(self, player: int) -> View:
        """What seat `player` may know now (ValueError before the deal)."""
        if self._w is None:
            raise ValueError("the cards are not dealt yet")
        return self._w.pos.view(player)

    def record(self) -> GameRecord:
        """The finished game's record (the tables `targi-sim run` writes); needs the
        game parameter logs=true."""
        if self._w is None or not self._w.pos.is_over:
            raise ValueError("the game is not over yet")
        return self._w.pos.game.record()


def resample_from_infostate(state: TargiState, player: int, seed: int) -> TargiState:
    """A state `player` cannot tell from `state`: everything that player cannot know
    re-dealt from `seed` with the engine's determinisation (`Game.resample`); the same
    seed on two states the player cannot tell apart gives the same state. `player`
    must be the one to decide (what ISMCTS asks); hand this function to an ISMCTS bot's
    `set_resampler` (as `lambda s, p: resample_from_infostate(s, p, rng...)`) for seeded
    resampling."""
    if state.is_chance_node():
        return state.clone()  # nobody knows anything yet: the deal is the same chance node
    if state.is_terminal():
        raise ValueError("the game is over: nothing to resample")
    if player != state.current_player():
        raise ValueError(f"resample_from_infostate re-deals from the view of the player to "
                         f"decide (seat {state.current_player()}); got player {player}")
    new = state.clone()
    new._w = state._w.resampled(player, seed)
    return new


class TargiObserver:
    """OpenSpiel's Python observer (open_spiel/python/observation.py): the seat's own
    observation, as a tensor (`tensor`, named pieces in `dict`) and as a string."""

    def __init__(self, encoding: Encoding, iig_obs_type=None, params=None) -> None:
        if params:
            raise ValueError(f"{GAME_NAME} takes no observation parameters; got {dict(params)}")
        if iig_obs_type is not None and (
                not iig_obs_type.public_info
                or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError(f"{GAME_NAME} provides a seat's own observation only (public "
                             "and its private information: what game.view.View holds)")
        self.encoding = encoding
        self.tensor = np.zeros(encoding.size, dtype=np.float32)
        self.dict = encoding.views(self.tensor)

    def _parts(self, state: TargiState, player: int):
        w = state._w
        if w is None or player not in (0, 1):
            return None, player, NOBODY, None
        view, who, decision = w.pos.observation(player)
        return view, player, who, decision

    def set_from(self, state: TargiState, player: int) -> None:
        self.encoding.write(self.tensor, *self._parts(state, player))

    def string_from(self, state: TargiState, player: int) -> str:
        return self.encoding.text(*self._parts(state, player))


def load_game(**params: Any) -> TargiGame:
    """`pyspiel.load_game("python_targi", params)`, returned as the Python object."""
    return pyspiel.load_game(GAME_NAME, params)


pyspiel.register_game(GAME_TYPE, TargiGame)

__all__ = ["GAME_NAME", "GAME_TYPE", "MAX_GAME_LENGTH", "PARAMETERS", "TargiGame",
           "TargiObserver", "TargiState", "load_game", "resample_from_infostate",
           "table_for"]
