"""Acquiring tribe cards (docs/rules.md §6.6-7): pay and place, keep in hand, discard.

Also the on-placement abilities (immediate tokens, play the hand card, swap two
display cards) and cost discounts.
"""

from targi_sim.engine.access import add_res, discard_tribe, pbase, tribe
from targi_sim.engine.constants import (
    AB_IMMEDIATE,
    AB_MOVE_TWO,
    AB_PLAY_HAND,
    DISPLAY_COLS,
    DISPLAY_ROWS,
    DISPLAY_SLOTS,
    DT_ABILITY,
    DT_TRIBE,
    RL_FULL_DISPLAY,
    RL_HAND_LIMIT,
    RL_HAND_PLAY,
)
from targi_sim.engine.logs import (
    OUT_DISCARDED,
    OUT_KEPT,
    OUT_LEFT,
    OUT_PLAYED,
    RA_CARD,
    RA_COL,
    RA_OUTCOME,
    RA_PLAYER,
    RA_ROUND,
    RA_ROW,
    RA_SOURCE,
    SRC_CENTRE,
    SRC_HAND,
    T_ACQ,
    log_row,
)

from .ask import ask
from .codes import play_code, play_of, swap_code, swap_of
from .costs import OPT_DISCARD, OPT_KEEP, OPT_LEAVE, OPT_PLAY, can_pay, effective_cost
from .forkpoint import fork_point
from .jit import jit, jit_inline
from .layout import (
    P_ACQ_ROUND,
    P_DISPLAY,
    P_DISPLAY_N,
    P_HAND,
    P_HAND_KNOWN,
    P_HAND_ROUND,
    S_END_AFTER_ROUND,
    S_FORK_ON,
    S_ROUND,
    TC_ABILITY,
    TC_HAS_ALT,
    TC_PARAMS,
)

# what may be done with the card, by where it comes from
MODE_CENTRE = 0     # leave, discard, keep, play
MODE_EXPANSION = 1  # discard, keep, play
MODE_NOBLE = 2      # leave (stays in hand), discard, play
MODE_ABILITY = 3    # leave (stays in hand), play


@jit
def row_length(S, p, row):
    o = pbase(p) + P_DISPLAY + row * DISPLAY_COLS
    n = 0
    for col in range(DISPLAY_COLS):
        if S[o + col] >= 0:
            n += 1
    return n


@jit
def log_acquisition(S, L, p, c, source, outcome, row, col):
    o = log_row(L, T_ACQ)
    if o >= 0:
        L[o + RA_ROUND] = S[S_ROUND]
        L[o + RA_PLAYER] = p
        L[o + RA_CARD] = c
        L[o + RA_SOURCE] = source
        L[o + RA_OUTCOME] = outcome
        L[o + RA_ROW] = row
        L[o + RA_COL] = col


@jit
def tribe_options(S, D, R, p, c, mode, O):
    """Fill O with the legal DT_TRIBE codes for card c; returns their count."""
    n = 0
    if mode == MODE_CENTRE or mode == MODE_NOBLE or mode == MODE_ABILITY:
        O[n] = OPT_LEAVE
        n += 1
    if mode != MODE_ABILITY:
        O[n] = OPT_DISCARD
        n += 1
    full = S[pbase(p) + P_DISPLAY_N] >= DISPLAY_SLOTS
    if (
        (mode == MODE_CENTRE or mode == MODE_EXPANSION)
        and S[pbase(p) + P_HAND] < 0
        and R[RL_HAND_LIMIT] >= 1
        and not (full and R[RL_FULL_DISPLAY] == 1)
    ):
        O[n] = OPT_KEEP
        n += 1
    # a card kept this round is played only in a later round (RL_HAND_PLAY)
    too_early = ((mode == MODE_NOBLE or mode == MODE_ABILITY) and R[RL_HAND_PLAY] == 0
                 and S[pbase(p) + P_HAND_ROUND] == S[S_ROUND])
    if not full and not too_early:
        n_alt = 2 if tribe(D, c, TC_HAS_ALT) == 1 else 1
        for alt in range(n_alt):
            if can_pay(S, p, effective_cost(S, D, p, c, alt)):
                for row in range(DISPLAY_ROWS):
                    if row_length(S, p, row) < DISPLAY_COLS:
                        O[n] = play_code(alt, row)
                        n += 1
    return n


@jit
def empty_hand(S, p):
    S[pbase(p) + P_HAND] = -1
    S[pbase(p) + P_HAND_KNOWN] = 0
    S[pbase(p) + P_HAND_ROUND] = -1


@jit
def place_card(S, D, p, c, row):
    """Put card c in the leftmost free slot of `row`; returns the column."""
    col = row_length(S, p, row)
    S[pbase(p) + P_DISPLAY + row * DISPLAY_COLS + col] = c
    S[pbase(p) + P_DISPLAY_N] += 1
    if S[pbase(p) + P_DISPLAY_N] >= DISPLAY_SLOTS:
        S[S_END_AFTER_ROUND] = 1
    return col


@jit
def swap_options(S, p, O):
    """DT_ABILITY options for a 'move two cards' ability: 0 declines, 1 + a*12 + b swaps."""
    O[0] = 0
    n = 1
    o = pbase(p) + P_DISPLAY
    for a in range(DISPLAY_SLOTS):
        if S[o + a] < 0:
            continue
        for b in range(a + 1, DISPLAY_SLOTS):
            if S[o + b] >= 0:
                O[n] = swap_code(a, b)
                n += 1
    return n


@jit_inline
def on_placement(S, D, R, SP, L, P, p, c, O):
    """Immediate and move-two abilities of a card just placed."""
    kind = tribe(D, c, TC_ABILITY)
    if kind == AB_IMMEDIATE:
        for r in range(5):
            add_res(S, p, r, tribe(D, c, TC_PARAMS + r))
    elif kind == AB_MOVE_TWO:
        n = swap_options(S, p, O)
        v = ask(S, D, R, SP, L, P, p, DT_ABILITY, O, n, c)
        if v > 0:
            a, b = swap_of(v)
            o = pbase(p) + P_DISPLAY
            t = S[o + a]
            S[o + a] = S[o + b]
            S[o + b] = t


@jit
def acquire(S, D, R, SP, L, P, p, c, source, mode, O):
    """Resolve one acquired tribe card; returns the OUT_* outcome of that card.

    A card with the play-hand ability lets the player play the hand card at
    once; that chain is followed here iteratively (at most one hand card).
    """
    first_outcome = OUT_LEFT
    first = True
    while True:
        n = tribe_options(S, D, R, p, c, mode, O)
        if S[S_FORK_ON] != 0 and (mode == MODE_CENTRE or mode == MODE_EXPANSION):
            n = fork_point(S, p, c, source, O, n)  # card-value forks only (forkpoint.py)
        v = ask(S, D, R, SP, L, P, p, DT_TRIBE, O, n, c)
        outcome = OUT_LEFT
        from_hand = mode == MODE_NOBLE or mode == MODE_ABILITY
        if v == OPT_DISCARD:
            discard_tribe(S, c)
            outcome = OUT_DISCARDED
            log_acquisition(S, L, p, c, source, outcome, -1, -1)
            if from_hand:
                empty_hand(S, p)
        elif v == OPT_KEEP:
            S[pbase(p) + P_HAND] = c
            # the opponent saw it taken from a face-up centre cell, not drawn face down
            S[pbase(p) + P_HAND_KNOWN] = 1 if source == SRC_CENTRE else 0
            S[pbase(p) + P_HAND_ROUND] = S[S_ROUND]
            outcome = OUT_KEPT
            S[pbase(p) + P_ACQ_ROUND] += 1
            log_acquisition(S, L, p, c, source, outcome, -1, -1)
        elif v >= OPT_PLAY:
            alt, row = play_of(v)
            cost = effective_cost(S, D, p, c, alt)
            for r in range(4):
                add_res(S, p, r, -cost[r])
            if from_hand:
                empty_hand(S, p)
            col = place_card(S, D, p, c, row)
            outcome = OUT_PLAYED
            if not from_hand:
                S[pbase(p) + P_ACQ_ROUND] += 1
            log_acquisition(S, L, p, c, source, outcome, row, col)
            on_placement(S, D, R, SP, L, P, p, c, O)
        if first:
            first_outcome = outcome
            first = False
        if (
            outcome == OUT_PLAYED
            and tribe(D, c, TC_ABILITY) == AB_PLAY_HAND
            and S[pbase(p) + P_HAND] >= 0
        ):
            c = S[pbase(p) + P_HAND]
            source = SRC_HAND
            mode = MODE_ABILITY
            continue
        return first_outcome

