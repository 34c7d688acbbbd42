"""Determinisation re-deals exactly the hidden part of a state (docs/rules.md §8)."""

import numpy as np

from targi_sim.engine import layout as lay
from targi_sim.engine.information import determinize
from targi_sim.engine.rng import seed_stream
from targi_sim.play.scenario import Scenario


def _mid_game(seed: int) -> Scenario:
    sc = Scenario(seed=seed)
    sc.use(0, "random")
    sc.use(1, "random")
    for _ in range(4):
        sc.play_round()
    # make some hidden information: a face-down cell and an opponent hand card
    sc.state.set_cell(1, lay.CELL_TRIBE, sc.state.tribe_deck[-1], face_up=False)
    sc.state.set_tribe_deck(sc.state.tribe_deck[:-1])
    if sc.players[1].hand < 0:
        sc.players[1].hand = sc.state.tribe_deck[-1]
        sc.state.set_tribe_deck(sc.state.tribe_deck[:-1])
    return sc


def _public(state, p):
    """Everything player p may see, as a comparable tuple."""
    S = state.S
    cells = []
    for c in range(9):
        kind, card, up, marker = state.cell(c)
        cells.append((kind, card if up else None, up, marker))
    me, other = state.players[p], state.players[1 - p]
    return (
        tuple(cells), len(state.tribe_deck), len(state.goods_deck),
        tuple(state.tribe_discard), tuple(state.goods_discard),
        tuple(map(tuple, me.display)), tuple(map(tuple, other.display)),
        me.hand, other.hand >= 0, tuple(me.resources().items()),
        tuple(other.resources().items()), int(S[lay.S_ROBBER]), int(S[lay.S_FIRST]),
    )


def test_determinize_keeps_public_facts_and_card_sets():
    for seed in range(5):
        sc = _mid_game(seed)
        before = sc.state.copy()
        tribe_before = sorted(sc.state.tribe_cards_everywhere())
        goods_before = sorted(sc.state.goods_cards_everywhere())
        scratch = np.zeros(128, dtype=np.int64)
        determinize(sc.state.S, 0, lay.S_POLICY_RNG, scratch)
        assert _public(sc.state, 0) == _public(before, 0)
        assert sorted(sc.state.tribe_cards_everywhere()) == tribe_before
        assert sorted(sc.state.goods_cards_everywhere()) == goods_before


def test_determinize_resamples_the_hidden_part_only():
    sc = _mid_game(3)
    own_hand = sc.state.tribe_deck[-1]
    sc.players[0].hand = own_hand
    sc.state.set_tribe_deck(sc.state.tribe_deck[:-1])
    seen = set()
    for k in range(20):
        copy = sc.state.copy()
        seed_stream(copy.S, lay.S_POLICY_RNG, 1000 + k, 0)  # a new stream per sample
        determinize(copy.S, 0, lay.S_POLICY_RNG, np.zeros(128, dtype=np.int64))
        seen.add((tuple(copy.tribe_deck), copy.players[1].hand, copy.cell(1)[1]))
        assert copy.players[0].hand == own_hand
        assert own_hand not in copy.tribe_deck
    assert len(seen) == 20
    # the opponent's hand and the face-down card are drawn from the unknown pool
    assert len({h for _, h, _ in seen}) > 5
    assert len({c for _, _, c in seen}) > 5


def test_strategy_row_layout_does_not_overlap():
    """Weights, Monte Carlo fields and the heuristic's caches have separate columns."""
    from targi_sim.engine import constants as C

    spans = [
        ("weights", 1, 1 + C.N_HEURISTIC_WEIGHTS),
        ("mc", C.MC_ROLLOUTS, C.MC_PENDING + 1),
        ("mc_base", C.MC_BASE, C.MC_BASE + 1 + C.N_HEURISTIC_WEIGHTS),
        ("key", C.HC_KEY, C.HC_KEY + 1),
        ("border", C.HC_BORDER, C.HC_BORDER + 16),
        ("border_opp", C.HC_BORDER_OPP, C.HC_BORDER_OPP + 16),
        ("cell", C.HC_CELL, C.HC_CELL + 9),
        ("late", C.HC_LATE_ROUND, C.HC_LATE + 1),
        ("need", C.HC_DEMAND_KEY, C.HC_NEED + 12),
        ("line", C.HC_LINE_CACHE, C.HC_LINE_CACHE + 16),
    ]
    taken: dict[int, str] = {}
    for name, lo, hi in spans:
        for col in range(lo, hi):
            assert col not in taken, f"{name} overlaps {taken[col]} at column {col}"
            taken[col] = name
    assert max(taken) < C.N_STRAT_PARAMS
    assert C.HW_SYMBOL + 5 <= 1 + C.N_HEURISTIC_WEIGHTS
    assert C.MC_BASE + 1 + C.N_HEURISTIC_WEIGHTS <= C.HC_KEY
