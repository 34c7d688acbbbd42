"""A no-peeking proof for any strategy: its decisions depend only on what its player may
know (docs/rules.md §8).

`check_no_peeking(strategy)` plays games with the strategy in one seat, and at each of
its decisions re-deals, several times over, everything its player cannot know -- the
order of both decks, the face-down centre cards, an opponent's hand card drawn face
down, the opponent's random stream and future reshuffles (engine/information.py,
`redeal`) -- and asks the strategy again on each re-dealt copy, with the same own
state (its parameter row and caches, its own random stream). Any difference is a
decision that read something hidden. It works on every kind: TOML heuristics, Monte
Carlo (its rollouts re-deal too), compiled plug-ins and Python strategies (one that
searches re-dealt copies of the game, `resamples`, is handed copies of the re-dealt
game: OpenSpiel's bots). The CLI is `targi-sim strategies check NAME|FILE`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from targi_sim.engine import layout as lay
from targi_sim.engine.constants import DECISION_NAMES, DT_PLACE, MC_PENDING, SK_MONTECARLO
from targi_sim.engine.expert import answer_paused
from targi_sim.engine.information import redeal
from targi_sim.engine.montecarlo import choose_placement, search_scratch
from targi_sim.game.deck import Deck
from targi_sim.game.rules import Rules
from targi_sim.game.view import View
from targi_sim.play.match import StrategySpec, prepare_match
from targi_sim.play.session import Game, external_strategy, resamples
from targi_sim.players.strategy import Strategy, resolve_strategy, seat_policies


@dataclass(frozen=True)
class Difference:
    """A decision whose answer changed when hidden information was re-dealt."""

    game: int
    seed: int
    round: int
    decision: str
    answer: str
    redealt_answer: str


@dataclass
class FairPlayReport:
    strategy: str
    games: int
    redeals_per_decision: int
    decisions: int = 0
    redeals: int = 0
    differences: list[Difference] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.differences


class _Seat:
    """One real strategy playing a seat of a session game, with its own working row."""

    def __init__(self, strategy: Strategy, seat: int, SP: np.ndarray, PB) -> None:
        self.strategy = strategy
        self.seat = seat
        self.SP = SP  # both rows: a policy reads its own row (and the opponent's kind)
        self.PB = PB
        self.mc = strategy.kind == SK_MONTECARLO
        self.searches_all = strategy.searches_every_decision
        self.policy = None if strategy.python is not None else strategy.policy
        if self.mc:
            self.O2 = np.zeros(256, dtype=np.int64)
            self.scratch = search_scratch(SP, lay.S_SIZE)

    def memory(self) -> np.ndarray | None:
        """A copy of what the seat carries from one decision to the next besides its row:
        its placement trees (a search that reuses its tree), None for other kinds."""
        return self.scratch[5].copy() if self.mc else None

    def answer(self, game: Game, S: np.ndarray, SP: np.ndarray, audit_seed: int = 0,
               memory: np.ndarray | None = None) -> int:
        """The option index this strategy answers at the pending decision, given state S.

        A search of every decision starts from the round's start and replays the round's
        answers (engine/expert.py), so it is not handed a re-dealt S: `audit_seed` makes it
        re-deal the position in place, at the decision, before its own determinisation.
        `memory` (from `memory()` before the real answer): a re-asked decision starts from
        the trees the real one started from; None: the seat's own (the real answer)."""
        d = game.decision
        assert d is not None
        trees = self.scratch[5] if memory is None and self.mc else memory
        if self.searches_all:
            m = game.match
            value, _ = answer_paused(game.round_start.copy(), game.paused_replay(), m.D, m.R,
                                     SP, self.PB, d.player, audit_seed, trees)
            return d.values.index(int(value))
        if self.strategy.python is not None:
            python = self.strategy.python.strategy
            view = View(S, game.match.deck, d.player)
            if resamples(python):  # it searches re-dealt copies: of a re-dealt game too
                world = game if audit_seed == 0 else game.resample(audit_seed, detach=True)
                return int(python.choose(view, d, partial(world.resample, detach=True)))
            return int(python.choose(view, d))
        m = game.match
        dtype = DECISION_NAMES.index(d.type)
        O = np.zeros(256, dtype=np.int64)
        O[:len(d.options)] = [o.value for o in d.options]
        if self.mc and dtype == DT_PLACE:
            SP[d.player, MC_PENDING] = choose_placement(S, m.D, m.R, SP, self.PB, d.player,
                                                        self.O2, *self.scratch[:5], trees)
        assert self.policy is not None
        return int(self.policy(S, m.D, m.R, SP, d.player, dtype, O, len(d.options), d.context))


def _full_state(frozen: np.ndarray) -> np.ndarray:
    S = np.zeros(lay.S_SIZE, dtype=np.int64)
    S[:lay.S_CORE] = frozen
    return S


def check_no_peeking(strategy: StrategySpec, *, opponent: StrategySpec = "balanced",
                     games: int = 20, redeals: int = 3, seed: int = 0,
                     deck: str | Deck = "base", rules: str | Rules = "default"
                     ) -> FairPlayReport:
    """Play `games` games of `strategy` (seat 0 in even games, seat 1 in odd ones) against
    `opponent` and re-deal the hidden information `redeals` times at each of its
    decisions; the report lists every decision whose answer changed."""
    checked = resolve_strategy(strategy)
    other = resolve_strategy(opponent)
    report = FairPlayReport(checked.name, games, redeals)
    slots = np.zeros(256, dtype=np.int64)
    for g in range(games):
        seat = g % 2
        pair = (checked, other) if seat == 0 else (other, checked)
        real = prepare_match(pair, deck, rules)  # validated inputs and the rows
        match = prepare_match((external_strategy(), external_strategy()), real.deck,
                              real.rules)
        SP = real.SP.copy()
        _, PB = seat_policies(pair)
        seats = [_Seat(pair[p], p, SP, PB) for p in range(2)]
        game_seed = (seed << 32) | g
        game = Game(match, game_seed, first_player=(g // 2) % 2, game_id=g, trace_rows=0,
                    transcript=any(s.searches_every_decision or (
                        s.python is not None and resamples(s.python.strategy)) for s in pair))
        for p, s in enumerate(pair):
            if s.python is not None:
                s.python.strategy.new_game(p, game_seed)
        while not game.is_over:
            d = game.decision
            assert d is not None
            S = _full_state(game.frozen)
            if d.player == seat:
                report.decisions += 1
                before = SP.copy()
                memory = seats[seat].memory()
                rng_state = _python_rng(checked)
                choice = seats[seat].answer(game, S.copy(), SP)
                after_rng = _python_rng(checked)
                for r in range(redeals):
                    S2 = S.copy()
                    redeal_seed = (game_seed * 31 + report.decisions) * 8 + r
                    redeal(S2, d.player, redeal_seed, slots)
                    SP2 = before.copy()
                    _set_python_rng(checked, rng_state)
                    alt = seats[seat].answer(game, S2, SP2, audit_seed=redeal_seed + 1,
                                             memory=None if memory is None else memory.copy())
                    report.redeals += 1
                    if alt != choice:
                        report.differences.append(Difference(
                            g, game_seed, int(S[lay.S_ROUND]), d.type,
                            d.options[choice].text if 0 <= choice < len(d.options) else
                            str(choice),
                            d.options[alt].text if 0 <= alt < len(d.options) else str(alt)))
                        break
                _set_python_rng(checked, after_rng)
            else:
                choice = seats[d.player].answer(game, S, SP)
            if not 0 <= choice < len(d.options):
                choice = 0  # an out-of-range answer is another check's business
            game.apply(choice)
    return report


def _python_rng(s: Strategy):
    py = s.python.strategy if s.python is not None else None
    rng = getattr(py, "random", None)
    return rng.bit_generator.state if rng is not None else None


def _set_python_rng(s: Strategy, state) -> None:
    if state is not None and s.python is not None:
        s.python.strategy.random.bit_generator.state = state


def describe(report: FairPlayReport) -> list[str]:
    """The report as lines of text (the CLI prints them)."""
    lines = [f"{report.strategy}: {report.decisions:,} decisions in {report.games} games, "
             f"each asked again on up to {report.redeals_per_decision} re-deal(s) of what its "
             f"player cannot know ({report.redeals:,} re-deals)."]
    if report.passed:
        lines.append("No decision changed: the strategy decides only on what its player "
                     "may know.")
    else:
        lines.append(f"{len(report.differences)} decision(s) changed when hidden "
                     "information was re-dealt, e.g.:")
        for d in report.differences[:5]:
            lines.append(f"  game {d.game} (seed {d.seed}), round {d.round}, {d.decision}: "
                         f"{d.answer!r} became {d.redealt_answer!r}")
    return lines


__all__ = ["Difference", "FairPlayReport", "check_no_peeking", "describe"]
