"""What every search strategy's simulations share: a determinised copy of the position
(p's hidden information re-dealt, engine/information.py), the rollout strategy's rows,
and the value of a finished playout.

Used by the flat Monte Carlo driver (engine/montecarlo.py) and the information-set
tree search (engine/ismcts.py), so both see the game through the same eyes.
"""

import numpy as np

from targi_sim.engine.constants import (
    GOLD,
    HC_KEY,
    MC_BASE,
    MC_EVAL_GOLD,
    MC_EVAL_GOODS,
    MC_EVAL_SCALE,
    MC_EVAL_SCALE_ROUND,
    MC_ROLLOUT_ROUNDS,
    N_HEURISTIC_WEIGHTS,
    N_STRAT_PARAMS,
    USUAL_ROUNDS,
)

from .access import goods_total, res
from .information import determinize
from .jit import jit
from .layout import (
    PH_ROUND_START,
    S_CORE,
    S_OVER,
    S_PAUSE_MC,
    S_PHASE,
    S_POLICY_RNG,
    S_ROUND,
)
from .rng import seed_stream
from .rounds import play_round, play_to_end
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
def position_value(S, D, R, SP, p, margin):
    """p's value of an unfinished game at a round's end: the win probability of a fitted
    model (benchmarks/fit_evaluation.py) plus `margin` per point of estimated margin.

    Estimated final margin = the score margin now + eval_gold per gold and eval_goods per
    good ahead; P(win) = logistic(margin / (eval_scale + eval_scale_round x rounds
    left)). Only public facts enter (scores, tokens): the same in every re-deal."""
    q = 1 - p
    m = float(total_score(S, D, R, p) - total_score(S, D, R, q))
    m += SP[p, MC_EVAL_GOLD] * (res(S, p, GOLD) - res(S, q, GOLD))
    m += SP[p, MC_EVAL_GOODS] * (goods_total(S, p) - goods_total(S, q))
    left = max(0, USUAL_ROUNDS - S[S_ROUND])
    scale = max(SP[p, MC_EVAL_SCALE] + SP[p, MC_EVAL_SCALE_ROUND] * left, 1e-3)
    return 1.0 / (1.0 + np.exp(-m / scale)) + margin * m


@jit
def playout_value(D, R, p, Sr, SPr, Lr, Pr, Or, margin, SP):
    """Play Sr with SPr, to the end or (SP[p]'s `rollout_rounds` > 0) to the end of that
    many rounds, the current one counted; p's result: win 1, draw 1/2, plus `margin` per
    point of score margin (the margin separates playouts that the win alone does not),
    or at a cut position_value."""
    rounds = int(SP[p, MC_ROLLOUT_ROUNDS])
    if rounds > 0:
        # the round being played: at a round's start (a replay of the round from its
        # start, engine/expert.py) S_ROUND still counts the round before
        current = Sr[S_ROUND] + (1 if Sr[S_PHASE] == PH_ROUND_START else 0)
        last = current + rounds - 1
        while Sr[S_OVER] == 0:
            if Sr[S_PHASE] == PH_ROUND_START and Sr[S_ROUND] >= last:
                return position_value(Sr, D, R, SP, p, margin)
            play_round(Sr, D, R, SPr, Lr, Pr, Or)
    play_to_end(Sr, D, R, SPr, Lr, Pr, Or)
    s_me = total_score(Sr, D, R, p)
    s_op = total_score(Sr, D, R, 1 - p)
    s0 = s_me if p == 0 else s_op
    s1 = s_op if p == 0 else s_me
    w, _ = decide_winner(Sr, D, R, s0, s1)
    v = 1.0 if w == p else (0.5 if w == -1 else 0.0)
    return v + margin * (s_me - s_op)


@jit
def rollout_value(S, D, R, p, Sr, SPr, Lr, Pr, Or, SP):
    """playout_value with the margin of the placement searches: score margin / 100."""
    return playout_value(D, R, p, Sr, SPr, Lr, Pr, Or, MARGIN, SP)
