"""Compiled entry points for play driven from Python, one round at a time.

`targi_sim.play.session` replays the current round from its start with the external seats'
answers so far (engine/policies/external.py) until the next external decision pauses
the game; these functions are that replay. Monte Carlo seats get their placements
from the rollout driver, as in a batch.
"""


from targi_sim.engine.constants import MC_PENDING

from .jit import jit_alloc
from .layout import S_OVER, S_PAUSE_MC, S_X_PAUSED
from .montecarlo import choose_placement, search_scratch
from .rounds import legal_placements, placing_player, play_round

ROUND_DONE = 0
PAUSED = 1
GAME_OVER = 2


@jit_alloc
def play_one_round(D, R, SP, L, P, PB, O, S):
    """Play (or replay) the round S stands at: PAUSED if an external seat is waiting
    (its decision is in S_X_*), else ROUND_DONE or GAME_OVER once the round ended."""
    if S[S_OVER] == 1:
        return GAME_OVER
    S[S_PAUSE_MC] = 1
    Sr, SPr, Lr, Or, slots, T = search_scratch(SP, S.shape[0])
    while not play_round(S, D, R, SP, L, P, O):
        p = placing_player(S)
        if S[S_X_PAUSED] == 1:  # the round is only being run out: no rollouts
            legal_placements(S, D, R, p, O)
            SP[p, MC_PENDING] = O[0]
        else:
            SP[p, MC_PENDING] = choose_placement(S, D, R, SP, PB, p, O, Sr, SPr, Lr, Or,
                                                 slots, T)
    if S[S_X_PAUSED] == 1:
        return PAUSED
    return GAME_OVER if S[S_OVER] == 1 else ROUND_DONE
