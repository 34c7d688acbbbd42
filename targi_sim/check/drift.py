"""deck_drift: the whole-deck guard -- every tribe card's rates against their baselines.

Why a fixed sample and Holm: a designer should not have to list 45 cards by hand,
and 90 sequential tests that each stop on their own have no simple family-wise
error rate. So deck_drift plays a fixed number of games (`max_games`, in batches
of whole units, exactly like a sequential expectation's games: the same layout,
the same seeds, the same independence of --jobs), then tests every card's
acquire rate and win rate when played against the baseline file's value:

* z = (measured - baseline) / sqrt(se^2 + se_baseline^2), both standard errors
  cluster-robust with the unit (seat-swapped pair, or game) as the cluster
  (targi_sim.stats.rates) -- the baseline was itself measured on a finite sample;
* two-sided normal p-values, Holm's step-down over all the card tests
  (statsmodels.stats.multitest.multipletests), family-wise alpha;
* a card FAILS when its Holm-adjusted p < alpha *and* it moved by more than half its
  tolerance (the data are closer to the moved value than to the baseline: the
  cap rule of the sequential test). A card of the baseline missing from the deck
  fails too.

`targi-sim check init` sets each tolerance to the minimum detectable effect at
`max_games`: the move this test catches with power 1 - beta at the Bonferroni
level alpha / m (Holm's first step; m tests), so alpha and beta keep the meaning
they have for the sequential kinds.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from targi_sim.check.baseline import CardBaseline, Expectation, card_label
from targi_sim.check.metrics import CARD_METRICS, estimate

MIN_UNITS = 30  # a card's rate is tested (and written) only with this many units holding it
TOLERANCE_STEP = 0.001  # tolerances are rounded up to 0.1 rate points


@dataclass(frozen=True)
class CardTest:
    """One card's metric: baseline, measurement, p-values and verdict (fractions)."""

    card_id: int  # the card's place among the deck's [[tribe]] entries, from 0
    name: str  # the card's name in the deck checked
    baseline_name: str  # its name when the baseline was measured
    metric: str
    expected: float
    expected_se: float
    tolerance: float
    measured: float
    se: float
    units: int  # independent units (pairs or games) in which the card counted
    n: float  # trials: offered games, or players who played it
    p: float
    p_holm: float = math.nan
    failed: bool = False

    @property
    def label(self) -> str:
        """The card by card_id and name, e.g. "card_id 27 (Well 3VP #1)"; renamed since
        the baseline: "card_id 5 (Targia 4VP #1, was Targia 1VP #1)"."""
        return card_label(self.card_id, self.name, self.baseline_name)

    @property
    def moved(self) -> float:
        return self.measured - self.expected


@dataclass
class DriftOutcome:
    """Every card test of a deck_drift expectation, plus what could not be tested."""

    tests: list[CardTest]
    untested: list[str] = field(default_factory=list)  # "card_id k (name) metric: why"
    missing: list[CardBaseline] = field(default_factory=list)  # in the baseline, not the deck
    new_cards: list[str] = field(default_factory=list)  # in the deck, not the baseline

    @property
    def failures(self) -> list[CardTest]:
        return [t for t in self.tests if t.failed]

    @property
    def failed(self) -> bool:
        return bool(self.failures or self.missing)

    def failed_labels(self) -> list[str]:
        """The failing cards by card_id and name, each once, in deck order."""
        out: list[str] = []
        for t in sorted(self.failures, key=lambda t: t.card_id):
            if t.label not in out:
                out.append(t.label)
        return out + [card_label(c.card_id, c.name, note="not in the deck")
                      for c in self.missing]


def card_tests(sums: np.ndarray, names: tuple[str, ...], e: Expectation) -> DriftOutcome:
    """Test every baseline card against the sums (cards, 2, 6) of the games played."""
    from scipy.stats import norm
    from statsmodels.stats.multitest import multipletests

    est, var = estimate(sums)
    tests: list[CardTest] = []
    outcome = DriftOutcome(tests)
    for card in e.cards:
        k = card.card_id
        if k >= len(names):
            outcome.missing.append(card)
            continue
        for metric, (value, se_base, tol) in card.values.items():
            j = CARD_METRICS.index(metric)
            units = int(sums[k, j, 0])
            m, v = float(est[k, j]), float(var[k, j])
            if units < MIN_UNITS or not math.isfinite(v):
                outcome.untested.append(f"{card_label(k, names[k], card.name)} {metric}: "
                                        f"{units} units hold it (needs {MIN_UNITS})")
                continue
            sd = math.sqrt(v + se_base ** 2)
            z = (m - value) / sd if sd > 0 else (0.0 if m == value else math.inf)
            tests.append(CardTest(k, names[k], card.name, metric, value, se_base,
                                  tol, m, math.sqrt(v), units, float(sums[k, j, 2]),
                                  float(2 * norm.sf(abs(z)))))
    covered = {c.card_id for c in e.cards}
    outcome.new_cards = [card_label(k, n) for k, n in enumerate(names) if k not in covered]
    if tests:
        reject, p_holm, _, _ = multipletests([t.p for t in tests], alpha=e.alpha, method="holm")
        tests[:] = [CardTest(**{**t.__dict__, "p_holm": float(ph),
                                "failed": bool(rj) and abs(t.moved) > t.tolerance / 2})
                    for t, rj, ph in zip(tests, reject, p_holm, strict=True)]
    return outcome


def run_drift(e: Expectation, parallel, jobs: int, *, match, progress=None):
    """Play the expectation's `max_games` games and test every card (a CheckResult)."""
    from targi_sim.check.playing import CheckResult, play_sums
    from targi_sim.stats.sprt import FAIL, PASS

    t0 = time.perf_counter()
    sums = play_sums(match, e, e.seed, e.max_games, parallel, progress)
    outcome = card_tests(sums, match.card_names, e)
    verdict = FAIL if outcome.failed else PASS
    return CheckResult(e, verdict, None, np.zeros(0, dtype=np.int64), e.max_games, False,
                       time.perf_counter() - t0, unit=match.unit, drift=outcome)


def tolerance(se_at_cap: float, se_base: float, tests: int, alpha: float,
              beta: float) -> float:
    """The minimum detectable effect of one card test at the cap (see the docstring),
    rounded up to 0.1 rate points: (z_{1 - alpha/(2m)} + z_{1 - beta}) * sd."""
    z = NormalDist().inv_cdf
    mde = (z(1 - alpha / (2 * max(1, tests))) + z(1 - beta)) * math.hypot(se_at_cap, se_base)
    return max(TOLERANCE_STEP, math.ceil(mde / TOLERANCE_STEP - 1e-9) * TOLERANCE_STEP)


def measured_cards(sums: np.ndarray, names: tuple[str, ...], e: Expectation,
                   games: int) -> tuple[CardBaseline, ...]:
    """Every card's measured rates for a baseline file. A card the file already lists
    keeps its tolerance; others get the minimum detectable effect at e.max_games."""
    est, var = estimate(sums)
    ok = (sums[..., 0] >= MIN_UNITS) & np.isfinite(var)
    m = int(ok.sum())
    old = {c.card_id: c for c in e.cards}
    out = []
    for k, name in enumerate(names):
        values = {}
        for j, metric in enumerate(CARD_METRICS):
            if not ok[k, j]:
                continue
            se = math.sqrt(float(var[k, j]))
            kept = old.get(k)
            if kept is not None and metric in kept.values:
                tol = kept.values[metric][2]
            else:
                tol = tolerance(se * math.sqrt(games / e.max_games), se, m, e.alpha, e.beta)
            values[metric] = (float(est[k, j]), se, tol)
        out.append(CardBaseline(k, name, values))
    return tuple(out)


__all__ = ["CardTest", "DriftOutcome", "MIN_UNITS", "card_tests", "measured_cards",
           "run_drift", "tolerance"]
