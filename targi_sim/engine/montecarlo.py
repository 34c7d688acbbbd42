"""Monte Carlo search for Targi placement: the driver, and the flat search.

A montecarlo seat searches each Targi placement either flat (below) or with an
information-set tree (MC_SEARCH = SEARCH_ISMCTS: engine/ismcts.py, the `expert`).

Flat: for each legal card, the player plays `rollouts` games to the end from a copy
of the position in which the hidden information has been re-dealt
(information.determinize), both seats played by the base strategy; the card
with the best mean result (win 1, draw 1/2, plus 1/100 of the score margin)
is chosen. The same re-deals are used for every option (common random
numbers), which makes the comparison much less noisy.

Why a driver instead of a branch in the policy: a rollout runs the engine, which
needs scratch arrays (a policy allocates nothing) and the rollout strategy's own
policy. So the engine pauses before a montecarlo player's placement (S_PAUSE_MC),
this driver runs the search with `PB[p]`, the policy of p's base strategy, in both
seats, and leaves its choice in MC_PENDING; the game resumes and the choice is made
through `ask` (policies/montecarlo.py), so it is traced like any other.
"""

import numpy as np

from targi_sim.engine.constants import (
    MC_ITERATIONS,
    MC_PENDING,
    MC_ROLLOUTS,
    MC_SEARCH,
    SEARCH_ISMCTS,
    SK_MONTECARLO,
)
from targi_sim.engine.logs import H_GAME, H_SIZE, room_for_game

from .ask import rollout_policies
from .batch import copy_rows, write_result
from .ismcts import T_SIZE, new_game_trees, search_placement
from .jit import jit, jit_alloc
from .layout import S_PAUSE_MC, S_POLICY_RNG
from .rng import next32
from .rollouts import determinised_copy, rollout_rows, rollout_value
from .rounds import (
    apply_placement,
    legal_placements,
    placing_player,
    play_to_end,
    reseed_policies,
    setup_game,
)


@jit
def flat_placement(S, D, R, SP, PB, p, O, Sr, SPr, Lr, Or, slots):
    """Flat Monte Carlo: `rollouts` re-deals per legal card, the best mean wins."""
    n = legal_placements(S, D, R, p, O)
    Pr = rollout_policies(PB, p)
    rollouts = max(1, int(SP[p, MC_ROLLOUTS]))
    base_seed = next32(S, S_POLICY_RNG + 4 * p)
    rollout_rows(SP, p, SPr)
    best = O[0]
    best_v = -1e18
    for i in range(n):
        b = O[i]
        total = 0.0
        for r in range(rollouts):
            determinised_copy(S, p, base_seed, r, Sr, SPr, slots)
            apply_placement(Sr, p, b)
            total += rollout_value(S, D, R, p, Sr, SPr, Lr, Pr, Or, SP)  # Or, not O
        if total > best_v:
            best_v = total
            best = b
    return best


@jit
def choose_placement(S, D, R, SP, PB, p, O, Sr, SPr, Lr, Or, slots, T):
    """The border position montecarlo player p places its next Targi on: by its search
    (MC_SEARCH: flat rollouts per option, or the ISMCTS tree in T)."""
    if int(SP[p, MC_SEARCH]) == SEARCH_ISMCTS:
        return search_placement(S, D, R, SP, PB, p, O, Sr, SPr, Lr, Or, slots, T)
    return flat_placement(S, D, R, SP, PB, p, O, Sr, SPr, Lr, Or, slots)


@jit
def tree_rows(SP):
    """Rows of a seat's region of the ISMCTS scratch tree: one node per iteration, plus
    the root and the header (2 when no seat searches a tree)."""
    most = 0
    for q in range(SP.shape[0]):
        if SP[q, MC_SEARCH] == SEARCH_ISMCTS:
            most = max(most, int(SP[q, MC_ITERATIONS]))
    return most + 2


@jit_alloc
def placement_trees(SP):
    """The ISMCTS placement trees of a game: a region per seat and a spare one
    (engine/ismcts.py). A driver outside the compiled batches (the session, the
    no-peeking audit) keeps them for a whole game, as the batches do."""
    return np.zeros((3, tree_rows(SP), T_SIZE))


@jit_alloc
def search_scratch(SP, S_size):
    """(Sr, SPr, Lr, Or, slots, T): the scratch arrays choose_placement works in (one
    allocation for the compiled drivers, the session stepper and the no-peeking audit).
    T: a tree region per seat and a spare one (engine/ismcts.py); a seat that reuses its
    tree needs the same T for all its placements of a round, in order."""
    return (np.zeros(S_size, dtype=np.int64), np.zeros_like(SP),
            np.zeros(H_SIZE, dtype=np.int32), np.zeros(256, dtype=np.int64),
            np.zeros(256, dtype=np.int64), placement_trees(SP))


@jit_alloc
def play_batch_mc(D, R, SP, P, PB, seeds, first_players, game_ids, G, L, start, S):
    """play_batch for games with a montecarlo seat: pauses, rollouts, resumes.

    PB[p]: the policy montecarlo seat p plays its rollouts with (any policy for a
    seat that is not montecarlo)."""
    SPw = SP.copy()
    O = np.zeros(256, dtype=np.int64)
    Sr, SPr, Lr, Or, slots, T = search_scratch(SP, S.shape[0])  # Lr: every table disabled
    for i in range(start, seeds.shape[0]):
        if not room_for_game(L):
            return i
        L[H_GAME] = game_ids[i]
        setup_game(S, D, R, seeds[i], first_players[i])
        reseed_policies(S, SP, seeds[i])
        new_game_trees(T)
        S[S_PAUSE_MC] = 1
        copy_rows(SP, SPw)
        for q in range(2):
            SPw[q, MC_PENDING] = np.nan
        while not play_to_end(S, D, R, SPw, L, P, O):
            p = placing_player(S)
            SPw[p, MC_PENDING] = choose_placement(S, D, R, SPw, PB, p, O, Sr, SPr, Lr, Or,
                                                  slots, T)
        write_result(S, D, R, G, i, game_ids[i])
    return seeds.shape[0]


def uses_montecarlo(SP: np.ndarray) -> bool:
    return bool((SP[:, 0] == SK_MONTECARLO).any())
