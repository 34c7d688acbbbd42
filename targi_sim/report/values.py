"""What a good and a gold are worth in VP: moved to targi_sim.game.vp_rates (the run's
chunk summaries need them too); kept here for the report's imports."""

from targi_sim.game.vp_rates import (
    FALLBACK_GOLD_VP,
    FALLBACK_GOODS_VP,
    VpRates,
    rates_from_deck,
    rates_from_manifest,
)

__all__ = ["FALLBACK_GOLD_VP", "FALLBACK_GOODS_VP", "VpRates", "rates_from_deck",
           "rates_from_manifest"]
