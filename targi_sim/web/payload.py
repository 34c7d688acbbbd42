"""What the play page is sent: a player's View, a decision and its options, as JSON.

Why only from a View: the page must never receive what its player may not know (deck
order, face-down cards, the opponent's unseen hand), and a View holds nothing of that
(targi_sim.game.view; the no-peeking proof checks it). The scores come from the engine's
scoring of the displays and tokens, which both players see.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from targi_sim.engine.constants import RESOURCE_NAMES, SYMBOL_NAMES
from targi_sim.engine.scoring import score_parts
from targi_sim.game.decisions import Decision, Place
from targi_sim.game.deck import Deck
from targi_sim.game.view import UNKNOWN, Holdings, View

CELL_CODE = {"empty": -1, "goods": 0, "tribe": 1}
HIDDEN_CARD = -2  # board.js: a face-down centre card, or a hand card the player has not seen
SCORE_PARTS = ("tokens", "card_vp", "ability_vp", "row_bonus", "total")


def _holdings(h: Holdings) -> dict[str, Any]:
    hand = h.hand
    return {"res": [h.resources[k] for k in RESOURCE_NAMES],
            "hand": -1 if hand is None else HIDDEN_CARD if hand == UNKNOWN else hand.id,
            "display": list(h.display_slots), "targis": list(h.targis), "markers": list(h.markers)}


def view_json(view: View, scores: list[dict[str, int]]) -> dict[str, Any]:
    """A position as seat `view.player` may know it (players listed by seat)."""
    players = [None, None]
    players[view.player] = _holdings(view.me)
    players[1 - view.player] = _holdings(view.opponent)
    for p in range(2):
        players[p]["score"] = scores[p]
    return {
        "round": view.round, "robber": view.robber, "first": view.first_player,
        "raids_done": view.raids_done,
        "targi": [-1 if b.targi is None else b.targi for b in view.border],
        "cells": [[CELL_CODE[c.kind], int(c.face_up),
                   c.card.id if c.card is not None else (HIDDEN_CARD if c.kind != "empty"
                                                         else -1),
                   -1 if c.marker is None else c.marker] for c in view.centre],
        "tribe_deck": view.tribe_deck_size, "goods_deck": view.goods_deck_size,
        "tribe_discard": [c.id for c in view.tribe_discard],
        "goods_discard": [g.id for g in view.goods_discard],
        "players": players,
    }


def scores_of(S: np.ndarray, D: np.ndarray, R: np.ndarray) -> list[dict[str, int]]:
    """Each seat's score as the game stands, in parts (from displays and tokens)."""
    return [dict(zip(SCORE_PARTS, (int(x) for x in score_parts(S, D, R, p)), strict=True))
            for p in range(2)]


def _card(deck: Deck, c: int) -> str:
    return f"'{deck.tribe_names[c]}' ({SYMBOL_NAMES[int(deck.tribe_symbol[c])]}, " \
           f"{int(deck.tribe_vp[c])} VP)"


def decision_title(deck: Deck, d: Decision, hand: int = -1) -> str:
    """What the decision asks, in words, with its context (which card, which raid);
    `hand`: the deciding player's hand card (a tribe decision about it is the Noble's)."""
    ctx, t = d.context, d.type
    if t == "tribe" and ctx == hand >= 0:
        return f"The Noble: your hand card {_card(deck, ctx)}: play it, or keep it in hand"
    border = (lambda b: f"{b + 1} {deck.border_names[b]}") if t in (
        "trade", "tribal_expansion") else None
    titles = {
        "place": f"Place your Targi {ctx + 1} of 3 on a free border card",
        "action": "Resolve your actions: which one next?",
        "central_goods": (f"Take or leave the goods card '{deck.goods_names[ctx]}'"
                          if 0 <= ctx < len(deck.goods_names) else "Take or leave a goods card"),
        "choose_good": "Choose the good this goods card gives",
        "tribe": (f"The tribe card {_card(deck, ctx)}: play it, keep it in hand, or not"
                  if 0 <= ctx < len(deck.tribe_names) else "A tribe card"),
        "trade": f"Trade at {border(ctx)}" if border and 0 <= ctx < 16 else "Trade",
        "fata_morgana": "Fata Morgana: you may move one of your tribe markers",
        "raid_mode": f"Raid {ctx}: pay with goods or gold, or with VP?",
        "raid_good": f"Raid {ctx}: choose a good to give up",
        "discard_good": "Goods limit: choose a good to discard",
        "tribal_expansion": (f"Tribal Expansion ({border(ctx)}): draw the top tribe card?"
                             if border and 0 <= ctx < 16 else "Draw the top tribe card?"),
        "ability": (f"{_card(deck, ctx)}: swap two cards of your display?"
                    if 0 <= ctx < len(deck.tribe_names) else "Use a card's ability?"),
    }
    return titles.get(t, t)


def decision_json(deck: Deck, d: Decision, seq: int, hand: int = -1) -> dict[str, Any]:
    """The decision the page shows as buttons; `seq` numbers it (answers so far), so an
    answer meant for another decision is refused. A placement names its border card
    (`place`, position 0..15) so the board can take the click too."""
    options = []
    for i, o in enumerate(d.options):
        item: dict[str, Any] = {"index": i, "text": o.text}
        if isinstance(o, Place):
            item["place"] = o.position
        options.append(item)
    return {"seq": seq, "type": d.type, "title": decision_title(deck, d, hand),
            "options": options}


__all__ = ["HIDDEN_CARD", "SCORE_PARTS", "decision_json", "decision_title",
           "scores_of", "view_json"]
