"""The OpenSpiel game `python_targi` (targi_sim.openspiel): OpenSpiel's own API test on
two decks, resampling from an information state, serialisation, and clear errors for
malformed game parameters."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import targi_sim.openspiel as tos  # noqa: E402 - registers python_targi
from targi_sim.errors import ConfigError, UsageError  # noqa: E402


@pytest.mark.parametrize("deck", ["base", "abilities-example"])
def test_openspiels_api_test_passes_with_serialisation(deck):
    game = pyspiel.load_game("python_targi", {"deck": deck, "deals": 1000})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_the_game_is_what_openspiel_expects():
    game = pyspiel.load_game("python_targi")
    t = game.get_type()
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_players() == 2 and game.max_chance_outcomes() == tos.PARAMETERS["deals"]
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == game.max_chance_outcomes()
    state.apply_action(3)
    p = state.current_player()
    assert state.information_state_string(p) == state.observation_string(p)
    assert state.information_state_tensor(p) == state.observation_tensor(p)
    assert len(state.observation_tensor(p)) == game.observation_tensor_size()
    assert state.information_state_string(p) != state.information_state_string(1 - p)
    assert state.view(p).round == 1 and "I decide: place" in state.observation_string(p)


def _play_to(state, decisions: int, rng):
    for _ in range(decisions):
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_resampling_keeps_the_information_state_and_re_deals_the_rest():
    """OpenSpiel's ResampleInfostateTest, for the player to decide (what ISMCTS asks);
    another player's resampling is refused in one line."""
    game = pyspiel.load_game("python_targi")
    rng = np.random.default_rng(2)
    different = 0
    for deal in range(3):
        state = game.new_initial_state()
        state.apply_action(deal)
        while not state.is_terminal():
            p = state.current_player()
            other = tos.resample_from_infostate(state, p, int(rng.integers(2**40)))
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.information_state_tensor(p) == state.information_state_tensor(p)
            assert other.current_player() == p
            assert other.legal_actions() == state.legal_actions()
            different += str(other) != str(state)
            sampled = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0., 1.))
            assert sampled.information_state_string(p) == state.information_state_string(p)
            _play_to(state, 1, rng)
    assert different > 100
    state = _dealt(game, 0)
    with pytest.raises(ValueError, match="player to decide"):
        tos.resample_from_infostate(state, 1 - state.current_player(), 1)


def test_the_same_seed_resamples_the_same_state_and_a_resampled_state_serialises():
    game = pyspiel.load_game("python_targi")
    state = _play_to(_dealt(game, 5), 30, np.random.default_rng(0))
    p = state.current_player()
    a, b = (tos.resample_from_infostate(state, p, 77) for _ in range(2))
    assert str(a) == str(b) and str(a) != str(tos.resample_from_infostate(state, p, 78))
    _play_to(a, 10, np.random.default_rng(1))
    text = pyspiel.serialize_game_and_state(game, a)
    game2, back = pyspiel.deserialize_game_and_state(text)
    assert str(back) == str(a) and back.legal_actions() == a.legal_actions()
    assert back.information_state_string(p) == a.information_state_string(p)


def _dealt(game, deal: int):
    state = game.new_initial_state()
    state.apply_action(deal)
    return state


def test_a_finished_game_has_its_record_and_returns():
    game = pyspiel.load_game("python_targi", {"run_seed": 4})
    state = _dealt(game, 2)
    rng = np.random.default_rng(3)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    record = state.record()
    returns = state.returns()
    assert sum(returns) == 0 and record.winner in (-1, 0, 1)
    assert returns == ([0.0, 0.0] if record.winner < 0 else
                       [1.0, -1.0] if record.winner == 0 else [-1.0, 1.0])
    assert record.seed == (4 << 32) | 2 and record.first_player == 0


@pytest.mark.parametrize("params,error,words", [
    ({"deck": "nope"}, UsageError, "unknown deck 'nope'"),
    ({"deck": "no/such/file.toml"}, Exception, "file.toml"),
    ({"rules": "nope"}, UsageError, "unknown rules 'nope'"),
    ({"deals": 0}, ConfigError, "`deals` must be a whole number from 1"),
    ({"run_seed": -3}, ConfigError, "`run_seed` must be a whole number"),
    ({"dek": "base"}, pyspiel.SpielError, "Unknown parameter 'dek'"),
    ({"deals": "many"}, pyspiel.SpielError, "Wrong type for parameter deals"),
])
def test_a_malformed_game_parameter_is_one_clear_error(params, error, words):
    with pytest.raises(error, match=words) as info:
        pyspiel.load_game("python_targi", params)
    assert "\n" not in str(info.value).strip()


def test_openspiels_ismcts_searches_the_game_with_the_engines_resampling():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_targi", {"logs": False})
    state = _dealt(game, 1)
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 4, random_state=rng)
    bot.set_resampler(lambda s, p: tos.resample_from_infostate(s, p, int(rng.randint(2**31))))
    for _ in range(3):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


def test_openspiels_observation_and_rl_environment_read_the_game():
    from open_spiel.python import rl_environment
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_targi", {"deals": 100})
    obs = make_observation(game)
    assert {"seat", "me_display", "decision"} <= set(obs.dict)
    state = _dealt(game, 9)
    obs.set_from(state, state.current_player())
    assert obs.tensor.tolist() == state.observation_tensor(state.current_player())
    assert obs.string_from(state, 0) == state.observation_string(0)
    env = rl_environment.Environment(game, seed=1)
    step = env.reset()
    steps = 0
    while not step.last():
        p = step.observations["current_player"]
        step = env.step([step.observations["legal_actions"][p][-1]])
        steps += 1
    assert steps > 100 and sorted(step.rewards) in ([-1.0, 1.0], [0.0, 0.0])
