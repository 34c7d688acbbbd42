"""The deck a run was played with, and its classes of identical printed tribe cards.

Why from the manifest: a run's card ids mean the cards of the deck it was played with,
which the manifest stores (checked against its sha256, runner/manifest.py); today's
deck file may have been edited since. Readers that rank cards (the report's tribe-card
table, causal card values) pool each class of copies (targi_sim.game.classes).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from targi_sim.errors import DataError, UsageError
from targi_sim.game.classes import CardClasses, card_classes, singletons
from targi_sim.game.deck import Deck
from targi_sim.runner.reading import RunInfo


def stored_deck(manifest: dict[str, Any]) -> Deck | None:
    """The deck stored in a run's manifest; None when it stores no deck text or the text
    no longer loads (a deck format changed since, a hand-built test run)."""
    from targi_sim.game.deck_edit import check_deck

    content = (manifest.get("deck") or {}).get("content")
    if not content:
        return None
    try:
        return check_deck(content, "the run's stored deck")
    except (DataError, UsageError):
        return None


def tribe_cards(run: RunInfo) -> pl.DataFrame:
    """The run's tribe cards (card_id, name, symbol, vp) by card id, from cards.parquet."""
    with open(run.path / "cards.parquet", "rb") as f:  # a path, never a glob pattern
        cards = pl.read_parquet(f)
    return (cards.filter(pl.col("card_type") == "tribe").sort("card_id")
            .select(pl.col("card_id").cast(pl.Int64), "name", "symbol",
                    pl.col("vp").cast(pl.Int64)))


def run_classes(run: RunInfo) -> CardClasses:
    """The classes of identical tribe cards of the run's deck; every card its own class
    when the stored deck does not load or does not match cards.parquet (nothing shows
    two cards to be copies then, so none are pooled)."""
    names = tribe_cards(run)["name"].to_list()
    deck = stored_deck(run.manifest)
    if deck is None or list(deck.tribe_names) != names:
        return singletons(len(names), names)
    return card_classes(deck)


__all__ = ["run_classes", "stored_deck", "tribe_cards"]
