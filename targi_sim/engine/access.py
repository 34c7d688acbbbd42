"""Small reads and writes of the flat state shared by every engine module."""

from targi_sim.engine.jit import jit, jit_inline
from targi_sim.engine.layout import (
    BD_SIZE,
    D_ABILITIES,
    D_BORDER,
    D_GOODS,
    D_N_GOODS,
    D_N_TRIBE,
    D_TRIBE,
    GD_SIZE,
    P_RES,
    P_SIZE,
    S_GAME_RNG,
    S_GOODS,
    S_GOODS_DISC,
    S_GOODS_DISC_N,
    S_GOODS_N,
    S_PLAYER,
    S_RES_VERSION,
    S_TRIBE,
    S_TRIBE_DISC,
    S_TRIBE_DISC_N,
    S_TRIBE_N,
    TC_SIZE,
)
from targi_sim.engine.rng import randbelow


@jit_inline
def pbase(p):
    return S_PLAYER + p * P_SIZE


@jit_inline
def res(S, p, r):
    return S[S_PLAYER + p * P_SIZE + P_RES + r]


@jit_inline
def add_res(S, p, r, amount):
    S[S_PLAYER + p * P_SIZE + P_RES + r] += amount
    S[S_RES_VERSION] += 1


@jit_inline
def goods_total(S, p):
    o = S_PLAYER + p * P_SIZE + P_RES
    return S[o] + S[o + 1] + S[o + 2]


@jit_inline
def border(D, b, field):
    return D[D_BORDER + b * BD_SIZE + field]


@jit_inline
def tribe(D, c, field):
    return D[D_TRIBE + c * TC_SIZE + field]


@jit_inline
def goods_card(D, g, field):
    return D[D_GOODS + g * GD_SIZE + field]


@jit
def shuffle_range(S, off, n):
    """Fisher-Yates shuffle of S[off:off+n] with the game's own random stream."""
    for i in range(n - 1, 0, -1):
        j = randbelow(S, S_GAME_RNG, i + 1)
        t = S[off + i]
        S[off + i] = S[off + j]
        S[off + j] = t


@jit
def draw_goods(S):
    """Top goods card, reshuffling the discard into a new deck when empty; -1 if none."""
    if S[S_GOODS_N] == 0:
        n = S[S_GOODS_DISC_N]
        for i in range(n):
            S[S_GOODS + i] = S[S_GOODS_DISC + i]
        S[S_GOODS_N] = n
        S[S_GOODS_DISC_N] = 0
        shuffle_range(S, S_GOODS, n)
        if n == 0:
            return -1
    S[S_GOODS_N] -= 1
    return S[S_GOODS + S[S_GOODS_N]]


@jit_inline
def discard_goods(S, g):
    S[S_GOODS_DISC + S[S_GOODS_DISC_N]] = g
    S[S_GOODS_DISC_N] += 1


@jit
def draw_tribe(S):
    """Top tribe card, or -1 when the tribe deck is empty (it is never reshuffled)."""
    if S[S_TRIBE_N] == 0:
        return -1
    S[S_TRIBE_N] -= 1
    return S[S_TRIBE + S[S_TRIBE_N]]


@jit_inline
def discard_tribe(S, c):
    S[S_TRIBE_DISC + S[S_TRIBE_DISC_N]] = c
    S[S_TRIBE_DISC_N] += 1


@jit_inline
def deck_has(D, ability):
    """True if some card of the deck has this ability kind (AB_*)."""
    return (D[D_ABILITIES] >> ability) & 1 == 1


@jit_inline
def n_tribe_cards(D):
    return D[D_N_TRIBE]


@jit_inline
def n_goods_cards(D):
    return D[D_N_GOODS]

