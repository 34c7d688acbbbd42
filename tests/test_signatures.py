"""Each named strategy does what its name says (issue 15), and the figures are exact."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from targi_sim import load_deck
from targi_sim.audits.signatures import PROMISES, _per_player, signature

START = {"salt": 2, "pepper": 2, "dates": 2, "gold": 1, "vp": 4}


def _fixture(deck):
    """Two games; known figures for each player worked out by hand below."""
    cost = np.asarray(deck.tribe_cost)
    cheap = int(np.flatnonzero(cost.sum(axis=1) == cost.sum(axis=1).min())[0])
    dear = int(np.argmax(cost[:, 0] + cost[:, 1] + cost[:, 2]))
    games = pl.DataFrame({"game_id": [0, 1], "pair_id": [0, 0],
                          "row_bonus_p0": [4, 0], "row_bonus_p1": [0, 2]})
    rounds = pl.DataFrame({
        "game_id": [0, 0, 0, 0, 1, 1], "round": [1, 1, 2, 2, 1, 1],
        "player": [0, 1, 0, 1, 0, 1], "gold": [1, 0, 3, 0, 2, 2],
        "salt": [0, 9, 0, 0, 0, 0], "pepper": [0, 9, 0, 0, 0, 0], "dates": [0, 9, 0, 0, 0, 0]})
    raids = pl.DataFrame({"game_id": [0, 0, 1], "player": [0, 0, 1], "amount": [1, 2, 3],
                          "paid": ["goods", "vp", "goods"]})
    acquisitions = pl.DataFrame({
        "game_id": [0, 0, 0, 1], "round": [1, 2, 2, 2], "player": [0, 0, 1, 0],
        "card_id": [cheap, dear, cheap, cheap],
        "source": ["centre", "centre", "tribal_expansion", "centre"]}).with_columns(
        pl.col("card_id").cast(pl.Int32))
    return games, {"rounds": rounds, "raids": raids, "acquisitions": acquisitions}


def test_the_figures_of_a_hand_built_game_are_exact():
    deck = load_deck("base")
    games, tables = _fixture(deck)
    rows = _per_player(games, tables, deck, START).sort("game_id", "player")
    got = {(r["game_id"], r["player"]): r for r in rows.iter_rows(named=True)}
    assert got[0, 0]["row_bonus"] == 4 and got[1, 1]["row_bonus"] == 2
    assert got[0, 0]["gold_held"] == 2.0 and got[0, 1]["gold_held"] == 0.0
    assert got[0, 0]["raid_losses"] == 3 and got[1, 1]["raid_losses"] == 3
    assert got[0, 1]["raid_losses"] == 0
    assert got[0, 0]["raid_vp_lost"] == 2 and got[1, 1]["raid_vp_lost"] == 0
    # game 0, seat 0: round 1 the cheap card while the opponent held the start tokens
    # (2/2/2/1: affordable -> denied); round 2 the dear card while the opponent held
    # 9/9/9 and no gold (denied only if it costs no gold). The tribal-expansion card does
    # not count; game 1's round-2 card counts only if the opponent's 0/0/0/2 pays it.
    dear_gold = int(np.asarray(deck.tribe_cost)[tables["acquisitions"]["card_id"][1], 3])
    assert got[0, 0]["cards_denied"] == 1 + (dear_gold == 0)
    cheap_cost = np.asarray(deck.tribe_cost)[tables["acquisitions"]["card_id"][0]]
    assert got[1, 0]["cards_denied"] == ((cheap_cost[:3] == 0).all() and cheap_cost[3] <= 2)
    assert got[0, 1]["cards_denied"] == 0


# every promise on the calibrated base deck; blocker also on the token-economy deck it
# was written for (with the token economy's balanced it kept it only there)
PROMISE_DECK = {"blocker": "base-token-economy"}


# raid-averse breaks its promise on the re-calibrated base deck and default rules (an
# unpaid raid costs nothing): it loses more VP to raids than balanced, +0.11 VP a game
# (+0.03 .. +0.18, p = 0.008, these 4,000 games). Strict: the day it keeps it again, this
# test says so. Re-deriving raid-averse for the deck is open (docs/strategies.md).
BROKEN = {("raid-averse", "base"): "raid-averse pays more raid VP than balanced on base"}


@pytest.mark.parametrize("name, deck", [
    pytest.param(n, d, marks=pytest.mark.xfail(strict=True, reason=BROKEN[n, d]))
    if (n, d) in BROKEN else (n, d)
    for n, d in [(n, "base") for n in PROMISES] + list(PROMISE_DECK.items())])
def test_each_named_strategy_moves_its_signature_figure(name, deck):
    figure, direction = PROMISES[name]
    s = signature(name, games=4000, seed=21, deck=deck)[figure]
    assert s.pairs == 2000
    assert s.keeps_promise(direction), s
