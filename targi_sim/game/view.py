"""What one player may know of a position (docs/rules.md §8), as read-only named values.

A `View` is what a Python strategy decides on: its own resources, hand and display; the
opponent's tokens, display and hand card only when it was seen (taken face up); the
face-up centre cards (face-down ones are hidden); the robber, round, amulet, discard
piles and deck sizes. It never exposes deck order, face-down cards or an unseen hand,
and holds nothing they could be read from: the constructor copies the public values out
of the state as Python ints and keeps no reference to the state array (a strategy
walking the view's attributes finds only what its player may know).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from targi_sim.engine import layout as lay
from targi_sim.engine.constants import (
    BORDER_KIND_NAMES,
    DISPLAY_COLS,
    DISPLAY_SLOTS,
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


# The public part of a state, in the order View copies it out (one fancy index + tolist):
# scalars, the centre and border, then each player's block. Deck contents, random streams
# and everything else are never copied; face-down card ids and an unseen hand are masked.
_SCALARS = (lay.S_ROUND, lay.S_ROBBER, lay.S_RAIDS_DONE, lay.S_FIRST, lay.S_TRIBE_N,
            lay.S_GOODS_N, lay.S_TRIBE_DISC_N, lay.S_GOODS_DISC_N)
_ROUND, _ROBBER, _RAIDS, _FIRST, _TRIBE_N, _GOODS_N, _TRIBE_DISC_N, _GOODS_DISC_N = range(8)
_CELL_TYPE = len(_SCALARS)
_CELL_UP = _CELL_TYPE + N_CELLS
_CELL_CARD = _CELL_UP + N_CELLS
_CELL_MARKER = _CELL_CARD + N_CELLS
_BORDER = _CELL_MARKER + N_CELLS
_PLAYER_FIELDS = ((lay.P_RES, 5), (lay.P_HAND, 1), (lay.P_HAND_KNOWN, 1),
                  (lay.P_DISPLAY, DISPLAY_SLOTS), (lay.P_DISPLAY_N, 1), (lay.P_TARGI, 3),
                  (lay.P_MARKER, 2))
_RES, _HAND, _HAND_KNOWN, _DISPLAY, _DISPLAY_N, _TARGI, _MARKER = (
    sum(n for _, n in _PLAYER_FIELDS[:k]) for k in range(len(_PLAYER_FIELDS)))
_PLAYER_N = sum(n for _, n in _PLAYER_FIELDS)
_PLAYER = (_BORDER + N_BORDER, _BORDER + N_BORDER + _PLAYER_N)  # each seat's block
_PUBLIC = np.array(
    [*_SCALARS, *(base + i for base in (lay.S_CELL_TYPE, lay.S_CELL_UP, lay.S_CELL_CARD,
                                        lay.S_CELL_MARKER) for i in range(N_CELLS)),
     *range(lay.S_BORDER_TARGI, lay.S_BORDER_TARGI + N_BORDER),
     *(lay.S_PLAYER + p * lay.P_SIZE + off + i for p in range(2)
       for off, n in _PLAYER_FIELDS for i in range(n))], dtype=np.intp)
_UNSEEN = -2  # the hand code of an opponent's card this player has not seen


class Holdings:
    """One player's public holdings (and, for the viewing player, the hand).

    Reads the view's copied-out public values (a list of ints), never the state.
    """

    def __init__(self, values: list[int], deck: Deck, seat: int) -> None:
        self._v, self._b, self._deck, self.seat = values, _PLAYER[seat], deck, seat

    @cached_property
    def resources(self) -> dict[str, int]:
        b = self._b + _RES
        return dict(zip(RESOURCE_NAMES, self._v[b:b + 5], strict=True))

    salt = property(lambda s: s._v[s._b + _RES])
    pepper = property(lambda s: s._v[s._b + _RES + 1])
    dates = property(lambda s: s._v[s._b + _RES + 2])
    gold = property(lambda s: s._v[s._b + _RES + 3])
    vp = property(lambda s: s._v[s._b + _RES + 4])

    @property
    def goods(self) -> int:
        b = self._b + _RES
        return self._v[b] + self._v[b + 1] + self._v[b + 2]

    @property
    def has_hand_card(self) -> bool:
        return self._v[self._b + _HAND] != -1

    @cached_property
    def hand(self) -> TribeCard | str | None:
        """The hand card, None without one, or UNKNOWN for an opponent's unseen card."""
        c = self._v[self._b + _HAND]
        if c == -1:
            return None
        if c == _UNSEEN:
            return UNKNOWN
        return tribe_card(self._deck, c)

    @cached_property
    def display(self) -> tuple[tuple[TribeCard, ...], ...]:
        """Three rows, left to right, without empty slots."""
        b = self._b + _DISPLAY
        return tuple(tuple(tribe_card(self._deck, c)
                           for c in self._v[b + r * DISPLAY_COLS:b + (r + 1) * DISPLAY_COLS]
                           if c >= 0) for r in range(3))

    @property
    def display_slots(self) -> tuple[int, ...]:
        """The display's 12 slots row by row (3 rows of 4), card ids, -1 for an empty
        slot: where each card lies (`display` leaves the empty slots out)."""
        b = self._b + _DISPLAY
        return tuple(self._v[b:b + DISPLAY_SLOTS])

    @property
    def display_count(self) -> int:
        return self._v[self._b + _DISPLAY_N]

    @property
    def targis(self) -> tuple[int, ...]:
        """Border positions of this round's Targis (placed so far)."""
        b = self._b + _TARGI
        return tuple(t for t in self._v[b:b + 3] if t >= 0)

    @property
    def markers(self) -> tuple[int, ...]:
        b = self._b + _MARKER
        return tuple(c for c in self._v[b:b + 2] if c >= 0)


class View:
    """Player `player`'s picture of a position (see the module docstring).

    The constructor copies the public values of `S` out as Python ints (`_PUBLIC`), masks
    face-down card ids and an unseen opponent's hand, and keeps no reference to `S`: a
    strategy holding the view cannot reach the deck order, face-down cards or an unseen
    hand, whatever attribute it walks. Everything else is built from those ints on first
    use, so a strategy pays only for what it reads.
    """

    def __init__(self, S: np.ndarray, deck: Deck, player: int) -> None:
        v = S[_PUBLIC].tolist()
        for i in range(N_CELLS):
            if not v[_CELL_UP + i]:
                v[_CELL_CARD + i] = -1
        opp = _PLAYER[1 - player]
        if v[opp + _HAND] >= 0 and not v[opp + _HAND_KNOWN]:
            v[opp + _HAND] = _UNSEEN
        self._v = v
        n = v[_TRIBE_DISC_N]
        self._tribe_disc = S[lay.S_TRIBE_DISC:lay.S_TRIBE_DISC + n].tolist() if n else []
        n = v[_GOODS_DISC_N]
        self._goods_disc = S[lay.S_GOODS_DISC:lay.S_GOODS_DISC + n].tolist() if n else []
        self.deck = deck
        self.player = player

    @cached_property
    def me(self) -> Holdings:
        return Holdings(self._v, self.deck, self.player)

    @cached_property
    def opponent(self) -> Holdings:
        return Holdings(self._v, self.deck, 1 - self.player)

    round = property(lambda s: s._v[_ROUND])
    robber = property(lambda s: s._v[_ROBBER])  # border position 0..15
    raids_done = property(lambda s: s._v[_RAIDS])

    @property
    def first_player(self) -> int:
        """The seat holding the amulet this round."""
        return self._v[_FIRST]

    @property
    def i_am_first(self) -> bool:
        return self.first_player == self.player

    @cached_property
    def centre(self) -> tuple[Cell, ...]:
        v = self._v
        cells = []
        for i in range(N_CELLS):
            kind, up = v[_CELL_TYPE + i], bool(v[_CELL_UP + i])
            card_id, marker = v[_CELL_CARD + i], v[_CELL_MARKER + i]
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
            t = self._v[_BORDER + b]
            out.append(BorderCard(b, self.deck.border_names[b],
                                  BORDER_KIND_NAMES[int(self.deck.border_kind[b])],
                                  t if t >= 0 else None, b == self.robber))
        return tuple(out)

    @property
    def centre_ids(self) -> tuple[tuple[str, bool, int, int | None], ...]:
        """The centre as plain values, cell by cell: (kind as in `centre`, face up, the
        card id or -1 when face down or empty, the marker's seat): `centre` without
        building a card object per cell (an encoder's hot path, targi_sim/ai)."""
        v = self._v
        kinds = {lay.CELL_GOODS: "goods", lay.CELL_TRIBE: "tribe"}
        out = []
        for i in range(N_CELLS):
            kind, up, marker = v[_CELL_TYPE + i], bool(v[_CELL_UP + i]), v[_CELL_MARKER + i]
            card = v[_CELL_CARD + i] if up and kind in kinds else -1
            out.append((kinds.get(kind, "empty"), up, card, marker if marker >= 0 else None))
        return tuple(out)

    @property
    def discard_ids(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The card ids on the tribe and goods discard piles, in order."""
        return tuple(self._tribe_disc), tuple(self._goods_disc)

    @property
    def tribe_deck_size(self) -> int:
        return self._v[_TRIBE_N]

    @property
    def goods_deck_size(self) -> int:
        return self._v[_GOODS_N]

    @cached_property
    def tribe_discard(self) -> tuple[TribeCard, ...]:
        return tuple(tribe_card(self.deck, c) for c in self._tribe_disc)

    @cached_property
    def goods_discard(self) -> tuple[GoodsCard, ...]:
        return tuple(goods_card(self.deck, g) for g in self._goods_disc)


__all__ = ["BorderCard", "Cell", "GoodsCard", "Holdings", "TribeCard", "UNKNOWN", "View"]
