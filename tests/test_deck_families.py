"""Decks that say they share base.toml's cards do share them.

Why: abilities-example once kept the token economy's Silversmith while its header said
"same border ... as base.toml", so every figure measured on it mixed two changes (the
abilities and the economy). A deck that claims to be base with one difference must
differ from base in that one place only.
"""

from __future__ import annotations

import numpy as np

from targi_sim.calibrate import load_space
from targi_sim.calibrate.space import economy, value_key
from targi_sim.game.deck import Deck, load_deck
from targi_sim.game.rules import load_rules

BORDER = ("border_names", "border_kind", "border_gain", "border_amount", "border_trade_lo",
          "border_trade_hi", "trade_give", "trade_give_amount", "trade_get",
          "trade_get_amount", "raid_number", "raid_goods", "raid_gold", "raid_vp",
          "raid_ends_game")
GOODS = ("goods_names", "goods")
TRIBE_PRINTED = ("tribe_symbol", "tribe_vp", "tribe_cost")  # what a card's face prints


def _differing(a: Deck, b: Deck, fields: tuple[str, ...]) -> list[str]:
    return [f for f in fields if not np.array_equal(np.asarray(getattr(a, f)),
                                                     np.asarray(getattr(b, f)))]


def test_abilities_example_has_base_border_goods_and_printed_tribe_cards():
    base, example = load_deck("base"), load_deck("abilities-example")
    assert _differing(base, example, BORDER + GOODS + TRIBE_PRINTED) == []
    # what it adds: abilities and alternative costs on some tribe cards
    assert (example.tribe_ability != base.tribe_ability).any()
    assert example.tribe_has_alt.any() and not base.tribe_has_alt.any()


def test_base_differs_from_the_token_economy_only_in_the_calibrated_values():
    """base.toml is base-token-economy with the values of the calibration space changed
    (docs/calibrate.md); nothing else of the deck differs."""
    rules = load_rules("default")
    base, token = load_deck("base"), load_deck("base-token-economy")
    space = load_space("economy-space", token, rules)
    shipped = load_space("economy-space", base, rules).current()
    changed = [p for p, v in shipped.items() if value_key(v) != value_key(space.current()[p])]
    assert len(changed) >= 3  # the Merchant's and Silversmith's rates, at least
    made, _, _ = economy(space, shipped, token, rules, "base")
    assert _differing(made, base, BORDER + GOODS + TRIBE_PRINTED + ("tribe_ability",)) == []
