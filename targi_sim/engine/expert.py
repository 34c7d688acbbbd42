"""The expert: information-set MCTS over every decision of its own (engine/branching.py).

A seat that searches every decision (`MC_DECISIONS = SEARCHED_ALL`) pauses the game at
each of its decisions with more than one option. `search_decision` then runs the search
from the round's starting state and the round's answers so far; the answer joins the
seat's script and the round is replayed up to its next decision. Each iteration:

1. replays the round from its start with the recorded answers (both seats', forced), on
   the real state: the same call stack as the real decision, a few microseconds;
2. at the searched decision re-deals everything the searcher cannot know, in place
   (information.determinize: the same re-deal the placement search and the no-peeking
   audit use), with a stream drawn from the searcher's own;
3. descends the tree of the round's remaining decisions -- both seats', every type --
   by UCT with availability counts (decision_tree.py), adds one node,
4. plays the game on with the rollout strategy (`base`) in both seats, to its end or
   for `rollout_rounds` rounds and the fitted evaluation (rollouts.playout_value), and
   backs the result (win 1, draw 1/2, plus score margin / 100) up the path.

The answer is the root's most visited option. Everything is a function of the game state
and the searcher's own stream, so a game is a pure function of its seed.
"""

import numpy as np
from numba.extending import overload

from targi_sim.engine.constants import (
    DECISION_NAMES,
    DT_PLACE,
    HC_KEY,
    MC_ACTION_EXPLORATION,
    MC_ACTION_ITERATIONS,
    MC_CONFIDENCE,
    MC_DECISIONS,
    MC_DEPTH,
    MC_EXPLORATION,
    MC_ITERATIONS,
    MC_MARGIN,
    MC_PENDING,
    MC_PLACEMENT_TREE,
    MC_PRIOR,
    N_STRAT_PARAMS,
    PLACEMENT_TREE_PLACEMENTS,
    SEARCHED_ALL,
    SK_MONTECARLO,
)
from targi_sim.engine.logs import H_GAME, H_SIZE, H_USED, N_TABLES, room_for_game

from .batch import copy_rows, write_result
from .decision_tree import (
    C_BASE_SEED,
    C_CAPTURE,
    C_NODES_BY_TYPE,
    C_PREFIX,
    C_PREFIX_N,
    C_SIZE,
    N_COLS,
    iteration_begin,
    root_decided,
    tree_backup,
    tree_best,
    tree_reset,
)
from .information import redeal
from .ismcts import new_game_trees, search_placement
from .jit import OVERLOAD_OPTIONS, jit, jit_alloc
from .layout import (
    S_CORE,
    S_OVER,
    S_PAUSE_MC,
    S_POLICY_RNG,
    S_T,
    S_T_MODE,
    S_T_N,
    S_X_CTX,
    S_X_DTYPE,
    S_X_FROZEN,
    S_X_N,
    S_X_N_OPTIONS,
    S_X_OPTIONS,
    S_X_PAUSED,
    S_X_PLAYER,
    S_X_POS,
    S_X_SCRIPT,
    TM_REAL,
    TM_SEARCH,
)
from .montecarlo import choose_placement, search_scratch
from .rng import next32, seed_stream
from .rollouts import MARGIN, playout_value, rollout_rows
from .rounds import (
    legal_placements,
    placing_player,
    play_round,
    reseed_policies,
    setup_game,
)

HEURISTIC_MARKER = np.int8(1)
N_DECISION_TYPES = len(DECISION_NAMES)


def search_seats(PB, p, CTL, TREE):
    """The seats of p's search iterations: p's rollout policy in both, the search build."""
    pol = PB[0] if p == 0 else PB[1]
    return (pol, pol, HEURISTIC_MARKER, CTL, TREE)


@overload(search_seats, jit_options=OVERLOAD_OPTIONS, inline="always")
def _search_seats(PB, p, CTL, TREE):
    if len(PB) == 3:
        return lambda PB, p, CTL, TREE: (PB[0] if p == 0 else PB[1], PB[0] if p == 0 else PB[1],
                                         PB[2], CTL, TREE)
    return lambda PB, p, CTL, TREE: (PB[0] if p == 0 else PB[1], PB[0] if p == 0 else PB[1],
                                     HEURISTIC_MARKER, CTL, TREE)


def real_seats(P, CTL, TREE):
    """The seats of a real game in the search build."""
    return (P[0], P[1], P[2] if len(P) == 3 else HEURISTIC_MARKER, CTL, TREE)


@overload(real_seats, jit_options=OVERLOAD_OPTIONS, inline="always")
def _real_seats(P, CTL, TREE):
    if len(P) == 3:
        return lambda P, CTL, TREE: (P[0], P[1], P[2], CTL, TREE)
    return lambda P, CTL, TREE: (P[0], P[1], HEURISTIC_MARKER, CTL, TREE)


@jit
def decision_iterations(SP, p, dtype):
    """A searched decision's budget: `iterations` for a placement, `action_iterations`
    (when set) for any other decision."""
    if dtype != DT_PLACE and SP[p, MC_ACTION_ITERATIONS] > 0:
        return max(1, int(SP[p, MC_ACTION_ITERATIONS]))
    return max(1, int(SP[p, MC_ITERATIONS]))


@jit
def _begin_search(S0, Sp, SP, p, CTL, TREE, SPr, audit_seed):
    """Set up a search of the decision Sp paused at; returns its base seed."""
    k = Sp[S_T_N]
    CTL[C_PREFIX_N] = k
    for j in range(k):
        CTL[C_PREFIX + j] = Sp[S_T + j]
    rollout_rows(SP, p, SPr)
    c = SP[p, MC_ACTION_EXPLORATION] if SP[p, MC_ACTION_EXPLORATION] > 0 else SP[p, MC_EXPLORATION]
    tree_reset(CTL, TREE, p, c, SP[p, MC_PRIOR], int(SP[p, MC_DEPTH]), audit_seed,
               SP[p, MC_CONFIDENCE])
    base_seed = next32(S0, S_POLICY_RNG + 4 * p)
    CTL[C_BASE_SEED] = base_seed
    return base_seed


@jit
def _iteration(S0, D, R, SP, p, base_seed, it, CTL, Sr, SPr, Lr, Pr, Or, margin):
    """One iteration (module docstring): p's result of its playout."""
    for j in range(S_CORE):
        Sr[j] = S0[j]
    Sr[S_PAUSE_MC] = 0
    Sr[S_X_PAUSED] = 0
    Sr[S_X_N] = 0
    Sr[S_X_POS] = 0
    Sr[S_T_MODE] = TM_SEARCH
    seed_stream(Sr, S_POLICY_RNG + 4 * p, base_seed, it + 1)
    for q in range(2):
        for j in range(HC_KEY, N_STRAT_PARAMS):
            SPr[q, j] = np.nan
    iteration_begin(CTL)
    return playout_value(D, R, p, Sr, SPr, Lr, Pr, Or, margin, SP)


@jit
def search_decision(S0, Sp, D, R, SP, PB, p, CTL, TREE, Sr, SPr, Lr, Or, audit_seed):
    """Player p's answer (an option value) to the decision a replay of the round paused
    at. S0: the state at the round's start (p's stream in it advances by one draw);
    Sp: the paused replay (its S_T answers and S_X_* decision)."""
    dtype = Sp[S_X_DTYPE]
    n = Sp[S_X_N_OPTIONS]
    base_seed = _begin_search(S0, Sp, SP, p, CTL, TREE, SPr, audit_seed)
    Pr = search_seats(PB, p, CTL, TREE)
    iterations = decision_iterations(SP, p, dtype)
    margin = SP[p, MC_MARGIN] if SP[p, MC_MARGIN] > 0 else MARGIN
    for it in range(iterations):
        v = _iteration(S0, D, R, SP, p, base_seed, it, CTL, Sr, SPr, Lr, Pr, Or, margin)
        tree_backup(CTL, TREE, v)
        if SP[p, MC_CONFIDENCE] == 0 and root_decided(TREE, iterations - it - 1):
            break  # (the confidence rule reads the means: every iteration counts)
    return tree_best(CTL, TREE, dtype, Sp[S_X_CTX], Sp[S_X_OPTIONS:S_X_OPTIONS + n], n)


@jit
def placement_answer(S0, Sp, D, R, SP, PB, p, Sf, Of, scratch, audit_seed):
    """A placement searched by the placement tree (engine/ismcts.py, as expert-placements
    searches it) from the paused position: the placement phase can be resumed, so the
    frozen state is the position. p's stream comes from S0 and goes back to it."""
    Sm, SPm, Lm, Om, slots, T = scratch
    for j in range(S_CORE):
        Sf[j] = Sp[S_X_FROZEN + j]
    for w in range(4):
        Sf[S_POLICY_RNG + 4 * p + w] = S0[S_POLICY_RNG + 4 * p + w]
    if audit_seed != 0:
        redeal(Sf, p, audit_seed, slots)
    b = search_placement(Sf, D, R, SP, PB, p, Of, Sm, SPm, Lm, Om, slots, T)
    for w in range(4):
        S0[S_POLICY_RNG + 4 * p + w] = Sf[S_POLICY_RNG + 4 * p + w]
    return b


@jit
def answer_decision(S0, Sp, D, R, SP, PB, p, arrays, scratch, audit_seed):
    """Player p's answer to the decision the replay Sp paused at: a placement by the
    placement tree when the seat asks for it, else by the tree of the round."""
    CTL, TREE, Sr, SPr, Lr, Or = arrays
    if Sp[S_X_DTYPE] == DT_PLACE and SP[p, MC_PLACEMENT_TREE] == PLACEMENT_TREE_PLACEMENTS:
        return placement_answer(S0, Sp, D, R, SP, PB, p, Sr, Or, scratch, audit_seed)
    return search_decision(S0, Sp, D, R, SP, PB, p, CTL, TREE, Sr, SPr, Lr, Or, audit_seed)


@jit_alloc
def determinised_positions(S0, Sp, D, R, SP, PB, p, k):
    """The positions (S[:S_CORE]) k iterations of p's search of the paused decision stand
    in right after their re-deal at the decision (the common re-deal of the root's answer
    that follows uses the same `determinize`, seeded by the answer's visits): for the
    statistical audit of what the search re-deals (tests/test_expert.py). S0 is not
    changed."""
    out = np.zeros((k, S_CORE), dtype=np.int64)
    CTL, TREE, Sr, SPr, Lr, Or = search_arrays(SP, Sp.shape[0])
    S0c = S0.copy()
    base_seed = _begin_search(S0c, Sp, SP, p, CTL, TREE, SPr, 0)
    CTL[C_CAPTURE] = 1
    Pr = search_seats(PB, p, CTL, TREE)
    for it in range(k):
        _iteration(S0c, D, R, SP, p, base_seed, it, CTL, Sr, SPr, Lr, Pr, Or, MARGIN)
        for j in range(S_CORE):
            out[it, j] = Sr[S_X_FROZEN + j]
    return out


@jit
def tree_rows(SP):
    """Rows of the search tree for these seats: one per iteration, plus the root."""
    most = 0
    for q in range(SP.shape[0]):
        if SP[q, 0] == SK_MONTECARLO and SP[q, MC_DECISIONS] == SEARCHED_ALL:
            most = max(most, int(SP[q, MC_ITERATIONS]), int(SP[q, MC_ACTION_ITERATIONS]))
    return most + 2


@jit_alloc
def search_arrays(SP, S_size):
    """(CTL, TREE, Sr, SPr, Lr, Or): the arrays a search of every decision works in."""
    return (np.zeros(C_SIZE, dtype=np.int64), np.zeros((tree_rows(SP), N_COLS)),
            np.zeros(S_size, dtype=np.int64), np.zeros_like(SP),
            np.zeros(H_SIZE, dtype=np.int32), np.zeros(256, dtype=np.int64))


@jit_alloc
def answer_paused(S0, Sp, D, R, SP, PB, p, audit_seed, trees):
    """search_decision for a driver in Python (targi_sim.play.session, the no-peeking
    audit): allocates its own arrays but the placement trees, `trees`
    (montecarlo.placement_trees), which the driver keeps for the game, so a seat that
    reuses its tree plays as in a batch. Returns (answer, nodes expanded by decision
    type)."""
    arrays = search_arrays(SP, Sp.shape[0])
    Sm, SPm, Lm, Om, slots, _ = search_scratch(SP, Sp.shape[0])
    a = answer_decision(S0, Sp, D, R, SP, PB, p, arrays, (Sm, SPm, Lm, Om, slots, trees),
                        audit_seed)
    CTL = arrays[0]
    return a, CTL[C_NODES_BY_TYPE:C_NODES_BY_TYPE + N_DECISION_TYPES].copy()


@jit
def _restore_logs(L, used):
    for t in range(N_TABLES):
        L[H_USED + t] = used[t]


@jit
def play_search_round(S, D, R, SPw, L, P, PB, O, S0, SP0, used, mc, scratch, arrays):
    """Play the round S stands at, with seats that search every decision: replay it
    until no searching seat is waiting, searching each paused decision in between.

    Placements of a seat that searches placements only (engine/montecarlo.py) are
    searched once per round: `mc` keeps each one's answer and the seat's stream after
    it, so a replay reproduces the search without repeating it."""
    CTL, TREE = arrays[0], arrays[1]
    Sm, SPm, Lm, Om, slots, T = scratch
    Pw = real_seats(P, CTL, TREE)
    for j in range(S_CORE):
        S0[j] = S[j]
    copy_rows(SPw, SP0)
    for t in range(N_TABLES):
        used[t] = L[H_USED + t]
    n_script = 0
    n_mc = 0
    while True:
        for j in range(S_CORE):
            S[j] = S0[j]
        S[S_X_N] = n_script
        S[S_X_POS] = 0
        S[S_X_PAUSED] = 0
        S[S_T_MODE] = TM_REAL
        S[S_T_N] = 0
        S[S_PAUSE_MC] = 1
        copy_rows(SP0, SPw)
        _restore_logs(L, used)
        seen_mc = 0
        while not play_round(S, D, R, SPw, L, Pw, O):
            q = placing_player(S)
            if S[S_X_PAUSED] == 1:  # the round is only being run out: no search, no cache
                legal_placements(S, D, R, q, O)
                SPw[q, MC_PENDING] = O[0]
            elif seen_mc < n_mc:
                SPw[q, MC_PENDING] = mc[seen_mc, 0]
                for w in range(4):
                    S[S_POLICY_RNG + 4 * q + w] = mc[seen_mc, 1 + w]
            else:
                SPw[q, MC_PENDING] = choose_placement(S, D, R, SPw, PB, q, O, Sm, SPm, Lm, Om,
                                                      slots, T)
                mc[n_mc, 0] = SPw[q, MC_PENDING]
                for w in range(4):
                    mc[n_mc, 1 + w] = S[S_POLICY_RNG + 4 * q + w]
                n_mc += 1
            if S[S_X_PAUSED] == 0:
                seen_mc += 1
        if S[S_X_PAUSED] == 0:
            break
        p = S[S_X_PLAYER]
        a = answer_decision(S0, S, D, R, SP0, PB, p, arrays, scratch, 0)
        S[S_X_SCRIPT + n_script] = a
        n_script += 1
    S[S_X_N] = 0
    S[S_X_POS] = 0
    S[S_T_MODE] = 0


@jit_alloc
def play_batch_search(D, R, SP, P, PB, seeds, first_players, game_ids, G, L, start, S):
    """play_batch for games with a seat that searches every decision."""
    SPw = SP.copy()
    SP0 = SP.copy()
    O = np.zeros(256, dtype=np.int64)
    S0 = np.zeros_like(S)
    used = np.zeros(N_TABLES, dtype=np.int32)
    mc = np.zeros((64, 5))
    scratch = search_scratch(SP, S.shape[0])
    arrays = search_arrays(SP, S.shape[0])
    for i in range(start, seeds.shape[0]):
        if not room_for_game(L):
            return i
        L[H_GAME] = game_ids[i]
        setup_game(S, D, R, seeds[i], first_players[i])
        reseed_policies(S, SP, seeds[i])
        new_game_trees(scratch[5])
        copy_rows(SP, SPw)
        for q in range(2):
            SPw[q, MC_PENDING] = np.nan
        while S[S_OVER] == 0:
            play_search_round(S, D, R, SPw, L, P, PB, O, S0, SP0, used, mc, scratch, arrays)
        write_result(S, D, R, G, i, game_ids[i])
    return seeds.shape[0]


def searches_all(SP: np.ndarray) -> bool:
    """True if a seat searches every decision (it needs play_batch_search)."""
    return bool(((SP[:, 0] == SK_MONTECARLO) & (SP[:, MC_DECISIONS] == SEARCHED_ALL)).any())
