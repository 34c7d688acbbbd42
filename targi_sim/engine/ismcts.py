"""Information-set Monte Carlo tree search for Targi placement (the `expert` strategy).

The variant is single-observer ISMCTS (Cowling, Powley & Whitehouse 2012): one tree,
seen from the searching player p; each iteration
1. determinises: a copy of the game in which what p cannot know (the opponent's
   unseen hand card, both draw piles' order, face-down cards, the opponent's and the
   decks' future random choices) is re-dealt from p's own view
   (rollouts.determinised_copy, the same re-deal the flat driver and the no-peeking
   audit use);
2. descends the tree of the round's remaining Targi placements -- p's and the
   opponent's alternately -- choosing by UCT (UCB1 on the mean result, the opponent
   minimising p's result), until it meets a placement not yet tried there;
3. expands that placement as a new node and plays the game on with the rollout
   strategy in both seats: to its end, or (`rollout_rounds` > 0) to the end of that
   many rounds, valued by the fitted evaluation (rollouts.position_value);
4. backs the result (win 1, draw 1/2, or the evaluation's win probability; plus score
   margin / 100, from p's side) up the path.
The placement played is the root child visited most (ties: the better mean).

Why a tree over placements only: the legal placements are public (they depend on the
Targis and the robber on the border, never on hidden cards), so every node's options are
the same in every determinisation and a plain UCT tree is an information-set tree. The
round's other decisions (the order of actions, taking or keeping a card, trades, raids,
discards) happen inside the engine's resolution, which cannot stop and resume in the
middle; the rollout strategy's heuristic decides them, in the search as in the game
(docs/strategies.md says so). The tree ends with the round's last placement:
beyond it a node would be a sequence of chance-laden rounds that determinisations
do not share.

The tree lives in T (float64, one row per node): visits, the sum of results, the player
to move, then one column per border card holding the child's row (-1: untried).
Everything is a function of the game's state and p's stream: same seed, same choice.
"""

import math

from targi_sim.engine.constants import (
    MC_EXPLORATION,
    MC_ITERATIONS,
    MC_MARGIN,
    MC_PLACEMENT_CRN,
    N_BORDER,
)

from .ask import rollout_policies
from .decision_tree import CRN_STREAMS
from .information import determinize
from .jit import jit
from .layout import S_PLACE_K, S_POLICY_RNG
from .rng import next32, randbelow, seed_stream
from .rollouts import MARGIN, determinised_copy, playout_value, rollout_rows
from .rounds import apply_placement, legal_placements, placing_player

T_VISITS = 0
T_VALUE = 1
T_MOVER = 2
T_CHILD = 3
T_SIZE = T_CHILD + N_BORDER
MAX_DEPTH = 8  # a round has at most 6 placements


@jit
def _new_node(T, k, mover):
    T[k, T_VISITS] = 0.0
    T[k, T_VALUE] = 0.0
    T[k, T_MOVER] = mover
    for b in range(N_BORDER):
        T[k, T_CHILD + b] = -1.0


@jit
def _next_placer(Sr, D, R, Or):
    """(player, options) of the next placement in Sr, skipping Targis that have no legal
    border card (the engine skips them too); player -1 once the placements are over."""
    while Sr[S_PLACE_K] < 6:
        q = placing_player(Sr)
        n = legal_placements(Sr, D, R, q, Or)
        if n > 0:
            return q, n
        Sr[S_PLACE_K] += 1
    return -1, 0


@jit
def _select(T, node, Or, n, c, p):
    """UCT among the tried children of a node whose options are Or[0:n] (all tried)."""
    log_n = math.log(max(T[node, T_VISITS], 1.0))
    sign = 1.0 if int(T[node, T_MOVER]) == p else -1.0
    best = Or[0]
    best_u = -1e300
    for i in range(n):
        b = Or[i]
        k = int(T[node, T_CHILD + b])
        v = T[k, T_VISITS]
        u = sign * T[k, T_VALUE] / v + c * math.sqrt(log_n / v)
        if u > best_u:
            best_u = u
            best = b
    return best


@jit
def _untried(T, node, Or, n, Sr, rng):
    """A random untried option of the node (-1 when all are tried)."""
    m = 0
    for i in range(n):
        if T[node, T_CHILD + Or[i]] < 0:
            m += 1
    if m == 0:
        return -1
    j = randbelow(Sr, rng, m)
    for i in range(n):
        if T[node, T_CHILD + Or[i]] < 0:
            if j == 0:
                return Or[i]
            j -= 1
    return -1


@jit
def search_placement(S, D, R, SP, PB, p, O, Sr, SPr, Lr, Or, slots, T):
    """The border position player p (an ismcts seat) places its next Targi on."""
    n_root = legal_placements(S, D, R, p, O)
    if n_root == 1:
        return O[0]
    Pr = rollout_policies(PB, p)
    iterations = max(1, int(SP[p, MC_ITERATIONS]))
    c = SP[p, MC_EXPLORATION]
    base_seed = next32(S, S_POLICY_RNG + 4 * p)
    rollout_rows(SP, p, SPr)
    rng = S_POLICY_RNG + 4 * p  # in the copy: p's stream, re-seeded per iteration
    _new_node(T, 0, p)
    used = 1
    path = slots[128:128 + MAX_DEPTH]
    common = SP[p, MC_PLACEMENT_CRN] == 1  # the expert's: expert-placements re-deals per iteration
    margin = SP[p, MC_MARGIN] if SP[p, MC_MARGIN] > 0 else MARGIN
    for it in range(iterations):
        determinised_copy(S, p, base_seed, it, Sr, SPr, slots)
        node = 0
        depth = 0
        path[depth] = node
        depth += 1
        while True:
            if common and depth == 2:  # the root answer is chosen: its k-th visit, re-deal k
                seed_stream(Sr, rng, base_seed, CRN_STREAMS + int(T[path[1], T_VISITS]))
                determinize(Sr, p, rng, slots)
            q, n = _next_placer(Sr, D, R, Or)
            if q < 0:
                break
            b = _untried(T, node, Or, n, Sr, rng)
            if b >= 0 and used < T.shape[0]:
                child = used
                used += 1
                T[node, T_CHILD + b] = child
                apply_placement(Sr, q, b)
                nq, _ = _next_placer(Sr, D, R, Or)
                _new_node(T, child, nq)
                path[depth] = child
                depth += 1
                break
            if b >= 0:  # the tree is full: roll out from here
                apply_placement(Sr, q, b)
                break
            b = _select(T, node, Or, n, c, p)
            apply_placement(Sr, q, b)
            node = int(T[node, T_CHILD + b])
            path[depth] = node
            depth += 1
        if common and depth == 2 and T[path[1], T_VISITS] == 0:
            # a new root answer: expanded above before the re-deal, so re-deal it now
            seed_stream(Sr, rng, base_seed, CRN_STREAMS)
            determinize(Sr, p, rng, slots)
        v = playout_value(D, R, p, Sr, SPr, Lr, Pr, Or, margin, SP)
        for d in range(depth):
            k = path[d]
            T[k, T_VISITS] += 1.0
            T[k, T_VALUE] += v
    best = O[0]
    best_n = -1.0
    best_mean = -1e300
    for i in range(n_root):
        b = O[i]
        k = int(T[0, T_CHILD + b])
        if k < 0:
            continue
        visits = T[k, T_VISITS]
        mean = T[k, T_VALUE] / visits
        if visits > best_n or (visits == best_n and mean > best_mean):
            best_n = visits
            best_mean = mean
            best = b
    return best
