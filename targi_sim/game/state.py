"""A named, Python-side view of the engine's flat state vector.

Scenario tests and the replay printer use it to read a position and to set up
a mid-game position by hand (docs/rules.md examples), then call engine functions on
`state.S`. Nothing here runs in the game loop.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from targi_sim.engine import layout as lay
from targi_sim.engine.constants import (
    DISPLAY_COLS,
    DISPLAY_SLOTS,
    N_BORDER,
    N_CELLS,
    RESOURCE_NAMES,
)
from targi_sim.engine.rounds import setup_game
from targi_sim.game.deck import Deck
from targi_sim.game.rules import Rules


class PlayerView:
    """One player's block of the state (resources, hand, display, this round's figures)."""

    def __init__(self, S: np.ndarray, p: int) -> None:
        self.S = S
        self.p = p
        self.base = lay.S_PLAYER + p * lay.P_SIZE

    def _get(self, off: int) -> int:
        return int(self.S[self.base + off])

    def _set(self, off: int, value: int) -> None:
        self.S[self.base + off] = value
        self.S[lay.S_RES_VERSION] += 1  # strategies cache values keyed on it

    salt = property(lambda s: s._get(lay.P_RES), lambda s, v: s._set(lay.P_RES, v))
    pepper = property(lambda s: s._get(lay.P_RES + 1), lambda s, v: s._set(lay.P_RES + 1, v))
    dates = property(lambda s: s._get(lay.P_RES + 2), lambda s, v: s._set(lay.P_RES + 2, v))
    gold = property(lambda s: s._get(lay.P_RES + 3), lambda s, v: s._set(lay.P_RES + 3, v))
    vp = property(lambda s: s._get(lay.P_RES + 4), lambda s, v: s._set(lay.P_RES + 4, v))
    hand = property(lambda s: s._get(lay.P_HAND), lambda s, v: s._set(lay.P_HAND, v))

    @property
    def goods(self) -> int:
        return self.salt + self.pepper + self.dates

    def resources(self) -> dict[str, int]:
        return {name: self._get(lay.P_RES + i) for i, name in enumerate(RESOURCE_NAMES)}

    def set_resources(self, **amounts: int) -> None:
        for name, value in amounts.items():
            if name not in RESOURCE_NAMES:
                raise KeyError(f"unknown resource {name!r}; use one of {RESOURCE_NAMES}")
            self._set(lay.P_RES + RESOURCE_NAMES.index(name), value)

    @property
    def display(self) -> list[list[int]]:
        """Rows of card ids, left to right, without the empty slots."""
        rows = []
        for r in range(3):
            row = [self._get(lay.P_DISPLAY + r * DISPLAY_COLS + c) for c in range(DISPLAY_COLS)]
            rows.append([c for c in row if c >= 0])
        return rows

    def set_display(self, rows: Sequence[Sequence[int]]) -> None:
        """Lay out the display: up to 3 rows of up to 4 card ids, filled from the left."""
        if len(rows) > 3 or any(len(r) > DISPLAY_COLS for r in rows):
            raise ValueError("a display holds at most 3 rows of 4 cards")
        for slot in range(DISPLAY_SLOTS):
            self._set(lay.P_DISPLAY + slot, -1)
        n = 0
        for r, row in enumerate(rows):
            for c, card in enumerate(row):
                self._set(lay.P_DISPLAY + r * DISPLAY_COLS + c, card)
                n += 1
        self._set(lay.P_DISPLAY_N, n)

    @property
    def display_count(self) -> int:
        return self._get(lay.P_DISPLAY_N)

    @property
    def targis(self) -> list[int]:
        return [self._get(lay.P_TARGI + k) for k in range(3)]

    @property
    def markers(self) -> list[int]:
        return [self._get(lay.P_MARKER + k) for k in range(2)]

    def place(self, targis: Sequence[int], markers: Sequence[int] = ()) -> None:
        """Put this player's Targis on border positions (0..15) and markers on cells."""
        for k in range(3):
            b = targis[k] if k < len(targis) else -1
            self._set(lay.P_TARGI + k, b)
            if b >= 0:
                self.S[lay.S_BORDER_TARGI + b] = self.p
        for k in range(2):
            cell = markers[k] if k < len(markers) else -1
            self._set(lay.P_MARKER + k, cell)
            self._set(lay.P_MARKER_PLACED + k, cell)
            if cell >= 0:
                self.S[lay.S_CELL_MARKER + cell] = self.p
        for k in range(5):
            self._set(lay.P_DONE + k, 0)


class GameState:
    """A game position: the flat vector `S` plus the deck and rules it is played with."""

    def __init__(self, S: np.ndarray, deck: Deck, rules: Rules) -> None:
        self.S = S
        self.deck = deck
        self.rules = rules
        self.D = lay.pack_deck(deck)
        self.R = rules.vector.astype(np.int64)
        self.players = (PlayerView(S, 0), PlayerView(S, 1))

    @classmethod
    def new(cls, deck: Deck, rules: Rules, seed: int = 0, first_player: int = 0) -> GameState:
        """The position at the start of round 1 (decks shuffled by `seed`)."""
        S = np.zeros(lay.S_SIZE, dtype=np.int64)
        state = cls(S, deck, rules)
        setup_game(S, state.D, state.R, seed, first_player)
        return state

    def copy(self) -> GameState:
        return GameState(self.S.copy(), self.deck, self.rules)

    def _g(self, off: int) -> int:
        return int(self.S[off])

    round = property(lambda s: s._g(lay.S_ROUND))
    over = property(lambda s: bool(s._g(lay.S_OVER)))
    end_reason = property(lambda s: s._g(lay.S_END_REASON))
    error = property(lambda s: s._g(lay.S_ERROR))

    @property
    def robber(self) -> int:
        return self._g(lay.S_ROBBER)

    @robber.setter
    def robber(self, b: int) -> None:
        self.S[lay.S_ROBBER] = b

    @property
    def first_player(self) -> int:
        return self._g(lay.S_FIRST)

    @first_player.setter
    def first_player(self, p: int) -> None:
        self.S[lay.S_FIRST] = p

    def set_round(self, n: int) -> None:
        """Rounds already started; the next round played is n + 1."""
        self.S[lay.S_ROUND] = n

    def cell(self, cell: int) -> tuple[int, int, bool, int]:
        """(type, card, face_up, marker owner) of a central cell 0..8."""
        return (
            self._g(lay.S_CELL_TYPE + cell),
            self._g(lay.S_CELL_CARD + cell),
            bool(self._g(lay.S_CELL_UP + cell)),
            self._g(lay.S_CELL_MARKER + cell),
        )

    def set_cell(self, cell: int, kind: int, card: int, face_up: bool = True) -> None:
        """Put a goods (kind 0) or tribe (kind 1) card on a cell, or empty it (kind -1)."""
        self.S[lay.S_CELL_TYPE + cell] = kind
        self.S[lay.S_CELL_CARD + cell] = card if kind >= 0 else -1
        self.S[lay.S_CELL_UP + cell] = 1 if face_up else 0
        self.S[lay.S_CELLS_VERSION] += 1

    def border_targi(self, b: int) -> int:
        return self._g(lay.S_BORDER_TARGI + b)

    def _pile(self, n_off: int, off: int) -> list[int]:
        return [self._g(off + i) for i in range(self._g(n_off))]

    def _set_pile(self, n_off: int, off: int, cards: Sequence[int]) -> None:
        self.S[n_off] = len(cards)
        for i, c in enumerate(cards):
            self.S[off + i] = c

    # piles: the last element is the top card
    goods_deck = property(lambda s: s._pile(lay.S_GOODS_N, lay.S_GOODS))
    goods_discard = property(lambda s: s._pile(lay.S_GOODS_DISC_N, lay.S_GOODS_DISC))
    tribe_deck = property(lambda s: s._pile(lay.S_TRIBE_N, lay.S_TRIBE))
    tribe_discard = property(lambda s: s._pile(lay.S_TRIBE_DISC_N, lay.S_TRIBE_DISC))

    def set_goods_deck(self, cards: Sequence[int]) -> None:
        """Goods deck bottom..top (the last card is drawn first)."""
        self._set_pile(lay.S_GOODS_N, lay.S_GOODS, cards)

    def set_goods_discard(self, cards: Sequence[int]) -> None:
        self._set_pile(lay.S_GOODS_DISC_N, lay.S_GOODS_DISC, cards)

    def set_tribe_deck(self, cards: Sequence[int]) -> None:
        """Tribe deck bottom..top (the last card is drawn first)."""
        self._set_pile(lay.S_TRIBE_N, lay.S_TRIBE, cards)

    def set_tribe_discard(self, cards: Sequence[int]) -> None:
        self._set_pile(lay.S_TRIBE_DISC_N, lay.S_TRIBE_DISC, cards)

    def clear_board(self) -> None:
        """Remove every Targi and marker (the state between rounds)."""
        for b in range(N_BORDER):
            self.S[lay.S_BORDER_TARGI + b] = -1
        for c in range(N_CELLS):
            self.S[lay.S_CELL_MARKER + c] = -1
        for pl in self.players:
            pl.place([], [])

    def tribe_cards_everywhere(self) -> list[int]:
        """Every tribe card id in decks, discard, centre, hands and displays (conservation)."""
        cards = self.tribe_deck + self.tribe_discard
        for c in range(N_CELLS):
            kind, card, _, _ = self.cell(c)
            if kind == lay.CELL_TRIBE:
                cards.append(card)
        for pl in self.players:
            if pl.hand >= 0:
                cards.append(pl.hand)
            cards.extend(c for row in pl.display for c in row)
        return cards

    def goods_cards_everywhere(self) -> list[int]:
        cards = self.goods_deck + self.goods_discard
        for c in range(N_CELLS):
            kind, card, _, _ = self.cell(c)
            if kind == lay.CELL_GOODS:
                cards.append(card)
        return cards
