"""Many seeded games inside one compiled call: the engine's throughput path."""

import numpy as np

from targi_sim.engine.access import goods_total, pbase
from targi_sim.engine.logs import (
    G_BAD,
    G_BD,
    G_BREAKDOWN,
    G_END,
    G_FIRST,
    G_GAME,
    G_ROUNDS,
    G_SCORE0,
    G_SCORE1,
    G_TIEBREAK,
    G_WINNER,
    H_GAME,
    room_for_game,
)

from .jit import jit, jit_alloc
from .layout import P_RES, S_BAD, S_END_REASON, S_FIRST_R1, S_ROUND
from .rounds import play_to_end, reseed_policies, setup_game
from .scoring import decide_winner, score_parts

OPTION_BUFFER = 256


@jit
def write_result(S, D, R, G, i, game_id):
    parts0 = score_parts(S, D, R, 0)
    parts1 = score_parts(S, D, R, 1)
    winner, tb = decide_winner(S, D, R, parts0[4], parts1[4])
    G[i, G_GAME] = game_id
    G[i, G_FIRST] = S[S_FIRST_R1]
    G[i, G_WINNER] = winner
    G[i, G_SCORE0] = parts0[4]
    G[i, G_SCORE1] = parts1[4]
    G[i, G_ROUNDS] = S[S_ROUND]
    for k in range(4):
        G[i, G_BAD + k] = S[S_BAD + k]
    G[i, G_END] = S[S_END_REASON]
    G[i, G_TIEBREAK] = tb
    for p in range(2):
        parts = parts0 if p == 0 else parts1
        o = G_BREAKDOWN + p * G_BD
        G[i, o] = parts[0]
        G[i, o + 1] = parts[1]
        G[i, o + 2] = parts[2]
        G[i, o + 3] = parts[3]
        G[i, o + 4] = S[pbase(p) + P_RES + 3]
        G[i, o + 5] = goods_total(S, p)


@jit
def copy_rows(src, dst):
    """dst[:, :] = src for the strategy rows, without numba's broadcasting machinery
    (which would compile string-formatting error paths into every entry point)."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@jit_alloc
def play_batch(D, R, SP, P, seeds, first_players, game_ids, G, L, start, S):
    """Play games start.. into G (results) and the logs L; returns the next game index.

    P: the two seats' compiled decision functions (engine/ask.py). Stops early,
    before a game that might not fit in the logs, so the caller can flush the logs
    and call again; a game is never split across calls. S is the state scratch;
    after the call it holds the last game's final state.
    """
    SPw = SP.copy()
    O = np.zeros(OPTION_BUFFER, dtype=np.int64)
    for i in range(start, seeds.shape[0]):
        if not room_for_game(L):
            return i
        L[H_GAME] = game_ids[i]
        setup_game(S, D, R, seeds[i], first_players[i])
        reseed_policies(S, SP, seeds[i])
        copy_rows(SP, SPw)
        play_to_end(S, D, R, SPw, L, P, O)
        write_result(S, D, R, G, i, game_ids[i])
    return seeds.shape[0]
