"""Where a card-value fork happens: a tribe decision at which a player can take a card
or not (engine/forks.py drives the forks; docs/data-model.md#forks defines them).

A decision counts when the card comes from the centre or from Tribal Expansion and the
options hold both a way to take it (pay and place: OPT_PLAY codes) and a way not to
(leave it, or discard it). In a forked playout the counted decision S_FORK_AT keeps only
one branch's options, so the seat's own strategy chooses within that branch: its best
way to take the card, or its best alternative with taking excluded. With S_FORK_ON 0 (every
ordinary game) nothing here runs.
"""

from .costs import OPT_DISCARD, OPT_LEAVE, OPT_PLAY
from .jit import jit
from .layout import (
    FORK_COUNT,
    FORK_FORCE,
    FORK_TAKE,
    S_FORK_AT,
    S_FORK_BRANCH,
    S_FORK_CARD,
    S_FORK_HIT,
    S_FORK_N_OPTIONS,
    S_FORK_ON,
    S_FORK_PLAYER,
    S_FORK_SEEN,
    S_FORK_SOURCE,
)


@jit
def fork_point(S, p, c, source, O, n):
    """Count a take-or-not decision; at the forced one keep only the branch's options
    in O (returns their count, else n)."""
    has_take = False
    has_other = False
    for i in range(n):
        if O[i] >= OPT_PLAY:
            has_take = True
        elif O[i] == OPT_LEAVE or O[i] == OPT_DISCARD:
            has_other = True
    if not (has_take and has_other):
        return n
    k = S[S_FORK_SEEN]
    S[S_FORK_SEEN] = k + 1
    if S[S_FORK_ON] != FORK_FORCE or k != S[S_FORK_AT]:
        return n
    S[S_FORK_HIT] = 1
    S[S_FORK_CARD] = c
    S[S_FORK_PLAYER] = p
    S[S_FORK_SOURCE] = source
    S[S_FORK_N_OPTIONS] = n
    S[S_FORK_ON] = FORK_COUNT  # the rest of the playout is the strategies' own
    take = S[S_FORK_BRANCH] == FORK_TAKE
    m = 0
    for i in range(n):
        v = O[i]
        if (take and v >= OPT_PLAY) or (not take and (v == OPT_LEAVE or v == OPT_DISCARD)):
            O[m] = v
            m += 1
    return m
