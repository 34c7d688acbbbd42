"""What a good and a gold are worth in VP, read from the run's own deck.

Raid losses are paid in VP, goods or gold; to add them up the report needs one
exchange rate. The deck's exchange border cards (e.g. the Silversmith) set the
rates a player can actually get, so the best VP-per-unit trade in the deck is
used; a designer who changes a trade table sees the report follow. Decks
without such a trade fall back to the base deck's rates. Here (not in the report)
because the run's worker values the raid swings of its chunk summaries with them.
"""

from __future__ import annotations

from dataclasses import dataclass

from targi_sim.engine.constants import TG_DATES, TG_GOLD, TG_PEPPER, TG_SALT, TG_SAME_GOOD, TR_VP

FALLBACK_GOODS_VP = 0.5  # base deck: 2 goods of one kind -> 1 VP (worst trade)
FALLBACK_GOLD_VP = 2.0   # base deck: 1 gold -> 2 VP


@dataclass(frozen=True)
class VpRates:
    goods_vp: float
    gold_vp: float
    source: str  # how they were found, for the report text


def rates_from_deck(deck) -> VpRates:
    """Best VP per good and per gold over the deck's exchange trades."""
    goods, gold = [], []
    for give, give_n, get, get_n in zip(deck.trade_give, deck.trade_give_amount,
                                        deck.trade_get, deck.trade_get_amount, strict=True):
        if int(get) != TR_VP or int(give_n) <= 0:
            continue
        rate = int(get_n) / int(give_n)
        if int(give) == TG_GOLD:
            gold.append(rate)
        elif int(give) in (TG_SAME_GOOD, TG_SALT, TG_PEPPER, TG_DATES):
            goods.append(rate)
    if goods and gold:
        return VpRates(max(goods), max(gold), "the best VP trades of the run's deck")
    return VpRates(max(goods, default=FALLBACK_GOODS_VP), max(gold, default=FALLBACK_GOLD_VP),
                   "the deck's VP trades where it has them, else the base deck's")

