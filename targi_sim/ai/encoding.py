"""What a seat knows, as a string and as a tensor: the observation (and information
state) of the OpenSpiel game and the observation of the PettingZoo environment.

Both are built from a `game.view.View` -- what the seat may know (docs/rules.md §8) --
and, when the seat is to decide, its pending `Decision`; never from the game state. So
they cannot hold a hidden card, and tests/test_ai_encoding.py checks it the way
`targi-sim strategies check` checks a strategy: re-deal everything the seat cannot know
and the string and tensor must not change.

The tensor is the seat's own point of view ("me" and "opponent", not seat 0 and 1): one
flat float32 array made of named pieces (`Encoding.pieces`, docs/ai.md lists them).
Counts are plain numbers (resources, deck sizes, the round); everything else is 0/1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from targi_sim.engine.constants import (
    DECISION_NAMES,
    DISPLAY_COLS,
    DISPLAY_SLOTS,
    N_BORDER,
    N_CELLS,
    RESOURCE_NAMES,
)
from targi_sim.game.decisions import Decision
from targi_sim.game.deck import Deck
from targi_sim.game.view import UNKNOWN, View

ME, OPPONENT, NOBODY = 0, 1, 2  # who is to decide, from the observing seat's side
TO_MOVE_NAMES = ("me", "opponent", "nobody")
COUNT_MAX = 1000.0  # bound of a count piece in the observation space (PettingZoo's Box)
COUNTERS = ("round", "raids_done", "holds_amulet", "tribe_deck", "goods_deck")
CELL_KINDS = ("empty", "goods", "tribe")


@dataclass(frozen=True)
class Piece:
    name: str
    shape: tuple[int, ...]
    counts: bool = False  # plain numbers (else 0/1)
    meaning: str = ""

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def stride(self) -> int:
        """Elements per index of the first axis."""
        return int(np.prod(self.shape[1:]))


class Encoding:
    """The tensor layout for one deck (its numbers of tribe and goods cards)."""

    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        nt, ng = deck.n_tribe, deck.n_goods
        self.context_size = max(nt, ng, N_BORDER, 5)
        holdings = []
        for who in ("me", "opponent"):
            holdings += [
                Piece(f"{who}_resources", (len(RESOURCE_NAMES),), True,
                      "salt, pepper, dates, gold, VP tokens"),
                Piece(f"{who}_hand", (nt,), meaning="the hand card (the opponent's only "
                      "once seen)"),
                Piece(f"{who}_display", (DISPLAY_SLOTS, nt),
                      meaning="each display slot (3 rows of 4, row by row): its card"),
                Piece(f"{who}_targis", (3, N_BORDER),
                      meaning="this round's Targis 1..3: the border position of each"),
                Piece(f"{who}_markers", (2, N_CELLS),
                      meaning="this round's tribe markers 1..2: the centre cell of each"),
            ]
        self.pieces: tuple[Piece, ...] = (
            Piece("seat", (2,), meaning="the observing seat"),
            Piece("to_move", (3,), meaning="who decides now: me, the opponent, nobody "
                  "(the deal, or the game is over)"),
            Piece("counters", (len(COUNTERS),), True, ", ".join(COUNTERS)),
            Piece("robber", (N_BORDER,), meaning="the robber's border position"),
            Piece("border_targis", (N_BORDER, 2), meaning="a Targi of mine / of the "
                  "opponent on each border position"),
            Piece("centre_kind", (N_CELLS, 3), meaning="each centre cell: empty, goods or "
                  "tribe card"),
            Piece("centre_face_up", (N_CELLS,), meaning="each centre cell's card is face up"),
            Piece("centre_markers", (N_CELLS, 2), meaning="a tribe marker of mine / of the "
                  "opponent on each cell"),
            Piece("centre_tribe", (N_CELLS, nt), meaning="each cell's tribe card, if face up"),
            Piece("centre_goods", (N_CELLS, ng), meaning="each cell's goods card, if face up"),
            *holdings,
            Piece("opponent_hand_unseen", (1,), meaning="the opponent holds a card not seen"),
            Piece("tribe_discard", (nt,), True, "tribe cards on the discard pile"),
            Piece("goods_discard", (ng,), True, "goods cards on the discard pile"),
            Piece("decision", (len(DECISION_NAMES),), meaning="the type of my pending "
                  "decision (all 0 when I am not to decide)"),
            Piece("context", (self.context_size,), meaning="its context: the Targi (place), "
                  "the goods card (central_goods, choose_good), the tribe card (tribe, "
                  "ability), the border card (trade, tribal_expansion), the raid number"),
        )
        self.size = sum(p.size for p in self.pieces)
        self._starts: dict[str, int] = {}
        self._strides: dict[str, int] = {}
        self._sizes: dict[str, int] = {}
        start = 0
        for p in self.pieces:
            self._starts[p.name] = start
            self._strides[p.name] = p.stride
            self._sizes[p.name] = p.size
            start += p.size

    # ---------------------------------------------------------------- the tensor
    def views(self, tensor: np.ndarray) -> dict[str, np.ndarray]:
        """Each piece as a reshaped view into the flat `tensor` (no copies)."""
        return {p.name: tensor[self._starts[p.name]:self._starts[p.name] + self._sizes[p.name]]
                .reshape(p.shape) for p in self.pieces}

    def at(self, name: str, *index: int) -> int:
        """The flat position of element `index` of piece `name` (first axis, then second)."""
        k = self._starts[name] + index[0] * self._strides[name]
        return k + index[1] if len(index) > 1 else k

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Lowest and highest value of each element (0..1, counts 0..COUNT_MAX)."""
        high = np.ones(self.size, dtype=np.float32)
        for p in self.pieces:
            if p.counts:
                high[self._starts[p.name]:self._starts[p.name] + p.size] = COUNT_MAX
        return np.zeros(self.size, dtype=np.float32), high

    def tensor(self, view: View | None, seat: int, to_move: int,
               decision: Decision | None = None) -> np.ndarray:
        out = np.zeros(self.size, dtype=np.float32)
        self.write(out, view, seat, to_move, decision)
        return out

    def write(self, out: np.ndarray, view: View | None, seat: int, to_move: int,
              decision: Decision | None = None) -> None:
        """Fill `out` (flat, `size` floats) with what `view` holds; `view` None: before
        the deal (only the seat and who is to move)."""
        out.fill(0.0)
        at = self.at
        if seat in (0, 1):  # OpenSpiel sizes the tensor with a placeholder player
            out[at("seat", seat)] = 1
        out[at("to_move", to_move)] = 1
        if view is None:
            return
        k = at("counters", 0)
        out[k:k + len(COUNTERS)] = (view.round, view.raids_done, int(view.i_am_first),
                                    view.tribe_deck_size, view.goods_deck_size)
        out[at("robber", view.robber)] = 1
        for i, (kind, up, card, marker) in enumerate(view.centre_ids):
            out[at("centre_kind", i, CELL_KINDS.index(kind))] = 1
            out[at("centre_face_up", i)] = up
            if marker is not None:
                out[at("centre_markers", i, 0 if marker == seat else 1)] = 1
            if card >= 0:
                out[at(f"centre_{kind}", i, card)] = 1
        for side, (who, h) in enumerate((("me", view.me), ("opponent", view.opponent))):
            for b in h.targis:
                out[at("border_targis", b, side)] = 1
            k = at(f"{who}_resources", 0)
            out[k:k + len(RESOURCE_NAMES)] = [h.resources[r] for r in RESOURCE_NAMES]
            hand = h.hand
            if hand == UNKNOWN:
                out[at("opponent_hand_unseen", 0)] = 1
            elif hand is not None:
                out[at(f"{who}_hand", hand.id)] = 1
            for slot, card in enumerate(h.display_slots):
                if card >= 0:
                    out[at(f"{who}_display", slot, card)] = 1
            for i, b in enumerate(h.targis):
                out[at(f"{who}_targis", i, b)] = 1
            for i, cell_index in enumerate(h.markers):
                out[at(f"{who}_markers", i, cell_index)] = 1
        tribe_discard, goods_discard = view.discard_ids
        for card in tribe_discard:
            out[at("tribe_discard", card)] += 1
        for card in goods_discard:
            out[at("goods_discard", card)] += 1
        if decision is not None:
            out[at("decision", DECISION_NAMES.index(decision.type))] = 1
            if 0 <= decision.context < self.context_size:
                out[at("context", decision.context)] = 1

    # ---------------------------------------------------------------- the string
    def text(self, view: View | None, seat: int, to_move: int,
             decision: Decision | None = None) -> str:
        """The same, in words (OpenSpiel's information state and observation strings)."""
        if view is None:
            return f"seat {seat}; the cards are not dealt yet"
        deck = self.deck
        amulet = " (holds the amulet)" if view.i_am_first else ""
        lines = [f"seat {seat}{amulet}; round {view.round}; robber on "
                 f"{view.robber + 1} {deck.border_names[view.robber]}; raids done "
                 f"{view.raids_done}; tribe deck {view.tribe_deck_size}, goods deck "
                 f"{view.goods_deck_size}"]
        for who, h in (("me", view.me), ("opponent", view.opponent)):
            res = ", ".join(f"{h.resources[k]} {k}" for k in RESOURCE_NAMES)
            hand = h.hand
            hand_text = ("none" if hand is None else "unknown" if hand == UNKNOWN
                         else _tribe(deck, hand.id))
            rows = " | ".join(", ".join(_tribe(deck, c) for c in
                                        h.display_slots[r * DISPLAY_COLS:(r + 1) * DISPLAY_COLS]
                                        if c >= 0) for r in range(3))
            targis = ", ".join(str(b + 1) for b in h.targis) or "-"
            markers = ", ".join(_cell(c) for c in h.markers) or "-"
            lines.append(f"{who}: {res}; hand {hand_text}; display [{rows}]; Targis on "
                         f"{targis}; markers on {markers}")
        cells = []
        for i, (kind, up, card, marker) in enumerate(view.centre_ids):
            what = ("empty" if kind == "empty" else f"{kind} face down" if not up else
                    _tribe(deck, card) if kind == "tribe" else _goods(deck, card))
            mark = "" if marker is None else (" (my marker)" if marker == seat
                                              else " (opponent's marker)")
            cells.append(f"{_cell(i)} {what}{mark}")
        lines.append("centre: " + "; ".join(cells))
        tribe_discard, goods_discard = view.discard_ids
        discards = ", ".join(_tribe(deck, c) for c in tribe_discard) or "-"
        goods = ", ".join(_goods(deck, g) for g in goods_discard) or "-"
        lines.append(f"discarded: tribe {discards}; goods {goods}")
        lines.append(_decision_text(to_move, decision))
        return "\n".join(lines)


def _tribe(deck: Deck, c: int) -> str:
    return f"#{c} {deck.tribe_names[c]}"


def _goods(deck: Deck, g: int) -> str:
    return f"goods #{g} {deck.goods_names[g]}"


def _cell(c: int) -> str:
    return f"({c // 3 + 1},{c % 3 + 1})"


def _decision_text(to_move: int, decision: Decision | None) -> str:
    if to_move == NOBODY:
        return "nobody is to decide"
    if to_move == OPPONENT or decision is None:
        return "the opponent is to decide"
    options = "; ".join(o.text for o in decision.options)
    return f"I decide: {decision.type} (context {decision.context}): {options}"


__all__ = ["COUNTERS", "COUNT_MAX", "Encoding", "ME", "NOBODY", "OPPONENT", "Piece",
           "TO_MOVE_NAMES"]
