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
    HC_FOCUS_KEY,
    HC_FRAC,
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
    USUAL_ROUNDS,
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
from .values import bundle_value, cost_value

if DISPLAY_ROWS != 3:  # acquire_value keeps one gain per row in three locals
    raise ImportError("acquire_value assumes three display rows")


@jit_inline
def row_scan(S, D, p, row):
    """One pass over a display row: (cards, first symbol, symbol mask, all the same);
    bit 10 of the mask marks a repeated symbol (no all-different bonus)."""
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
    return n, first, mask, same


@jit_inline
def focused_fraction(SP, w, n, focus):
    """(n / DISPLAY_COLS) ** focus for 1 <= n < DISPLAY_COLS, from a table in w's cache
    built once per exponent: a power is costly, and tuned asks for one at every row it
    values (the same libm call on the same inputs, so the same bits)."""
    if SP[w, HC_FOCUS_KEY] != focus:
        for k in range(1, DISPLAY_COLS):
            SP[w, HC_FRAC + k - 1] = (k / DISPLAY_COLS) ** focus
        SP[w, HC_FOCUS_KEY] = focus
    return SP[w, HC_FRAC + n - 1]


@jit_llvm_inline
def row_bonus_value(R, SP, w, base, n, mask, same):
    """Value of a row of n cards with this symbol mask toward a row bonus."""
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
        frac = focused_fraction(SP, w, n, focus)
    if same:
        v = SP[w, base + HW_ROW_SAME] * R[RL_ROW_SAME_BONUS] * frac
    if distinct:
        d = SP[w, base + HW_ROW_DIFF] * R[RL_ROW_DIFF_BONUS] * frac
        if d > v:
            v = d
    return v


@jit_inline
def with_symbol(n, first, mask, same, sym):
    """A row's scan with one more card of symbol sym."""
    if first >= 0 and sym != first:
        same = False
    if (mask >> sym) & 1:
        mask |= 1 << 10  # a repeat: the all-different bonus is gone
    return n + 1, mask | (1 << sym), same


@jit_llvm_inline
def row_potential(S, D, R, SP, p, w, base, row, extra_sym):
    """Value of a row's progress toward a bonus, optionally with one more card of extra_sym."""
    n, first, mask, same = row_scan(S, D, p, row)
    if extra_sym >= 0:
        n, mask, same = with_symbol(n, first, mask, same, extra_sym)
    return row_bonus_value(R, SP, w, base, n, mask, same)


@jit_llvm_inline
def row_gain(S, D, R, SP, p, w, base, row, sym):
    """What one more card of symbol sym adds to a row's potential: row_potential with
    it less row_potential without, from one scan of the row."""
    n, first, mask, same = row_scan(S, D, p, row)
    without = row_bonus_value(R, SP, w, base, n, mask, same)
    n1, mask1, same1 = with_symbol(n, first, mask, same, sym)
    return row_bonus_value(R, SP, w, base, n1, mask1, same1) - without


@jit_literal
def ability_value(S, D, R, SP, p, w, base, uv, late, c):
    kind = tribe(D, c, TC_ABILITY)
    if kind == AB_IMMEDIATE or kind == AB_INCOME:
        v = bundle_value(uv, tribe(D, c, TC_PARAMS),
                         tribe(D, c, TC_PARAMS + 1), tribe(D, c, TC_PARAMS + 2),
                         tribe(D, c, TC_PARAMS + 3), tribe(D, c, TC_PARAMS + 4))
        if kind == AB_INCOME:
            v *= max(0, USUAL_ROUNDS - S[S_ROUND])
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


@jit_inline
def card_fixed(S, D, R, SP, p, w, base, uv, late, c):
    """card_worth's parts that do not depend on the row: (printed VP, display and symbol
    weights; the ability's value)."""
    v = SP[w, base + HW_CARD_VP] * tribe(D, c, TC_VP) + SP[w, base + HW_DISPLAY]
    v += SP[w, base + HW_SYMBOL + tribe(D, c, TC_SYMBOL)]
    return v, ability_value(S, D, R, SP, p, w, base, uv, late, c)


@jit_literal
def card_worth(S, D, R, SP, p, w, base, uv, late, c, row):
    """Value of placing card c in `row` of p's display, before paying for it (summed in
    the order acquire_value sums it, so both give the same bits)."""
    fixed, ability = card_fixed(S, D, R, SP, p, w, base, uv, late, c)
    gain = row_gain(S, D, R, SP, p, w, base, row, tribe(D, c, TC_SYMBOL))
    return (fixed + gain) + ability


@jit_inline
def row_free(S, p, row):
    return S[pbase(p) + P_DISPLAY + row * DISPLAY_COLS + DISPLAY_COLS - 1] < 0


@jit_llvm_inline
def acquire_value(S, D, R, SP, p, w, base, uv, late, c):
    """Best value p can get from acquiring card c now: play it, keep it, or nothing.

    card_worth for each payable way and free row, with its row-independent parts and
    each row's gain computed once (not once per way and row): the same sums."""
    best = 0.0
    if S[pbase(p) + P_DISPLAY_N] < DISPLAY_SLOTS:
        known = False
        fixed = ability = 0.0
        sym = tribe(D, c, TC_SYMBOL)
        g0 = g1 = g2 = 0.0
        for alt in range(2):
            if alt == 1 and tribe(D, c, TC_HAS_ALT) != 1:
                break
            cost = effective_cost(S, D, p, c, alt)
            if not can_pay(S, p, cost):
                continue
            paid = cost_value(uv, cost)
            if not known:
                fixed, ability = card_fixed(S, D, R, SP, p, w, base, uv, late, c)
                if row_free(S, p, 0):
                    g0 = row_gain(S, D, R, SP, p, w, base, 0, sym)
                if row_free(S, p, 1):
                    g1 = row_gain(S, D, R, SP, p, w, base, 1, sym)
                if row_free(S, p, 2):
                    g2 = row_gain(S, D, R, SP, p, w, base, 2, sym)
                known = True
            for row in range(DISPLAY_ROWS):
                if row_free(S, p, row):
                    gain = g0 if row == 0 else (g1 if row == 1 else g2)
                    v = ((fixed + gain) + ability) - paid
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
