"""Tribe and goods cards and display rows: what a card is worth to its taker (VP,
ability, row bonus potential), what a centre cell offers.
"""

from targi_sim.engine.access import goods_card, pbase, tribe
from targi_sim.engine.constants import (
    AB_DISCOUNT,
    AB_IMMEDIATE,
    AB_INCOME,
    AB_MOVE_TWO,
    AB_PLAY_HAND,
    AB_POSITION_VP,
    AB_RAID_IMMUNITY,
    AB_SET_VP,
    DISPLAY_COLS,
    DISPLAY_ROWS,
    DISPLAY_SLOTS,
    HW_CARD_VP,
    HW_DISPLAY,
    HW_HAND,
    HW_RAID,
    HW_ROW_DIFF,
    HW_ROW_FOCUS,
    HW_ROW_SAME,
    HW_SYMBOL,
    RL_ROW_DIFF_BONUS,
    RL_ROW_SAME_BONUS,
)

from ...costs import can_pay, effective_cost
from ...jit import jit_inline, jit_literal, jit_llvm_inline
from ...layout import (
    CELL_GOODS,
    CELL_TRIBE,
    P_DISPLAY,
    P_DISPLAY_N,
    P_HAND,
    S_CELL_CARD,
    S_CELL_TYPE,
    S_CELL_UP,
    S_ROUND,
    TC_ABILITY,
    TC_HAS_ALT,
    TC_PARAMS,
    TC_SYMBOL,
    TC_VP,
)
from .values import MAX_ROUNDS, bundle_value, cost_value


@jit_llvm_inline
def row_potential(S, D, R, SP, p, w, base, row, extra_sym):
    """Value of a row's progress toward a bonus, optionally with one more card of extra_sym."""
    o = pbase(p) + P_DISPLAY + row * DISPLAY_COLS
    n = 0
    mask = 0
    same = True
    first = -1
    for col in range(DISPLAY_COLS):
        c = S[o + col]
        if c < 0:
            break
        sym = tribe(D, c, TC_SYMBOL)
        if first < 0:
            first = sym
        elif sym != first:
            same = False
        if (mask >> sym) & 1:
            mask |= 1 << 10  # a repeat already in the row: no all-different bonus
        mask |= 1 << sym
        n += 1
    if extra_sym >= 0:
        if first >= 0 and extra_sym != first:
            same = False
        if first < 0:
            first = extra_sym
        if (mask >> extra_sym) & 1:
            mask |= 1 << 10  # a repeat: the all-different bonus is gone
        mask |= 1 << extra_sym
        n += 1
    distinct = (mask >> 10) & 1 == 0
    if n == 0:
        return 0.0
    if n >= DISPLAY_COLS:
        if same:
            return float(R[RL_ROW_SAME_BONUS])
        if distinct:
            return float(R[RL_ROW_DIFF_BONUS])
        return 0.0
    v = 0.0
    frac = n / DISPLAY_COLS
    focus = SP[w, base + HW_ROW_FOCUS]
    if focus != 1.0:  # convex: the fourth card of a row is worth more than a new row's first
        frac = frac ** focus
    if same:
        v = SP[w, base + HW_ROW_SAME] * R[RL_ROW_SAME_BONUS] * frac
    if distinct:
        d = SP[w, base + HW_ROW_DIFF] * R[RL_ROW_DIFF_BONUS] * frac
        if d > v:
            v = d
    return v


@jit_literal
def ability_value(S, D, R, SP, p, w, base, uv, late, c):
    kind = tribe(D, c, TC_ABILITY)
    if kind == AB_IMMEDIATE or kind == AB_INCOME:
        v = bundle_value(uv, tribe(D, c, TC_PARAMS),
                         tribe(D, c, TC_PARAMS + 1), tribe(D, c, TC_PARAMS + 2),
                         tribe(D, c, TC_PARAMS + 3), tribe(D, c, TC_PARAMS + 4))
        if kind == AB_INCOME:
            v *= max(0, MAX_ROUNDS - S[S_ROUND])
        return v
    if kind == AB_RAID_IMMUNITY:
        return SP[w, base + HW_RAID] * (2.0 if tribe(D, c, TC_PARAMS) == 0 else 1.0)
    if kind == AB_DISCOUNT:
        return tribe(D, c, TC_PARAMS + 1) * 1.5 * late
    if kind == AB_SET_VP or kind == AB_POSITION_VP:
        return 0.5 * tribe(D, c, TC_PARAMS + (2 if kind == AB_SET_VP else 0))
    if kind == AB_PLAY_HAND:
        return 1.0 if S[pbase(p) + P_HAND] >= 0 else 0.2
    if kind == AB_MOVE_TWO:
        return 0.3
    return 0.0


@jit_literal
def card_worth(S, D, R, SP, p, w, base, uv, late, c, row):
    """Value of placing card c in `row` of p's display, before paying for it."""
    sym = tribe(D, c, TC_SYMBOL)
    v = SP[w, base + HW_CARD_VP] * tribe(D, c, TC_VP) + SP[w, base + HW_DISPLAY]
    v += SP[w, base + HW_SYMBOL + sym]
    v += row_potential(S, D, R, SP, p, w, base, row, sym) - row_potential(S, D, R, SP, p, w, base,
                                                                       row, -1)
    return v + ability_value(S, D, R, SP, p, w, base, uv, late, c)


@jit_inline
def row_free(S, p, row):
    return S[pbase(p) + P_DISPLAY + row * DISPLAY_COLS + DISPLAY_COLS - 1] < 0


@jit_llvm_inline
def acquire_value(S, D, R, SP, p, w, base, uv, late, c):
    """Best value p can get from acquiring card c now: play it, keep it, or nothing."""
    best = 0.0
    if S[pbase(p) + P_DISPLAY_N] < DISPLAY_SLOTS:
        for alt in range(2):
            if alt == 1 and tribe(D, c, TC_HAS_ALT) != 1:
                break
            cost = effective_cost(S, D, p, c, alt)
            if not can_pay(S, p, cost):
                continue
            paid = cost_value(uv, cost)
            for row in range(DISPLAY_ROWS):
                if row_free(S, p, row):
                    v = card_worth(S, D, R, SP, p, w, base, uv, late, c, row) - paid
                    if v > best:
                        best = v
    if S[pbase(p) + P_HAND] < 0:
        v = SP[w, base + HW_HAND] * tribe(D, c, TC_VP) * late
        if v > best:
            best = v
    return best


@jit_llvm_inline
def cell_value(S, D, R, SP, p, w, base, uv, late, cell):
    """What a tribe marker on this cell would bring p (0 for face-down or empty cells)."""
    if S[S_CELL_UP + cell] == 0:
        return 0.0
    kind = S[S_CELL_TYPE + cell]
    card = S[S_CELL_CARD + cell]
    if kind == CELL_GOODS:
        return goods_card_value(D, uv, card)
    if kind == CELL_TRIBE:
        return acquire_value(S, D, R, SP, p, w, base, uv, late, card)
    return 0.0


@jit_llvm_inline
def goods_card_value(D, uv, g):
    v = bundle_value(uv, goods_card(D, g, 0), goods_card(D, g, 1), goods_card(D, g, 2),
                     goods_card(D, g, 3), goods_card(D, g, 4))
    choice = goods_card(D, g, 5)
    if choice > 0:
        v += choice * max(uv[0], max(uv[1], uv[2]))
    return v
