"""The montecarlo kind's decisions: placements chosen by the rollout driver
(engine/montecarlo.py), everything else by its own heuristic weights."""

import numpy as np

from targi_sim.engine.constants import DT_PLACE, MC_PENDING

from ..jit import entry_point, jit
from .heuristic import decide_heuristic


@entry_point
@jit
def decide_montecarlo(S, D, R, SP, p, dtype, O, n, ctx):
    """policies.DECIDE_SIGNATURE: the driver's pending placement, else the heuristic."""
    if dtype == DT_PLACE and not np.isnan(SP[p, MC_PENDING]):
        want = int(SP[p, MC_PENDING])
        SP[p, MC_PENDING] = np.nan
        for i in range(n):
            if O[i] == want:
                return i
    return decide_heuristic(S, D, R, SP, p, dtype, O, n, ctx)
