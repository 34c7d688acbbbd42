"""Run baseline expectations: paired games in parallel batches until the SPRT decides.

Why batches: the test looks at the data after every batch of `batch_games`
games (whole seat-swapped pairs). Batch b is always games b*B .. b*B+B-1 of
the expectation's run seed, a pure function of (seed, b), and the looks
happen in batch order whatever order the workers finish in. Workers play
the next `jobs` batches ahead; results beyond the deciding batch are
discarded. So the verdict, the LLR and the games used are a pure function of
the baseline file -- identical for any number of jobs.

Maths: targi_sim/sprt.py. Format and usage: docs/check.md.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from .api import Match, game_plan, prepare_match
from .baseline import Expectation, Measured, derived_seed
from .deck import load_deck
from .engine.records import G_FIRST, G_WINNER
from .errors import DataError, UsageError
from .rules import load_rules
from .sprt import FAIL, PASS, TwoSidedSprt, pair_counts, pair_variance, rate
from .stats import wilson_interval
from .strategy import resolve_strategy

Progress = Callable[[int], None]
DEFAULT_UPDATE_GAMES = 200_000


@dataclass
class CheckResult:
    """The outcome of one expectation: verdict, the test's state and the measured rate."""

    expectation: Expectation
    verdict: str  # PASS or FAIL
    test: TwoSidedSprt
    counts: np.ndarray  # pair counts by category (sprt.SCORES)
    games: int
    capped: bool  # the fixed-sample verdict at the cap decided
    seconds: float = 0.0
    ci: tuple[float, float] = field(default=(math.nan, math.nan))

    @property
    def rate(self) -> float:
        return rate(self.counts)

    @property
    def passed(self) -> bool:
        return self.verdict == PASS


def _wrap(e: Expectation, key: str, value: str, exc: UsageError) -> DataError:
    return DataError(e.path, e.where, key, value, exc.valid, f"is not a known {exc.kind}")


def prepare(e: Expectation) -> Match:
    """Load and validate the expectation's strategies, deck and rules.

    Unknown names become DataErrors naming the baseline file, the expectation
    and the field; a malformed strategy/deck/rules file raises its own DataError.
    """
    loaded = {}
    for key, value, load in (("strategy", e.strategy, resolve_strategy),
                             ("opponent", e.opponent, resolve_strategy),
                             ("deck", e.deck, load_deck), ("rules", e.rules, load_rules)):
        try:
            loaded[key] = load(value)
        except UsageError as exc:
            raise _wrap(e, key, value, exc) from None
    return prepare_match((loaded["strategy"], loaded["opponent"]), loaded["deck"],
                         loaded["rules"])


def batch_counts(match: Match, kind: str, seed: int, start: int, n: int) -> np.ndarray:
    """Pair counts of games start..start+n-1 (whole pairs) of run `seed`.

    The tracked side is seat 0's strategy for "win_rate" and the round-1 first
    player for "first_player_rate"; draws count half. A pure function of its
    arguments (the strategy rows are copied: nothing cached carries over).
    """
    seeds, first, ids = game_plan(n, seed, paired=True, start=start)
    G, _ = match.play(seeds, first, ids, logs=False)
    winner = G[:, G_WINNER]
    tracked = 0 if kind == "win_rate" else G[:, G_FIRST]
    points = (winner == tracked) + 0.5 * (winner == -1)
    return pair_counts(points)


def rate_interval(counts: np.ndarray, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% interval of the rate: Wilson's, on the games' effective number.

    The two games of a pair are correlated, so their information is that of
    games / design_effect independent games, with design effect = the pair
    variance over what independent games would give (floored at 0.25, 1 when
    every game went one way).
    """
    c = np.asarray(counts, dtype=float)
    pairs = c.sum()
    if pairs == 0:
        return 0.0, 1.0
    p = rate(c)
    independent = p * (1.0 - p) / 2.0
    effect = max(0.25, pair_variance(c) / independent) if independent > 0 else 1.0
    n_eff = 2.0 * pairs / effect
    return wilson_interval(p * n_eff, n_eff, z)  # type: ignore[arg-type]


@contextmanager
def worker_pool(jobs: int) -> Iterator[object]:
    """A joblib Parallel (loky processes) kept open across batches and expectations."""
    from joblib import Parallel

    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    with Parallel(n_jobs=jobs, backend="loky") as parallel:
        yield parallel


def _batches(match: Match, e: Expectation, seed: int, starts: list[int],
             parallel) -> list[np.ndarray]:
    from joblib import delayed

    return parallel(delayed(batch_counts)(match, e.kind, seed, s, e.batch_games)
                    for s in starts)


def run_expectation(e: Expectation, parallel, jobs: int, *, match: Match | None = None,
                    progress: Progress | None = None) -> CheckResult:
    """Play batches of pairs until the two-sided SPRT decides or the cap is reached."""
    match = match or prepare(e)
    test = TwoSidedSprt(e.rate, e.tolerance, e.alpha, e.beta)
    counts = np.zeros(5, dtype=np.int64)
    games = 0
    verdict = test.verdict
    t0 = time.perf_counter()
    while verdict not in (PASS, FAIL) and games < e.max_games:
        starts = list(range(games, min(e.max_games, games + jobs * e.batch_games),
                            e.batch_games))
        for batch in _batches(match, e, e.seed, starts, parallel):  # in batch order
            counts += batch
            games += e.batch_games
            if progress is not None:
                progress(e.batch_games)
            verdict = test.update(counts)
            if verdict in (PASS, FAIL):
                break  # later batches were played ahead; discarded
    capped = verdict not in (PASS, FAIL)
    if capped:
        verdict = test.finish()
    return CheckResult(e, verdict, test, counts, games, capped,
                       time.perf_counter() - t0, rate_interval(counts))


def measure(e: Expectation, games: int, parallel, *, match: Match | None = None,
            progress: Progress | None = None) -> Measured:
    """Re-measure the expectation's rate on `games` games (rounded up to whole batches).

    Plays on another seed stream than the check (see `derived_seed`), so a
    check does not re-use the games its baseline was measured on.
    """
    match = match or prepare(e)
    n = max(1, math.ceil(games / e.batch_games)) * e.batch_games
    seed = derived_seed(e.seed, e.name, "update")
    counts = np.zeros(5, dtype=np.int64)
    starts = list(range(0, n, e.batch_games))
    step = 16  # batches per call, so progress can be shown
    for k in range(0, len(starts), step):
        for batch in _batches(match, e, seed, starts[k:k + step], parallel):
            counts += batch
            if progress is not None:
                progress(e.batch_games)
    lo, hi = rate_interval(counts)
    return Measured(rate=rate(counts), ci_low=lo, ci_high=hi, games=n)


__all__ = ["CheckResult", "DEFAULT_UPDATE_GAMES", "batch_counts", "measure", "prepare",
           "rate_interval", "run_expectation", "worker_pool"]
