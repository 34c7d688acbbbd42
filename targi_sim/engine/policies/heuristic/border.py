"""Border cards and placement: what a Targi on a border card yields (goods, trades,
Noble, Fata Morgana ...), the crossings it creates, and the placement order.
"""

from targi_sim.engine.access import border, pbase, res
from targi_sim.engine.constants import (
    BK_DRAW_GOODS,
    BK_DRAW_TRIBE,
    BK_EXCHANGE,
    BK_FATA_MORGANA,
    BK_GAIN,
    BK_NOBLE,
    BK_RAID,
    DISPLAY_ROWS,
    DISPLAY_SLOTS,
    GOLD,
    HC_BORDER,
    HC_BORDER_OPP,
    HC_CELL,
    HC_KEY,
    HC_LINE_CACHE,
    HW_CARD_VP,
    HW_DENIAL,
    HW_DISPLAY,
    HW_GOOD,
    HW_LINE,
    N_BORDER,
    N_CELLS,
    N_HEURISTIC_WEIGHTS,
    VP,
)

from ...costs import can_pay, effective_cost
from ...geometry import BORDER_COL, BORDER_ROW, FACING
from ...jit import jit_inline, jit_literal, jit_llvm_inline
from ...layout import (
    BD_AMOUNT,
    BD_GAIN,
    BD_KIND,
    BD_TRADE_HI,
    BD_TRADE_LO,
    D_TRADES,
    P_DISPLAY_N,
    P_HAND,
    P_TARGI,
    S_BORDER_TARGI,
    S_CELL_MARKER,
    S_CELLS_VERSION,
    S_ROBBER,
    S_ROUND,
    TD_GET,
    TD_GET_AMT,
    TD_GIVE_AMT,
    TD_SIZE,
)
from .cards import card_worth, cell_value, row_free
from .values import (
    ASSUMED_GOODS_PER_CARAVAN,
    HAND_UNSEEN,
    bundle_value,
    cost_value,
    hand_too_new,
    opponent_unit_values,
    unseen_hand_value,
    visible_hand,
)


@jit_inline
def trade_net(D, uv, t, given, got):
    o = D_TRADES + t * TD_SIZE
    return D[o + TD_GET_AMT] * uv[got] - D[o + TD_GIVE_AMT] * uv[given]


@jit_literal
def exchange_value(S, D, p, uv, b):
    """Rough value of an exchange card: its best trade, as often as p can afford it (<= 3
    and <= the card's `times`)."""
    best = 0.0
    limit = border(D, b, BD_AMOUNT)
    if limit <= 0 or limit > 3:
        limit = 3
    for t in range(border(D, b, BD_TRADE_LO), border(D, b, BD_TRADE_HI)):
        o = D_TRADES + t * TD_SIZE
        amount = D[o + TD_GIVE_AMT]
        get = D[o + TD_GET]
        for given in range(4):
            have = res(S, p, given)
            if have < amount:
                continue
            got = VP if get == 1 else (GOLD if get == 0 else (given + 1) % 3)
            if got == given:
                continue
            v = trade_net(D, uv, t, given, got)
            # min(3, have // amount) without a 64-bit division (amount >= 1 here)
            times = 3 if have >= 3 * amount else (2 if have >= 2 * amount else 1)
            if times > limit:
                times = limit
            if v * times > best:
                best = v * times
    return best


@jit_llvm_inline
def border_value(S, D, R, SP, p, w, base, uv, late, b, cells):
    """What a Targi on border card b would bring p by itself (markers aside).

    `cells` is the column of SP holding p's cached cell values (Fata Morgana).
    """
    kind = border(D, b, BD_KIND)
    if kind == BK_GAIN:
        return bundle_value(uv, border(D, b, BD_GAIN),
                            border(D, b, BD_GAIN + 1), border(D, b, BD_GAIN + 2),
                            border(D, b, BD_GAIN + 3), border(D, b, BD_GAIN + 4))
    if kind == BK_EXCHANGE:
        return exchange_value(S, D, p, uv, b)
    if kind == BK_NOBLE:
        if hand_too_new(S, R, p):
            return 0.0  # kept this round: the Noble may only discard it
        h = visible_hand(S, w, p)
        if h == HAND_UNSEEN:
            return unseen_hand_value(S, D, SP, p, w, base, uv)
        if h < 0:
            return 0.0
        best = 0.0
        for row in range(DISPLAY_ROWS):
            cost = effective_cost(S, D, p, h, 0)
            if row_free(S, p, row) and can_pay(S, p, cost):
                v = card_worth(S, D, R, SP, p, w, base, uv, late, h, row)
                v -= cost_value(uv, cost)
                if v > best:
                    best = v
        return best
    if kind == BK_FATA_MORGANA:
        best = 0.0
        if cells < 0:
            return 0.0
        for cell in range(N_CELLS):
            v = SP[p, cells + cell]
            if v > best:
                best = v
        return 0.4 * best
    if kind == BK_DRAW_GOODS:
        return border(D, b, BD_AMOUNT) * ASSUMED_GOODS_PER_CARAVAN * SP[w, base + HW_GOOD] * late
    if kind == BK_DRAW_TRIBE:
        if S[pbase(p) + P_DISPLAY_N] >= DISPLAY_SLOTS and S[pbase(p) + P_HAND] >= 0:
            return 0.0
        return 0.8 * SP[w, base + HW_CARD_VP] * late + 0.3 * SP[w, base + HW_DISPLAY]
    return 0.0


@jit_inline
def crossing(a, b):
    """Cell where border cards a and b cross, or -1 if they are parallel."""
    if BORDER_COL[a] >= 0 and BORDER_ROW[b] >= 0:
        return BORDER_ROW[b] * 3 + BORDER_COL[a]
    if BORDER_ROW[a] >= 0 and BORDER_COL[b] >= 0:
        return BORDER_ROW[a] * 3 + BORDER_COL[b]
    return -1


@jit_inline
def placement_key(S, p):
    """Nothing a placement is valued on changes during a round's placement phase."""
    return S[S_ROUND] * 1000 + S[S_CELLS_VERSION]


@jit_literal
def same_weights(SP, p, q, base):
    for j in range(N_HEURISTIC_WEIGHTS + 1):
        if SP[p, base + j] != SP[q, base + j]:
            return False
    return True


@jit_literal
def fill_placement_cache(S, D, R, SP, p, w, base, uv, late):
    """Value of every cell and border card for p (and border cards for the opponent)."""
    for cell in range(N_CELLS):
        SP[p, HC_CELL + cell] = cell_value(S, D, R, SP, p, w, base, uv, late, cell)
    q = 1 - p
    if (SP[q, HC_KEY] == placement_key(S, p) and same_weights(SP, p, q, base)
            and visible_hand(S, p, q) != HAND_UNSEEN and visible_hand(S, q, p) != HAND_UNSEEN):
        # a mirror match in which neither hand is hidden: the opponent valued every card
        # for both seats this phase with exactly what p knows
        for b in range(N_BORDER):
            kind = border(D, b, BD_KIND)
            own = SP[q, HC_BORDER_OPP + b]
            if kind == BK_FATA_MORGANA:  # the opponent's view of it ignores p's cells
                own = border_value(S, D, R, SP, p, w, base, uv, late, b, HC_CELL)
            SP[p, HC_BORDER + b] = own
            SP[p, HC_BORDER_OPP + b] = 0.0 if kind == BK_FATA_MORGANA else SP[q, HC_BORDER + b]
            SP[p, HC_LINE_CACHE + b] = line_value(SP, p, b) if kind != BK_RAID else 0.0
        SP[p, HC_KEY] = placement_key(S, p)
        return
    uvo = opponent_unit_values(S, D, R, SP, p, w, base, late)
    for b in range(N_BORDER):
        if border(D, b, BD_KIND) == BK_RAID:
            SP[p, HC_BORDER + b] = 0.0
            SP[p, HC_BORDER_OPP + b] = 0.0
            continue
        SP[p, HC_BORDER + b] = border_value(S, D, R, SP, p, w, base, uv, late, b, HC_CELL)
        SP[p, HC_BORDER_OPP + b] = border_value(S, D, R, SP, 1 - p, w, base, uvo, late, b, -1)
        SP[p, HC_LINE_CACHE + b] = line_value(SP, p, b)
    SP[p, HC_KEY] = placement_key(S, p)


@jit_literal
def line_value(SP, p, b):
    """Best cell along border card b's line: a later Targi may cross there."""
    best = 0.0
    for k in range(3):
        if BORDER_COL[b] >= 0:
            cell = k * 3 + BORDER_COL[b]
        else:
            cell = BORDER_ROW[b] * 3 + k
        v = SP[p, HC_CELL + cell]
        if v > best:
            best = v
    return best


@jit_llvm_inline
def place_value(S, D, R, SP, p, w, base, b):
    """Value of a Targi on b: the card, the crossings it makes or may make, the denial."""
    v = SP[p, HC_BORDER + b]
    pb = pbase(p)
    placed = 0
    for k in range(3):
        t = S[pb + P_TARGI + k]
        if t >= 0:
            placed += 1
            cell = crossing(t, b)
            if cell >= 0 and S[S_CELL_MARKER + cell] < 0:
                v += SP[p, HC_CELL + cell]
    if placed < 2:
        v += SP[w, base + HW_LINE] * SP[p, HC_LINE_CACHE + b]
    # denial: the opponent can no longer use b, nor the card facing it
    deny = SP[p, HC_BORDER_OPP + b]
    f = FACING[b]
    if f >= 0 and S[S_BORDER_TARGI + f] < 0 and f != S[S_ROBBER]:
        deny += SP[p, HC_BORDER_OPP + f]
    return v + SP[w, base + HW_DENIAL] * deny
