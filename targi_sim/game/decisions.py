"""Decisions and their options as named Python objects (for Python strategies, people and
outside agents).

The engine encodes every option as an integer (docs/engine.md, Decisions); `options()`
turns a decision's codes into small frozen objects that say what the option does, e.g.
`Place(position=9, card=10, name="Silversmith")` or `Play(card_id=19, name="Camp 3VP #1",
row=1, alternative=False)`. Every option keeps its engine code in `.value`; a strategy
answers with the option's index in the list.
"""

from __future__ import annotations

from dataclasses import dataclass

from targi_sim.engine.codes import (
    NO_SWAP,
    OPT_DISCARD,
    OPT_KEEP,
    OPT_LEAVE,
    marker_of,
    plain,
    play_of,
    swap_of,
    trade_of,
)
from targi_sim.engine.constants import DECISION_NAMES, RESOURCE_NAMES
from targi_sim.game.deck import Deck

GOODS = RESOURCE_NAMES[:3]


@dataclass(frozen=True)
class Option:
    """One legal answer; `value` is the engine's code for it, `text` says it in words."""

    value: int

    @property
    def text(self) -> str:
        return str(self.value)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Place(Option):
    """Put the next Targi on border card number `card` (position `card - 1`)."""

    position: int
    card: int
    name: str

    @property
    def text(self) -> str:
        return f"place a Targi on {self.card} {self.name}"


@dataclass(frozen=True)
class Resolve(Option):
    """Resolve one of this round's actions: a Targi (slot 0..2) or a tribe marker (3..4)."""

    slot: int
    what: str

    @property
    def text(self) -> str:
        return f"resolve {self.what}"


@dataclass(frozen=True)
class TakeGoods(Option):
    """Take (or leave) the goods card a tribe marker stands on."""

    take: bool
    card_id: int
    name: str

    @property
    def text(self) -> str:
        return f"{'take' if self.take else 'leave'} goods card '{self.name}'"


@dataclass(frozen=True)
class ChooseGood(Option):
    """The good a 'good of your choice' card gives."""

    good: str

    @property
    def text(self) -> str:
        return f"take 1 {self.good}"


@dataclass(frozen=True)
class Leave(Option):
    """Leave the tribe card where it is (the centre card stays; the hand card stays)."""

    card_id: int
    name: str

    @property
    def text(self) -> str:
        return f"leave '{self.name}'"


@dataclass(frozen=True)
class Discard(Option):
    card_id: int
    name: str

    @property
    def text(self) -> str:
        return f"discard '{self.name}'"


@dataclass(frozen=True)
class Keep(Option):
    """Keep the tribe card in hand (to play it with the Noble in a later round)."""

    card_id: int
    name: str

    @property
    def text(self) -> str:
        return f"keep '{self.name}' in hand"


@dataclass(frozen=True)
class Play(Option):
    """Pay the card's cost (printed, or the alternative) and place it in display `row` (1..3)."""

    card_id: int
    name: str
    row: int
    alternative: bool

    @property
    def text(self) -> str:
        cost = "alternative" if self.alternative else "printed"
        return f"play '{self.name}' to row {self.row} (its {cost} cost)"


@dataclass(frozen=True)
class StopTrading(Option):
    @property
    def text(self) -> str:
        return "stop trading"


@dataclass(frozen=True)
class Trade(Option):
    """One trade of the exchange card's table: give `give_amount` `give`, get `get_amount` `get`."""

    trade: int
    give: str
    give_amount: int
    get: str
    get_amount: int

    @property
    def text(self) -> str:
        return f"trade {self.give_amount} {self.give} for {self.get_amount} {self.get}"


@dataclass(frozen=True)
class KeepMarkers(Option):
    @property
    def text(self) -> str:
        return "move no tribe marker"


@dataclass(frozen=True)
class MoveMarker(Option):
    """Fata Morgana: move tribe marker `marker` (1..2) to centre `cell` (0..8)."""

    marker: int
    cell: int

    @property
    def text(self) -> str:
        row, col = divmod(self.cell, 3)
        return f"move tribe marker {self.marker} to centre ({row + 1},{col + 1})"


@dataclass(frozen=True)
class PayRaid(Option):
    """Pay the raid with goods (or gold), or with VP."""

    with_vp: bool
    raid: int

    @property
    def text(self) -> str:
        return f"pay raid {self.raid} with {'VP' if self.with_vp else 'goods/gold'}"


@dataclass(frozen=True)
class GiveGood(Option):
    """Give up (raid) or discard (goods limit) one unit of `good`."""

    good: str
    reason: str

    @property
    def text(self) -> str:
        return f"give up 1 {self.good} ({self.reason})"


@dataclass(frozen=True)
class DrawTribe(Option):
    draw: bool

    @property
    def text(self) -> str:
        return "draw the top tribe card" if self.draw else "do not draw"


@dataclass(frozen=True)
class Swap(Option):
    """A 'move two cards' ability: swap display slots `a` and `b` (1..12), or decline."""

    a: int
    b: int

    @property
    def text(self) -> str:
        return "keep the display as it is" if self.a == 0 else f"swap slots {self.a} and {self.b}"


def _resource(k: int) -> str:
    return RESOURCE_NAMES[k] if 0 <= k < len(RESOURCE_NAMES) else f"resource {k}"


def option(deck: Deck, dtype: int, value: int, ctx: int, slots: dict[int, str]) -> Option:
    """The named option for engine code `value` of a decision of type `dtype`."""
    name = DECISION_NAMES[dtype]
    if name == "place":
        return Place(value, value, value + 1, deck.border_names[value])
    if name == "action":
        return Resolve(value, value, slots.get(value, f"action slot {value}"))
    if name == "central_goods":
        return TakeGoods(value, bool(value), ctx, deck.goods_names[ctx])
    if name == "choose_good":
        return ChooseGood(value, GOODS[value])
    if name == "tribe":
        card = deck.tribe_names[ctx]
        if value == OPT_LEAVE:
            return Leave(value, ctx, card)
        if value == OPT_DISCARD:
            return Discard(value, ctx, card)
        if value == OPT_KEEP:
            return Keep(value, ctx, card)
        alt, row = plain(play_of)(value)
        return Play(value, ctx, card, row + 1, bool(alt))
    if name == "trade":
        if value < 0:
            return StopTrading(value)
        t, given, received = plain(trade_of)(value)
        return Trade(value, t, _resource(given), int(deck.trade_give_amount[t]),
                     _resource(received), int(deck.trade_get_amount[t]))
    if name == "fata_morgana":
        if value < 0:
            return KeepMarkers(value)
        marker, cell = plain(marker_of)(value)
        return MoveMarker(value, marker + 1, cell)
    if name == "raid_mode":
        return PayRaid(value, bool(value), ctx)
    if name == "raid_good":
        return GiveGood(value, GOODS[value], f"raid {ctx}")
    if name == "discard_good":
        return GiveGood(value, GOODS[value], "goods limit")
    if name == "tribal_expansion":
        return DrawTribe(value, bool(value))
    if name == "ability":
        if value == NO_SWAP:
            return Swap(value, 0, 0)
        a, b = plain(swap_of)(value)
        return Swap(value, a + 1, b + 1)
    return Option(value)


class Decision:
    """A decision a seat must take now: its type name, whose it is, and its options.

    `values` are the options' engine codes; the named `options` are built on first use
    (a strategy that looks only at a few decisions does not pay for the others).
    """

    __slots__ = ("type", "player", "context", "values", "_describe", "_options")

    def __init__(self, type: str, player: int, context: int, values: tuple[int, ...],
                 describe) -> None:  # describe(value) -> Option
        self.type = type
        self.player = player
        self.context = context
        self.values = values
        self._describe = describe
        self._options: tuple[Option, ...] | None = None

    @property
    def options(self) -> tuple[Option, ...]:
        if self._options is None:
            self._options = tuple(self._describe(v) for v in self.values)
        return self._options

    def __len__(self) -> int:
        return len(self.values)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Decision) and (self.type, self.player, self.context,
                                                 self.values) ==
                (other.type, other.player, other.context, other.values))

    def __hash__(self) -> int:
        return hash((self.type, self.player, self.context, self.values))

    def __repr__(self) -> str:
        return (f"Decision(type={self.type!r}, player={self.player}, context={self.context}, "
                f"options={len(self.values)})")

    def index_of(self, value: int) -> int:
        """Index of the option with engine code `value` (ValueError if not offered)."""
        try:
            return self.values.index(value)
        except ValueError:
            raise ValueError(f"{value} is not an option of this {self.type} decision") from None

    def __str__(self) -> str:
        lines = [f"{self.type} (seat {self.player}):"]
        lines += [f"  {i}: {o.text}" for i, o in enumerate(self.options)]
        return "\n".join(lines)


__all__ = [
    "ChooseGood", "Decision", "Discard", "DrawTribe", "GiveGood", "Keep", "KeepMarkers",
    "Leave", "MoveMarker", "Option", "PayRaid", "Place", "Play", "Resolve", "StopTrading",
    "Swap", "TakeGoods", "Trade", "option",
]
