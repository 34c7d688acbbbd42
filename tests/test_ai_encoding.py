"""The action numbering and the observation encoding shared by the OpenSpiel game and
the PettingZoo environment (targi_sim/ai/): every option has one number, and the
encoding holds what the seat's View holds and nothing hidden."""

from __future__ import annotations

import numpy as np
import pytest

from targi_sim import new_game
from targi_sim.ai.actions import BLOCK_SIZES, NUM_ACTIONS, action_of, decode
from targi_sim.ai.encoding import ME, NOBODY, Encoding
from targi_sim.ai.table import Table, TableSettings
from targi_sim.engine.codes import marker_code, swap_code, trade_code
from targi_sim.errors import ConfigError, UsageError
from targi_sim.play.pairing import pair_seed


def test_every_action_number_decodes_to_the_option_it_numbers():
    assert sum(BLOCK_SIZES.values()) == NUM_ACTIONS
    for a in range(NUM_ACTIONS):
        assert action_of(*decode(a)) == a
    assert decode(action_of("trade", trade_code(31, 4, 3))) == ("trade", trade_code(31, 4, 3))
    assert decode(action_of("fata_morgana", marker_code(1, 8)))[1] == marker_code(1, 8)
    assert decode(action_of("ability", swap_code(11, 10)))[1] == swap_code(11, 10)
    assert decode(action_of("trade", -1)) == ("trade", -1)
    with pytest.raises(ValueError, match="no action number"):
        action_of("place", 16)
    with pytest.raises(ValueError, match="not in 0"):
        decode(NUM_ACTIONS)


def _random_decisions(deck: str, games: int, seed: int):
    """(game, decision) at every decision of random games (the game is live: use now)."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        game = new_game(seed * 100 + g, deck=deck, transcript=True, first_player=g % 2)
        while not game.is_over:
            yield game, game.decision
            game.apply(int(rng.integers(len(game.decision.values))))


@pytest.mark.parametrize("deck", ["base", "abilities-example"])
def test_every_option_played_has_its_own_action_number(deck):
    types = set()
    for _game, d in _random_decisions(deck, 6, 3):
        actions = [action_of(d.type, v) for v in d.values]
        assert len(set(actions)) == len(actions), d
        types.add(d.type)
    assert {"place", "action", "tribe", "trade"} <= types


@pytest.mark.parametrize("deck", ["base", "abilities-example"])
def test_the_encoding_holds_nothing_the_seat_cannot_know(deck):
    """The way `strategies check` tests a strategy: re-deal everything the seat to decide
    cannot know (Game.resample) and its string and tensor must not change -- while the
    re-deals do change the hidden cards, and the encoding does change as play goes on."""
    enc = None
    changed_hidden = changed_public = 0
    last = None
    for checked, (game, d) in enumerate(_random_decisions(deck, 3, 7)):
        enc = enc or Encoding(game.match.deck)
        p = d.player
        text = enc.text(game.view(p), p, ME, d)
        tensor = enc.tensor(game.view(p), p, ME, d)
        if last is not None and not np.array_equal(last, tensor):
            changed_public += 1
        last = tensor
        if checked % 5 == 0:
            other = game.resample(checked)
            changed_hidden += not np.array_equal(other.frozen, game.frozen)
            assert enc.text(other.view(p), p, ME, other.decision) == text
            assert np.array_equal(enc.tensor(other.view(p), p, ME, other.decision), tensor)
    assert changed_hidden > 10 and changed_public > 100


def test_the_tensor_says_what_the_view_says():
    game = new_game(5, transcript=True)
    for _ in range(40):
        game.apply(len(game.decision.values) - 1)
    enc = Encoding(game.match.deck)
    d = game.decision
    p = d.player
    view = game.view(p)
    t = enc.views(enc.tensor(view, p, ME, d))
    assert t["seat"][p] == 1 and t["to_move"][ME] == 1
    assert list(t["me_resources"]) == list(view.me.resources.values())
    assert list(t["opponent_resources"]) == list(view.opponent.resources.values())
    assert t["counters"][0] == view.round and t["robber"][view.robber] == 1
    assert t["me_display"].sum() == view.me.display_count
    assert sorted(np.nonzero(t["me_targis"])[1]) == sorted(view.me.targis)
    assert t["decision"].sum() == 1
    face_up = [c for c in view.centre if c.card is not None]
    assert t["centre_tribe"].sum() + t["centre_goods"].sum() == len(face_up)
    lo, hi = enc.bounds()
    assert enc.size == len(lo) == len(hi) and (lo <= hi).all()
    before = enc.tensor(None, 0, NOBODY)
    assert before[:2].tolist() == [1, 0] and before.sum() == 2


def test_a_table_deals_the_games_of_a_one_per_deal_run():
    table = Table(TableSettings(run_seed=9, deals=10))
    game = table.deal(3)
    ref = new_game(pair_seed(9, 3), first_player=1)
    assert np.array_equal(game.frozen, ref.frozen) and game.game_id == 3
    with pytest.raises(ValueError, match="0..9"):
        table.deal(10)


@pytest.mark.parametrize("settings,error,words", [
    (TableSettings(deck="nope"), UsageError, "unknown deck 'nope'"),
    (TableSettings(rules="nope"), UsageError, "unknown rules"),
    (TableSettings(deals=0), ConfigError, "`deals` must be a whole number"),
    (TableSettings(run_seed=-1), ConfigError, "`run_seed` must be"),
    (TableSettings(logs="yes"), ConfigError, "`logs` must be true or false"),
])
def test_a_malformed_setting_is_one_clear_error(settings, error, words):
    with pytest.raises(error, match=words) as info:
        Table(settings)
    assert "\n" not in str(info.value)


def test_docs_ai_lists_every_piece_and_every_action_block():
    """docs/ai.md's tables say what the encoding and the action numbers hold."""
    from pathlib import Path

    from targi_sim import load_deck

    text = (Path(__file__).resolve().parent.parent / "docs" / "ai.md").read_text()
    enc = Encoding(load_deck("base"))
    for piece in enc.pieces:
        if not piece.name.startswith("opponent_") or piece.name == "opponent_hand_unseen":
            assert f"| `{piece.name}` |" in text, piece.name
    for name, size in BLOCK_SIZES.items():
        assert f"| `{name}` | {size} |" in text, name
    assert f"{enc.size:,} numbers" in text and f"{NUM_ACTIONS:,} numbers" in text
