"""Python strategies that search re-dealt copies of the game (`resamples = True`): what
`Game.resample(seed, detach=True)` hands them, how the session calls them, and that the
no-peeking audit holds them to the View (docs/strategies.md, Fair play)."""

from __future__ import annotations

import numpy as np
import pytest

from targi_sim import PythonStrategy, check_no_peeking, new_game, play_game
from targi_sim.ai.encoding import ME, Encoding
from targi_sim.engine import layout as lay


def _decide_mid_round(game, answers: int):
    for _ in range(answers):
        game.apply(0)
    return game.decision


def test_a_detached_resample_is_a_world_both_seats_play():
    """The world keeps what the player to decide knows and the pending decision, equals
    the same re-deal in the game's own seats, and asks both seats from then on."""
    game = new_game(3, p1="balanced", transcript=True)  # seat 1 plays inside the engine
    d = _decide_mid_round(game, 9)
    enc = Encoding(game.match.deck)
    world = game.resample(11, detach=True)
    assert world.match.strategies == ("external", "external")
    assert world.decision == d
    assert enc.text(world.view(d.player), d.player, ME, d) == \
        enc.text(game.view(d.player), d.player, ME, d)
    assert np.array_equal(world.frozen, game.resample(11).frozen)
    assert world.history() == []  # no logs: cheap to copy
    seats = set()
    while not world.is_over:
        seats.add(world.decision.player)
        world.apply(len(world.decision.values) - 1)
    assert seats == {0, 1}
    assert game.decision == d  # the game itself did not move


class Searcher(PythonStrategy):
    """Decides on re-dealt worlds only: the top of the tribe deck of a world it asked for
    (hidden from it, but a pure function of what it knows and the seed)."""

    name = "searcher"
    resamples = True

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, view, decision, resample):
        world = resample(int(self.random.integers(2**40)))
        assert world.decision == decision
        assert world.match.strategies == ("external", "external")
        self.calls += 1
        return int(world.frozen[lay.S_TRIBE]) % len(decision.values)


class Peeker(Searcher):
    """Reaches through `resample` to the game itself: reads the real tribe deck."""

    name = "peeker"

    def choose(self, view, decision, resample):
        game = resample.func.__self__
        return int(game.frozen[lay.S_TRIBE]) % len(decision.values)


def test_the_session_hands_a_searching_strategy_worlds_and_plays_on():
    searcher = Searcher()
    record = play_game(4, (searcher, "balanced"))
    assert searcher.calls > 50 and record.winner in (-1, 0, 1)
    again = play_game(4, (Searcher(), "balanced"))  # seeded from the game: the same game
    assert again.tables["trace"].equals(record.tables["trace"])


def test_the_audit_passes_a_strategy_that_decides_on_worlds_and_catches_one_that_peeks():
    honest = check_no_peeking(Searcher(), games=2, redeals=2, seed=5)
    assert honest.passed and honest.decisions > 50
    caught = check_no_peeking(Peeker(), games=2, redeals=2, seed=5)
    assert not caught.passed


def test_resample_needs_a_transcript_and_a_pending_decision():
    game = new_game(1)
    with pytest.raises(ValueError, match="transcript"):
        game.resample(1, detach=True)
