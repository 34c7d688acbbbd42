"""Ask the player's strategy for a decision and record it in the trace.

Strategies are not compiled into the engine: `P` holds the two seats' policies, each
the address of a compiled function with the signature of `policies.DECIDE_SIGNATURE`
(`decide(S, D, R, SP, p, dtype, O, n, ctx) -> index into O[0:n]`), so one compiled
engine plays every strategy and a strategy is compiled only when a seat plays it.

Two builds, chosen by the type of `P` (targi_sim.play.games.seat_policies):
* `(policy0, policy1)`: the generic engine. The cheap built-in kinds (random, scripted,
  greedy, external) are called directly; the others through their function pointer.
* `(policy0, policy1, HEURISTIC_INSIDE)`: the same engine with the heuristic's
  per-decision-type functions called directly, so LLVM inlines them at each call site
  with the decision type known. Used when a heuristic or montecarlo seat plays:
  measured ~15% faster for balanced vs balanced, for ~25 s more of a first compile.
* `(policy0, policy1, HEURISTIC_INSIDE, CTL, TREE)`: the search build, for games with a
  seat that searches every decision (engine/branching.py, engine/expert.py): `ask`
  records answers, replays them and lets the search tree answer.
random-vs-random never compiles the heuristic.
"""

import numpy as np
from numba.extending import overload

from targi_sim.engine.constants import (
    DT_ACTION,
    DT_PLACE,
    DT_TRADE,
    DT_TRIBE,
    MC_PENDING,
    SK_EXTERNAL,
    SK_GREEDY,
    SK_HEURISTIC,
    SK_MONTECARLO,
    SK_RANDOM,
    SK_SCRIPTED,
)
from targi_sim.engine.logs import (
    H_CAP,
    H_USED,
    RT_CHOICE,
    RT_CTX,
    RT_DTYPE,
    RT_NOPTS,
    RT_PLAYER,
    RT_ROUND,
    T_TRACE,
    log_row,
)

from .branching import branch_hook, prior_hook, record_hook
from .decision_tree import NEEDS_PRIOR, NOT_HANDLED
from .jit import OVERLOAD_OPTIONS, jit_inline, jit_llvm_inline
from .layout import S_BAD, S_ROUND, S_X_PAUSED, S_X_TRACE_AT
from .policies import call_policy
from .policies.external import decide_external
from .policies.greedy import decide_greedy
from .policies.random import decide_random
from .policies.scripted import decide_scripted

HEURISTIC_INSIDE = np.int8(1)  # third element of P: the build with the heuristic inside


def other_policy(S, D, R, SP, P, p, dtype, O, n, ctx):
    """A seat whose kind the engine does not call directly: through P[p]. (This Python
    body runs under NUMBA_DISABLE_JIT; compiled code uses the overload below.)"""
    return call_policy(P[p], S, D, R, SP, p, dtype, O, n, ctx)


def _through_pointer(S, D, R, SP, P, p, dtype, O, n, ctx):
    # P may be a tuple of mixed types: no P[p]
    return call_policy(P[0] if p == 0 else P[1], S, D, R, SP, p, dtype, O, n, ctx)


def _heuristic_inside(S, D, R, SP, P, p, dtype, O, n, ctx):
    kind = SP[p, 0]
    if kind == SK_HEURISTIC or kind == SK_MONTECARLO:
        if kind == SK_MONTECARLO and dtype == DT_PLACE and not np.isnan(SP[p, MC_PENDING]):
            return decide_montecarlo(S, D, R, SP, p, dtype, O, n, ctx)
        if dtype == DT_ACTION:
            return best_action(S, D, R, SP, p, 0, O, n)
        if dtype == DT_PLACE:
            return best_place(S, D, R, SP, p, 0, O, n)
        if dtype == DT_TRIBE:
            return best_tribe(S, D, R, SP, p, 0, O, n, ctx)
        if dtype == DT_TRADE:
            return best_trade(S, D, R, SP, p, 0, O, n)
        return best_other(S, D, R, SP, p, 0, dtype, O, n, ctx)
    return call_policy(P[0] if p == 0 else P[1], S, D, R, SP, p, dtype, O, n, ctx)


@overload(other_policy, jit_options=OVERLOAD_OPTIONS, inline="always")
def _other_policy(S, D, R, SP, P, p, dtype, O, n, ctx):
    """Typing-time choice of the build: only the chosen body is compiled (the search
    build, len 5, has the heuristic inside too)."""
    if len(P) >= 3:
        return _heuristic_inside
    return _through_pointer


@jit_inline
def decision(S, D, R, SP, P, p, dtype, O, n, ctx):
    """Seat p's answer: built-in cheap kinds directly, the rest by `other_policy`."""
    kind = SP[p, 0]
    if kind == SK_RANDOM:
        return decide_random(S, D, R, SP, p, dtype, O, n, ctx)
    if kind == SK_GREEDY:
        return decide_greedy(S, D, R, SP, p, dtype, O, n, ctx)
    if kind == SK_SCRIPTED:
        return decide_scripted(S, D, R, SP, p, dtype, O, n, ctx)
    if kind == SK_EXTERNAL:
        return decide_external(S, D, R, SP, p, dtype, O, n, ctx)
    return other_policy(S, D, R, SP, P, p, dtype, O, n, ctx)


@jit_llvm_inline
def ask(S, D, R, SP, L, P, p, dtype, O, n, ctx):
    """The chosen option value among O[0:n]; every decision goes through here.

    Inlined by LLVM at each call site, where the decision type is a constant, so the
    dispatch below folds away.

    A single option is taken without asking. An answer outside 0..n-1 is counted
    (S_BAD: per seat, the count and the first such decision type) and replaced by
    the first option, so a faulty strategy cannot corrupt the game; callers check
    the count. A paused game (an external seat waiting) takes first options until
    its round ends.
    """
    i = 0
    if n > 1 and S[S_X_PAUSED] == 0:
        i = branch_hook(S, D, R, SP, L, P, p, dtype, O, n, ctx)  # the search build only
        if i == NOT_HANDLED or i == NEEDS_PRIOR:
            h = decision(S, D, R, SP, P, p, dtype, O, n, ctx)
            i = prior_hook(S, P, p, dtype, O, n, ctx, h, i)  # the search build's tree
        if S[S_X_PAUSED] == 1:  # this decision paused the game: the real trace ends here
            S[S_X_TRACE_AT] = L[H_USED + T_TRACE]
        if i < 0 or i >= n:
            o = S_BAD + 2 * p
            if S[o] == 0:
                S[o + 1] = dtype
            S[o] += 1
            i = 0
        record_hook(S, P, O[i])  # the search build only
    v = O[i]
    if L[H_CAP + T_TRACE] > 0:
        o = log_row(L, T_TRACE)
        if o >= 0:
            L[o + RT_ROUND] = S[S_ROUND]
            L[o + RT_PLAYER] = p
            L[o + RT_DTYPE] = dtype
            L[o + RT_NOPTS] = n
            L[o + RT_CHOICE] = v
            L[o + RT_CTX] = ctx
    return v


# imported last: the heuristic's functions are only compiled for the build that uses them
from .policies.heuristic import (  # noqa: E402
    best_action,
    best_other,
    best_place,
    best_trade,
    best_tribe,
)
from .policies.montecarlo import decide_montecarlo  # noqa: E402


def rollout_policies(PB, p):
    """Both seats of p's rollouts play p's rollout policy (same build as PB)."""
    return (PB[p], PB[p]) if len(PB) == 2 else (PB[p], PB[p], PB[2])


@overload(rollout_policies, jit_options=OVERLOAD_OPTIONS, inline="always")
def _rollout_policies(PB, p):
    if len(PB) == 3:
        return lambda PB, p: (PB[0] if p == 0 else PB[1], PB[0] if p == 0 else PB[1], PB[2])
    return lambda PB, p: (PB[0] if p == 0 else PB[1], PB[0] if p == 0 else PB[1])
