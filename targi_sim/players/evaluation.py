"""The evaluation a cut playout ends with (`rollout_rounds` > 0), fitted on the deck it
plays: what a gold and a good ahead are worth in VP, and how sure a margin is with
rounds to go (rollouts.position_value applies it).

Fitted, not written by hand, because the answer moves with the deck: a designer who
changes a trade's rate changes what a gold is worth, and an evaluation fitted on
another deck would judge the new one by the old economy. A seat whose strategy file
does not give the four numbers gets them here, from FIT_GAMES games of its rollout
strategy against itself on the match's deck and rules (a fixed seed: the fit, and so
every game, stays a pure function of its inputs):

1. final score margin - margin now = gold x Δgold + goods x Δgoods (least squares over
   every round-end position);
2. P(win) = logistic(estimated margin / (scale + scale_round x rounds left)), draws left
   out, by maximum likelihood (scipy).

benchmarks/fit_evaluation.py prints the same fit with its standard errors and how well
it holds round by round.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

import numpy as np

from targi_sim.engine import constants as C
from targi_sim.engine import layout as lay

FIT_GAMES = 4000
FIT_SEED = 20261206
EVAL_COLUMNS = (C.MC_EVAL_GOLD, C.MC_EVAL_GOODS, C.MC_EVAL_SCALE, C.MC_EVAL_SCALE_ROUND)
EVAL_FITTED = ("eval_gold", "eval_goods", "eval_scale", "eval_scale_round")  # file keys


@dataclass(frozen=True)
class Evaluation:
    """A fitted evaluation and what it was fitted on."""

    gold: float
    goods: float
    scale: float
    scale_round: float
    positions: int
    games: int

    def values(self) -> tuple[float, float, float, float]:
        return (self.gold, self.goods, self.scale, self.scale_round)


@dataclass(frozen=True)
class Positions:
    """Round-end positions of a strategy's mirror (engine/evaluation.py), seat 0's side."""

    round: np.ndarray
    margin: np.ndarray
    gold: np.ndarray
    goods: np.ndarray
    final: np.ndarray  # the position's game's final score margin
    winner: np.ndarray  # the position's game's winner (0, 1, -1 a draw)
    game: np.ndarray
    games: int


def mirror_positions(D: np.ndarray, R: np.ndarray, SP: np.ndarray, PB: tuple, p: int,
                     games: int = FIT_GAMES, seed: int = FIT_SEED) -> Positions:
    """Positions of `games` games of seat p's rollout strategy against itself."""
    from targi_sim.engine.evaluation import evaluation_positions

    seeds = np.arange(seed, seed + games, dtype=np.int64)
    X, game, final, winner = evaluation_positions(D, R, SP, PB, p, seeds, lay.S_SIZE)
    return Positions(X[:, 0], X[:, 1], X[:, 2], X[:, 3], final[game], winner[game], game,
                     games)


def win_scale(margin: np.ndarray, left: np.ndarray, won: np.ndarray) -> tuple[float, float]:
    """(scale, scale_round) maximising the likelihood of
    won ~ logistic(margin / (scale + scale_round x left))."""
    from scipy.optimize import minimize

    def loss(ab: np.ndarray) -> float:
        z = margin / np.maximum(ab[0] + ab[1] * left, 1e-3)
        return float(np.sum(won * np.logaddexp(0.0, -z) + (1 - won) * np.logaddexp(0.0, z)))

    a, b = minimize(loss, np.array([1.5, 0.1]), method="Nelder-Mead").x
    return float(a), float(b)


def fit_positions(pos: Positions) -> Evaluation:
    """The two models of the module docstring, fitted on `pos`."""
    A = np.column_stack([pos.gold, pos.goods])
    coef, *_ = np.linalg.lstsq(A, pos.final - pos.margin, rcond=None)
    estimate = pos.margin + A @ coef
    left = np.maximum(0.0, C.USUAL_ROUNDS - pos.round)  # as position_value counts
    decided = pos.winner != -1
    scale, scale_round = win_scale(estimate[decided], left[decided],
                                   (pos.winner[decided] == 0).astype(float))
    return Evaluation(float(coef[0]), float(coef[1]), scale, scale_round, len(pos.round),
                      pos.games)


_FITTED: dict[bytes, Evaluation] = {}  # one fit per deck, rules and rollout strategy
# what a front end wants to see while a fit runs (its first run on a machine compiles the
# position recorder, tens of seconds): a context manager factory, or None
FitObserver = Callable[[], AbstractContextManager[object]]
_observer: FitObserver | None = None


def observe_fits(observer: FitObserver | None) -> FitObserver | None:
    """Have `observer()` wrap every fit from now on (None: none); returns the previous
    one. The CLI shows a status line with the time so far and the expected total."""
    global _observer
    previous, _observer = _observer, observer
    return previous


def fitted_evaluation(D: np.ndarray, R: np.ndarray, SP: np.ndarray, PB: tuple,
                      p: int) -> Evaluation:
    """Seat p's rollout strategy's evaluation on this deck and rules (memoised)."""
    base = SP[p, C.MC_BASE:C.MC_BASE + 1 + C.N_HEURISTIC_WEIGHTS]
    key = b"".join(np.ascontiguousarray(a).tobytes() for a in (D, R, base))
    if key not in _FITTED:
        with _observer() if _observer is not None else nullcontext():
            _FITTED[key] = fit_positions(mirror_positions(D, R, SP, PB, p))
    return _FITTED[key]


def needs_fit(row: np.ndarray) -> bool:
    """True for a search seat that cuts its playouts and was given no evaluation."""
    return (row[0] == C.SK_MONTECARLO and row[C.MC_ROLLOUT_ROUNDS] > 0
            and bool(np.isnan(row[C.MC_EVAL_SCALE])))


def fill_evaluations(SP: np.ndarray, D: np.ndarray, R: np.ndarray, PB: tuple) -> None:
    """Give every seat that needs one its evaluation fitted on this deck (in place)."""
    for p in range(SP.shape[0]):
        if needs_fit(SP[p]):
            SP[p, list(EVAL_COLUMNS)] = fitted_evaluation(D, R, SP, PB, p).values()


__all__ = ["EVAL_COLUMNS", "EVAL_FITTED", "FIT_GAMES", "FIT_SEED", "Evaluation", "FitObserver",
           "Positions", "fill_evaluations", "fit_positions", "fitted_evaluation",
           "mirror_positions", "needs_fit", "observe_fits"]
