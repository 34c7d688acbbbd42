"""Card classes: identical printed tribe cards form one class (targi_sim.game.classes)."""

import numpy as np

from targi_sim.game.classes import card_classes, class_name
from targi_sim.game.deck import load_deck


def test_base_deck_has_five_pairs_of_copies():
    classes = card_classes(load_deck("base"))
    pairs = [m for m in classes.members if len(m) > 1]
    assert pairs == [(2, 3), (14, 15), (24, 25), (34, 35), (41, 42)]
    assert classes.size == 45 - 5
    assert all(classes.of_card[a] == classes.of_card[b] for a, b in pairs)


def test_copies_differ_once_any_printed_field_differs():
    deck = load_deck("base")
    vp = deck.tribe_vp.copy()
    vp[15] += 1
    from dataclasses import replace

    classes = card_classes(replace(deck, tribe_vp=vp))
    assert classes.of_card[14] != classes.of_card[15]


def test_distinct_cards_stand_alone():
    classes = card_classes(load_deck("base"), distinct=[3])
    assert classes.of_card[2] != classes.of_card[3]
    assert classes.size == 41


def test_pool_sums_the_copies_columns():
    classes = card_classes(load_deck("base"))
    per_card = np.arange(2 * 45, dtype=float).reshape(2, 45)
    pooled = classes.pool(per_card)
    k = classes.of_card[14]
    assert pooled.shape == (2, 40)
    assert np.allclose(pooled[:, k], per_card[:, 14] + per_card[:, 15])
    assert np.allclose(pooled.sum(axis=1), per_card.sum(axis=1))


def test_class_names():
    assert class_name(["Camp 1VP #2", "Camp 1VP #3"]) == "Camp 1VP #2, #3"
    assert class_name(["A", "B"]) == "A = B"
    assert class_name(["Well 2VP #1"]) == "Well 2VP #1"


def test_columns_name_each_class_by_its_first_card():
    classes = card_classes(load_deck("base"))
    cols = classes.columns()
    k = int(classes.of_card[14])
    assert (cols["card_id"][k], cols["name"][k], cols["copies"][k], cols["card_ids"][k]) == (
        14, "Camel Rider 1VP #1, #2", 2, "14, 15")
    assert 15 not in cols["card_id"] and sum(cols["copies"]) == 45
    lone = int(classes.of_card[16])
    assert (cols["copies"][lone], cols["card_ids"][lone]) == (1, "16")


def test_a_run_without_a_loadable_stored_deck_pools_nothing():
    """The deck text a run's manifest stores gives its classes; text that does not load
    gives none (runner/classes.py)."""
    from targi_sim._utils.paths import data_dir
    from targi_sim.runner.classes import stored_deck

    text = (data_dir() / "decks" / "base.toml").read_text(encoding="utf-8")
    assert card_classes(stored_deck({"deck": {"content": text}})).size == 40
    assert stored_deck({"deck": {"content": "# not a deck\n"}}) is None
    assert stored_deck({"deck": {"name": "base"}}) is None


def test_common_classes_split_a_copy_edited_in_one_deck():
    """compare's verdict pools only cards that are copies in both runs' decks."""
    from dataclasses import replace

    from targi_sim.game.classes import common_classes

    deck = load_deck("base")
    vp = deck.tribe_vp.copy()
    vp[15] += 1
    a, b = card_classes(deck), card_classes(replace(deck, tribe_vp=vp))
    both = common_classes(a, b, deck.tribe_names)
    assert both.size == 41 and both.of_card[14] != both.of_card[15]
    assert both.of_card[2] == both.of_card[3]
    assert both.names[int(both.of_card[2])] == "Targia 2VP #1, #2"
