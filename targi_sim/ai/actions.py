"""One number for every answer the engine can ask for: the action space of the OpenSpiel
game and of the PettingZoo environment.

A decision's options are engine codes whose meaning depends on the decision type
(docs/engine.md, Decisions): `3` is "border card 4" for a placement and "play the card
to row 1" for a tribe card. An agent that learns needs one fixed numbering, so each
decision type gets its own block of actions, and inside the block an option's code maps
to one offset (a trade's code packs its rule and goods: `rule * 25 + given * 5 +
received`). The meaning of an action then never changes; which actions are legal is
the pending decision's business (the action mask). What the code refers to may still
depend on the decision's context (which tribe card a `tribe` decision is about): the
observation holds the context.
"""

from __future__ import annotations

from targi_sim.engine.codes import GOOD_STRIDE, TRADE_STRIDE
from targi_sim.engine.constants import DECISION_NAMES, DISPLAY_SLOTS, N_BORDER, N_CELLS
from targi_sim.engine.layout import MAX_TRADES

N_RESOURCES = 5  # salt, pepper, dates, gold, VP: what a trade gives or gets
TRADE_BLOCK = 1 + MAX_TRADES * N_RESOURCES * N_RESOURCES  # stopping, then every trade

# decision type -> how many actions its block holds
BLOCK_SIZES: dict[str, int] = {
    "place": N_BORDER,                       # border position 0..15
    "action": 5,                             # Targi slots 0..2, tribe markers 3..4
    "central_goods": 2,                      # leave, take
    "choose_good": 3,                        # salt, pepper, dates
    "tribe": 9,                              # leave, discard, keep, play (2 costs x 3 rows)
    "trade": TRADE_BLOCK,                    # stop, or one trade of the exchange card
    "fata_morgana": 1 + 2 * N_CELLS,         # move none, or marker 1..2 to a cell
    "raid_mode": 2,                          # goods or gold, VP
    "raid_good": 3,                          # the good given up
    "discard_good": 3,                       # the good discarded at the goods limit
    "tribal_expansion": 2,                   # skip, draw
    "ability": 1 + DISPLAY_SLOTS * DISPLAY_SLOTS,  # keep the display, or swap two slots
}
assert tuple(BLOCK_SIZES) == DECISION_NAMES
_STARTS = {}
_n = 0
for _name, _size in BLOCK_SIZES.items():
    _STARTS[_name] = _n
    _n += _size
NUM_ACTIONS = _n  # the size of the action space
_BLOCKS = tuple((name, _STARTS[name], size) for name, size in BLOCK_SIZES.items())


def _offset(dtype: str, value: int) -> int:
    """The position of engine code `value` inside its decision type's block."""
    if dtype == "trade":
        if value < 0:
            return 0
        rule, given, received = value // TRADE_STRIDE, (value // GOOD_STRIDE) % GOOD_STRIDE, \
            value % GOOD_STRIDE
        if given >= N_RESOURCES or received >= N_RESOURCES:
            return -1
        return 1 + rule * N_RESOURCES * N_RESOURCES + given * N_RESOURCES + received
    if dtype == "fata_morgana":
        return 0 if value < 0 else 1 + (value // 16) * N_CELLS + value % 16
    return value


def _value(dtype: str, offset: int) -> int:
    if dtype == "trade":
        if offset == 0:
            return -1
        k = offset - 1
        rule, rest = divmod(k, N_RESOURCES * N_RESOURCES)
        given, received = divmod(rest, N_RESOURCES)
        return rule * TRADE_STRIDE + given * GOOD_STRIDE + received
    if dtype == "fata_morgana":
        if offset == 0:
            return -1
        marker, cell = divmod(offset - 1, N_CELLS)
        return marker * 16 + cell
    return offset


def action_of(dtype: str, value: int) -> int:
    """The action number of option code `value` of a decision of type `dtype`."""
    size = BLOCK_SIZES[dtype]
    k = _offset(dtype, int(value))
    if not 0 <= k < size:
        raise ValueError(f"option code {value} of a {dtype!r} decision has no action number")
    return _STARTS[dtype] + k


def decode(action: int) -> tuple[str, int]:
    """(decision type, option code) of an action number."""
    a = int(action)
    for name, start, size in _BLOCKS:
        if start <= a < start + size:
            return name, _value(name, a - start)
    raise ValueError(f"action {action} is not in 0..{NUM_ACTIONS - 1}")


def describe(action: int) -> str:
    """An action in a few words without its decision's context ("tribe: code 4")."""
    name, value = decode(action)
    return f"{name}: option code {value}"


__all__ = ["BLOCK_SIZES", "NUM_ACTIONS", "action_of", "decode", "describe"]
