"""The bootstrap over deals behind every interval of a balance change.

Why over deals: the deal is the independent unit (targi_sim.stats.rates). Why paired:
two decks played on the same deals share each deal's luck, so one resample weights
every deal of both decks alike and the luck cancels from the change; decks played on
different deals are resampled independently (`paired=False`). `balance` validates a
proposal this way (balance/validation.py) and `compare` gives its balance verdict
(targi_sim.report.verdict).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence

import numpy as np

from .measure import DeckStats, PerDeal

BATCH = 100  # resamples drawn and reduced at a time (matrix products of BATCH x deals)

Resample = tuple[list[DeckStats], list[DeckStats]]  # per match: stats of deck a, of deck b


def resamples(a: Sequence[PerDeal], b: Sequence[PerDeal], rng: np.random.Generator,
              count: int, paired: bool = True) -> Iterator[list[Resample]]:
    """`count` bootstrap resamples of the deals, one batch (a list) at a time.

    a, b: per match, each deck's per-deal sums; the matches of a deck share their deal
    count and every match is resampled with the same weights. paired: the same weights
    for both decks (their deals must then be the same, in the same order)."""
    na, nb = len(a[0].deal_ids), len(b[0].deal_ids)
    for lo in range(0, count, BATCH):
        size = min(BATCH, count - lo)
        wa = rng.multinomial(na, np.full(na, 1.0 / na), size=size)
        wb = wa if paired else rng.multinomial(nb, np.full(nb, 1.0 / nb), size=size)
        ra_all = [p.resampled(wa) for p in a]
        rb_all = [p.resampled(wb) for p in b]
        yield [([x[r] for x in ra_all], [x[r] for x in rb_all]) for r in range(size)]


def interval(draws: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of bootstrap draws (NaN draws left out; NaN, NaN when
    every draw is NaN)."""
    x = np.asarray(draws, dtype=float)
    if not np.isfinite(x).any():
        return float("nan"), float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanpercentile(x, [2.5, 97.5])
    return float(lo), float(hi)
