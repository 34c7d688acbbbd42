"""Heuristic and greedy strategies: value each legal option, take the best.

An option's value is the change it makes to a weighted evaluation of the
player's position: tokens and cards gained, resources spent (worth less as the
rounds run out), progress toward row bonuses, what it denies the opponent. The
weights are the strategy's parameters (`HW_*` columns of its row), so every
named heuristic strategy is a data file. Everything here reads only public
information (docs/rules.md §8): face-down cards, deck order and the opponent's hand
card are never looked at.

The greedy kind (policies/greedy.py) reuses the action order defined here.
"""

from targi_sim.engine.constants import (
    AB_DISCOUNT,
    AB_IMMEDIATE,
    AB_INCOME,
    AB_MOVE_TWO,
    AB_PLAY_HAND,
    AB_POSITION_VP,
    AB_RAID_IMMUNITY,
    AB_SET_VP,
    BK_DRAW_GOODS,
    BK_DRAW_TRIBE,
    BK_EXCHANGE,
    BK_FATA_MORGANA,
    BK_GAIN,
    BK_NOBLE,
    BK_RAID,
    DISPLAY_COLS,
    DISPLAY_ROWS,
    DISPLAY_SLOTS,
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
    HC_BORDER,
    HC_BORDER_OPP,
    HC_CELL,
    HC_DEMAND_KEY,
    HC_KEY,
    HC_LATE,
    HC_LATE_ROUND,
    HC_LINE_CACHE,
    HC_NEED,
    HC_UV,
    HC_UV_KEY,
    HC_UVO,
    HC_UVO_KEY,
    HW_CARD_VP,
    HW_DENIAL,
    HW_DISPLAY,
    HW_GOLD,
    HW_GOOD,
    HW_HAND,
    HW_LATE,
    HW_LINE,
    HW_NEED,
    HW_NOISE,
    HW_RAID,
    HW_ROW_DIFF,
    HW_ROW_FOCUS,
    HW_ROW_SAME,
    HW_SYMBOL,
    HW_TRADE_MARGIN,
    HW_VP,
    N_BORDER,
    N_CELLS,
    N_GOODS,
    N_HEURISTIC_WEIGHTS,
    N_SYMBOLS,
    RL_HAND_PLAY,
    RL_MAX_GOODS,
    RL_ROW_DIFF_BONUS,
    RL_ROW_SAME_BONUS,
    VP,
)

from ..costs import OPT_DISCARD, OPT_KEEP, OPT_LEAVE, OPT_PLAY, can_pay, effective_cost
from ..geometry import BORDER_COL, BORDER_ROW, FACING
from ..jit import entry_point, jit_inline, jit_llvm_inline
from ..jit import jit_literal as jit
from ..layout import (
    BD_AMOUNT,
    BD_GAIN,
    BD_KIND,
    BD_RAID_GOLD,
    BD_RAID_GOODS,
    BD_RAID_VP,
    BD_TRADE_HI,
    BD_TRADE_LO,
    CELL_GOODS,
    CELL_TRIBE,
    D_N_TRIBE,
    D_SUM_COST,
    D_SUM_VP,
    D_SYMBOL_COUNT,
    D_TRADES,
    P_DISPLAY,
    P_DISPLAY_N,
    P_HAND,
    P_HAND_KNOWN,
    P_HAND_ROUND,
    P_MARKER,
    P_RES,
    P_TARGI,
    S_BORDER_TARGI,
    S_CELL_CARD,
    S_CELL_MARKER,
    S_CELL_TYPE,
    S_CELL_UP,
    S_CELLS_VERSION,
    S_POLICY_RNG,
    S_ROBBER,
    S_ROUND,
    TC_ABILITY,
    TC_COST,
    TC_HAS_ALT,
    TC_PARAMS,
    TC_SYMBOL,
    TC_VP,
    TD_GET,
    TD_GET_AMT,
    TD_GIVE_AMT,
    TD_SIZE,
)
from ..rng import next32
from ..state import border, goods_card, goods_total, pbase, res, tribe

MAX_ROUNDS = 12
ASSUMED_GOODS_PER_CARAVAN = 1.3


# ------------------------------------------------------------------ resource values
@jit_inline
def late_factor(S, SP, p, w, base):
    """How much resources are still worth: 1 early, falling toward 0 in the last round."""
    if SP[p, HC_LATE_ROUND] == S[S_ROUND]:
        return SP[p, HC_LATE]
    left = MAX_ROUNDS - S[S_ROUND]
    if left < 0:
        left = 0
    x = (left + 1.0) / (MAX_ROUNDS + 1.0)
    e = SP[w, base + HW_LATE]
    # pow(x, 1.0) is x (checked for every x this can be), and 1.0 is the shipped
    # strategies' exponent: skip the libm call, ~1% of a heuristic game
    late = x if e == 1.0 else x ** e
    SP[p, HC_LATE_ROUND] = S[S_ROUND]
    SP[p, HC_LATE] = late
    return late


HAND_UNSEEN = -2  # visible_hand: the player holds a card the viewer has not seen


@jit_inline
def visible_hand(S, viewer, p):
    """p's hand card as `viewer` knows it: the card id, -1 for none, HAND_UNSEEN for a
    card the opponent drew face down (docs/rules.md §8)."""
    h = S[pbase(p) + P_HAND]
    if h < 0 or p == viewer or S[pbase(p) + P_HAND_KNOWN] == 1:
        return h
    return HAND_UNSEEN


@jit_inline
def hand_too_new(S, R, p):
    """True if p kept its hand card this round and the rules let it be played only later."""
    return (R[RL_HAND_PLAY] == 0 and S[pbase(p) + P_HAND] >= 0
            and S[pbase(p) + P_HAND_ROUND] == S[S_ROUND])


@jit_inline
def unseen_hand_value(S, D, SP, p, w, base, uv):
    """What the Noble is worth to p, whose hand card w has not seen: the deck's average
    tribe card's display value to p (printed VP, display and symbol weights) less its
    average cost at p's unit values. Only the deck's composition -- public -- enters;
    cheap, because it is asked at every placement phase an opponent holds such a card."""
    n = D[D_N_TRIBE]
    if n <= 0:
        return 0.0
    v = SP[w, base + HW_CARD_VP] * D[D_SUM_VP] + SP[w, base + HW_DISPLAY] * n
    for sym in range(N_SYMBOLS):
        v += SP[w, base + HW_SYMBOL + sym] * D[D_SYMBOL_COUNT + sym]
    for k in range(4):
        v -= uv[k] * D[D_SUM_COST + k]
    return max(0.0, v / n)


@jit
def refresh_demand(S, D, SP, w):
    """need()'s table for the face-up centre tribe cards (cached per layout): for each
    good k and each holding `have` of 0..3, the units missing toward those cards,
    sum over units > have of (units - have) x (cards costing `units` of k, 3 = 3+).

    Summed here once per layout, in the same order as need() once did at every call, so
    the values are bit-identical; the counts are packed 4 bits each in one integer (at
    most 9 cards) rather than accumulated in SP, where every += was a memory round trip.
    """
    key = S[S_CELLS_VERSION]
    if SP[w, HC_DEMAND_KEY] == key:
        return
    hist = 0
    for cell in range(N_CELLS):
        if S[S_CELL_TYPE + cell] == CELL_TRIBE and S[S_CELL_UP + cell] == 1:
            c = S[S_CELL_CARD + cell]
            for k in range(N_GOODS):
                hist += 1 << (4 * (k * 4 + min(tribe(D, c, TC_COST + k), 3)))
    for k in range(N_GOODS):
        for have in range(4):
            total = 0.0
            for units in range(have + 1, 4):
                total += (units - have) * float((hist >> (4 * (k * 4 + units))) & 15)
            SP[w, HC_NEED + k * 4 + have] = total
    SP[w, HC_DEMAND_KEY] = key


@jit_llvm_inline
def need(S, D, SP, p, w, k):
    """Units of good k player p lacks for the visible tribe cards and p's hand card, as
    player w sees it (an opponent's unseen hand card is not counted)."""
    have = res(S, p, k)
    total = 0.0
    if have < 3:  # tokens are never negative; 3 or more lacks nothing on the centre
        total = SP[w, HC_NEED + k * 4 + have]
    h = visible_hand(S, w, p)
    if h >= 0:
        cost = tribe(D, h, TC_COST + k)
        if cost > have:
            total += cost - have
    return total


@jit_inline
def unit_values(S, D, R, SP, p, w, base, late):
    """Unit values of p's own resources (cached, see cached_unit_values)."""
    return cached_unit_values(S, D, R, SP, p, w, base, late, HC_UV_KEY, HC_UV)


@jit_inline
def opponent_unit_values(S, D, R, SP, p, w, base, late):
    """Unit values of the opponent's resources as p values them (own cache slot)."""
    return cached_unit_values(S, D, R, SP, 1 - p, w, base, late, HC_UVO_KEY, HC_UVO)


@jit_llvm_inline
def cached_unit_values(S, D, R, SP, q, w, base, late, key, col):
    """Unit values of q's resources with w's weights, cached in SP[w] under a key of
    everything they depend on: q's goods and gold, q's hand, centre, round and robber.

    The key holds q's own tokens rather than a counter of all token changes, so it
    survives the other player's gains; tokens outside 0..1023 are valued uncached.
    """
    pb = pbase(q)
    k0 = 0.0
    for r in range(4):
        x = S[pb + P_RES + r]
        if x < 0 or x >= 1024:
            return compute_unit_values(S, D, R, SP, q, w, base, late)
        k0 = k0 * 1024.0 + x
    k1 = float(S[S_CELLS_VERSION])
    k2 = float(S[S_ROUND])
    k3 = float(S[S_ROBBER] * 1024 + visible_hand(S, w, q))
    if (SP[w, key] == k0 and SP[w, key + 1] == k1 and SP[w, key + 2] == k2
            and SP[w, key + 3] == k3):
        return (SP[w, col], SP[w, col + 1], SP[w, col + 2], SP[w, col + 3], SP[w, col + 4])
    uv = compute_unit_values(S, D, R, SP, q, w, base, late)
    for i in range(5):
        SP[w, col + i] = uv[i]
    SP[w, key] = k0
    SP[w, key + 1] = k1
    SP[w, key + 2] = k2
    SP[w, key + 3] = k3
    return uv


@jit
def compute_unit_values(S, D, R, SP, p, w, base, late):
    """Value of one more unit of each resource (salt, pepper, dates, gold, VP) for p."""
    full = 0.2 if goods_total(S, p) >= R[RL_MAX_GOODS] else 1.0  # excess is discarded
    g = SP[w, base + HW_GOOD]
    nw = SP[w, base + HW_NEED] / 3.0
    refresh_demand(S, D, SP, w)
    goods_raid, gold_raid = raid_exposure(S, D, SP, p, w, base)
    return (
        (g + nw * min(need(S, D, SP, p, w, 0), 3.0)) * full * late + goods_raid,
        (g + nw * min(need(S, D, SP, p, w, 1), 3.0)) * full * late + goods_raid,
        (g + nw * min(need(S, D, SP, p, w, 2), 3.0)) * full * late + goods_raid,
        SP[w, base + HW_GOLD] * late + gold_raid,
        SP[w, base + HW_VP],
    )


@jit_llvm_inline
def raid_exposure(S, D, SP, p, w, base):
    """Extra value of goods / gold when the robber's next step is a raid p cannot
    pay that way (so it would cost VP instead)."""
    b = (S[S_ROBBER] + 1) % N_BORDER
    if border(D, b, BD_KIND) != BK_RAID:
        return 0.0, 0.0
    weight = SP[w, base + HW_RAID]
    goods = 0.0
    gold = 0.0
    if goods_total(S, p) < border(D, b, BD_RAID_GOODS):
        goods = 0.3 * weight
    if res(S, p, GOLD) < border(D, b, BD_RAID_GOLD):
        gold = 0.5 * weight
    return goods, gold


@jit_inline
def bundle_value(uv, s, pe, d, g, vp):
    return s * uv[0] + pe * uv[1] + d * uv[2] + g * uv[3] + vp * uv[4]


@jit_inline
def cost_value(uv, cost):
    return cost[0] * uv[0] + cost[1] * uv[1] + cost[2] * uv[2] + cost[3] * uv[3]


# ------------------------------------------------------------------ cards and rows
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


@jit
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


@jit
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


# ------------------------------------------------------------------ border cards
@jit_inline
def trade_net(D, uv, t, given, got):
    o = D_TRADES + t * TD_SIZE
    return D[o + TD_GET_AMT] * uv[got] - D[o + TD_GIVE_AMT] * uv[given]


@jit
def exchange_value(S, D, p, uv, b):
    """Rough value of an exchange card: its best trade, as often as p can afford it (<= 3)."""
    best = 0.0
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


@jit
def same_weights(SP, p, q, base):
    for j in range(N_HEURISTIC_WEIGHTS + 1):
        if SP[p, base + j] != SP[q, base + j]:
            return False
    return True


@jit
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


@jit
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


# ------------------------------------------------------------------ other decisions
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


@jit
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


@jit
def swap_value(S, D, R, SP, p, w, base, v):
    """Row-bonus potential gained by swapping two display slots (code 1 + a*12 + b)."""
    if v == 0:
        return 0.0
    a = (v - 1) // DISPLAY_SLOTS
    b = (v - 1) % DISPLAY_SLOTS
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
    alt = (v - OPT_PLAY) // 3
    row = (v - OPT_PLAY) % 3
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
        old = S[pbase(p) + P_MARKER + v // 16]
        return (cell_value(S, D, R, SP, p, w, base, uv, late, v % 16)
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


@jit_llvm_inline
def best_action(S, D, p, O, n):
    """Resolve actions in a fixed order (action_priority); no valuation, no noise."""
    best = 0
    best_v = -1e18
    for i in range(n):
        v = action_priority(S, D, p, O[i])
        if v > best_v:
            best_v = v
            best = i
    return best


@jit_llvm_inline
def best_place(S, D, R, SP, p, base, O, n):
    """The placement of highest value; the values are cached once per placement phase."""
    late = late_factor(S, SP, p, p, base)
    if SP[p, HC_KEY] != placement_key(S, p):
        uv = unit_values(S, D, R, SP, p, p, base, late)
        fill_placement_cache(S, D, R, SP, p, p, base, uv, late)
    best = 0
    best_v = -1e18
    for i in range(n):
        v = jittered(S, SP, p, base, place_value(S, D, R, SP, p, p, base, O[i]))
        if v > best_v:
            best_v = v
            best = i
    return best


@jit_llvm_inline
def best_tribe(S, D, R, SP, p, base, O, n, ctx):
    """What to do with tribe card ctx."""
    late = late_factor(S, SP, p, p, base)
    uv = unit_values(S, D, R, SP, p, p, base, late)
    uvo = uv
    if O[0] == OPT_LEAVE:  # leave comes first when legal
        uvo = opponent_unit_values(S, D, R, SP, p, p, base, late)
    best = 0
    best_v = -1e18
    for i in range(n):
        v = jittered(S, SP, p, base,
                     tribe_option_value(S, D, R, SP, p, p, base, O[i], ctx, uv, uvo, late))
        if v > best_v:
            best_v = v
            best = i
    return best


@jit_llvm_inline
def best_trade(S, D, R, SP, p, base, O, n):
    """The trade of highest net value, or stopping (worth the trade margin)."""
    late = late_factor(S, SP, p, p, base)
    uv = unit_values(S, D, R, SP, p, p, base, late)
    best = 0
    best_v = -1e18
    for i in range(n):
        v = O[i]
        if v < 0:
            value = SP[p, base + HW_TRADE_MARGIN]
        else:
            value = trade_net(D, uv, v // 64, (v // 8) % 8, v % 8)
        value = jittered(S, SP, p, base, value)
        if value > best_v:
            best_v = value
            best = i
    return best


@jit_llvm_inline
def best_other(S, D, R, SP, p, base, dtype, O, n, ctx):
    """The best option of the less frequent decision types."""
    late = late_factor(S, SP, p, p, base)
    uv = (0.0, 0.0, 0.0, 0.0, 0.0)
    if dtype != DT_TRIBAL_EXPANSION:
        uv = unit_values(S, D, R, SP, p, p, base, late)
    best = 0
    best_v = -1e18
    for i in range(n):
        if dtype == DT_TRIBAL_EXPANSION:
            value = float(O[i])
        else:
            value = rare_option_value(S, D, R, SP, p, p, base, dtype, O[i], ctx, uv, late)
        value = jittered(S, SP, p, base, value)
        if value > best_v:
            best_v = value
            best = i
    return best


@jit_llvm_inline
def best_option(S, D, R, SP, p, base, dtype, O, n, ctx):
    """Index of the best-valued option (ties and HW_NOISE jitter broken by p's stream).

    The deciding player values everything with its own weights (row p of SP, from
    column `base`). One function per frequent decision type, so each is compiled with
    only the code it needs and optimised for it.
    """
    if dtype == DT_ACTION:
        return best_action(S, D, p, O, n)
    if dtype == DT_PLACE:
        return best_place(S, D, R, SP, p, base, O, n)
    if dtype == DT_TRIBE:
        return best_tribe(S, D, R, SP, p, base, O, n, ctx)
    if dtype == DT_TRADE:
        return best_trade(S, D, R, SP, p, base, O, n)
    return best_other(S, D, R, SP, p, base, dtype, O, n, ctx)


@entry_point
@jit
def decide_heuristic(S, D, R, SP, p, dtype, O, n, ctx):
    """The heuristic kind's decision (policies.DECIDE_SIGNATURE); also what plugins
    call to delegate the decisions they do not make themselves."""
    return best_option(S, D, R, SP, p, 0, dtype, O, n, ctx)
