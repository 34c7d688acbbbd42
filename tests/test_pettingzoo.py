"""The PettingZoo environment (targi_sim.pettingzoo): PettingZoo's own API and seed tests
on two decks, the same observation as the OpenSpiel game, and the text replay's words."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import targi_sim.pettingzoo as tpz  # noqa: E402


@pytest.mark.parametrize("deck", ["base", "abilities-example"])
def test_pettingzoos_api_and_seed_tests_pass(deck):
    api_test(tpz.env(deck=deck, render_mode="ansi"), num_cycles=300)
    seed_test(lambda: tpz.env(deck=deck), num_cycles=300)


def _play(env, chooser):
    for agent in env.agent_iter():
        obs, _reward, over, _truncated, _info = env.last()
        env.step(None if over else chooser(agent, obs))


def test_a_game_ends_with_one_winner_rewarded_and_its_record():
    env = tpz.env()
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    rewards = {a: 0.0 for a in tpz.AGENTS}

    def chooser(agent, obs):
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    for agent in env.agent_iter():
        obs, reward, over, _truncated, _info = env.last()
        rewards[agent] += reward
        if not over:
            assert obs["action_mask"].sum() >= 2  # single options are never asked
        env.step(None if over else chooser(agent, obs))
    record = env.unwrapped.record()
    expected = {-1: [0.0, 0.0], 0: [1.0, -1.0], 1: [-1.0, 1.0]}[record.winner]
    assert [rewards[a] for a in tpz.AGENTS] == expected


def test_the_observation_is_the_openspiel_games_tensor():
    pyspiel = pytest.importorskip("pyspiel")
    import targi_sim.openspiel  # noqa: F401

    env = tpz.raw_env(deck="abilities-example")
    env.reset(options={"deal": 6})
    state = pyspiel.load_game("python_targi", {"deck": "abilities-example"}).new_initial_state()
    state.apply_action(6)
    for _ in range(25):
        for seat, agent in enumerate(tpz.AGENTS):
            obs = env.observe(agent)
            assert np.array_equal(obs["observation"], state.observation_tensor(seat))
            mask = np.flatnonzero(obs["action_mask"]).tolist()
            assert mask == (state.legal_actions() if state.current_player() == seat else [])
        action = state.legal_actions()[-1]
        state.apply_action(action)
        env.step(action)


def test_ansi_rendering_tells_the_decisions_in_the_replays_words():
    env = tpz.env(render_mode="ansi")
    env.reset(options={"deal": 2})
    first = env.render()
    assert first == ""
    _play(env, lambda agent, obs: int(np.flatnonzero(obs["action_mask"])[0]))
    text = env.render()
    assert text.startswith("Round 1\n  seat 0 places Targi 1 on border card")
    assert "resolves its Targi on" in text and text.splitlines()[-1].startswith("Final:")
    assert env.render() == ""  # told once


def test_bad_input_is_one_clear_error():
    with pytest.raises(ValueError, match="render_mode must be None or 'ansi'"):
        tpz.env(render_mode="human")
    env = tpz.raw_env()
    env.reset(seed=1)
    last = env.action_space(env.agent_selection).n - 1  # a swap of display slot 12 with itself
    with pytest.raises(ValueError, match=rf"action {last} \(ability: option code 144\) is "
                                         "not legal here: the pending decision is 'place'"):
        env.step(last)


def test_a_trained_policy_comes_back_as_a_strategy_seeing_what_the_agent_saw():
    from targi_sim import check_no_peeking, play_game

    seen = []

    def act(obs):  # the highest legal action number
        seen.append(obs)
        return int(np.flatnonzero(obs["action_mask"])[-1])

    agent = tpz.agent_strategy(act, name="highest", deterministic=True)
    record = play_game(6, (agent, "random"))
    assert record.strategies[0] == "highest" and len(seen) > 50
    env = tpz.raw_env()  # the same game through the environment: the same observations
    env.reset(options={"deal": 0})
    agent2 = tpz.agent_strategy(act, name="highest")
    game = env._position.game
    obs = env.observe("player_0") if game.current_player == 0 else env.observe("player_1")
    mine = agent2.observation(game.view(game.current_player), game.decision)
    assert np.array_equal(mine["observation"], obs["observation"])
    assert np.array_equal(mine["action_mask"], obs["action_mask"])
    assert check_no_peeking(agent, games=2, redeals=2).passed
