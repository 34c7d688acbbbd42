"""Flat Monte Carlo for Targi placement: determinised rollouts by a base strategy.

For each legal card, the player plays `rollouts` games to the end from a copy
of the position in which the hidden information has been re-dealt
(information.determinize), both seats played by the base strategy; the card
with the best mean result (win 1, draw 1/2, plus 1/100 of the score margin)
is chosen. The same re-deals are used for every option (common random
numbers), which makes the comparison much less noisy.

Why a driver instead of a branch in the policy: a rollout runs the engine, which
needs scratch arrays (a policy allocates nothing) and the rollout strategy's own
policy. So the engine pauses before a montecarlo player's placement (S_PAUSE_MC),
this driver runs the rollouts with `PB[p]`, the policy of p's base strategy, in both
seats, and leaves its choice in MC_PENDING; the game resumes and the choice is made
through `ask` (policies/montecarlo.py), so it is traced like any other.
"""

import numpy as np

from targi_sim.engine.constants import (
    HC_KEY,
    MC_BASE,
    MC_PENDING,
    MC_ROLLOUTS,
    N_HEURISTIC_WEIGHTS,
    N_STRAT_PARAMS,
    SK_MONTECARLO,
)
from targi_sim.engine.logs import H_GAME, H_SIZE, room_for_game

from .ask import rollout_policies
from .batch import copy_rows, write_result
from .information import determinize
from .jit import jit, jit_alloc
from .layout import S_CORE, S_PAUSE_MC, S_POLICY_RNG
from .rng import next32, seed_stream
from .rounds import (
    apply_placement,
    legal_placements,
    placing_player,
    play_to_end,
    reseed_policies,
    setup_game,
)
from .scoring import decide_winner, total_score

N_BASE = 1 + N_HEURISTIC_WEIGHTS


@jit
def rollout_value(S, D, R, p, Sr, SPr, Lr, Pr, Or):
    """Play Sr to the end with SPr; p's result: win 1, draw 1/2, plus score margin / 100."""
    play_to_end(Sr, D, R, SPr, Lr, Pr, Or)
    s_me = total_score(Sr, D, R, p)
    s_op = total_score(Sr, D, R, 1 - p)
    s0 = s_me if p == 0 else s_op
    s1 = s_op if p == 0 else s_me
    w, _ = decide_winner(Sr, D, R, s0, s1)
    v = 1.0 if w == p else (0.5 if w == -1 else 0.0)
    return v + 0.01 * (s_me - s_op)


@jit
def choose_placement(S, D, R, SP, PB, p, O, Sr, SPr, Lr, Or, slots):
    """The border position montecarlo player p places its next Targi on."""
    n = legal_placements(S, D, R, p, O)
    Pr = rollout_policies(PB, p)
    rollouts = max(1, int(SP[p, MC_ROLLOUTS]))
    base_seed = next32(S, S_POLICY_RNG + 4 * p)
    for q in range(2):
        for j in range(N_STRAT_PARAMS):
            SPr[q, j] = np.nan if j >= HC_KEY else 0.0
        for j in range(N_BASE):
            SPr[q, j] = SP[p, MC_BASE + j]
    best = O[0]
    best_v = -1e18
    for i in range(n):
        b = O[i]
        total = 0.0
        for r in range(rollouts):
            for j in range(S_CORE):
                Sr[j] = S[j]
            Sr[S_PAUSE_MC] = 0
            seed_stream(Sr, S_POLICY_RNG + 4 * p, base_seed, r + 1)
            determinize(Sr, p, S_POLICY_RNG + 4 * p, slots)
            for q in range(2):
                for j in range(HC_KEY, N_STRAT_PARAMS):
                    SPr[q, j] = np.nan
            apply_placement(Sr, p, b)
            total += rollout_value(S, D, R, p, Sr, SPr, Lr, Pr, Or)  # rollouts use Or, not O
        if total > best_v:
            best_v = total
            best = b
    return best


@jit_alloc
def play_batch_mc(D, R, SP, P, PB, seeds, first_players, game_ids, G, L, start, S):
    """play_batch for games with a montecarlo seat: pauses, rollouts, resumes.

    PB[p]: the policy montecarlo seat p plays its rollouts with (any policy for a
    seat that is not montecarlo)."""
    SPw = SP.copy()
    O = np.zeros(256, dtype=np.int64)
    Sr = np.zeros_like(S)
    SPr = np.zeros_like(SP)
    Or = np.zeros(256, dtype=np.int64)
    Lr = np.zeros(H_SIZE, dtype=np.int32)  # every table disabled
    slots = np.zeros(256, dtype=np.int64)
    for i in range(start, seeds.shape[0]):
        if not room_for_game(L):
            return i
        L[H_GAME] = game_ids[i]
        setup_game(S, D, R, seeds[i], first_players[i])
        reseed_policies(S, SP, seeds[i])
        S[S_PAUSE_MC] = 1
        copy_rows(SP, SPw)
        for q in range(2):
            SPw[q, MC_PENDING] = np.nan
        while not play_to_end(S, D, R, SPw, L, P, O):
            p = placing_player(S)
            SPw[p, MC_PENDING] = choose_placement(S, D, R, SPw, PB, p, O, Sr, SPr, Lr, Or,
                                                  slots)
        write_result(S, D, R, G, i, game_ids[i])
    return seeds.shape[0]


def uses_montecarlo(SP: np.ndarray) -> bool:
    return bool((SP[:, 0] == SK_MONTECARLO).any())
