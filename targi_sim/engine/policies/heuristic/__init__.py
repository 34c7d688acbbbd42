"""Heuristic and greedy strategies: value each legal option, take the best.

An option's value is the change it makes to a weighted evaluation of the
player's position: tokens and cards gained, resources spent (worth less as the
rounds run out), progress toward row bonuses, what it denies the opponent. The
weights are the strategy's parameters (`HW_*` columns of its row), so every
named heuristic strategy is a data file. Everything here reads only public
information (docs/rules.md §8): face-down cards, deck order and the opponent's hand
card are never looked at.

The greedy kind (policies/greedy.py) reuses the action order defined here.

Modules by decision kind: values (resources and demand), cards (tribe and goods cards,
rows), border (border cards and placement), decisions (the best option per decision
type); this module is the entry point.
"""

from ...jit import entry_point, jit_literal
from .decisions import (
    action_priority,
    best_action,
    best_option,
    best_other,
    best_place,
    best_trade,
    best_tribe,
)
from .values import hand_too_new


@entry_point
@jit_literal
def decide_heuristic(S, D, R, SP, p, dtype, O, n, ctx):
    """The heuristic kind's decision (policies.DECIDE_SIGNATURE); also what plugins
    call to delegate the decisions they do not make themselves."""
    return best_option(S, D, R, SP, p, 0, dtype, O, n, ctx)


__all__ = ["action_priority", "best_action", "best_option", "best_other", "best_place",
           "best_trade", "best_tribe", "decide_heuristic", "hand_too_new"]
