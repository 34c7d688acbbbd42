"""The heuristic's answer to each decision type: resolve order, placement, tribe cards
(take / keep / display / discard), trades, and the rare ones (raids, swaps, Noble,
Fata Morgana); each takes the best-valued legal option.
"""

from targi_sim.engine.access import border, pbase, res, tribe
from targi_sim.engine.constants import (
    BK_DRAW_GOODS,
    BK_DRAW_TRIBE,
    BK_EXCHANGE,
    BK_FATA_MORGANA,
    BK_GAIN,
    BK_NOBLE,
    DISPLAY_ROWS,
    DT_ABILITY,
    DT_ACTION,
    DT_CENTRAL_GOODS,
    DT_CHOOSE_GOOD,
    DT_DISCARD_GOOD,
    DT_FATA_MORGANA,
    DT_PLACE,
    DT_RAID_GOOD,
    DT_RAID_MODE,
    DT_TRADE,
    DT_TRIBAL_EXPANSION,
    DT_TRIBE,
    GOLD,
    HC_KEY,
    HW_DENIAL,
    HW_HAND,
    HW_NOISE,
    HW_TRADE_MARGIN,
    N_GOODS,
    VP,
)

from ...codes import marker_of, play_of, swap_of, trade_of
from ...costs import OPT_DISCARD, OPT_KEEP, OPT_LEAVE, effective_cost
from ...jit import jit_inline, jit_literal, jit_llvm_inline
from ...layout import (
    BD_KIND,
    BD_RAID_GOLD,
    BD_RAID_GOODS,
    BD_RAID_VP,
    BD_TRADE_HI,
    BD_TRADE_LO,
    CELL_GOODS,
    D_TRADES,
    P_DISPLAY,
    P_MARKER,
    P_TARGI,
    S_CELL_TYPE,
    S_POLICY_RNG,
    TC_VP,
    TD_GET,
    TD_SIZE,
)
from ...rng import next32
from .border import fill_placement_cache, place_value, placement_key, trade_net
from .cards import acquire_value, card_worth, cell_value, goods_card_value, row_potential
from .values import cost_value, late_factor, opponent_unit_values, unit_values


@jit_llvm_inline
def action_priority(S, D, p, slot):
    """Resolve in an order that makes resources available before they are spent."""
    pb = pbase(p)
    if slot >= 3:
        cell = S[pb + P_MARKER + slot - 3]
        return 8.0 if S[S_CELL_TYPE + cell] == CELL_GOODS else 5.0
    b = S[pb + P_TARGI + slot]
    kind = border(D, b, BD_KIND)
    if kind == BK_FATA_MORGANA:
        return 10.0
    if kind == BK_GAIN or kind == BK_DRAW_GOODS:
        return 9.0
    if kind == BK_EXCHANGE:
        # exchanges paying VP (Silversmith) last, the others (Merchant) before buying
        for t in range(border(D, b, BD_TRADE_LO), border(D, b, BD_TRADE_HI)):
            if D[D_TRADES + t * TD_SIZE + TD_GET] == 1:
                return 1.0
        return 7.0
    if kind == BK_DRAW_TRIBE:
        return 4.0
    if kind == BK_NOBLE:
        return 3.0
    return 2.0


@jit_inline
def discard_choice_value(S, p, uv, k):
    """Value of giving up one unit of good k (higher = better to give up)."""
    return res(S, p, k) - 2.0 * uv[k]


@jit_literal
def raid_mode_value(S, D, p, uv, mode, number):
    """Minus the value lost by paying the raid `number` in `mode` (0 goods/gold, 1 VP)."""
    b = 3 + 4 * (number - 1)
    if mode == 1:
        return -border(D, b, BD_RAID_VP) * uv[VP]
    gold = border(D, b, BD_RAID_GOLD)
    if gold > 0:
        return -gold * uv[GOLD]
    # the cheapest goods go first: approximate with the lowest unit value held
    cheapest = 1e9
    for k in range(N_GOODS):
        if res(S, p, k) > 0 and uv[k] < cheapest:
            cheapest = uv[k]
    return -border(D, b, BD_RAID_GOODS) * cheapest


@jit_literal
def swap_value(S, D, R, SP, p, w, base, v):
    """Row-bonus potential gained by swapping two display slots (code 1 + a*12 + b)."""
    if v == 0:
        return 0.0
    a, b = swap_of(v)
    o = pbase(p) + P_DISPLAY
    before = 0.0
    for row in range(DISPLAY_ROWS):
        before += row_potential(S, D, R, SP, p, w, base, row, -1)
    t = S[o + a]
    S[o + a] = S[o + b]
    S[o + b] = t
    after = 0.0
    for row in range(DISPLAY_ROWS):
        after += row_potential(S, D, R, SP, p, w, base, row, -1)
    S[o + b] = S[o + a]
    S[o + a] = t
    return after - before - 0.01


@jit_llvm_inline
def tribe_option_value(S, D, R, SP, p, w, base, v, c, uv, uvo, late):
    """Value of doing option v with tribe card c (leave, discard, keep, play)."""
    if v == OPT_LEAVE:
        return -SP[w, base + HW_DENIAL] * acquire_value(S, D, R, SP, 1 - p, w, base, uvo, late, c)
    if v == OPT_DISCARD:
        return 0.0
    if v == OPT_KEEP:
        return SP[w, base + HW_HAND] * tribe(D, c, TC_VP) * late
    alt, row = play_of(v)
    cost = effective_cost(S, D, p, c, alt)
    return card_worth(S, D, R, SP, p, w, base, uv, late, c, row) - cost_value(uv, cost)


@jit_llvm_inline
def rare_option_value(S, D, R, SP, p, w, base, dtype, v, ctx, uv, late):
    """Value of option v of the less frequent decision types."""
    if dtype == DT_CENTRAL_GOODS:
        return goods_card_value(D, uv, ctx) if v == 1 else 0.0
    if dtype == DT_CHOOSE_GOOD:
        return uv[v]
    if dtype == DT_FATA_MORGANA:
        if v < 0:
            return 0.0
        m, cell = marker_of(v)
        old = S[pbase(p) + P_MARKER + m]
        return (cell_value(S, D, R, SP, p, w, base, uv, late, cell)
                - cell_value(S, D, R, SP, p, w, base, uv, late, old))
    if dtype == DT_RAID_MODE:
        return raid_mode_value(S, D, p, uv, v, ctx)
    if dtype == DT_RAID_GOOD or dtype == DT_DISCARD_GOOD:
        return discard_choice_value(S, p, uv, v)
    if dtype == DT_ABILITY:
        return swap_value(S, D, R, SP, p, w, base, v)
    return 0.0


@jit_inline
def jittered(S, SP, p, base, v):
    """v plus the strategy's HW_NOISE jitter (drawn from p's own stream), if any."""
    noise = SP[p, base + HW_NOISE]
    if noise > 0.0:
        v += noise * (next32(S, S_POLICY_RNG + 4 * p) / 4294967296.0)
    return v


NO_UNITS = (0.0, 0.0, 0.0, 0.0, 0.0)  # unit values a decision type does not use


@jit_llvm_inline
def option_value(S, D, R, SP, p, base, dtype, v, ctx, uv, uvo, late):
    """The value of option v of a decision of type dtype, before any noise."""
    if dtype == DT_ACTION:
        return action_priority(S, D, p, v)
    if dtype == DT_PLACE:
        return place_value(S, D, R, SP, p, p, base, v)
    if dtype == DT_TRIBE:
        return tribe_option_value(S, D, R, SP, p, p, base, v, ctx, uv, uvo, late)
    if dtype == DT_TRADE:
        if v < 0:
            return SP[p, base + HW_TRADE_MARGIN]
        t, given, received = trade_of(v)
        return trade_net(D, uv, t, given, received)
    if dtype == DT_TRIBAL_EXPANSION:
        return float(v)
    return rare_option_value(S, D, R, SP, p, p, base, dtype, v, ctx, uv, late)


@jit_llvm_inline
def best_index(S, D, R, SP, p, base, dtype, O, n, ctx, uv, uvo, late, noisy):
    """Index of the option of highest value, the first on a tie; with `noisy` each value
    gets the strategy's HW_NOISE jitter first (drawn from p's stream, in option order).
    The one option loop of every decision type: each caller passes its type as a
    constant, and LLVM, inlining this into it, keeps only that type's branch."""
    best = 0
    best_v = -1e18
    for i in range(n):
        value = option_value(S, D, R, SP, p, base, dtype, O[i], ctx, uv, uvo, late)
        if noisy:
            value = jittered(S, SP, p, base, value)
        if value > best_v:
            best_v = value
            best = i
    return best


@jit_llvm_inline
def best_action(S, D, R, SP, p, base, O, n):
    """Resolve actions in a fixed order (action_priority); no valuation, no noise."""
    return best_index(S, D, R, SP, p, base, DT_ACTION, O, n, 0, NO_UNITS, NO_UNITS, 0.0,
                      False)


@jit_llvm_inline
def best_place(S, D, R, SP, p, base, O, n):
    """The placement of highest value; the values are cached once per placement phase."""
    late = late_factor(S, SP, p, p, base)
    if SP[p, HC_KEY] != placement_key(S, p):
        uv = unit_values(S, D, R, SP, p, p, base, late)
        fill_placement_cache(S, D, R, SP, p, p, base, uv, late)
    return best_index(S, D, R, SP, p, base, DT_PLACE, O, n, 0, NO_UNITS, NO_UNITS, late,
                      True)


@jit_llvm_inline
def best_tribe(S, D, R, SP, p, base, O, n, ctx):
    """What to do with tribe card ctx."""
    late = late_factor(S, SP, p, p, base)
    uv = unit_values(S, D, R, SP, p, p, base, late)
    uvo = uv
    if O[0] == OPT_LEAVE:  # leave comes first when legal
        uvo = opponent_unit_values(S, D, R, SP, p, p, base, late)
    return best_index(S, D, R, SP, p, base, DT_TRIBE, O, n, ctx, uv, uvo, late, True)


@jit_llvm_inline
def best_trade(S, D, R, SP, p, base, O, n):
    """The trade of highest net value, or stopping (worth the trade margin)."""
    late = late_factor(S, SP, p, p, base)
    uv = unit_values(S, D, R, SP, p, p, base, late)
    return best_index(S, D, R, SP, p, base, DT_TRADE, O, n, 0, uv, uv, late, True)


@jit_llvm_inline
def best_other(S, D, R, SP, p, base, dtype, O, n, ctx):
    """The best option of the less frequent decision types."""
    late = late_factor(S, SP, p, p, base)
    uv = NO_UNITS
    if dtype != DT_TRIBAL_EXPANSION:
        uv = unit_values(S, D, R, SP, p, p, base, late)
    return best_index(S, D, R, SP, p, base, dtype, O, n, ctx, uv, uv, late, True)


@jit_llvm_inline
def best_option(S, D, R, SP, p, base, dtype, O, n, ctx):
    """Index of the best-valued option (ties and HW_NOISE jitter broken by p's stream).

    The deciding player values everything with its own weights (row p of SP, from
    column `base`). One function per frequent decision type, so each is compiled with
    only the code it needs and optimised for it.
    """
    if dtype == DT_ACTION:
        return best_action(S, D, R, SP, p, base, O, n)
    if dtype == DT_PLACE:
        return best_place(S, D, R, SP, p, base, O, n)
    if dtype == DT_TRIBE:
        return best_tribe(S, D, R, SP, p, base, O, n, ctx)
    if dtype == DT_TRADE:
        return best_trade(S, D, R, SP, p, base, O, n)
    return best_other(S, D, R, SP, p, base, dtype, O, n, ctx)
