"""What every search strategy's simulations share: a determinised copy of the position
(p's hidden information re-dealt, engine/information.py), the rollout strategy's rows,
and the value of a finished playout.

Used by the flat Monte Carlo driver (engine/montecarlo.py) and the information-set
tree search (engine/ismcts.py), so both see the game through the same eyes.
"""

import numpy as np

from targi_sim.engine.constants import HC_KEY, MC_BASE, N_HEURISTIC_WEIGHTS, N_STRAT_PARAMS

from .information import determinize
from .jit import jit
from .layout import S_CORE, S_PAUSE_MC, S_POLICY_RNG
from .rng import seed_stream
from .rounds import play_to_end
from .scoring import decide_winner, total_score

N_BASE = 1 + N_HEURISTIC_WEIGHTS


@jit
def rollout_rows(SP, p, SPr):
    """Both rows of SPr play p's rollout strategy (kind and weights at MC_BASE)."""
    for q in range(2):
        for j in range(N_STRAT_PARAMS):
            SPr[q, j] = np.nan if j >= HC_KEY else 0.0
        for j in range(N_BASE):
            SPr[q, j] = SP[p, MC_BASE + j]


@jit
def determinised_copy(S, p, base_seed, r, Sr, SPr, slots):
    """Sr := the game S with what p cannot know re-dealt: the r-th re-deal of this
    decision (a function of base_seed and r only). The rollout strategy's caches in SPr
    are cleared: they describe another position."""
    for j in range(S_CORE):
        Sr[j] = S[j]
    Sr[S_PAUSE_MC] = 0
    seed_stream(Sr, S_POLICY_RNG + 4 * p, base_seed, r + 1)
    determinize(Sr, p, S_POLICY_RNG + 4 * p, slots)
    for q in range(2):
        for j in range(HC_KEY, N_STRAT_PARAMS):
            SPr[q, j] = np.nan


MARGIN = 0.01  # a playout's value per point of score margin, unless a search sets its own


@jit
def playout_value(D, R, p, Sr, SPr, Lr, Pr, Or, margin):
    """Play Sr to the end with SPr; p's result: win 1, draw 1/2, plus `margin` per point
    of score margin (the margin separates playouts that the win alone does not)."""
    play_to_end(Sr, D, R, SPr, Lr, Pr, Or)
    s_me = total_score(Sr, D, R, p)
    s_op = total_score(Sr, D, R, 1 - p)
    s0 = s_me if p == 0 else s_op
    s1 = s_op if p == 0 else s_me
    w, _ = decide_winner(Sr, D, R, s0, s1)
    v = 1.0 if w == p else (0.5 if w == -1 else 0.0)
    return v + margin * (s_me - s_op)


@jit
def rollout_value(S, D, R, p, Sr, SPr, Lr, Pr, Or):
    """playout_value with the margin of the placement searches: score margin / 100."""
    return playout_value(D, R, p, Sr, SPr, Lr, Pr, Or, MARGIN)
