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

The tree lives in T[p], the seat's own region (float64, one row per node): visits, the
sum of results, the player to move, then one column per border card holding the child's
row (-1: untried); row 0 is a header (H_*) saying which search built the tree.

Reuse (`reuse_tree`, MC_REUSE_TREE): a seat's next placement search in the same round
starts from its last one's tree. The placements made since (its own and the
opponent's) are public and were moves of that tree, so the node they lead to is the
root of the new position, and its visits were gathered from determinisations of what
p still cannot know -- the determinisation allows it. That subtree is moved to the
front of the region (the rest dropped) and the search runs only until the root has
`iterations` visits. A search with nothing to reuse (the round's first, another game,
or a position the tree does not reach) starts a fresh tree.

Everything is a function of the game's state, p's stream and the tree the seat's
earlier placement searches of the round left: a driver that asks a seat's placements
in order within one scratch per game (or per replayed round) gets the same choices.
"""

import math

from targi_sim.engine.constants import (
    MC_EXPLORATION,
    MC_ITERATIONS,
    MC_MARGIN,
    MC_PLACEMENT_CRN,
    MC_REUSE_TREE,
    N_BORDER,
)

from .access import pbase
from .ask import rollout_policies
from .decision_tree import CRN_STREAMS
from .information import determinize
from .jit import jit
from .layout import P_TARGI, S_CELLS_VERSION, S_FIRST, S_PLACE_K, S_POLICY_RNG, S_ROUND
from .rng import next32, randbelow, seed_stream
from .rollouts import MARGIN, determinised_copy, playout_value, rollout_rows
from .rounds import apply_placement, legal_placements, placing_player

T_VISITS = 0
T_VALUE = 1
T_MOVER = 2
T_CHILD = 3
T_SIZE = T_CHILD + N_BORDER
MAX_DEPTH = 8  # a round has at most 6 placements
ROOT = 1  # a tree's root row (row 0 is the header)
# header (row 0 of a seat's region): which search built the tree, and what reuse saved
H_VALID = 0      # 1: the tree below is the seat's last placement search of this game
H_ROUND = 1      # its round,
H_CELLS = 2      # the centre's version then,
H_FIRST = 3      # the round's first player,
H_K = 4          # the placement (S_PLACE_K) it searched (its root is row ROOT),
H_PLACED = 5     # + k (6): the border card of the round's placement k before it (-1 none)
H_SEARCHES = 11  # per game: placement searches that ran iterations
H_REUSED = 12    # per game: root visits those searches started with (reused)
H_RUN = 13       # per game: iterations they ran


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
def new_game_trees(T):
    """Forget every seat's tree (a new game starts: nothing of the last one is reused)."""
    for q in range(T.shape[0]):
        for j in range(T_SIZE):
            T[q, 0, j] = 0.0


@jit
def _placed(S, k):
    """The border card of the round's placement k (-1: that Targi had no legal card or is
    not placed yet): the first player places at even k."""
    q = S[S_FIRST] if k % 2 == 0 else 1 - S[S_FIRST]
    return S[pbase(q) + P_TARGI + k // 2]


@jit
def _reusable_root(Tp, S, p):
    """The row of the seat's last tree (Tp) that stands for the position S, where p is to
    place: reached from that search's root through the placements made since; -1 when
    the tree is of another round or game, S is not ahead of it, or it never went there."""
    if Tp[0, H_VALID] != 1 or Tp[0, H_ROUND] != S[S_ROUND]:
        return -1
    if Tp[0, H_CELLS] != S[S_CELLS_VERSION] or Tp[0, H_FIRST] != S[S_FIRST]:
        return -1
    old_k = int(Tp[0, H_K])
    if S[S_PLACE_K] <= old_k:
        return -1
    for k in range(old_k):  # the placements before the old search are the same ones
        if Tp[0, H_PLACED + k] != _placed(S, k):
            return -1
    node = ROOT
    for k in range(old_k, S[S_PLACE_K]):
        b = _placed(S, k)
        if b < 0:  # a Targi without a legal card: the tree skips it too (_next_placer)
            continue
        node = int(Tp[node, T_CHILD + b])
        if node < 0:
            return -1
    if Tp[node, T_VISITS] <= 0 or int(Tp[node, T_MOVER]) != p:
        return -1
    return node


@jit
def _compact(T, p, node):
    """Move the subtree of row `node` of seat p's tree to rows ROOT.. (breadth first, via
    the spare region T[2]); returns the rows in use. A subtree holds at most as many
    nodes as its root has visits, so it fits where a fresh search's tree would."""
    Tp = T[p]
    tmp = T[T.shape[0] - 1]
    tmp[ROOT, T_VALUE] = node  # T_VALUE holds each new row's source row meanwhile
    head = ROOT
    tail = ROOT + 1
    while head < tail:
        src = int(tmp[head, T_VALUE])
        for b in range(N_BORDER):
            c = Tp[src, T_CHILD + b]
            if c >= 0:
                tmp[tail, T_VALUE] = c
                tmp[head, T_CHILD + b] = tail
                tail += 1
            else:
                tmp[head, T_CHILD + b] = -1.0
        head += 1
    for r in range(ROOT, tail):
        src = int(tmp[r, T_VALUE])
        tmp[r, T_VISITS] = Tp[src, T_VISITS]
        tmp[r, T_VALUE] = Tp[src, T_VALUE]
        tmp[r, T_MOVER] = Tp[src, T_MOVER]
    for r in range(ROOT, tail):
        for j in range(T_SIZE):
            Tp[r, j] = tmp[r, j]
    return tail


@jit
def _record(Tp, S, reused, run):
    """The header: the tree now below is this search's (and what it reused and ran)."""
    Tp[0, H_VALID] = 1.0
    Tp[0, H_ROUND] = S[S_ROUND]
    Tp[0, H_CELLS] = S[S_CELLS_VERSION]
    Tp[0, H_FIRST] = S[S_FIRST]
    Tp[0, H_K] = S[S_PLACE_K]
    for k in range(6):
        Tp[0, H_PLACED + k] = _placed(S, k)  # -1 from S_PLACE_K on
    Tp[0, H_SEARCHES] += 1.0
    Tp[0, H_REUSED] += reused
    Tp[0, H_RUN] += run


@jit
def search_placement(S, D, R, SP, PB, p, O, Sr, SPr, Lr, Or, slots, T):
    """The border position player p (an ismcts seat) places its next Targi on; T holds
    a region per seat (T[p]) and a spare one (see the module docstring)."""
    n_root = legal_placements(S, D, R, p, O)
    if n_root == 1:
        return O[0]
    Tp = T[p]
    Pr = rollout_policies(PB, p)
    iterations = max(1, int(SP[p, MC_ITERATIONS]))
    c = SP[p, MC_EXPLORATION]
    base_seed = next32(S, S_POLICY_RNG + 4 * p)
    rollout_rows(SP, p, SPr)
    rng = S_POLICY_RNG + 4 * p  # in the copy: p's stream, re-seeded per iteration
    reuse = -1
    if SP[p, MC_REUSE_TREE] == 1:
        reuse = _reusable_root(Tp, S, p)
    reused = 0
    if reuse >= 0:
        used = _compact(T, p, reuse)
        reused = int(Tp[ROOT, T_VISITS])
    else:
        _new_node(Tp, ROOT, p)
        used = ROOT + 1
    run = max(0, iterations - reused)
    path = slots[128:128 + MAX_DEPTH]
    common = SP[p, MC_PLACEMENT_CRN] == 1  # the expert's: expert-placements re-deals per iteration
    margin = SP[p, MC_MARGIN] if SP[p, MC_MARGIN] > 0 else MARGIN
    for it in range(run):
        determinised_copy(S, p, base_seed, it, Sr, SPr, slots)
        node = ROOT
        depth = 0
        path[depth] = node
        depth += 1
        while True:
            if common and depth == 2:  # the root answer is chosen: its k-th visit, re-deal k
                seed_stream(Sr, rng, base_seed, CRN_STREAMS + int(Tp[path[1], T_VISITS]))
                determinize(Sr, p, rng, slots)
            q, n = _next_placer(Sr, D, R, Or)
            if q < 0:
                break
            b = _untried(Tp, node, Or, n, Sr, rng)
            if b >= 0 and used < Tp.shape[0]:
                child = used
                used += 1
                Tp[node, T_CHILD + b] = child
                apply_placement(Sr, q, b)
                nq, _ = _next_placer(Sr, D, R, Or)
                _new_node(Tp, child, nq)
                path[depth] = child
                depth += 1
                break
            if b >= 0:  # the tree is full: roll out from here
                apply_placement(Sr, q, b)
                break
            b = _select(Tp, node, Or, n, c, p)
            apply_placement(Sr, q, b)
            node = int(Tp[node, T_CHILD + b])
            path[depth] = node
            depth += 1
        if common and depth == 2 and Tp[path[1], T_VISITS] == 0:
            # a new root answer: expanded above before the re-deal, so re-deal it now
            seed_stream(Sr, rng, base_seed, CRN_STREAMS)
            determinize(Sr, p, rng, slots)
        v = playout_value(D, R, p, Sr, SPr, Lr, Pr, Or, margin, SP)
        for d in range(depth):
            k = path[d]
            Tp[k, T_VISITS] += 1.0
            Tp[k, T_VALUE] += v
    _record(Tp, S, reused, run)
    best = O[0]
    best_n = -1.0
    best_mean = -1e300
    for i in range(n_root):
        b = O[i]
        k = int(Tp[ROOT, T_CHILD + b])
        if k < 0:
            continue
        visits = Tp[k, T_VISITS]
        mean = Tp[k, T_VALUE] / visits
        if visits > best_n or (visits == best_n and mean > best_mean):
            best_n = visits
            best_mean = mean
            best = b
    return best
