"""Decks that say they share base.toml's cards do share them.

Why: abilities-example once kept the token economy's Silversmith while its header said
"same border ... as base.toml", so every figure measured on it mixed two changes (the
abilities and the economy). A deck that claims to be base with one difference must
differ from base in that one place only.
"""

from __future__ import annotations

import numpy as np

from targi_sim.game.deck import Deck, load_deck

BORDER = ("border_names", "border_kind", "border_gain", "border_amount", "border_trade_lo",
          "border_trade_hi", "trade_give", "trade_give_amount", "trade_get",
          "trade_get_amount", "raid_number", "raid_goods", "raid_gold", "raid_vp",
          "raid_ends_game")
GOODS = ("goods_names", "goods")
TRIBE_PRINTED = ("tribe_symbol", "tribe_vp", "tribe_cost")  # what a card's face prints
SILVERSMITH_TRADES = ("trade_give", "trade_give_amount", "trade_get", "trade_get_amount")


def _differing(a: Deck, b: Deck, fields: tuple[str, ...]) -> list[str]:
    return [f for f in fields if not np.array_equal(np.asarray(getattr(a, f)),
                                                     np.asarray(getattr(b, f)))]


def test_abilities_example_has_base_border_goods_and_printed_tribe_cards():
    base, example = load_deck("base"), load_deck("abilities-example")
    assert _differing(base, example, BORDER + GOODS + TRIBE_PRINTED) == []
    # what it adds: abilities and alternative costs on some tribe cards
    assert (example.tribe_ability != base.tribe_ability).any()
    assert example.tribe_has_alt.any() and not base.tribe_has_alt.any()


def _silversmith_trades(deck: Deck) -> slice:
    pos = deck.border_names.index("Silversmith")
    return slice(int(deck.border_trade_lo[pos]), int(deck.border_trade_hi[pos]))


def test_base_token_economy_differs_from_base_in_the_silversmith_rates_only():
    base, token = load_deck("base"), load_deck("base-token-economy")
    assert _differing(base, token, GOODS + TRIBE_PRINTED + ("tribe_ability",)) == []
    assert _differing(base, token, tuple(f for f in BORDER if f not in SILVERSMITH_TRADES)) == []
    rates = _silversmith_trades(base)
    assert rates == _silversmith_trades(token)
    outside = np.ones(len(base.trade_give), dtype=bool)
    outside[rates] = False
    for f in SILVERSMITH_TRADES:
        assert np.array_equal(getattr(base, f)[outside], getattr(token, f)[outside]), f
    assert not np.array_equal(base.trade_get_amount[rates], token.trade_get_amount[rates])

