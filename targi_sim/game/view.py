"""What one player may know of a position (docs/rules.md §8), as read-only named values.

A `View` is what a Python strategy decides on: its own resources, hand and display; the
opponent's tokens, display and hand card only when it was seen (taken face up); the
face-up centre cards (face-down ones are hidden); the robber, round, amulet, discard
piles and deck sizes. It never exposes deck order, face-down cards or an unseen hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from targi_sim.engine import layout as lay
from targi_sim.engine.constants import (
    BORDER_KIND_NAMES,
    DISPLAY_COLS,
    N_BORDER,
    N_CELLS,
    RESOURCE_NAMES,
    SYMBOL_NAMES,
)
from targi_sim.game.deck import Deck

UNKNOWN = "unknown"  # the opponent holds a hand card that this player has not seen


@dataclass(frozen=True)
class TribeCard:
    id: int
    name: str
    symbol: str
    vp: int
    cost: dict[str, int]
    alt_cost: dict[str, int] | None


@dataclass(frozen=True)
class GoodsCard:
    id: int
    name: str
    gives: dict[str, int]
    choose_one: int


@dataclass(frozen=True)
class Cell:
    """A centre cell: `kind` is 'goods', 'tribe' or 'empty'; `card` is None when face down."""

    index: int
    kind: str
    face_up: bool
    card: TribeCard | GoodsCard | None
    marker: int | None  # seat of the tribe marker on it


@dataclass(frozen=True)
class BorderCard:
    position: int  # 0..15; the card's number is position + 1
    name: str
    kind: str
    targi: int | None  # seat of the Targi on it this round
    robber: bool


def tribe_card(deck: Deck, c: int) -> TribeCard:
    cost = {k: int(v) for k, v in zip(RESOURCE_NAMES[:4], deck.tribe_cost[c], strict=True) if v}
    alt = None
    if deck.tribe_has_alt[c]:
        alt = {k: int(v) for k, v in zip(RESOURCE_NAMES[:4], deck.tribe_alt_cost[c],
                                         strict=True) if v}
    return TribeCard(c, deck.tribe_names[c], SYMBOL_NAMES[int(deck.tribe_symbol[c])],
                     int(deck.tribe_vp[c]), cost, alt)


def goods_card(deck: Deck, g: int) -> GoodsCard:
    row = deck.goods[g]
    gives = {k: int(v) for k, v in zip(RESOURCE_NAMES, row[:5], strict=True) if v}
    return GoodsCard(g, deck.goods_names[g], gives, int(row[5]))


class Holdings:
    """One player's public holdings (and, for the viewing player, the hand)."""

    def __init__(self, S: np.ndarray, deck: Deck, p: int, see_hand: bool) -> None:
        self._S, self._deck, self.seat = S, deck, p
        self._base = lay.S_PLAYER + p * lay.P_SIZE
        self._see_hand = see_hand

    def _g(self, off: int) -> int:
        return int(self._S[self._base + off])

    @cached_property
    def resources(self) -> dict[str, int]:
        return {k: self._g(lay.P_RES + i) for i, k in enumerate(RESOURCE_NAMES)}

    salt = property(lambda s: s.resources["salt"])
    pepper = property(lambda s: s.resources["pepper"])
    dates = property(lambda s: s.resources["dates"])
    gold = property(lambda s: s.resources["gold"])
    vp = property(lambda s: s.resources["vp"])

    @property
    def goods(self) -> int:
        r = self.resources
        return r["salt"] + r["pepper"] + r["dates"]

    @property
    def has_hand_card(self) -> bool:
        return self._g(lay.P_HAND) >= 0

    @cached_property
    def hand(self) -> TribeCard | str | None:
        """The hand card, None without one, or UNKNOWN for an opponent's unseen card."""
        c = self._g(lay.P_HAND)
        if c < 0:
            return None
        if not self._see_hand:
            return UNKNOWN
        return tribe_card(self._deck, c)

    @cached_property
    def display(self) -> tuple[tuple[TribeCard, ...], ...]:
        """Three rows, left to right, without empty slots."""
        rows = []
        for r in range(3):
            row = []
            for col in range(DISPLAY_COLS):
                c = self._g(lay.P_DISPLAY + r * DISPLAY_COLS + col)
                if c >= 0:
                    row.append(tribe_card(self._deck, c))
            rows.append(tuple(row))
        return tuple(rows)

    @property
    def display_count(self) -> int:
        return self._g(lay.P_DISPLAY_N)

    @property
    def targis(self) -> tuple[int, ...]:
        """Border positions of this round's Targis (placed so far)."""
        return tuple(b for b in (self._g(lay.P_TARGI + k) for k in range(3)) if b >= 0)

    @property
    def markers(self) -> tuple[int, ...]:
        return tuple(c for c in (self._g(lay.P_MARKER + k) for k in range(2)) if c >= 0)


class View:
    """Player `player`'s picture of a position (see the module docstring)."""

    def __init__(self, S: np.ndarray, deck: Deck, player: int) -> None:
        self._S = np.array(S[:lay.S_CORE], copy=True)
        self._S.setflags(write=False)
        self.deck = deck
        self.player = player
        opp = 1 - player
        opp_hand_known = bool(self._S[lay.S_PLAYER + opp * lay.P_SIZE + lay.P_HAND_KNOWN])
        self.me = Holdings(self._S, deck, player, True)
        self.opponent = Holdings(self._S, deck, opp, opp_hand_known)

    def _g(self, off: int) -> int:
        return int(self._S[off])

    round = property(lambda s: s._g(lay.S_ROUND))
    robber = property(lambda s: s._g(lay.S_ROBBER))  # border position 0..15
    raids_done = property(lambda s: s._g(lay.S_RAIDS_DONE))

    @property
    def first_player(self) -> int:
        """The seat holding the amulet this round."""
        return self._g(lay.S_FIRST)

    @property
    def i_am_first(self) -> bool:
        return self.first_player == self.player

    @cached_property
    def centre(self) -> tuple[Cell, ...]:
        cells = []
        for i in range(N_CELLS):
            kind = self._g(lay.S_CELL_TYPE + i)
            up = bool(self._g(lay.S_CELL_UP + i))
            card_id = self._g(lay.S_CELL_CARD + i)
            marker = self._g(lay.S_CELL_MARKER + i)
            card: TribeCard | GoodsCard | None = None
            if up and kind == lay.CELL_TRIBE:
                card = tribe_card(self.deck, card_id)
            elif up and kind == lay.CELL_GOODS:
                card = goods_card(self.deck, card_id)
            name = {lay.CELL_GOODS: "goods", lay.CELL_TRIBE: "tribe"}.get(kind, "empty")
            cells.append(Cell(i, name, up, card, marker if marker >= 0 else None))
        return tuple(cells)

    @cached_property
    def border(self) -> tuple[BorderCard, ...]:
        out = []
        for b in range(N_BORDER):
            t = self._g(lay.S_BORDER_TARGI + b)
            out.append(BorderCard(b, self.deck.border_names[b],
                                  BORDER_KIND_NAMES[int(self.deck.border_kind[b])],
                                  t if t >= 0 else None, b == self.robber))
        return tuple(out)

    @property
    def tribe_deck_size(self) -> int:
        return self._g(lay.S_TRIBE_N)

    @property
    def goods_deck_size(self) -> int:
        return self._g(lay.S_GOODS_N)

    @cached_property
    def tribe_discard(self) -> tuple[TribeCard, ...]:
        n = self._g(lay.S_TRIBE_DISC_N)
        return tuple(tribe_card(self.deck, self._g(lay.S_TRIBE_DISC + i)) for i in range(n))

    @cached_property
    def goods_discard(self) -> tuple[GoodsCard, ...]:
        n = self._g(lay.S_GOODS_DISC_N)
        return tuple(goods_card(self.deck, self._g(lay.S_GOODS_DISC + i)) for i in range(n))


__all__ = ["BorderCard", "Cell", "GoodsCard", "Holdings", "TribeCard", "UNKNOWN", "View"]
