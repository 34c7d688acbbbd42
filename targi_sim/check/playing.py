"""Playing an expectation's games: the loaded match, batches of unit counts or sums in
parallel workers, and the result type. Below both the SPRT loop (guard) and the
per-card deck check (drift), which share it.
"""


from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from targi_sim.check.baseline import Expectation
from targi_sim.check.metrics import Target, batch_stats, estimate
from targi_sim.engine.logs import G_FIRST, G_WINNER
from targi_sim.errors import DataError, UsageError
from targi_sim.game.deck import load_deck
from targi_sim.game.rules import load_rules
from targi_sim.play.games import run_batch
from targi_sim.play.match import Match, prepare_match
from targi_sim.play.pairing import DESCRIPTIONS, auto_pairing, games_per_deal, plan
from targi_sim.players.strategy import resolve_strategy
from targi_sim.stats.rates import Z95, ClusteredRate, ClusterSums, rate_of, rates_from_sums
from targi_sim.stats.sprt import PASS, TwoSidedSprt, rate, unit_counts, unit_scores

Progress = Callable[[int], None]



@dataclass
class CheckResult:
    """The outcome of one expectation: verdict, the test's state and the measured rate."""

    expectation: Expectation
    verdict: str  # PASS or FAIL
    test: TwoSidedSprt
    counts: np.ndarray  # unit counts by category (sprt.unit_scores(len(counts)))
    games: int
    capped: bool  # the fixed-sample verdict at the cap decided
    seconds: float = 0.0
    ci: tuple[float, float] = field(default=(math.nan, math.nan))
    unit: str = ""  # how the games share deals (targi_sim.play.pairing.DESCRIPTIONS)
    sums: np.ndarray | None = None  # paired-normal kinds: the units' sums (check_metrics)
    drift: object | None = None  # deck_drift: targi_sim.check.drift.DriftOutcome
    card_names: tuple[str, ...] = ()  # the deck's tribe names (card_id -> name), if known

    @property
    def rate(self) -> float:
        """The measured value: a rate (fraction), or a mean in its own units."""
        if self.sums is not None:
            return float(estimate(self.sums)[0])
        return rate(self.counts) if len(self.counts) else math.nan

    @property
    def passed(self) -> bool:
        return self.verdict == PASS

    @property
    def design_effect(self) -> float:
        """The variance of the units over that of independent games (NaN if unknown)."""
        if self.sums is not None or not len(self.counts):
            return math.nan
        return unit_rate(self.counts).deff



def _wrap(e: Expectation, key: str, value: str, exc: UsageError) -> DataError:
    return DataError(e.path, e.where, key, value, exc.valid, f"is not a known {exc.kind}")



@dataclass(frozen=True, eq=False)
class Prepared:
    """An expectation's loaded match and the layout of its games (targi_sim.play.pairing)."""

    match: Match
    pairing: str
    target: Target | None = None  # None: win_rate or first_player_rate

    @property
    def unit(self) -> str:
        return DESCRIPTIONS[self.pairing]

    @property
    def card_names(self) -> tuple[str, ...]:
        return self.match.deck.tribe_names



def _target(e: Expectation, deck) -> Target | None:
    """What the expectation measures in this deck; a card, symbol or raid the deck does
    not have is a DataError naming the field and what the deck has."""
    from targi_sim.engine.constants import SYMBOL_NAMES
    from targi_sim.report.values import rates_from_deck

    if e.kind in ("win_rate", "first_player_rate"):
        return None
    names = deck.tribe_names
    cards: tuple[int, ...] = tuple(range(len(names)))
    if e.kind == "card_rate" and e.symbol:
        code = SYMBOL_NAMES.index(e.symbol)
        cards = tuple(int(k) for k in np.flatnonzero(deck.tribe_symbol == code))
        if not cards:
            raise DataError(e.path, e.where, "symbol", e.symbol,
                            sorted({SYMBOL_NAMES[int(c)] for c in deck.tribe_symbol}),
                            f"has no cards in deck {deck.name!r}")
    elif e.kind == "card_rate" and isinstance(e.card, int):
        if not 0 <= e.card < len(names):
            raise DataError(e.path, e.where, "card", e.card,
                            f"card_id 0..{len(names) - 1} (the deck's [[tribe]] entries "
                            "counting from 0, as in the run tables) or a card name",
                            f"is not a card of deck {deck.name!r}")
        cards = (e.card,)
    elif e.kind == "card_rate":
        if e.card not in names:
            raise DataError(e.path, e.where, "card", e.card,
                            f"card_id 0..{len(names) - 1} or a card name: "
                            + ", ".join(f"{k} {n!r}" for k, n in enumerate(names)),
                            f"is not a card name of deck {deck.name!r}")
        cards = (names.index(e.card),)
    if e.kind == "raid_loss" and e.raid not in {int(r) for r in deck.raid_number if r > 0}:
        raise DataError(e.path, e.where, "raid", e.raid,
                        sorted(int(r) for r in deck.raid_number if r > 0),
                        f"is not a raid of deck {deck.name!r}")
    vp = rates_from_deck(deck)
    return Target(e.kind, e.metric, cards, pooled=bool(e.symbol), raid=e.raid,
                  goods_vp=vp.goods_vp, gold_vp=vp.gold_vp)



def prepare(e: Expectation) -> Prepared:
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
    seats = (loaded["strategy"], loaded["opponent"])
    match = prepare_match(seats, loaded["deck"], loaded["rules"])
    return Prepared(match, auto_pairing(seats), _target(e, loaded["deck"]))



def batch_counts(match: Match, kind: str, seed: int, start: int, n: int,
                 pairing: str = "seat_swapped") -> np.ndarray:
    """Unit counts of games start..start+n-1 (whole units) of run `seed`: pentanomial
    for seat-swapped pairs, trinomial when every game has its own deal.

    The tracked side is seat 0's strategy for "win_rate" and the round-1 first
    player for "first_player_rate"; draws count half. A pure function of its
    arguments (the strategy rows are copied: nothing cached carries over).
    """
    seeds, first, ids = plan(n, seed, pairing, start=start)
    G, _ = run_batch(match, seeds, first, ids, logs=False)
    winner = G[:, G_WINNER]
    tracked = 0 if kind == "win_rate" else G[:, G_FIRST]
    points = (winner == tracked) + 0.5 * (winner == -1)
    return unit_counts(points, games_per_deal(pairing))



def unit_rate(counts: np.ndarray, z: float = Z95) -> ClusteredRate:
    """The rate of unit counts with the unit (pair, or game) as the cluster:
    targi_sim.stats.rates' clustered rate of the units' points (interval: Wilson on games /
    design effect)."""
    c = np.asarray(counts, dtype=float)
    m = (len(c) - 1) // 2  # games per unit
    points = unit_scores(len(c)) * m  # a unit's points in each category
    k = c.sum()
    sums = ClusterSums(k, float(c @ points), k * m, float(c @ points**2),
                       float(c @ points) * m, k * m * m)
    return rate_of(sums, z)



def rate_interval(counts: np.ndarray, z: float = Z95) -> tuple[float, float]:
    """95% interval of the rate of unit counts (see `unit_rate`)."""
    return unit_rate(counts, z).interval



@contextmanager
def worker_pool(jobs: int) -> Iterator[object]:
    """A joblib Parallel (loky processes) kept open across batches and expectations."""
    from joblib import Parallel

    from targi_sim._utils.workers import loky_backend

    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    with Parallel(n_jobs=jobs, backend=loky_backend()) as parallel:
        yield parallel



def batch_results(prepared: Prepared, e: Expectation, seed: int, starts: list[int],
             parallel) -> list[np.ndarray]:
    from joblib import delayed

    m, t = prepared.match, prepared.target
    if t is None:
        return parallel(delayed(batch_counts)(m, e.kind, seed, s, e.batch_games,
                                              prepared.pairing) for s in starts)
    return parallel(delayed(batch_stats)(m, t, seed, s, e.batch_games, prepared.pairing)
                    for s in starts)



def empty_counts(prepared: Prepared) -> np.ndarray:
    return np.zeros(2 * games_per_deal(prepared.pairing) + 1, dtype=np.int64)



def decided_by_normal_test(prepared: Prepared) -> bool:
    """True when the paired-normal test decides (a card's rate, a mean)."""
    return prepared.target is not None and not prepared.target.gsprt



def sums_interval(sums: np.ndarray, mean: bool, z: float = Z95) -> tuple[float, float]:
    """95% interval from the units' sums: Wilson on n / deff for a rate (targi_sim.stats.rates),
    estimate +- z se for a mean."""
    if mean:
        m, var = estimate(sums)
        se = math.sqrt(var) if var == var else math.nan
        return float(m - z * se), float(m + z * se)
    r = rates_from_sums(*sums, z=z)
    return float(r["lo"]), float(r["hi"])



def play_sums(match: Prepared, e: Expectation, seed: int, n: int, parallel,
              progress: Progress | None = None) -> np.ndarray:
    """The summed batch statistics of games 0..n-1 (whole batches) of run `seed`."""
    starts = list(range(0, n, e.batch_games))
    total = None
    step = 16  # batches per call, so progress can be shown
    for k in range(0, len(starts), step):
        for batch in batch_results(match, e, seed, starts[k:k + step], parallel):
            total = batch.copy() if total is None else total + batch
            if progress is not None:
                progress(e.batch_games)
    return total



__all__ = ["CheckResult", "Prepared", "batch_counts", "play_sums", "prepare", "rate_interval",
           "sums_interval", "unit_rate", "worker_pool"]
