"""A game played through OpenSpiel or PettingZoo with both seats answering as `balanced`
would is the game `targi-sim run` plays on that deal, table for table (200 deals each).

The answers come from the compiled policy on the position each interface stands at (as
tests/test_session.py's `_compiled_answer`): `balanced` is deterministic, so answering
for it from outside does not move any random stream, and the run's games are those of
`play_games` with seed RUN_SEED (one game per deal: a deterministic mirror).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from targi_sim import play_games, prepare_match
from targi_sim.ai.actions import action_of
from targi_sim.engine import layout as lay
from targi_sim.engine.constants import DECISION_NAMES

DEALS = 200
RUN_SEED = 11


@pytest.fixture(scope="module")
def run():
    batch = play_games(DEALS, seed=RUN_SEED, strategies=("balanced", "balanced"))
    assert batch.games["pair_id"].to_list() == list(range(DEALS))  # one game per deal
    tables = {name: table.partition_by("game_id", as_dict=True)
              for name, table in batch.tables.items()}
    return batch, tables


def _balanced_action(real, SP, game) -> int:
    d = game.decision
    S = np.zeros(lay.S_SIZE, dtype=np.int64)
    S[:lay.S_CORE] = game.frozen
    O = np.zeros(256, dtype=np.int64)
    O[:len(d.values)] = d.values
    i = int(real.P[d.player](S, real.D, real.R, SP, d.player, DECISION_NAMES.index(d.type), O,
                             len(d.values), d.context))
    return action_of(d.type, d.values[i])


def _same_game(record, k, run) -> None:
    batch, tables = run
    row = batch.games.row(k, named=True)
    assert record.scores == (row["score_p0"], row["score_p1"]), k
    for name, parts in tables.items():
        ref = parts.get((k,), pl.DataFrame(schema=record.tables[name].schema))
        assert record.tables[name].equals(ref), (k, name)


def test_openspiel_plays_the_games_targi_sim_run_plays(run):
    pyspiel = pytest.importorskip("pyspiel")
    import targi_sim.openspiel  # noqa: F401 - registers python_targi

    game = pyspiel.load_game("python_targi", {"run_seed": RUN_SEED})
    real = prepare_match(("balanced", "balanced"))
    for k in range(DEALS):
        SP = real.SP.copy()
        state = game.new_initial_state()
        state.apply_action(k)
        while not state.is_terminal():
            state.apply_action(_balanced_action(real, SP, state._w.pos.game))
        _same_game(state.record(), k, run)


def test_pettingzoo_plays_the_games_targi_sim_run_plays(run):
    pytest.importorskip("pettingzoo")
    import targi_sim.pettingzoo as tpz

    env = tpz.raw_env(run_seed=RUN_SEED)
    real = prepare_match(("balanced", "balanced"))
    for k in range(DEALS):
        SP = real.SP.copy()
        env.reset(options={"deal": k})
        for _agent in env.agent_iter():
            _obs, _reward, over, _truncated, _info = env.last()
            env.step(None if over else _balanced_action(real, SP, env._position.game))
        _same_game(env.record(), k, run)
