"""What a good and a gold are worth in VP for a run: the rates of the deck its manifest
stores (targi_sim.game.vp_rates, which the run's worker uses too)."""

from __future__ import annotations

from targi_sim.game.vp_rates import (
    FALLBACK_GOLD_VP,
    FALLBACK_GOODS_VP,
    VpRates,
    rates_from_deck,
)


def rates_from_manifest(manifest: dict) -> VpRates:
    """Rates from the deck text stored in a run's manifest (fallback if unreadable)."""
    from targi_sim.runner.classes import stored_deck

    deck = stored_deck(manifest)
    if deck is None:
        return VpRates(FALLBACK_GOODS_VP, FALLBACK_GOLD_VP, "the base deck's rates")
    return rates_from_deck(deck)


__all__ = ["FALLBACK_GOLD_VP", "FALLBACK_GOODS_VP", "VpRates", "rates_from_deck",
           "rates_from_manifest"]
