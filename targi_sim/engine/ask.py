"""Ask the player's strategy for a decision and record it in the trace."""

from .jit import jit
from .layout import S_ROUND
from .policy import decide
from .records import (
    H_CAP,
    RT_CHOICE,
    RT_CTX,
    RT_DTYPE,
    RT_NOPTS,
    RT_PLAYER,
    RT_ROUND,
    T_TRACE,
    log_row,
)


@jit
def ask(S, D, R, SP, L, p, dtype, O, n, ctx):
    """The chosen option value among O[0:n]; every decision goes through here."""
    i = decide(S, D, R, SP, p, dtype, O, n, ctx)
    v = O[i]
    if L[H_CAP + T_TRACE] > 0:
        o = log_row(L, T_TRACE)
        if o >= 0:
            L[o + RT_ROUND] = S[S_ROUND]
            L[o + RT_PLAYER] = p
            L[o + RT_DTYPE] = dtype
            L[o + RT_NOPTS] = n
            L[o + RT_CHOICE] = v
            L[o + RT_CTX] = ctx
    return v
