"""The greedy kind: most VP now, else most goods (one-step values, no weights, no noise)."""

from targi_sim.engine.access import border, pbase, res, tribe
from targi_sim.engine.constants import (
    BK_DRAW_GOODS,
    BK_DRAW_TRIBE,
    BK_GAIN,
    BK_NOBLE,
    DT_ACTION,
    DT_CENTRAL_GOODS,
    DT_DISCARD_GOOD,
    DT_PLACE,
    DT_RAID_GOOD,
    DT_RAID_MODE,
    DT_TRADE,
    DT_TRIBAL_EXPANSION,
    DT_TRIBE,
    VP,
)

from ..codes import play_of, trade_of
from ..costs import OPT_KEEP, OPT_PLAY
from ..jit import entry_point, jit
from ..layout import BD_GAIN, BD_KIND, D_TRADES, P_HAND, TC_VP, TD_GET_AMT, TD_GIVE_AMT, TD_SIZE
from .heuristic import action_priority, hand_too_new


@jit
def greedy_value(S, D, R, SP, p, dtype, v, ctx):
    """Most VP now, else most goods: the classic one-step greedy rule."""
    if dtype == DT_TRIBE:
        if v >= OPT_PLAY:
            return 100.0 * tribe(D, ctx, TC_VP) - play_of(v)[1] * 0.01
        return 1.0 if v == OPT_KEEP else 0.0
    if dtype == DT_TRADE:
        if v < 0:
            return 0.0
        t, _, got = trade_of(v)
        o = D_TRADES + t * TD_SIZE
        return 100.0 * D[o + TD_GET_AMT] - 1.0 * D[o + TD_GIVE_AMT] if got == VP else -1.0
    if dtype == DT_RAID_MODE:
        return 1.0 if v == 0 else 0.0  # keep VP, pay goods
    if dtype == DT_PLACE:
        b = v
        kind = border(D, b, BD_KIND)
        if kind == BK_GAIN:
            return 100.0 * border(D, b, BD_GAIN + 4) + border(D, b, BD_GAIN) + border(
                D, b, BD_GAIN + 1) + border(D, b, BD_GAIN + 2)
        if kind == BK_NOBLE:
            playable = S[pbase(p) + P_HAND] >= 0 and not hand_too_new(S, R, p)
            return 200.0 if playable else 0.0
        if kind == BK_DRAW_GOODS or kind == BK_DRAW_TRIBE:
            return 1.5
        return 0.5
    if dtype == DT_RAID_GOOD or dtype == DT_DISCARD_GOOD:
        return float(res(S, p, v))
    if dtype == DT_CENTRAL_GOODS or dtype == DT_TRIBAL_EXPANSION:
        return float(v)
    if dtype == DT_ACTION:
        return action_priority(S, D, p, v)
    return 0.0


@entry_point
@jit
def decide_greedy(S, D, R, SP, p, dtype, O, n, ctx):
    """The first option of highest greedy value (policies.DECIDE_SIGNATURE)."""
    best = 0
    best_v = -1e18
    for i in range(n):
        v = greedy_value(S, D, R, SP, p, dtype, O[i], ctx)
        if v > best_v:
            best_v = v
            best = i
    return best
