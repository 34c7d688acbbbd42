"""The scripted kind (tests): replays a list of option values, one per asked decision.

SP[p, 1] is the next script index, SP[p, SCRIPT_START:] the wanted option values.
A value that is not legal, or a script that runs out, flags S_ERROR and takes option 0.
"""

from ..jit import entry_point, jit
from ..layout import S_ERROR

SCRIPT_START = 2


@entry_point
@jit
def decide_scripted(S, D, R, SP, p, dtype, O, n, ctx):
    """policies.DECIDE_SIGNATURE: the next scripted value if it is legal."""
    k = int(SP[p, 1])
    if SCRIPT_START + k >= SP.shape[1]:
        S[S_ERROR] = 1
        return 0
    want = int(SP[p, SCRIPT_START + k])
    SP[p, 1] = k + 1
    for i in range(n):
        if O[i] == want:
            return i
    S[S_ERROR] = 2
    return 0
