"""What a player may know (docs/rules.md §8), and re-sampling what they may not.

Hidden from player p: the order of both decks, the identity of face-down central
cards, and the opponent's hand card when it was drawn face down (P_HAND_KNOWN = 0;
whether they hold one is public). Everything else in the state is public. Search
strategies decide on a *determinisation*: a copy of the state whose hidden part has
been re-dealt at random from the cards p cannot locate. Same shapes, same public facts,
and -- because the cards are put in a fixed order before they are shuffled -- the same
re-deal for every arrangement of the hidden cards, so a determinised search cannot
tell two such arrangements apart.
"""

from targi_sim.engine.access import pbase

from .jit import jit
from .layout import (
    CELL_GOODS,
    CELL_TRIBE,
    P_HAND,
    P_HAND_KNOWN,
    S_CELL_CARD,
    S_CELL_TYPE,
    S_CELL_UP,
    S_GAME_RNG,
    S_GOODS,
    S_GOODS_N,
    S_POLICY_RNG,
    S_TRIBE,
    S_TRIBE_N,
    S_X_SCRIPT,
)
from .rng import next32, randbelow, seed_stream

N_CELLS = 9


@jit
def _shuffle_slots(S, slots, n, rng_off):
    """Sort the values held at the state positions slots[0:n], then shuffle them among
    those positions: the result depends on the set of values, not on where they were."""
    for i in range(1, n):  # insertion sort (a few dozen cards)
        v = S[slots[i]]
        j = i - 1
        while j >= 0 and S[slots[j]] > v:
            S[slots[j + 1]] = S[slots[j]]
            j -= 1
        S[slots[j + 1]] = v
    for i in range(n - 1, 0, -1):
        j = randbelow(S, rng_off, i + 1)
        a = slots[i]
        b = slots[j]
        t = S[a]
        S[a] = S[b]
        S[b] = t


@jit
def determinize(S, p, rng_off, slots):
    """Re-deal, in place, every card whose identity player p cannot know.

    `S` should be a copy of the real state; `rng_off` points at a 4-word random
    stream (e.g. p's policy stream in that copy); `slots` is int64 scratch of at
    least 128 entries. Unknown tribe cards (deck, face-down tribe cells, the
    opponent's hand) are shuffled among those places; unknown goods cards
    (deck, face-down goods cells) likewise; the copy's deck-reshuffle stream
    and the opponent's choice stream are replaced. Discard piles are public.
    """
    n = 0
    for i in range(S[S_TRIBE_N]):
        slots[n] = S_TRIBE + i
        n += 1
    for cell in range(N_CELLS):
        if S[S_CELL_TYPE + cell] == CELL_TRIBE and S[S_CELL_UP + cell] == 0:
            slots[n] = S_CELL_CARD + cell
            n += 1
    hand = pbase(1 - p) + P_HAND
    if S[hand] >= 0 and S[pbase(1 - p) + P_HAND_KNOWN] == 0:
        slots[n] = hand
        n += 1
    _shuffle_slots(S, slots, n, rng_off)
    n = 0
    for i in range(S[S_GOODS_N]):
        slots[n] = S_GOODS + i
        n += 1
    for cell in range(N_CELLS):
        if S[S_CELL_TYPE + cell] == CELL_GOODS and S[S_CELL_UP + cell] == 0:
            slots[n] = S_CELL_CARD + cell
            n += 1
    _shuffle_slots(S, slots, n, rng_off)
    # Future reshuffles and the opponent's own random choices are unknown too:
    # give the copy fresh streams drawn from p's stream.
    for k in range(4):
        S[S_GAME_RNG + k] = next32(S, rng_off)
        S[S_POLICY_RNG + 4 * (1 - p) + k] = next32(S, rng_off)
    if S[S_GAME_RNG] == 0:
        S[S_GAME_RNG] = 1
    if S[S_POLICY_RNG + 4 * (1 - p)] == 0:
        S[S_POLICY_RNG + 4 * (1 - p)] = 1


@jit
def redeal(S, p, seed, slots):
    """determinize S in place with a random stream of its own (seeded from `seed`), so
    that p's own stream -- p's own knowledge -- is left as it was. For checks that a
    strategy's decision depends on nothing p cannot know (targi_sim.audits.fairplay)."""
    off = S_X_SCRIPT  # scratch: S is a copy and replays nothing
    seed_stream(S, off, seed, 7)
    determinize(S, p, off, slots)
