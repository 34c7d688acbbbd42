"""The external kind: a seat played from Python (a PythonStrategy, a person, an agent).

The engine cannot call Python, so an external seat answers from a script of option
values kept in the state (S_X_*), shared by every external seat in decision order. When
the script runs out the game pauses: the decision, its options and a frozen copy of the
game are stored, and the Python driver (targi_sim/play/session.py) asks its strategy, adds the
answer to the script and replays the round from its start (games are deterministic, so
the replay reaches the same decision).
"""

from ..jit import entry_point, jit
from ..layout import (
    MAX_OPTIONS,
    S_CORE,
    S_X_CTX,
    S_X_DTYPE,
    S_X_FROZEN,
    S_X_N,
    S_X_N_OPTIONS,
    S_X_OPTIONS,
    S_X_PAUSED,
    S_X_PLAYER,
    S_X_POS,
    S_X_SCRIPT,
)


@entry_point
@jit
def decide_external(S, D, R, SP, p, dtype, O, n, ctx):
    """policies.DECIDE_SIGNATURE: the next scripted answer, or pause the game."""
    k = S[S_X_POS]
    if k < S[S_X_N]:
        S[S_X_POS] = k + 1
        want = S[S_X_SCRIPT + k]
        for i in range(n):
            if O[i] == want:
                return i
        return -1  # not a legal option: counted by ask as a bad answer
    S[S_X_PLAYER] = p
    S[S_X_DTYPE] = dtype
    S[S_X_CTX] = ctx
    m = min(n, MAX_OPTIONS)
    S[S_X_N_OPTIONS] = m
    for i in range(m):
        S[S_X_OPTIONS + i] = O[i]
    for i in range(S_CORE):
        S[S_X_FROZEN + i] = S[i]
    S[S_X_PAUSED] = 1
    return 0
