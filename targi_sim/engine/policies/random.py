"""The random kind: a uniform choice among the legal options, from the player's own stream."""

from ..jit import entry_point, jit
from ..layout import S_POLICY_RNG
from ..rng import randbelow


@entry_point
@jit
def decide_random(S, D, R, SP, p, dtype, O, n, ctx):
    """policies.DECIDE_SIGNATURE: uniform over O[0:n]."""
    return randbelow(S, S_POLICY_RNG + 4 * p, n)
