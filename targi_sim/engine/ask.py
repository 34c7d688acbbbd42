"""Ask the player's strategy for a decision and record it in the trace."""

from .jit import jit
from .layout import S_ROUND
from .policy import decide
from .records import LC_TRACE, RT_CHOICE, RT_CTX, RT_DTYPE, RT_NOPTS, RT_PLAYER, RT_ROUND, log_row


@jit
def ask(S, D, R, SP, L, p, dtype, O, n, ctx):
    """The chosen option value among O[0:n]; every decision goes through here."""
    i = decide(S, D, R, SP, p, dtype, O, n, ctx)
    v = O[i]
    LT = L[4]
    if LT.shape[0] > 0:
        j = log_row(LT, L[5], LC_TRACE)
        if j >= 0:
            LT[j, RT_ROUND] = S[S_ROUND]
            LT[j, RT_PLAYER] = p
            LT[j, RT_DTYPE] = dtype
            LT[j, RT_NOPTS] = n
            LT[j, RT_CHOICE] = v
            LT[j, RT_CTX] = ctx
    return v
