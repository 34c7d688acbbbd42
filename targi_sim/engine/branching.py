"""Decisions that can be branched: what `ask` does in the search build.

The engine resolves a round in one call stack (actions inside actions, a trade inside a
Merchant inside a Targi), which cannot be stopped and resumed in the middle. So a
position in the middle of a round is kept as (the state at the round's start, the
answers given since), and reached again by replaying the round with those answers:
games are deterministic, so the replay arrives at the same decision, and a round
replays in a few microseconds. docs/engine.md says why this beats a resumable engine.

The search build is the engine compiled with a 5-tuple of seats
`(policy 0, policy 1, HEURISTIC_INSIDE, CTL, TREE)` (engine/expert.py makes it; every
other build compiles the hooks below to nothing). What its `ask` does depends on
S[S_T_MODE]:

* TM_REAL, a real game with a seat that searches every decision: every answer of the
  round is recorded in S_T (both seats, in order); the searching seat answers from the
  script of its earlier answers (S_X_SCRIPT) and, once that runs out, pauses the game
  exactly like a seat decided from Python (policies/external.py), so a driver can search
  the paused decision and replay the round with one more answer.
* TM_SEARCH, one iteration of that search: the recorded answers are replayed (forced,
  whoever answers them); at the searched decision -- with the real call stack of the
  real position around it -- everything the searcher cannot know is re-dealt in place
  (information.determinize); from there the tree (decision_tree.py) answers for both
  seats until it adds a node, then the rollout strategy plays the game out.
"""

from numba.extending import overload

from targi_sim.engine.constants import MC_DECISIONS, SEARCHED_ALL, SK_MONTECARLO

from .decision_tree import (
    C_AUDIT_SEED,
    C_BASE_SEED,
    C_CAPTURE,
    C_DEPTH,
    C_DESYNC,
    C_DETERMINISED,
    C_IN_TREE,
    C_MAX_DEPTH,
    C_NODE,
    C_PATH,
    C_POS,
    C_PREFIX,
    C_PREFIX_N,
    C_ROUND,
    C_SEARCHER,
    C_SLOTS,
    CRN_STREAMS,
    N_VISITS,
    NEEDS_PRIOR,
    NOT_HANDLED,
    progress,
    tree_choose,
)
from .information import determinize, redeal
from .jit import OVERLOAD_OPTIONS, jit
from .layout import (
    MAX_TRANSCRIPT,
    S_CORE,
    S_ERROR,
    S_POLICY_RNG,
    S_RD,
    S_RD_DONE,
    S_RD_N,
    S_RD_RNG,
    S_RD_SLOTS,
    S_T,
    S_T_MODE,
    S_T_N,
    S_X_FROZEN,
    S_X_PAUSED,
    TM_REAL,
    TM_SEARCH,
)
from .policies.external import decide_external
from .rng import seed_stream


@jit
def searches_every_decision(SP, p):
    return SP[p, 0] == SK_MONTECARLO and SP[p, MC_DECISIONS] == SEARCHED_ALL


@jit
def _iteration_answer(S, CTL, q, dtype, O, n):
    """A search iteration's answer: the forced prefix; then NEEDS_PRIOR while the tree
    decides (ask then hands it the seat's own answer: `tree_answer`); then NOT_HANDLED
    (the rollout strategy, through the seat's policy)."""
    pos = CTL[C_POS]
    if pos < CTL[C_PREFIX_N]:
        CTL[C_POS] = pos + 1
        want = CTL[C_PREFIX + pos]
        for i in range(n):
            if O[i] == want:
                return i
        CTL[C_DESYNC] += 1
        return 0
    if CTL[C_IN_TREE] == 0:
        return NOT_HANDLED
    if CTL[C_DETERMINISED] == 0:
        # the searched decision: re-deal, in the live position, what the searcher cannot know
        CTL[C_DETERMINISED] = 1
        searcher = CTL[C_SEARCHER]
        slots = CTL[C_SLOTS:C_SLOTS + 256]
        if CTL[C_AUDIT_SEED] != 0:
            redeal(S, searcher, CTL[C_AUDIT_SEED], slots)
        determinize(S, searcher, S_POLICY_RNG + 4 * searcher, slots)
        CTL[C_ROUND] = progress(S)
        if CTL[C_CAPTURE] == 1:
            for j in range(S_CORE):
                S[S_X_FROZEN + j] = S[j]
        if q != searcher:
            CTL[C_DESYNC] += 1
    elif progress(S) != CTL[C_ROUND] or (CTL[C_MAX_DEPTH] > 0
                                         and CTL[C_DEPTH] >= CTL[C_MAX_DEPTH]):
        CTL[C_IN_TREE] = 0  # the tree covers the searched decision's round only
        return NOT_HANDLED
    return NEEDS_PRIOR


@jit
def _apply_redeals(S):
    """Re-deals due at this decision of a resampled game (session.Game.resample): what
    their player cannot know, re-dealt in place before the decision is answered."""
    while S[S_RD_DONE] < S[S_RD_N]:
        o = S_RD + 3 * S[S_RD_DONE]
        if S[o] != S[S_T_N]:
            return
        seed_stream(S, S_RD_RNG, S[o + 2], 11)
        determinize(S, S[o + 1], S_RD_RNG, S[S_RD_SLOTS:S_RD_SLOTS + 256])
        S[S_RD_DONE] += 1


@jit
def search_answer(S, D, R, SP, L, P, p, dtype, O, n, ctx):
    """The search build's answer before the seat's own policy, or NOT_HANDLED."""
    mode = S[S_T_MODE]
    if mode == TM_REAL:
        if S[S_RD_N] > 0:
            _apply_redeals(S)
        if searches_every_decision(SP, p):
            return decide_external(S, D, R, SP, p, dtype, O, n, ctx)  # script, else pause
        return NOT_HANDLED
    if mode == TM_SEARCH:
        return _iteration_answer(S, P[3], p, dtype, O, n)
    return NOT_HANDLED


@jit
def tree_answer(S, P, p, dtype, O, n, ctx, h):
    """The tree's answer inside a search iteration, the seat's own answer h its prior.

    Common random numbers at the root: once the root's answer is chosen, the position is
    re-dealt again as that answer's k-th visit (k = its visits so far), so every answer
    of the searched decision is measured on the same sequence of re-deals, opponent
    streams and reshuffles, and the comparison between answers is not buried in the
    luck of the deal (as the flat search's common re-deals do)."""
    if h < 0 or h >= n:
        h = 0
    CTL = P[3]
    TREE = P[4]
    at_root = CTL[C_DEPTH] == 0 and CTL[C_NODE] == 0
    i = tree_choose(S, CTL, TREE, p, dtype, O, n, ctx, h)
    if at_root:
        k = CTL[C_PATH] if CTL[C_DEPTH] > 0 else -1
        visits = int(TREE[k, N_VISITS]) if k >= 0 else 0
        searcher = CTL[C_SEARCHER]
        rng = S_POLICY_RNG + 4 * searcher
        seed_stream(S, rng, CTL[C_BASE_SEED], CRN_STREAMS + visits)
        determinize(S, searcher, rng, CTL[C_SLOTS:C_SLOTS + 256])
    return i


@jit
def record_answer(S, v):
    """A real game of the search build keeps the round's answers (S_T)."""
    if S[S_T_MODE] == TM_REAL and S[S_X_PAUSED] == 0:
        k = S[S_T_N]
        if k < MAX_TRANSCRIPT:
            S[S_T + k] = v
            S[S_T_N] = k + 1
        else:
            S[S_ERROR] = 1  # a round of more than MAX_TRANSCRIPT decisions: not replayable


def branch_hook(S, D, R, SP, L, P, p, dtype, O, n, ctx):
    """ask's first question (see the module docstring). (This Python body runs under
    NUMBA_DISABLE_JIT; compiled code uses the overload below.)"""
    if len(P) == 5:
        return search_answer(S, D, R, SP, L, P, p, dtype, O, n, ctx)
    return NOT_HANDLED


def prior_hook(S, P, p, dtype, O, n, ctx, h, i):
    """ask's answer once the seat's policy answered h: the tree's when the hook said
    NEEDS_PRIOR (the search build only), else h."""
    if len(P) == 5 and i == NEEDS_PRIOR:
        return tree_answer(S, P, p, dtype, O, n, ctx, h)
    return h


def record_hook(S, P, v):
    """ask's last step: record the answer in the search build's real games."""
    if len(P) == 5:
        record_answer(S, v)


@overload(branch_hook, jit_options=OVERLOAD_OPTIONS, inline="always")
def _branch_hook(S, D, R, SP, L, P, p, dtype, O, n, ctx):
    if len(P) == 5:
        return lambda S, D, R, SP, L, P, p, dtype, O, n, ctx: search_answer(
            S, D, R, SP, L, P, p, dtype, O, n, ctx)
    return lambda S, D, R, SP, L, P, p, dtype, O, n, ctx: NOT_HANDLED


@overload(prior_hook, jit_options=OVERLOAD_OPTIONS, inline="always")
def _prior_hook(S, P, p, dtype, O, n, ctx, h, i):
    if len(P) == 5:
        def with_tree(S, P, p, dtype, O, n, ctx, h, i):
            if i == NEEDS_PRIOR:
                return tree_answer(S, P, p, dtype, O, n, ctx, h)
            return h
        return with_tree
    return lambda S, P, p, dtype, O, n, ctx, h, i: h


@overload(record_hook, jit_options=OVERLOAD_OPTIONS, inline="always")
def _record_hook(S, P, v):
    if len(P) == 5:
        return lambda S, P, v: record_answer(S, v)
    return lambda S, P, v: None
