"""Run baseline expectations: games in parallel batches until the SPRT decides.

Units: an expectation's games are laid out as a run's would be (targi_sim.play.pairing):
seat-swapped pairs, the pentanomial unit, unless both seats play the same
deterministic strategy -- a mirror whose pair would be one game twice -- which
plays one game per deal, each game a trinomial unit.

Why batches: the test looks at the data after every batch of `batch_games`
games (whole units). Batch b is always games b*B .. b*B+B-1 of
the expectation's run seed, a pure function of (seed, b), and the looks
happen in batch order whatever order the workers finish in. Workers play
the next `jobs` batches ahead; results beyond the deciding batch are
discarded. So the verdict, the LLR and the games used are a pure function of
the baseline file -- identical for any number of jobs.

The kinds beyond win rates (targi_sim.check.metrics): a share of games
(display_full_share, tiebreak_share) is tested like a win rate, on unit
counts; a card's rate (its denominator varies by unit) and a mean (rounds,
score, a raid's loss) by the paired-normal SPRT on the cluster-robust
estimate of the units' sums (targi_sim.stats.sprt.llr_gaussian); deck_drift plays
a fixed number of games and tests every card with Holm (targi_sim.check.drift).

Maths: targi_sim/stats/sprt.py. Format and usage: docs/check.md.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from targi_sim.check.baseline import Expectation, Measured, derived_seed
from targi_sim.check.drift import measured_cards, run_drift
from targi_sim.check.metrics import estimate
from targi_sim.check.playing import (
    CheckResult,
    Prepared,
    Progress,
    batch_results,
    decided_by_normal_test,
    empty_counts,
    play_sums,
    prepare,
    rate_interval,
    sums_interval,
    unit_rate,
)
from targi_sim.stats.sprt import FAIL, PASS, TwoSidedSprt, rate

DEFAULT_UPDATE_GAMES = 200_000



def _test(e: Expectation) -> TwoSidedSprt:
    if e.is_mean:
        return TwoSidedSprt(e.rate, e.tolerance, e.alpha, e.beta, low=-math.inf, high=math.inf)
    return TwoSidedSprt(e.rate, e.tolerance, e.alpha, e.beta)



def run_expectation(e: Expectation, parallel, jobs: int, *, match: Prepared | None = None,
                    progress: Progress | None = None) -> CheckResult:
    """Play batches of units until the two-sided SPRT decides or the cap is reached
    (deck_drift: the fixed number of games, then every card's test; targi_sim.check.drift)."""
    match = match or prepare(e)
    if e.kind == "deck_drift":
        return run_drift(e, parallel, jobs, match=match, progress=progress)
    test = _test(e)
    normal = decided_by_normal_test(match)
    total = np.zeros(6) if normal else empty_counts(match)
    games = 0
    verdict = test.verdict
    t0 = time.perf_counter()
    while verdict not in (PASS, FAIL) and games < e.max_games:
        starts = list(range(games, min(e.max_games, games + jobs * e.batch_games),
                            e.batch_games))
        for batch in batch_results(match, e, e.seed, starts, parallel):  # in batch order
            total += batch
            games += e.batch_games
            if progress is not None:
                progress(e.batch_games)
            verdict = (test.update_normal(*(float(v) for v in estimate(total))) if normal
                       else test.update(total))
            if verdict in (PASS, FAIL):
                break  # later batches were played ahead; discarded
    capped = verdict not in (PASS, FAIL)
    if capped:
        verdict = test.finish()
    seconds = time.perf_counter() - t0
    if normal:
        return CheckResult(e, verdict, test, np.zeros(0, dtype=np.int64), games, capped,
                           seconds, sums_interval(total, e.is_mean), match.unit, sums=total,
                           card_names=match.card_names)
    return CheckResult(e, verdict, test, total, games, capped, seconds,
                       rate_interval(total), match.unit)



def measure(e: Expectation, games: int, parallel, *, match: Prepared | None = None,
            progress: Progress | None = None) -> Measured:
    """Re-measure the expectation's rate on `games` games (rounded up to whole batches).

    Plays on another seed stream than the check (see `derived_seed`), so a
    check does not re-use the games its baseline was measured on.
    """
    match = match or prepare(e)
    n = max(1, math.ceil(games / e.batch_games)) * e.batch_games
    seed = derived_seed(e.seed, e.name, "update")
    total = play_sums(match, e, seed, n, parallel, progress)
    if e.kind == "deck_drift":
        return Measured(rate=math.nan, ci_low=math.nan, ci_high=math.nan, games=n,
                        cards=measured_cards(total, match.card_names, e, n))
    if decided_by_normal_test(match):
        lo, hi = sums_interval(total, e.is_mean)
        value, var = (float(v) for v in estimate(total))
        return Measured(rate=value, ci_low=lo, ci_high=hi, games=n, mean=e.is_mean,
                        se=math.sqrt(var) if var >= 0 else math.nan)
    r = unit_rate(total)
    return Measured(rate=rate(total), ci_low=r.lo, ci_high=r.hi, games=n, se=r.se)




def update_games(e: Expectation, n_games: int | None) -> int:
    """Games `--update` measures e on: the command's number if given, else the file's
    `update_games` (a slow player's file names a small one), else DEFAULT_UPDATE_GAMES."""
    return n_games or e.update_games or DEFAULT_UPDATE_GAMES


def update_baseline(baseline, prepared: list[Prepared], n_games: int | None, parallel,
                    progress_for: Callable[[Expectation], Progress | None] | None = None
                    ) -> dict[int, Measured]:
    """Re-measure every expectation of `baseline` (on update_games(e, n_games) games) and
    rewrite its file atomically (`check --update`); returns the measurements by
    expectation index. `progress_for(e)`: a progress callback for e's games, or None."""
    from targi_sim.check.baseline import updated_text, write_atomic

    measured = {}
    for e, match in zip(baseline.expectations, prepared, strict=True):
        progress = progress_for(e) if progress_for is not None else None
        measured[e.index] = measure(e, update_games(e, n_games), parallel, match=match,
                                    progress=progress)
    write_atomic(baseline.path, updated_text(baseline, measured))
    return measured


__all__ = ["DEFAULT_UPDATE_GAMES", "measure", "run_expectation", "update_baseline",
           "update_games"]
