"""The decision interface: the engine asks `decide` at every choice point.

A strategy is a row of `SP` (float64 [2, N_STRAT_PARAMS]): SP[p, 0] is its kind
(SK_*), the rest its parameters. `decide` gets the state, the decision type
(DT_*), the legal options in O[0:n] and a context value, and returns an index
into O. A strategy must only read what its player may know (RULES.md §8); see
docs/engine.md for which state fields are hidden.
"""

import numpy as np

from ..constants import (
    DT_PLACE,
    MC_PENDING,
    SK_GREEDY,
    SK_HEURISTIC,
    SK_MONTECARLO,
    SK_PLUGIN,
    SK_RANDOM,
    SK_SCRIPTED,
)
from .heuristic import best_option, greedy_option
from .jit import jit
from .layout import S_ERROR, S_POLICY_RNG
from .plugin import plugin_choose
from .rng import randbelow

# SK_SCRIPTED (tests): SP[p,1] = next script index, SP[p,2:] = wanted option values

# Extra strategy kinds register here: kind -> a compiled function with the same
# signature as `decide` (the strategies package fills this in).
SCRIPT_START = 2


@jit
def random_choice(S, p, n):
    return randbelow(S, S_POLICY_RNG + 4 * p, n)


@jit
def scripted_choice(S, SP, p, O, n):
    """Take the next scripted value if it is legal; otherwise flag S_ERROR and pick 0."""
    k = int(SP[p, 1])
    if SCRIPT_START + k >= SP.shape[1]:
        S[S_ERROR] = 1
        return 0
    want = int(SP[p, SCRIPT_START + k])
    SP[p, 1] = k + 1
    for i in range(n):
        if O[i] == want:
            return i
    S[S_ERROR] = 2
    return 0


@jit
def decide(S, D, R, SP, p, dtype, O, n, ctx):
    """Index of the chosen option among O[0:n] (n >= 1)."""
    if n == 1:
        return 0
    kind = int(SP[p, 0])
    if kind == SK_SCRIPTED:
        return scripted_choice(S, SP, p, O, n)
    if kind == SK_MONTECARLO and dtype == DT_PLACE and not np.isnan(SP[p, MC_PENDING]):
        # Placements are chosen by the rollout driver (engine/montecarlo.py), which
        # leaves its choice in MC_PENDING; everything else by the player's own weights.
        want = int(SP[p, MC_PENDING])
        SP[p, MC_PENDING] = np.nan
        for i in range(n):
            if O[i] == want:
                return i
    if kind == SK_HEURISTIC or kind == SK_MONTECARLO:
        # one call site, so best_option is inlined once per decision type
        return best_option(S, D, R, SP, p, 0, dtype, O, n, ctx, False)
    if kind == SK_GREEDY:
        return greedy_option(S, D, R, SP, p, dtype, O, n, ctx)
    if kind == SK_RANDOM:
        return random_choice(S, p, n)
    if kind == SK_PLUGIN:
        i = plugin_choose(S, D, R, SP, p, dtype, O, n, ctx)
        if i < 0 or i >= n:
            S[S_ERROR] = 3  # the plugin answered out of range: take the first option
            return 0
        return i
    return random_choice(S, p, n)
