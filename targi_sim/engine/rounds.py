"""A whole game (docs/rules.md §6-7): setup, robber and raids, placement, markers,
actions, round end, and the end of the game."""

import numpy as np

from targi_sim.engine.access import (
    add_res,
    border,
    deck_has,
    draw_goods,
    draw_tribe,
    goods_total,
    n_goods_cards,
    n_tribe_cards,
    pbase,
    res,
    shuffle_range,
    tribe,
)
from targi_sim.engine.constants import (
    AB_INCOME,
    AB_RAID_IMMUNITY,
    BK_RAID,
    DISPLAY_SLOTS,
    DT_ACTION,
    DT_DISCARD_GOOD,
    DT_PLACE,
    DT_RAID_GOOD,
    DT_RAID_MODE,
    END_DISPLAY_FULL,
    END_FINAL_RAID,
    GOLD,
    MC_DECISIONS,
    MC_PENDING,
    N_BORDER,
    N_CELLS,
    N_GOODS,
    RAID_PAY_WHAT_THEY_HAVE,
    RL_MAX_GOLD,
    RL_MAX_GOODS,
    RL_NO_LEGAL_PLACEMENT,
    RL_RAID4_END,
    RL_RAID_UNPAID,
    RL_RAID_UNPAID_VP,
    RL_START_SALT,
    SEARCHED_ALL,
    SK_MONTECARLO,
    SK_SCRIPTED,
    SP_NOISE_REP,
    VP,
)
from targi_sim.engine.logs import (
    PAID_GOLD,
    PAID_GOODS,
    PAID_GOODS_GOLD,
    PAID_IMMUNE,
    PAID_NONE,
    PAID_VP,
    RD_AMOUNT,
    RD_BONUS,
    RD_GOLD,
    RD_PAID,
    RD_PLAYER,
    RD_RAID,
    RD_ROUND,
    RO_CARD,
    RO_CELL,
    RO_ROUND,
    RR_ACQ,
    RR_DATES,
    RR_DISPLAY_N,
    RR_GOLD,
    RR_GOLD_DISC,
    RR_GOODS_DISC,
    RR_HAND,
    RR_IS_FIRST,
    RR_MARKER,
    RR_MOVED,
    RR_PEPPER,
    RR_PLAYER,
    RR_ROBBER,
    RR_ROUND,
    RR_SALT,
    RR_SCORE,
    RR_TARGI,
    RR_VP,
    T_OFFERS,
    T_RAIDS,
    T_ROUNDS,
    log_row,
)

from .actions import resolve_slot
from .ask import ask
from .geometry import BORDER_COL, BORDER_ROW, FACING
from .jit import jit, jit_inline
from .layout import (
    BD_KIND,
    BD_RAID_ENDS,
    BD_RAID_GOLD,
    BD_RAID_GOODS,
    BD_RAID_NUMBER,
    BD_RAID_VP,
    CELL_GOODS,
    CELL_TRIBE,
    P_ACQ_ROUND,
    P_DISPLAY,
    P_DISPLAY_N,
    P_DONE,
    P_GOLD_DISC_ROUND,
    P_GOODS_DISC_ROUND,
    P_HAND,
    P_HAND_ROUND,
    P_MARKER,
    P_MARKER_PLACED,
    P_RES,
    P_TARGI,
    PH_PLACEMENT,
    PH_ROUND_START,
    S_BORDER_TARGI,
    S_CELL_CARD,
    S_CELL_MARKER,
    S_CELL_TYPE,
    S_CELL_UP,
    S_CELLS_VERSION,
    S_CORE,
    S_END_AFTER_ROUND,
    S_END_REASON,
    S_FIRST,
    S_FIRST_R1,
    S_GAME_RNG,
    S_GOODS,
    S_GOODS_N,
    S_OVER,
    S_PAUSE_MC,
    S_PHASE,
    S_PLACE_K,
    S_POLICY_RNG,
    S_RAIDS_DONE,
    S_ROBBER,
    S_ROUND,
    S_SEED,
    S_TRIBE,
    S_TRIBE_N,
    S_X_N,
    S_X_PAUSED,
    S_X_POS,
    TC_ABILITY,
    TC_PARAMS,
)
from .rng import seed_stream
from .scoring import total_score


# ------------------------------------------------------------------ setup
@jit
def reseed_policies(S, SP, seed):
    """Replay r = SP[0, SP_NOISE_REP] > 0: the same deal (deck streams untouched) with
    each seat's own random stream drawn afresh, so per-deal outcomes can be compared
    over repeated policy noise (targi_sim.strength.ladder). r = 0 leaves setup_game's streams."""
    rep = int(SP[0, SP_NOISE_REP]) if SP[0, 0] != SK_SCRIPTED else 0  # (a script's column)
    if rep != 0:
        seed_stream(S, S_POLICY_RNG, seed, 1 + 2 * rep)
        seed_stream(S, S_POLICY_RNG + 4, seed, 2 + 2 * rep)


@jit
def setup_game(S, D, R, seed, first_player):
    """A fresh game: shuffled decks, the G T G / T G T / G T G centre, starting tokens."""
    for i in range(S_CORE):
        S[i] = 0
    S[S_X_POS] = 0
    S[S_X_N] = 0
    S[S_X_PAUSED] = 0
    S[S_SEED] = seed
    seed_stream(S, S_GAME_RNG, seed, 0)
    seed_stream(S, S_POLICY_RNG, seed, 1)
    seed_stream(S, S_POLICY_RNG + 4, seed, 2)
    n_goods = n_goods_cards(D)
    n_tribe = n_tribe_cards(D)
    for i in range(n_goods):
        S[S_GOODS + i] = i
    S[S_GOODS_N] = n_goods
    shuffle_range(S, S_GOODS, n_goods)
    for i in range(n_tribe):
        S[S_TRIBE + i] = i
    S[S_TRIBE_N] = n_tribe
    shuffle_range(S, S_TRIBE, n_tribe)
    for cell in range(N_CELLS):
        S[S_CELL_MARKER + cell] = -1
        S[S_CELL_UP + cell] = 1
        if cell % 2 == 0:
            S[S_CELL_CARD + cell] = draw_goods(S)
            S[S_CELL_TYPE + cell] = CELL_GOODS
        else:
            S[S_CELL_CARD + cell] = draw_tribe(S)
            S[S_CELL_TYPE + cell] = CELL_TRIBE
        if S[S_CELL_CARD + cell] < 0:
            S[S_CELL_TYPE + cell] = -1
    for b in range(N_BORDER):
        S[S_BORDER_TARGI + b] = -1
    for p in range(2):
        pb = pbase(p)
        for r in range(5):
            S[pb + P_RES + r] = R[RL_START_SALT + r]
        S[pb + P_HAND] = -1
        S[pb + P_HAND_ROUND] = -1
        for slot in range(DISPLAY_SLOTS):
            S[pb + P_DISPLAY + slot] = -1
        clear_round_marks(S, p)
    S[S_ROBBER] = 0
    S[S_CELLS_VERSION] = 1  # never 0: strategy caches start at 0 or NaN
    S[S_FIRST] = first_player
    S[S_FIRST_R1] = first_player


@jit
def clear_round_marks(S, p):
    pb = pbase(p)
    for k in range(3):
        S[pb + P_TARGI + k] = -1
    for k in range(2):
        S[pb + P_MARKER + k] = -1
        S[pb + P_MARKER_PLACED + k] = -1
    for k in range(5):
        S[pb + P_DONE + k] = 0
    S[pb + P_ACQ_ROUND] = 0
    S[pb + P_GOODS_DISC_ROUND] = 0
    S[pb + P_GOLD_DISC_ROUND] = 0


# ------------------------------------------------------------------ raids
@jit
def immune_to_raid(S, D, p, raid_number):
    if not deck_has(D, AB_RAID_IMMUNITY):
        return False
    o = pbase(p) + P_DISPLAY
    for slot in range(DISPLAY_SLOTS):
        c = S[o + slot]
        if c >= 0 and tribe(D, c, TC_ABILITY) == AB_RAID_IMMUNITY:
            which = tribe(D, c, TC_PARAMS)
            if which == 0 or which == raid_number:
                return True
    return False


@jit
def log_raid(S, L, raid_number, p, paid, amount, bonus, gold):
    o = log_row(L, T_RAIDS)
    if o >= 0:
        L[o + RD_ROUND] = S[S_ROUND] + 1  # the raid comes before this round
        L[o + RD_RAID] = raid_number
        L[o + RD_PLAYER] = p
        L[o + RD_PAID] = paid
        L[o + RD_AMOUNT] = amount
        L[o + RD_BONUS] = bonus
        L[o + RD_GOLD] = gold


@jit_inline
def give_goods(S, D, R, SP, L, P, p, count, number, O):
    """p gives up `count` goods, one unit at a time, kinds of their choice."""
    for _ in range(count):
        k = 0
        for g in range(N_GOODS):
            if res(S, p, g) > 0:
                O[k] = g
                k += 1
        add_res(S, p, ask(S, D, R, SP, L, P, p, DT_RAID_GOOD, O, k, number), -1)


@jit
def pay_raid(S, D, R, SP, L, P, p, b, O):
    """One player pays raid card b: its goods-and/or-gold cost or its VP cost, else the
    rules' reading of a player who cannot pay (RL_RAID_UNPAID)."""
    number = border(D, b, BD_RAID_NUMBER)
    if immune_to_raid(S, D, p, number):
        log_raid(S, L, number, p, PAID_IMMUNE, 0, 0, 0)
        return
    goods_cost = border(D, b, BD_RAID_GOODS)
    gold_cost = border(D, b, BD_RAID_GOLD)
    vp_cost = border(D, b, BD_RAID_VP)
    if goods_cost == 0 and gold_cost == 0 and vp_cost == 0:
        log_raid(S, L, number, p, PAID_NONE, 0, 0, 0)
        return
    goods_held = goods_total(S, p)
    gold_held = res(S, p, GOLD)
    vp_held = res(S, p, VP)
    can_first = ((goods_cost > 0 or gold_cost > 0) and goods_held >= goods_cost
                 and gold_held >= gold_cost)
    can_vp = vp_cost > 0 and vp_held >= vp_cost
    partial = False
    if not can_first and not can_vp and R[RL_RAID_UNPAID] == RAID_PAY_WHAT_THEY_HAVE:
        # pay what they have of one option (Swedish reading): goods/gold or VP
        partial = True
        can_first = ((goods_cost > 0 and goods_held > 0) or (gold_cost > 0 and gold_held > 0))
        can_vp = vp_cost > 0 and vp_held > 0
    n = 0
    if can_first:
        O[n] = 0
        n += 1
    if can_vp:
        O[n] = 1
        n += 1
    if n == 0:
        mode = R[RL_RAID_UNPAID]
        bonus = 0
        if mode == 0 or mode == RAID_PAY_WHAT_THEY_HAVE:
            bonus = R[RL_RAID_UNPAID_VP]
        elif mode == 1:
            bonus = vp_cost
        add_res(S, 1 - p, VP, bonus)
        log_raid(S, L, number, p, PAID_NONE, 0, bonus, 0)
        return
    mode = ask(S, D, R, SP, L, P, p, DT_RAID_MODE, O, n, number)
    if mode == 1:
        vp = min(vp_cost, vp_held) if partial else vp_cost
        add_res(S, p, VP, -vp)
        log_raid(S, L, number, p, PAID_VP, vp, 0, 0)
        return
    goods = min(goods_cost, goods_held) if partial else goods_cost
    gold = min(gold_cost, gold_held) if partial else gold_cost
    give_goods(S, D, R, SP, L, P, p, goods, number, O)
    if gold > 0:
        add_res(S, p, GOLD, -gold)
    if goods > 0 and gold > 0:
        log_raid(S, L, number, p, PAID_GOODS_GOLD, goods, 0, gold)
    elif gold > 0:
        log_raid(S, L, number, p, PAID_GOLD, gold, 0, gold)
    else:
        log_raid(S, L, number, p, PAID_GOODS, goods, 0, 0)


@jit_inline
def resolve_raid(S, D, R, SP, L, P, b, O):
    first = S[S_FIRST]
    pay_raid(S, D, R, SP, L, P, first, b, O)
    pay_raid(S, D, R, SP, L, P, 1 - first, b, O)
    S[S_RAIDS_DONE] += 1
    if border(D, b, BD_RAID_ENDS) == 1:
        S[S_END_REASON] = END_FINAL_RAID
        if R[RL_RAID4_END] == 1:
            S[S_END_AFTER_ROUND] = 1
        else:
            S[S_OVER] = 1


# ------------------------------------------------------------------ placement
@jit
def placement_options(S, D, p, O, ignore_facing):
    """The free border cards p may take, in order. Branch-free: each card is written to
    O[n] and counted only if free, since which cards are free is unpredictable."""
    n = 0
    robber = S[S_ROBBER]
    for b in range(N_BORDER):
        f = FACING[b]
        blocked_by_facing = (not ignore_facing and f >= 0
                             and S[S_BORDER_TARGI + max(f, 0)] == 1 - p)
        free = (b != robber) & (border(D, b, BD_KIND) != BK_RAID) \
            & (S[S_BORDER_TARGI + b] < 0) & (not blocked_by_facing)
        O[n] = b
        n += 1 if free else 0
    return n


@jit
def placing_player(S):
    k = S[S_PLACE_K]
    return S[S_FIRST] if k % 2 == 0 else 1 - S[S_FIRST]


@jit
def legal_placements(S, D, R, p, O):
    n = placement_options(S, D, p, O, False)
    if n == 0 and R[RL_NO_LEGAL_PLACEMENT] == 1:
        n = placement_options(S, D, p, O, True)
    return n


@jit
def apply_placement(S, p, b):
    S[S_BORDER_TARGI + b] = p
    S[pbase(p) + P_TARGI + S[S_PLACE_K] // 2] = b
    S[S_PLACE_K] += 1


@jit_inline
def place_targis(S, D, R, SP, L, P, O):
    """First player, then alternately, one Targi at a time, three each.

    Resumable: S_PLACE_K counts the Targis placed. Returns False when it stops
    before a montecarlo player's placement (S_PAUSE_MC) for the driver to decide.
    """
    while S[S_PLACE_K] < 6:
        p = placing_player(S)
        n = legal_placements(S, D, R, p, O)
        if n == 0:
            S[S_PLACE_K] += 1
            continue
        if (S[S_PAUSE_MC] == 1 and int(SP[p, 0]) == SK_MONTECARLO
                and np.isnan(SP[p, MC_PENDING]) and SP[p, MC_DECISIONS] != SEARCHED_ALL):
            return False  # (a seat that searches every decision pauses in ask instead)
        b = ask(S, D, R, SP, L, P, p, DT_PLACE, O, n, S[S_PLACE_K] // 2)
        apply_placement(S, p, b)
    return True


@jit
def place_markers(S, p):
    """One marker on the crossing of each own column-card / row-card pair."""
    pb = pbase(p)
    m = 0
    for i in range(3):
        bi = S[pb + P_TARGI + i]
        if bi < 0 or BORDER_COL[bi] < 0:
            continue
        for j in range(3):
            bj = S[pb + P_TARGI + j]
            if bj < 0 or BORDER_ROW[bj] < 0 or m >= 2:
                continue
            cell = BORDER_ROW[bj] * 3 + BORDER_COL[bi]
            if S[S_CELL_MARKER + cell] >= 0:
                continue  # only possible when the facing rule is lifted
            S[S_CELL_MARKER + cell] = p
            S[pb + P_MARKER + m] = cell
            S[pb + P_MARKER_PLACED + m] = cell
            m += 1


# ------------------------------------------------------------------ actions
@jit
def resolve_actions(S, D, R, SP, L, P, p, O):
    """The player resolves every own Targi and marker, in an order of their choice."""
    pb = pbase(p)
    while True:
        n = 0
        for slot in range(5):
            if S[pb + P_DONE + slot] == 1:
                continue
            if slot < 3 and S[pb + P_TARGI + slot] < 0:
                continue
            if slot >= 3 and S[pb + P_MARKER + slot - 3] < 0:
                continue
            O[n] = slot
            n += 1
        if n == 0:
            return
        slot = ask(S, D, R, SP, L, P, p, DT_ACTION, O, n, 0)
        resolve_slot(S, D, R, SP, L, P, p, slot, O)


# ------------------------------------------------------------------ round end
@jit
def apply_income(S, D, p):
    if not deck_has(D, AB_INCOME):
        return
    o = pbase(p) + P_DISPLAY
    for slot in range(DISPLAY_SLOTS):
        c = S[o + slot]
        if c >= 0 and tribe(D, c, TC_ABILITY) == AB_INCOME:
            for r in range(5):
                add_res(S, p, r, tribe(D, c, TC_PARAMS + r))


@jit_inline
def enforce_limits(S, D, R, SP, L, P, p, O):
    """Discard goods above the limit (player's choice of kinds) and gold above its limit."""
    pb = pbase(p)
    while goods_total(S, p) > R[RL_MAX_GOODS]:
        k = 0
        for g in range(N_GOODS):
            if res(S, p, g) > 0:
                O[k] = g
                k += 1
        add_res(S, p, ask(S, D, R, SP, L, P, p, DT_DISCARD_GOOD, O, k, 0), -1)
        S[pb + P_GOODS_DISC_ROUND] += 1
    extra = res(S, p, GOLD) - R[RL_MAX_GOLD]
    if extra > 0:
        add_res(S, p, GOLD, -extra)
        S[pb + P_GOLD_DISC_ROUND] += extra


@jit_inline
def log_round(S, D, R, L, p):
    o = log_row(L, T_ROUNDS)
    if o < 0:
        return
    pb = pbase(p)
    L[o + RR_ROUND] = S[S_ROUND]
    L[o + RR_PLAYER] = p
    L[o + RR_IS_FIRST] = 1 if S[S_FIRST] == p else 0
    L[o + RR_ROBBER] = S[S_ROBBER] + 1
    for k in range(3):
        L[o + RR_TARGI + k] = S[pb + P_TARGI + k] + 1
    for k in range(2):
        placed = S[pb + P_MARKER_PLACED + k]
        now = S[pb + P_MARKER + k]
        L[o + RR_MARKER + k] = placed
        L[o + RR_MOVED + k] = now if now != placed else -1
    L[o + RR_VP] = res(S, p, VP)
    L[o + RR_GOLD] = res(S, p, GOLD)
    L[o + RR_DATES] = res(S, p, 2)
    L[o + RR_SALT] = res(S, p, 0)
    L[o + RR_PEPPER] = res(S, p, 1)
    L[o + RR_DISPLAY_N] = S[pb + P_DISPLAY_N]
    L[o + RR_HAND] = S[pb + P_HAND]
    L[o + RR_ACQ] = S[pb + P_ACQ_ROUND]
    L[o + RR_GOODS_DISC] = S[pb + P_GOODS_DISC_ROUND]
    L[o + RR_GOLD_DISC] = S[pb + P_GOLD_DISC_ROUND]
    L[o + RR_SCORE] = total_score(S, D, R, p)


@jit_inline
def end_round(S, D, R, SP, L, P, O):
    first = S[S_FIRST]
    S[S_CELLS_VERSION] += 1
    for cell in range(N_CELLS):
        S[S_CELL_UP + cell] = 1
        S[S_CELL_MARKER + cell] = -1
    for b in range(N_BORDER):
        S[S_BORDER_TARGI + b] = -1
    for k in range(2):
        p = first if k == 0 else 1 - first
        apply_income(S, D, p)
        enforce_limits(S, D, R, SP, L, P, p, O)
    for p in range(2):
        log_round(S, D, R, L, p)
        clear_round_marks(S, p)
    S[S_FIRST] = 1 - first
    S[S_PLACE_K] = 0
    if S[S_END_AFTER_ROUND] == 1:
        S[S_OVER] = 1
        for p in range(2):
            if S[pbase(p) + P_DISPLAY_N] >= DISPLAY_SLOTS:
                S[S_END_REASON] = END_DISPLAY_FULL


# ------------------------------------------------------------------ the game
@jit
def log_offers(S, L):
    for cell in range(N_CELLS):
        if S[S_CELL_TYPE + cell] == CELL_TRIBE and S[S_CELL_UP + cell] == 1:
            o = log_row(L, T_OFFERS)
            if o >= 0:
                L[o + RO_ROUND] = S[S_ROUND]
                L[o + RO_CELL] = cell
                L[o + RO_CARD] = S[S_CELL_CARD + cell]


@jit_inline
def start_round(S, D, R, SP, L, P, O):
    """Move the robber (resolving a raid it lands on); False if the game ended there."""
    if S[S_ROUND] > 0:
        b = (S[S_ROBBER] + 1) % N_BORDER
        if border(D, b, BD_KIND) == BK_RAID:
            S[S_ROBBER] = b
            resolve_raid(S, D, R, SP, L, P, b, O)
            if S[S_OVER] == 1:
                return False
            b = (b + 1) % N_BORDER
        S[S_ROBBER] = b
    S[S_ROUND] += 1
    return True


@jit
def play_round(S, D, R, SP, L, P, O):
    """Play (or resume) the current round; returns False if it paused for a decision."""
    if S[S_PHASE] == PH_ROUND_START:
        if not start_round(S, D, R, SP, L, P, O):
            return True
        log_offers(S, L)
        S[S_PLACE_K] = 0
        S[S_PHASE] = PH_PLACEMENT
    if not place_targis(S, D, R, SP, L, P, O):
        return False
    place_markers(S, 0)
    place_markers(S, 1)
    first = S[S_FIRST]
    resolve_actions(S, D, R, SP, L, P, first, O)
    resolve_actions(S, D, R, SP, L, P, 1 - first, O)
    end_round(S, D, R, SP, L, P, O)
    S[S_PHASE] = PH_ROUND_START
    return True


@jit
def play_to_end(S, D, R, SP, L, P, O):
    """Play rounds until the game is over; returns False if it paused for a decision
    (a montecarlo placement before it is made, or an external seat's round)."""
    while S[S_OVER] == 0:
        if not play_round(S, D, R, SP, L, P, O) or S[S_X_PAUSED] == 1:
            return False
    return True

