"""Final scoring (docs/rules.md §7): tokens + card VP + end-game abilities + row bonuses."""

from targi_sim.engine.access import goods_total, pbase, res, tribe
from targi_sim.engine.constants import (
    AB_POSITION_VP,
    AB_SET_VP,
    DISPLAY_COLS,
    DISPLAY_ROWS,
    GOLD,
    N_SYMBOLS,
    RL_ROW_DIFF_BONUS,
    RL_ROW_SAME_BONUS,
    RL_TIEBREAK,
    TB_DRAW,
    TB_GOLD,
    TB_GOODS,
    TB_NONE,
    VP,
)

from .jit import jit
from .layout import P_DISPLAY, TC_ABILITY, TC_PARAMS, TC_SYMBOL, TC_VP


@jit
def symbol_count(S, D, p, sym):
    o = pbase(p) + P_DISPLAY
    n = 0
    for slot in range(DISPLAY_ROWS * DISPLAY_COLS):
        c = S[o + slot]
        if c >= 0 and tribe(D, c, TC_SYMBOL) == sym:
            n += 1
    return n


@jit
def score_parts(S, D, R, p):
    """(tokens, card VP, ability VP, row bonus, total) of player p as the game stands."""
    o = pbase(p) + P_DISPLAY
    tokens = res(S, p, VP)
    card_vp = 0
    ability_vp = 0
    row_bonus = 0
    for slot in range(DISPLAY_ROWS * DISPLAY_COLS):
        c = S[o + slot]
        if c < 0:
            continue
        card_vp += tribe(D, c, TC_VP)
        kind = tribe(D, c, TC_ABILITY)
        if kind == AB_SET_VP:
            size = tribe(D, c, TC_PARAMS + 1)
            if size > 0:
                n = symbol_count(S, D, p, tribe(D, c, TC_PARAMS))
                ability_vp += (n // size) * tribe(D, c, TC_PARAMS + 2)
        elif kind == AB_POSITION_VP:
            col = tribe(D, c, TC_PARAMS + 1)
            sym = tribe(D, c, TC_PARAMS + 2)
            for row in range(DISPLAY_ROWS):
                other = S[o + row * DISPLAY_COLS + col]
                if other >= 0 and (sym < 0 or tribe(D, other, TC_SYMBOL) == sym):
                    ability_vp += tribe(D, c, TC_PARAMS)
    for row in range(DISPLAY_ROWS):
        full = True
        mask = 0
        for col in range(DISPLAY_COLS):
            c = S[o + row * DISPLAY_COLS + col]
            if c < 0:
                full = False
                break
            mask |= 1 << tribe(D, c, TC_SYMBOL)
        if full:
            bits = 0
            for s in range(N_SYMBOLS):
                if (mask >> s) & 1:
                    bits += 1
            if bits == 1:
                row_bonus += R[RL_ROW_SAME_BONUS]
            elif bits == DISPLAY_COLS:
                row_bonus += R[RL_ROW_DIFF_BONUS]
    return tokens, card_vp, ability_vp, row_bonus, tokens + card_vp + ability_vp + row_bonus


@jit
def total_score(S, D, R, p):
    return score_parts(S, D, R, p)[4]


@jit
def decide_winner(S, D, R, score0, score1):
    """(winner 0/1/-1, TB_* code) by score, then the rules' tie-break order."""
    if score0 != score1:
        return (0 if score0 > score1 else 1), TB_NONE
    mode = R[RL_TIEBREAK]
    g0 = res(S, 0, GOLD)
    g1 = res(S, 1, GOLD)
    n0 = goods_total(S, 0)
    n1 = goods_total(S, 1)
    if mode == 2:  # goods and gold counted together
        if g0 + n0 != g1 + n1:
            return (0 if g0 + n0 > g1 + n1 else 1), TB_GOODS
        return -1, TB_DRAW
    if g0 != g1:
        return (0 if g0 > g1 else 1), TB_GOLD
    if mode == 0 and n0 != n1:
        return (0 if n0 > n1 else 1), TB_GOODS
    return -1, TB_DRAW
