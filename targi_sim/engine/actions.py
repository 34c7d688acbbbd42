"""Resolving one Targi or tribe marker (docs/rules.md §3, §6.5): border cards and centre cells."""

from targi_sim.engine.access import (
    add_res,
    border,
    discard_goods,
    draw_goods,
    draw_tribe,
    goods_card,
    pbase,
    res,
)
from targi_sim.engine.constants import (
    BK_DRAW_GOODS,
    BK_DRAW_TRIBE,
    BK_EXCHANGE,
    BK_FATA_MORGANA,
    BK_GAIN,
    BK_NOBLE,
    DT_CENTRAL_GOODS,
    DT_CHOOSE_GOOD,
    DT_FATA_MORGANA,
    DT_TRADE,
    DT_TRIBAL_EXPANSION,
    GOLD,
    N_CELLS,
    N_GOODS,
    TG_GOLD,
    TG_SALT,
    TG_SAME_GOOD,
    TR_ANY_GOOD,
    TR_GOLD,
    TR_OTHER_GOOD,
    TR_SALT,
    TR_VP,
    VP,
)
from targi_sim.engine.logs import (
    GSRC_BORDER,
    GSRC_CENTRE,
    RG_CARD,
    RG_PLAYER,
    RG_ROUND,
    RG_SOURCE,
    SRC_CENTRE,
    SRC_EXPANSION,
    SRC_HAND,
    T_GOODS,
    log_row,
)

from .acquire import MODE_CENTRE, MODE_EXPANSION, MODE_NOBLE, OUT_LEFT, acquire
from .ask import ask
from .codes import marker_code, marker_of, trade_code, trade_of
from .jit import jit, jit_inline
from .layout import (
    BD_AMOUNT,
    BD_GAIN,
    BD_KIND,
    BD_TRADE_HI,
    BD_TRADE_LO,
    CELL_EMPTY,
    CELL_GOODS,
    CELL_TRIBE,
    D_TRADES,
    P_DONE,
    P_HAND,
    P_MARKER,
    P_TARGI,
    S_CELL_CARD,
    S_CELL_MARKER,
    S_CELL_TYPE,
    S_CELL_UP,
    S_CELLS_VERSION,
    S_ROUND,
    S_TRIBE_N,
    TD_GET,
    TD_GET_AMT,
    TD_GIVE,
    TD_GIVE_AMT,
    TD_SIZE,
)

MAX_TRADES_PER_ACTION = 64


@jit
def receive_goods_card(S, D, R, SP, L, P, p, g, source, O):
    """Take what goods card g shows; a 'good of your choice' asks which good."""
    o = log_row(L, T_GOODS)
    if o >= 0:
        L[o + RG_ROUND] = S[S_ROUND]
        L[o + RG_PLAYER] = p
        L[o + RG_CARD] = g
        L[o + RG_SOURCE] = source
    for r in range(5):
        add_res(S, p, r, goods_card(D, g, r))
    for _ in range(goods_card(D, g, 5)):
        for k in range(N_GOODS):
            O[k] = k
        k = ask(S, D, R, SP, L, P, p, DT_CHOOSE_GOOD, O, N_GOODS, g)
        add_res(S, p, k, 1)


@jit
def _received_kinds(get, given, out):
    """Resource indices a trade with `get` may pay out, given the resource `given`."""
    n = 0
    if get == TR_GOLD:
        out[0] = GOLD
        n = 1
    elif get == TR_VP:
        out[0] = VP
        n = 1
    elif get == TR_OTHER_GOOD or get == TR_ANY_GOOD:
        for k in range(N_GOODS):
            if get == TR_ANY_GOOD or k != given:
                out[n] = k
                n += 1
    else:
        out[0] = get - TR_SALT
        n = 1
    return n


@jit
def trade_options(S, D, p, b, O):
    """O[0] = -1 (stop) then every affordable trade, coded t*64 + given*8 + received."""
    O[0] = -1
    n = 1
    kinds = O[200:208]
    for t in range(border(D, b, BD_TRADE_LO), border(D, b, BD_TRADE_HI)):
        o = D_TRADES + t * TD_SIZE
        give = D[o + TD_GIVE]
        amount = D[o + TD_GIVE_AMT]
        for given in range(4):
            if give == TG_SAME_GOOD:
                if given == GOLD:
                    continue
            elif give == TG_GOLD:
                if given != GOLD:
                    continue
            elif given != give - TG_SALT:
                continue
            if res(S, p, given) < amount:
                continue
            m = _received_kinds(D[o + TD_GET], given, kinds)
            for i in range(m):
                O[n] = trade_code(t, given, kinds[i])
                n += 1
    return n


@jit_inline
def resolve_exchange(S, D, R, SP, L, P, p, b, O):
    """Merchant / Silversmith: trades until the player stops or has made the card's
    `times` (BD_AMOUNT; 0 = any number, up to MAX_TRADES_PER_ACTION)."""
    times = border(D, b, BD_AMOUNT)
    if times <= 0 or times > MAX_TRADES_PER_ACTION:
        times = MAX_TRADES_PER_ACTION
    for _ in range(times):
        n = trade_options(S, D, p, b, O)
        if n == 1:
            return
        v = ask(S, D, R, SP, L, P, p, DT_TRADE, O, n, b)
        if v < 0:
            return
        t, given, got = trade_of(v)
        o = D_TRADES + t * TD_SIZE
        add_res(S, p, given, -D[o + TD_GIVE_AMT])
        add_res(S, p, got, D[o + TD_GET_AMT])


@jit_inline
def resolve_fata_morgana(S, D, R, SP, L, P, p, O):
    """Move one unresolved own marker to a face-up card holding no marker (or skip)."""
    O[0] = -1
    n = 1
    pb = pbase(p)
    for m in range(2):
        if S[pb + P_MARKER + m] < 0 or S[pb + P_DONE + 3 + m] == 1:
            continue
        for cell in range(N_CELLS):
            if (
                S[S_CELL_MARKER + cell] < 0
                and S[S_CELL_UP + cell] == 1
                and S[S_CELL_TYPE + cell] != CELL_EMPTY
            ):
                O[n] = marker_code(m, cell)
                n += 1
    v = ask(S, D, R, SP, L, P, p, DT_FATA_MORGANA, O, n, 0)
    if v < 0:
        return
    m, cell = marker_of(v)
    S[S_CELL_MARKER + S[pb + P_MARKER + m]] = -1
    S[S_CELL_MARKER + cell] = p
    S[pb + P_MARKER + m] = cell


@jit_inline
def resolve_noble(S, D, R, SP, L, P, p, O):
    """Play the hand card paying its cost, discard it, or leave it in hand."""
    c = S[pbase(p) + P_HAND]
    if c < 0:
        return
    acquire(S, D, R, SP, L, P, p, c, SRC_HAND, MODE_NOBLE, O)


@jit_inline
def resolve_border(S, D, R, SP, L, P, p, b, O):
    kind = border(D, b, BD_KIND)
    if kind == BK_GAIN:
        for r in range(5):
            add_res(S, p, r, border(D, b, BD_GAIN + r))
    elif kind == BK_EXCHANGE:
        resolve_exchange(S, D, R, SP, L, P, p, b, O)
    elif kind == BK_NOBLE:
        resolve_noble(S, D, R, SP, L, P, p, O)
    elif kind == BK_FATA_MORGANA:
        resolve_fata_morgana(S, D, R, SP, L, P, p, O)
    elif kind == BK_DRAW_GOODS:
        for _ in range(border(D, b, BD_AMOUNT)):
            g = draw_goods(S)
            if g < 0:
                break
            receive_goods_card(S, D, R, SP, L, P, p, g, GSRC_BORDER, O)
            discard_goods(S, g)
    elif kind == BK_DRAW_TRIBE:
        for _ in range(border(D, b, BD_AMOUNT)):
            if S[S_TRIBE_N] == 0:
                break  # nothing to draw: no decision to make
            O[0] = 0
            O[1] = 1
            if ask(S, D, R, SP, L, P, p, DT_TRIBAL_EXPANSION, O, 2, b) == 0:
                break
            c = draw_tribe(S)
            acquire(S, D, R, SP, L, P, p, c, SRC_EXPANSION, MODE_EXPANSION, O)


@jit_inline
def resolve_cell(S, D, R, SP, L, P, p, cell, O):
    """A tribe marker's card: take the goods or acquire the tribe card, or leave it."""
    kind = S[S_CELL_TYPE + cell]
    if kind == CELL_EMPTY or S[S_CELL_UP + cell] == 0:
        return
    card = S[S_CELL_CARD + cell]
    O[0] = 0
    O[1] = 1
    if kind == CELL_GOODS:
        if ask(S, D, R, SP, L, P, p, DT_CENTRAL_GOODS, O, 2, card) == 0:
            return
        receive_goods_card(S, D, R, SP, L, P, p, card, GSRC_CENTRE, O)
        discard_goods(S, card)
        new = draw_tribe(S)
        S[S_CELL_CARD + cell] = new
        S[S_CELL_TYPE + cell] = CELL_TRIBE if new >= 0 else CELL_EMPTY
        S[S_CELL_UP + cell] = 0
        S[S_CELLS_VERSION] += 1
    elif kind == CELL_TRIBE:
        if acquire(S, D, R, SP, L, P, p, card, SRC_CENTRE, MODE_CENTRE, O) == OUT_LEFT:
            return
        new = draw_goods(S)
        S[S_CELL_CARD + cell] = new
        S[S_CELL_TYPE + cell] = CELL_GOODS if new >= 0 else CELL_EMPTY
        S[S_CELL_UP + cell] = 0
        S[S_CELLS_VERSION] += 1


@jit_inline
def resolve_slot(S, D, R, SP, L, P, p, slot, O):
    """Action slot 0..2 is a Targi, 3..4 a tribe marker."""
    pb = pbase(p)
    S[pb + P_DONE + slot] = 1
    if slot < 3:
        resolve_border(S, D, R, SP, L, P, p, S[pb + P_TARGI + slot], O)
    else:
        cell = S[pb + P_MARKER + slot - 3]
        resolve_cell(S, D, R, SP, L, P, p, cell, O)
        S[S_CELL_MARKER + cell] = -1  # a resolved marker is taken back: the cell is free

