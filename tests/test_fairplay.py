"""Fair play (docs/rules.md §8): strategies decide only on what their player may know.

The no-peeking check re-deals, at every decision, everything the deciding player cannot
know and asks again; every shipped strategy must pass it, and a strategy that peeks
must be caught.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from targi_sim import PythonStrategy, check_no_peeking
from targi_sim.engine import layout as lay
from targi_sim.engine import rounds
from targi_sim.engine.ask import ask
from targi_sim.engine.constants import SK_MONTECARLO
from targi_sim.engine.information import determinize, redeal
from targi_sim.play.scenario import Scenario
from targi_sim.players.strategy import list_strategies, load_strategy

DATA = Path(__file__).resolve().parent.parent / "data" / "strategies"

PEEKING_PLUGIN = '''
from targi_sim.engine.layout import S_TRIBE, S_TRIBE_N
from targi_sim.engine.policies.heuristic import decide_heuristic

NAME = "peeks-at-the-deck"


def choose(S, D, R, SP, p, dtype, O, n, ctx):
    if dtype == 0 and S[S_TRIBE_N] > 0:  # placements follow the hidden top tribe card
        return S[S_TRIBE + S[S_TRIBE_N] - 1] % n
    return decide_heuristic(S, D, R, SP, p, dtype, O, n, ctx)
'''


def _first_targi(opponent_hand: int, known: int) -> int:
    """The issue's reproducer: seed 2, balanced mirror, 7 rounds, then the first Targi
    of round 8 (border card number), with the opponent's hand card set by hand."""
    sc = Scenario(seed=2)
    sc.use(0, "balanced")
    sc.use(1, "balanced")
    for _ in range(7):
        sc.play_round()
    sc.start_round()
    first = sc.state.first_player
    opp = 1 - first
    sc.players[opp].hand = opponent_hand
    sc.S[lay.S_PLAYER + opp * lay.P_SIZE + lay.P_HAND_KNOWN] = known
    sc.S[lay.S_PLACE_K] = 0
    n = rounds.legal_placements(sc.S, sc.state.D, sc.state.R, first, sc.O)
    return int(ask(sc.S, sc.state.D, sc.state.R, sc.SP, sc.L, sc.P, first, 0, sc.O, n, 0)) + 1


def test_an_unseen_opponent_hand_card_does_not_change_a_placement():
    """Before the fix, seat 1's first Targi went on card 11 when the opponent held Well
    3VP #1 (id 27) and on card 14 when it held Camp 1VP #1 (id 23)."""
    assert _first_targi(27, known=0) == _first_targi(23, known=0)


@pytest.mark.parametrize("name", list_strategies())
def test_every_shipped_strategy_decides_only_on_what_its_player_knows(name, tmp_path):
    games = 10
    strategy = name
    if load_strategy(name).kind == SK_MONTECARLO:  # the same code with a small budget
        strategy, games = f"{name}@2", 2             # (a flat search's rollouts, a tree's
        if load_strategy(name).settings()["search"] == "ismcts":  # iterations), to keep
            strategy = f"{name}@12"                                # the test short
    report = check_no_peeking(strategy, games=games, redeals=3, seed=11)
    assert report.decisions > 200
    assert report.redeals >= 3 * report.decisions - 3 * len(report.differences)
    assert report.passed, report.differences[:3]


def test_the_compiled_plugin_example_does_not_peek():
    report = check_no_peeking(DATA / "card-rush.py", games=6, seed=3)
    assert report.decisions > 200 and report.passed, report.differences[:3]


def test_the_python_strategy_example_does_not_peek():
    report = check_no_peeking(DATA / "oasis-first.py", games=4, seed=3)
    assert report.decisions > 100 and report.passed, report.differences[:3]


def test_a_plugin_that_reads_the_deck_is_caught(tmp_path):
    path = tmp_path / "peeker.py"
    path.write_text(PEEKING_PLUGIN)
    report = check_no_peeking(path, games=2, seed=5)
    assert not report.passed
    assert len(report.differences) > 10
    assert {d.decision for d in report.differences} == {"place"}


class PeeksAtHiddenState(PythonStrategy):
    """Reads the state from its caller's frame (the view holds no copy of it; Python
    cannot stop a strategy that goes looking): the top of the goods deck."""

    name = "reads-private-state"

    def choose(self, view, decision):
        frame = sys._getframe(1)
        while "S" not in frame.f_locals:
            frame = frame.f_back
        S = frame.f_locals["S"]
        top = int(S[lay.S_GOODS + max(view.goods_deck_size - 1, 0)])
        return top % len(decision.options)


def test_a_python_strategy_that_reads_hidden_state_is_caught():
    report = check_no_peeking(PeeksAtHiddenState(), games=2, seed=5)
    assert not report.passed


def test_the_cli_check_passes_and_fails(tmp_path):
    from typer.testing import CliRunner

    from targi_sim.cli.app import app

    ok = CliRunner().invoke(app, ["strategies", "check", "greedy", "--games", "4"])
    assert ok.exit_code == 0, ok.output
    assert "No decision changed" in ok.output
    path = tmp_path / "peeker.py"
    path.write_text(PEEKING_PLUGIN)
    bad = CliRunner().invoke(app, ["strategies", "check", str(path), "--games", "2"])
    assert bad.exit_code == 1, bad.output
    assert "changed when hidden information was re-dealt" in bad.output
    usage = CliRunner().invoke(app, ["strategies", "check", "greedy", "--games", "0"])
    assert usage.exit_code == 2 and usage.output.startswith("Error:")


# ------------------------------------------------------------------ the information model
def _hand_after_keeping(mode: str) -> tuple[int, int]:
    sc = Scenario(seed=4)
    sc.script([2])  # keep it in hand
    sc.state.set_round(3)
    card = sc.state.tribe_deck[-1]
    sc.state.set_tribe_deck(sc.state.tribe_deck[:-1])
    assert sc.acquire(0, card, mode) == "kept"
    base = lay.S_PLAYER
    return int(sc.S[base + lay.P_HAND_KNOWN]), int(sc.S[base + lay.P_HAND_ROUND])


def test_a_card_kept_from_the_centre_is_known_one_drawn_face_down_is_not():
    assert _hand_after_keeping("centre") == (1, 3)
    assert _hand_after_keeping("tribal_expansion") == (0, 3)


def _mid_game(seed: int) -> Scenario:
    sc = Scenario(seed=seed)
    sc.use(0, "random")
    sc.use(1, "random")
    for _ in range(3):
        sc.play_round()
    deck = sc.state.tribe_deck
    sc.players[1].hand = deck[-1]
    sc.state.set_tribe_deck(deck[:-1])
    return sc


def test_determinize_keeps_a_known_hand_and_redeals_an_unseen_one():
    known, unseen = set(), set()
    for k in range(12):
        for flag, seen in ((1, known), (0, unseen)):
            sc = _mid_game(7)
            sc.S[lay.S_PLAYER + lay.P_SIZE + lay.P_HAND_KNOWN] = flag
            redeal(sc.S, 0, k, np.zeros(256, dtype=np.int64))
            seen.add(sc.players[1].hand)
    assert len(known) == 1
    assert len(unseen) > 3


def test_determinize_depends_on_the_hidden_set_not_its_arrangement():
    """Two states that differ only in the order of the hidden cards re-deal alike, so a
    search that determinises cannot tell them apart."""
    a = _mid_game(9)
    b = a.state.copy()
    deck = b.tribe_deck
    b.set_tribe_deck(deck[::-1])  # the same hidden cards, another order
    scratch = np.zeros(256, dtype=np.int64)
    sa, sb = a.S.copy(), b.S.copy()
    determinize(sa, 0, lay.S_POLICY_RNG, scratch)
    determinize(sb, 0, lay.S_POLICY_RNG, scratch)
    assert np.array_equal(sa[:lay.S_CORE], sb[:lay.S_CORE])
