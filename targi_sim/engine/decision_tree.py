"""The information-set tree of the expert's search over every decision (engine/expert.py).

One tree per searched decision, seen from the searching player (single-observer ISMCTS,
Cowling, Powley & Whitehouse 2012). Its nodes are decisions of the current round --
the searcher's and the opponent's, of every type -- and an edge is one answer. Unlike
placements, what is legal later in a round can depend on hidden cards (the card a
Tribal Expansion draws, an opponent's hand card), so an edge is keyed by who answers,
the decision type, its context and the option value, and each edge counts how often it
was *available* when its node was visited: UCB uses that count instead of the parent's
visits (the subset-armed bandit of ISMCTS), so a rarely legal answer is not buried.

The tree is two flat arrays, so the compiled engine needs no Python object:
* `CTL` (int64): the search's control words (C_*), the forced prefix of the round's
  answers, the path of the current iteration, scratch for the re-deal;
* `TREE` (float64, one row per node): key, next sibling, first child, mover, visits,
  value (from the searcher's side), availability, decision type.
Row 0 is the root (the searched decision itself).
"""

import math

from .jit import jit, jit_inline
from .layout import MAX_OPTIONS, MAX_TRANSCRIPT, PH_ROUND_START, S_PHASE, S_POLICY_RNG, S_ROUND
from .rng import randbelow

# CTL: control words
C_PREFIX_N = 0       # answers replayed before the searched decision
C_POS = 1            # next prefix answer
C_IN_TREE = 2        # 1 while this iteration descends the tree (0: the rollout has begun)
C_DETERMINISED = 3   # 1 once this iteration re-dealt what the searcher cannot know
C_SEARCHER = 4
C_NODE = 5           # the tree row this iteration stands at
C_DEPTH = 6          # rows on this iteration's path (below the root)
C_USED = 7           # tree rows in use
C_ROUND = 8          # progress key of the searched decision's round (see `progress`)
C_AUDIT_SEED = 9     # non-zero: re-deal with this seed before determinising (the audit)
C_MAX_DEPTH = 10     # most decisions on a path (0: until the round ends)
C_DESYNC = 11        # prefix answers that were not legal (a replay that went astray)
C_EXPLORE_MICRO = 12  # UCT exploration constant x 1e6
C_ROWS = 13          # tree capacity
C_PRIOR_MICRO = 14   # prior weight of the rollout strategy's answer x 1e6 (0: plain UCT)
C_CAPTURE = 15       # 1: keep each iteration's re-dealt position in S_X_FROZEN (the audit)
C_NODES_BY_TYPE = 16  # + decision type (12): nodes expanded, by the type of their answer
C_BASE_SEED = 28     # the search's seed: the root answer's k-th visit plays re-deal k of it
C_CONFIDENCE_MICRO = 29  # standard errors x 1e6 by which a root answer must beat the prior's
C_ROOT_PRIOR = 30    # the rollout strategy's answer (option value) at the root; -1: none
MAX_PATH = 512
C_FOUND = 32
C_SLOTS = C_FOUND + MAX_OPTIONS
C_PATH = C_SLOTS + 256
C_PREFIX = C_PATH + MAX_PATH
C_SIZE = C_PREFIX + MAX_TRANSCRIPT

# TREE: one row per node
N_KEY = 0
N_NEXT = 1
N_FIRST = 2
N_MOVER = 3
N_VISITS = 4
N_VALUE = 5
N_AVAIL = 6
N_DTYPE = 7
N_SQUARES = 8  # sum of the squared results (the confidence rule's variance)
N_COLS = 9

CRN_STREAMS = 1_000_000  # stream numbers of common re-deals (a search's iterations: 1..)
NOT_HANDLED = -2  # the ask hook's answer when the seat's own policy decides
NEEDS_PRIOR = -3  # ... when the tree decides, given the seat's policy's answer as its prior


@jit_inline
def progress(S):
    """Which round a decision belongs to: a round's raids (asked before S_ROUND counts it),
    placements, actions and discards share one value; the next round's raids have the next."""
    return S[S_ROUND] + (1 if S[S_PHASE] == PH_ROUND_START else 0)


@jit_inline
def edge_key(q, dtype, ctx, v):
    """One answer as a tree edge: who answers, the decision type, its context, the option."""
    return ((dtype * 256 + (ctx + 1)) * 8192 + (v + 2)) * 2 + q


@jit
def tree_reset(CTL, TREE, searcher, exploration, prior, max_depth, audit_seed, confidence):
    """An empty tree whose root is `searcher`'s decision."""
    CTL[C_CONFIDENCE_MICRO] = int(round(confidence * 1e6))
    CTL[C_ROOT_PRIOR] = -1
    CTL[C_SEARCHER] = searcher
    CTL[C_USED] = 1
    CTL[C_ROWS] = TREE.shape[0]
    CTL[C_EXPLORE_MICRO] = int(round(exploration * 1e6))
    CTL[C_PRIOR_MICRO] = int(round(prior * 1e6))
    CTL[C_MAX_DEPTH] = max_depth
    CTL[C_AUDIT_SEED] = audit_seed
    CTL[C_DESYNC] = 0
    CTL[C_CAPTURE] = 0
    for t in range(12):
        CTL[C_NODES_BY_TYPE + t] = 0
    _new_row(TREE, 0, -1.0, -1, -1)


@jit_inline
def _new_row(TREE, k, key, mover, dtype):
    TREE[k, N_KEY] = key
    TREE[k, N_NEXT] = -1.0
    TREE[k, N_FIRST] = -1.0
    TREE[k, N_MOVER] = mover
    TREE[k, N_VISITS] = 0.0
    TREE[k, N_VALUE] = 0.0
    TREE[k, N_AVAIL] = 0.0
    TREE[k, N_DTYPE] = dtype
    TREE[k, N_SQUARES] = 0.0


@jit
def iteration_begin(CTL):
    """Start an iteration at the root, with the prefix to replay first."""
    CTL[C_POS] = 0
    CTL[C_IN_TREE] = 1
    CTL[C_DETERMINISED] = 0
    CTL[C_NODE] = 0
    CTL[C_DEPTH] = 0


@jit
def _child(TREE, node, key):
    k = int(TREE[node, N_FIRST])
    while k >= 0:
        if TREE[k, N_KEY] == key:
            return k
        k = int(TREE[k, N_NEXT])
    return -1


@jit
def _expand(CTL, TREE, node, q, dtype, ctx, v):
    """Add the answer v below node as a new row and end the descent (the rollout begins)."""
    CTL[C_IN_TREE] = 0
    used = CTL[C_USED]
    if used < CTL[C_ROWS] and CTL[C_DEPTH] < MAX_PATH:
        _new_row(TREE, used, edge_key(q, dtype, ctx, v), q, dtype)
        TREE[used, N_AVAIL] = 1.0
        TREE[used, N_NEXT] = TREE[node, N_FIRST]
        TREE[node, N_FIRST] = used
        CTL[C_USED] = used + 1
        CTL[C_PATH + CTL[C_DEPTH]] = used
        CTL[C_DEPTH] += 1
        CTL[C_NODES_BY_TYPE + dtype] += 1


@jit
def _descend(CTL, k):
    CTL[C_NODE] = k
    if CTL[C_DEPTH] < MAX_PATH:
        CTL[C_PATH + CTL[C_DEPTH]] = k
        CTL[C_DEPTH] += 1
    else:
        CTL[C_IN_TREE] = 0


@jit
def tree_choose(S, CTL, TREE, q, dtype, O, n, ctx, h):
    """The answer (index into O[0:n]) of the iteration's next decision inside the tree.

    With a prior weight w > 0 (PUCT, as AlphaZero selects, with the rollout strategy's
    own answer h in place of a network): answer i scores
        Q_i + c * P_i * sqrt(N) / (1 + n_i),  P_h = w, the others (1 - w) / (n - 1),
    Q of an answer not tried yet being the node's mean; the first answer scored below
    the tree is expanded. So a small budget plays the heuristic's answer unless the
    rollouts find a better one, and a large one searches the rest. With w = 0: plain UCT
    (every answer tried once first, in random order) -- `tree_step`."""
    w = CTL[C_PRIOR_MICRO] * 1e-6
    if w <= 0.0:
        return tree_step(S, CTL, TREE, q, dtype, O, n, ctx)
    node = CTL[C_NODE]
    searcher = CTL[C_SEARCHER]
    sign = 1.0 if q == searcher else -1.0
    c = CTL[C_EXPLORE_MICRO] * 1e-6
    visits_node = TREE[node, N_VISITS]
    fpu = sign * TREE[node, N_VALUE] / visits_node if visits_node > 0 else 0.5 * sign
    root_n = math.sqrt(max(visits_node, 1.0))
    if node == 0:
        CTL[C_ROOT_PRIOR] = O[h]
    other = (1.0 - w) / (n - 1) if n > 1 else 0.0
    best = h
    best_u = -1e300
    for j in range(n):
        i = (h + j) % n  # the policy's answer first: it wins ties
        k = _child(TREE, node, edge_key(q, dtype, ctx, O[i]))
        CTL[C_FOUND + i] = k
        prior = w if i == h else other
        if k < 0:
            u = fpu + c * prior * root_n
        else:
            TREE[k, N_AVAIL] += 1.0
            visits = TREE[k, N_VISITS]
            u = sign * TREE[k, N_VALUE] / visits + c * prior * root_n / (1.0 + visits)
        if u > best_u:
            best_u = u
            best = i
    k = CTL[C_FOUND + best]
    if k < 0:
        _expand(CTL, TREE, node, q, dtype, ctx, O[best])
    else:
        _descend(CTL, k)
    return best


@jit
def tree_step(S, CTL, TREE, q, dtype, O, n, ctx):
    """Plain UCT: a random untried answer is expanded (and the rollout begins), else
    UCB1 with availability counts selects."""
    node = CTL[C_NODE]
    searcher = CTL[C_SEARCHER]
    untried = 0
    for i in range(n):
        k = _child(TREE, node, edge_key(q, dtype, ctx, O[i]))
        CTL[C_FOUND + i] = k
        if k < 0:
            untried += 1
        else:
            TREE[k, N_AVAIL] += 1.0
    if untried > 0:
        j = randbelow(S, S_POLICY_RNG + 4 * searcher, untried)
        pick = 0
        for i in range(n):
            if CTL[C_FOUND + i] < 0:
                if j == 0:
                    pick = i
                    break
                j -= 1
        _expand(CTL, TREE, node, q, dtype, ctx, O[pick])  # one new node per iteration
        return pick
    c = CTL[C_EXPLORE_MICRO] * 1e-6
    sign = 1.0 if q == searcher else -1.0
    best = 0
    best_u = -1e300
    for i in range(n):
        k = CTL[C_FOUND + i]
        visits = TREE[k, N_VISITS]
        u = sign * TREE[k, N_VALUE] / visits + c * math.sqrt(math.log(TREE[k, N_AVAIL]) / visits)
        if u > best_u:
            best_u = u
            best = i
    _descend(CTL, CTL[C_FOUND + best])
    return best


@jit
def tree_backup(CTL, TREE, v):
    """Add the iteration's result (the searcher's) to the root and every node on its path."""
    TREE[0, N_VISITS] += 1.0
    TREE[0, N_VALUE] += v
    TREE[0, N_SQUARES] += v * v
    for d in range(CTL[C_DEPTH]):
        k = CTL[C_PATH + d]
        TREE[k, N_VISITS] += 1.0
        TREE[k, N_VALUE] += v
        TREE[k, N_SQUARES] += v * v


@jit
def root_decided(TREE, remaining):
    """True once no answer can overtake the root's most visited one in `remaining` more
    iterations (each adds one visit to one answer): stopping then changes no answer."""
    first = 0.0
    second = 0.0
    k = int(TREE[0, N_FIRST])
    while k >= 0:
        v = TREE[k, N_VISITS]
        if v > first:
            second = first
            first = v
        elif v > second:
            second = v
        k = int(TREE[k, N_NEXT])
    return first - second > remaining


@jit
def tree_best(CTL, TREE, dtype, ctx, O, n):
    """The searched decision's answer: the root's most visited answer (ties: the better
    mean), as an option value from O[0:n] -- or, with a confidence z > 0, the rollout
    strategy's own answer unless another answer's mean beats it by z standard errors of
    the difference (`confident_over_prior`)."""
    q = CTL[C_SEARCHER]
    best = O[0]
    best_n = -1.0
    best_mean = -1e300
    for i in range(n):
        k = _child(TREE, 0, edge_key(q, dtype, ctx, O[i]))
        if k < 0:
            continue
        visits = TREE[k, N_VISITS]
        mean = TREE[k, N_VALUE] / visits if visits > 0 else -1e300
        if visits > best_n or (visits == best_n and mean > best_mean):
            best_n = visits
            best_mean = mean
            best = O[i]
    if CTL[C_CONFIDENCE_MICRO] > 0 and CTL[C_ROOT_PRIOR] >= 0:
        return confident_over_prior(CTL, TREE, dtype, ctx, O, n, best)
    return best


@jit
def _mean_var(TREE, k):
    """A node's mean result and the variance of that mean (sample variance / visits)."""
    visits = TREE[k, N_VISITS]
    mean = TREE[k, N_VALUE] / visits
    var = max(TREE[k, N_SQUARES] / visits - mean * mean, 0.0) * visits / max(visits - 1.0, 1.0)
    return mean, max(var, 1e-4) / visits


@jit
def confident_over_prior(CTL, TREE, dtype, ctx, O, n, fallback):
    """The answer of the best mean among those tried at least twice if it beats the
    prior's (the rollout strategy's) by z standard errors, else the prior's: a small
    budget keeps the heuristic's answer unless the rollouts show it wrong, instead of
    following the noise of a few playouts."""
    q = CTL[C_SEARCHER]
    z = CTL[C_CONFIDENCE_MICRO] * 1e-6
    h = CTL[C_ROOT_PRIOR]
    kh = _child(TREE, 0, edge_key(q, dtype, ctx, h))
    if kh < 0 or TREE[kh, N_VISITS] < 2.0:
        return fallback
    mh, vh = _mean_var(TREE, kh)
    best = h
    best_margin = 0.0
    for i in range(n):
        if O[i] == h:
            continue
        k = _child(TREE, 0, edge_key(q, dtype, ctx, O[i]))
        if k < 0 or TREE[k, N_VISITS] < 2.0:
            continue
        m, v = _mean_var(TREE, k)
        margin = (m - mh) / math.sqrt(v + vh)
        if margin > z and margin > best_margin:
            best_margin = margin
            best = O[i]
    return best
