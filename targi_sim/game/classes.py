"""Card classes: identical printed tribe cards, counted as one card.

Why: a real deck prints some tribe cards twice (same symbol, VP, cost, ability). Two
copies cannot differ in play, so what separates their measured values is sampling
noise; a grade or a balance edit that tells them apart fits that noise. Every measure
that ranks cards pools a class's copies (its counts summed over the copies, per deal),
and every edit of a class applies to all its copies.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from targi_sim.game.deck import Deck


@dataclass(frozen=True)
class CardClasses:
    """A partition of a deck's tribe cards into classes of identical printed cards.

    Classes are numbered in the order of their first card; `of_card[c]` is card c's
    class, `members[k]` the cards of class k (ascending)."""

    members: tuple[tuple[int, ...], ...]
    of_card: np.ndarray
    names: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.members)

    def first(self) -> np.ndarray:
        """Each class's first card (the card whose values stand for the class)."""
        return np.array([m[0] for m in self.members], dtype=np.int64)

    def copies(self) -> np.ndarray:
        return np.array([len(m) for m in self.members], dtype=np.int64)

    def pool(self, per_card: np.ndarray) -> np.ndarray:
        """Sum the card columns (the last axis) of `per_card` into class columns: a
        product with the 0/1 card x class matrix (the sums of counts and points it
        pools are exact in any order)."""
        a = np.asarray(per_card, dtype=np.result_type(np.asarray(per_card).dtype,
                                                      np.float64))
        member = np.zeros((a.shape[-1], self.size))
        member[np.arange(len(self.of_card)), self.of_card] = 1.0
        return a @ member

    def card_ids(self, k: int) -> str:
        """Class k's card ids as text: '14, 15' for copies, '7' for a lone card."""
        return ", ".join(str(c) for c in self.members[k])

    def label(self, k: int) -> str:
        """The class's name and, for a class of copies, its card ids."""
        return self.names[k] if len(self.members[k]) == 1 else (
            f"{self.names[k]} (cards {self.card_ids(k)})")

    def columns(self) -> dict[str, list]:
        """The columns that name each class in a table of classes: card_id (its first
        card, so a designer still finds the card by its id), name, copies, card_ids."""
        return {"card_id": [m[0] for m in self.members], "name": list(self.names),
                "copies": [len(m) for m in self.members],
                "card_ids": [self.card_ids(k) for k in range(self.size)]}


def card_key(deck: Deck, c: int) -> tuple:
    """Everything printed on tribe card c that play can see (not its name or source)."""
    return (int(deck.tribe_symbol[c]), int(deck.tribe_vp[c]),
            tuple(int(x) for x in deck.tribe_cost[c]),
            int(deck.tribe_has_alt[c]),
            tuple(int(x) for x in deck.tribe_alt_cost[c]) if deck.tribe_has_alt[c] else (),
            int(deck.tribe_ability[c]), tuple(int(x) for x in deck.tribe_ab_params[c]))


def class_name(names: Sequence[str]) -> str:
    """'Camel Rider 1VP #1, #2' for copies named alike; the names joined otherwise."""
    if len(names) == 1:
        return names[0]
    heads = {n.rsplit("#", 1)[0] for n in names}
    if len(heads) == 1 and all("#" in n for n in names):
        head = heads.pop()
        return head + ", ".join("#" + n.rsplit("#", 1)[1] for n in names)
    return " = ".join(names)


def card_classes(deck: Deck, distinct: Iterable[int] = ()) -> CardClasses:
    """The deck's classes of identical tribe cards. `distinct`: cards a designer means to
    differ from their copies (each stands alone)."""
    alone = set(int(c) for c in distinct)
    groups: dict[tuple, list[int]] = {}
    order: list[tuple] = []
    for c in range(deck.n_tribe):
        key = ("alone", c) if c in alone else card_key(deck, c)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(c)
    members = tuple(tuple(groups[k]) for k in order)
    of_card = np.empty(deck.n_tribe, dtype=np.int64)
    for k, m in enumerate(members):
        of_card[list(m)] = k
    names = tuple(class_name([deck.tribe_names[c] for c in m]) for m in members)
    return CardClasses(members, of_card, names)


def common_classes(a: CardClasses, b: CardClasses, names: Sequence[str]) -> CardClasses:
    """The classes two decks agree on: two cards share a class only if they are copies
    in both (a designer who edited one copy made it a card of its own). `names`: the
    cards' names (deck a's), for the classes' names."""
    if len(a.of_card) != len(b.of_card):
        raise ValueError("decks of different sizes have no common classes")
    groups: dict[tuple[int, int], list[int]] = {}
    for c in range(len(a.of_card)):
        groups.setdefault((int(a.of_card[c]), int(b.of_card[c])), []).append(c)
    members = tuple(tuple(m) for m in sorted(groups.values()))
    of_card = np.empty(len(a.of_card), dtype=np.int64)
    for k, m in enumerate(members):
        of_card[list(m)] = k
    return CardClasses(members, of_card,
                       tuple(class_name([names[c] for c in m]) for m in members))


def singletons(n_cards: int, names: Sequence[str]) -> CardClasses:
    """Every card its own class (what `card_classes` gives a deck without copies)."""
    members = tuple((c,) for c in range(n_cards))
    return CardClasses(members, np.arange(n_cards, dtype=np.int64), tuple(names))


__all__ = ["CardClasses", "card_classes", "common_classes", "card_key", "class_name", "singletons"]
