"""Example compiled strategy plugin: "card rush".

Plays every tribe card it can afford (in the first row that has room) and
decides everything else like a heuristic with the weights below. Use it with

    targi-sim run --games 10000 --p0 data/strategies/card-rush.py --p1 balanced

The template (see docs/strategy-plugins.md): define `choose(S, D, R, SP, p,
dtype, O, n, ctx)` returning the index of the chosen option in O[0:n]. It is
compiled by numba on its own, against the already compiled engine (no Python
objects inside), and it must only read what player p may know (docs/rules.md,
Information; docs/engine.md lists the hidden fields).
"""

from targi_sim.engine.constants import DT_TRIBE
from targi_sim.engine.costs import OPT_PLAY
from targi_sim.engine.policies.heuristic import decide_heuristic

NAME = "card-rush"
DESCRIPTION = "plays every affordable tribe card; heuristic weights elsewhere"
# Heuristic weights for the delegated decisions (names as in strategy TOML files).
WEIGHTS = {"card_vp": 1.2, "display": 0.8}
DETERMINISTIC = True  # no random numbers: the same position always gets the same answer


def choose(S, D, R, SP, p, dtype, O, n, ctx):
    if dtype == DT_TRIBE:
        for i in range(n):
            if O[i] >= OPT_PLAY:
                return i
    return decide_heuristic(S, D, R, SP, p, dtype, O, n, ctx)
