"""What a tribe card costs a player (discount abilities included); the tribe-card
decision's option codes (OPT_*) are re-exported from .codes. Shared by the engine and
the strategies."""

from targi_sim.engine.access import deck_has, pbase, res, tribe
from targi_sim.engine.constants import AB_DISCOUNT, DISPLAY_SLOTS

from .codes import OPT_DISCARD, OPT_KEEP, OPT_LEAVE, OPT_PLAY  # noqa: F401 - re-exported
from .jit import jit
from .layout import P_DISPLAY, TC_ABILITY, TC_ALT, TC_COST, TC_PARAMS, TC_SYMBOL


@jit
def effective_cost(S, D, p, c, alt):
    """(salt, pepper, dates, gold) cost of card c, alternative `alt`, after discounts."""
    base = TC_ALT if alt == 1 else TC_COST
    cs = tribe(D, c, base)
    cp = tribe(D, c, base + 1)
    cd = tribe(D, c, base + 2)
    cg = tribe(D, c, base + 3)
    if not deck_has(D, AB_DISCOUNT):
        return cs, cp, cd, cg
    o = pbase(p) + P_DISPLAY
    sym = tribe(D, c, TC_SYMBOL)
    for slot in range(DISPLAY_SLOTS):
        d = S[o + slot]
        if d >= 0 and tribe(D, d, TC_ABILITY) == AB_DISCOUNT:
            want = tribe(D, d, TC_PARAMS + 2)
            if want < 0 or want == sym:
                r = tribe(D, d, TC_PARAMS)
                cut = tribe(D, d, TC_PARAMS + 1)
                if r == 0:
                    cs = max(0, cs - cut)
                elif r == 1:
                    cp = max(0, cp - cut)
                elif r == 2:
                    cd = max(0, cd - cut)
                else:
                    cg = max(0, cg - cut)
    return cs, cp, cd, cg


@jit
def can_pay(S, p, cost):
    return (
        res(S, p, 0) >= cost[0]
        and res(S, p, 1) >= cost[1]
        and res(S, p, 2) >= cost[2]
        and res(S, p, 3) >= cost[3]
    )
