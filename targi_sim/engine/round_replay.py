"""The round-at-a-time entry point for play from Python when no seat is Monte Carlo.

`stepping.play_one_round` carries the Monte Carlo search for seats that need it, which
is most of its compile. A session without such a seat (the report's example games,
the HTML viewer, a Python strategy against `balanced`) plays through this one instead:
the same rounds and the same games, and with the build the run compiled (engine/ask.py)
nothing but this small driver is compiled anew.
"""

from .jit import jit_alloc
from .layout import S_OVER, S_PAUSE_MC, S_X_PAUSED
from .rounds import play_round
from .stepping import GAME_OVER, PAUSED, ROUND_DONE


@jit_alloc
def play_one_round_plain(D, R, SP, L, P, PB, O, S):
    """stepping.play_one_round for seats of which none is montecarlo (same arguments)."""
    if S[S_OVER] == 1:
        return GAME_OVER
    S[S_PAUSE_MC] = 0  # no seat searches, so the round never waits for a placement
    play_round(S, D, R, SP, L, P, O)
    if S[S_X_PAUSED] == 1:
        return PAUSED
    return GAME_OVER if S[S_OVER] == 1 else ROUND_DONE
