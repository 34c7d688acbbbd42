"""What a player's resources are worth to the heuristic now: goods, gold and VP by the
weights and the rounds left, the demand the cards in reach create (`need`), the value
of an unseen hand card, exposure to the next raid.
"""

from targi_sim.engine.access import border, goods_total, pbase, res, tribe
from targi_sim.engine.constants import (
    BK_RAID,
    GOLD,
    HC_DEMAND_KEY,
    HC_LATE,
    HC_LATE_ROUND,
    HC_NEED,
    HC_UV,
    HC_UV_KEY,
    HC_UVO,
    HC_UVO_KEY,
    HW_CARD_VP,
    HW_DISPLAY,
    HW_GOLD,
    HW_GOOD,
    HW_LATE,
    HW_NEED,
    HW_RAID,
    HW_SYMBOL,
    HW_VP,
    N_BORDER,
    N_CELLS,
    N_GOODS,
    N_SYMBOLS,
    RL_HAND_PLAY,
    RL_MAX_GOODS,
    USUAL_ROUNDS,
)

from ...jit import jit_inline, jit_literal, jit_llvm_inline
from ...layout import (
    BD_KIND,
    BD_RAID_GOLD,
    BD_RAID_GOODS,
    CELL_TRIBE,
    D_N_TRIBE,
    D_SUM_COST,
    D_SUM_VP,
    D_SYMBOL_COUNT,
    P_HAND,
    P_HAND_KNOWN,
    P_HAND_ROUND,
    P_RES,
    S_CELL_CARD,
    S_CELL_TYPE,
    S_CELL_UP,
    S_CELLS_VERSION,
    S_ROBBER,
    S_ROUND,
    TC_COST,
    TC_DEMAND,
)

ASSUMED_GOODS_PER_CARAVAN = 1.3


@jit_inline
def late_factor(S, SP, p, w, base):
    """How much resources are still worth: 1 early, falling toward 0 in the last round."""
    if SP[p, HC_LATE_ROUND] == S[S_ROUND]:
        return SP[p, HC_LATE]
    left = USUAL_ROUNDS - S[S_ROUND]
    if left < 0:
        left = 0
    x = (left + 1.0) / (USUAL_ROUNDS + 1.0)
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


@jit_literal
def refresh_demand(S, D, SP, w):
    """need()'s table for the face-up centre tribe cards (cached per layout): for each
    good k and each holding `have` of 0..3, the units missing toward those cards,
    sum over units > have of (units - have) x (cards costing `units` of k, 3 = 3+).

    Summed here once per layout, in the same order as need() once did at every call, so
    the values are bit-identical; the counts are packed 4 bits each in one integer (at
    most 9 cards) rather than accumulated in SP, where every += was a memory round trip,
    and each card's share of it is packed once per deck (TC_DEMAND).
    """
    key = S[S_CELLS_VERSION]
    if SP[w, HC_DEMAND_KEY] == key:
        return
    hist = 0
    for cell in range(N_CELLS):
        if S[S_CELL_TYPE + cell] == CELL_TRIBE and S[S_CELL_UP + cell] == 1:
            hist += tribe(D, S[S_CELL_CARD + cell], TC_DEMAND)  # layout.demand_bits
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


@jit_literal
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
