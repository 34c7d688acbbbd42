"""The balance verdict of `compare`: did run B's deck get more or less balanced than A's?

Why here and not per metric: a designer's change moves a dozen metrics, and whether
the deck as a whole got better is what the balance objective defines. The terms are
those `balance` minimises (targi_sim.fairness.objective: the card-value spread within
classes of equal VP, never/always-taken extremes, the first player's distance from
50%, tie-breaks, game length), measured on each run's tables by the same reduction
(targi_sim.fairness.tables), with the weights of the shipped settings
(data/balance/default.toml). Each change gets a 95% interval from the bootstrap over
deals that `balance` validates with (targi_sim.fairness.bootstrap): paired when both
runs played the same deals (same --seed, games and pairing), else each run resampled
on its own. The verdict rule is `decide`; docs/report.md states it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import polars as pl

from targi_sim.fairness.bootstrap import interval, resamples
from targi_sim.fairness.measure import DeckStats, PerDeal
from targi_sim.fairness.objective import TERMS, UNMEASURED, Terms, compared_cards, terms
from targi_sim.fairness.settings import Objective, load_settings
from targi_sim.fairness.tables import GAME_COLUMNS, digest_part, measure_chunks
from targi_sim.game.classes import CardClasses, common_classes
from targi_sim.runner.classes import run_classes
from targi_sim.runner.layout import RunDir
from targi_sim.runner.reading import RunInfo, read_parquet_file

from .model import Section, Table

RESAMPLES = 1000
SEED = 0  # the bootstrap's: compare's output is a function of the two runs alone
MAX_UNITS = 5_000  # more deals than this are resampled in blocks of consecutive deals
ROWS = (*TERMS, "objective")
SCHEMA = {"term": pl.String, "before": pl.Float64, "after": pl.Float64,
          "change": pl.Float64, "change_lo": pl.Float64, "change_hi": pl.Float64,
          "weight": pl.Float64, "decides": pl.String}
VERDICTS = ("more balanced", "less balanced", "no clear change")


@dataclass(frozen=True)
class RunCards:
    """What the objective reads of a run's deck: its tribe cards' printed VP, and its
    classes of identical printed cards (pooled, as `balance` pools them)."""

    tribe_vp: np.ndarray
    tribe_names: tuple[str, ...]
    classes: CardClasses | None = None

    @property
    def n_tribe(self) -> int:
        return len(self.tribe_names)


@dataclass
class BalanceChange:
    """The terms before (A) and after (B), their changes with intervals, the verdict."""

    table: pl.DataFrame  # SCHEMA, one row per ROWS
    line: str  # "Balance verdict: ..."
    paired: bool
    deals: tuple[int, int]
    block: int  # deals per resampled unit (1 unless a run has more than MAX_UNITS deals)
    resamples: int
    balance_draws: np.ndarray  # bootstrap draws of the change of the Ludii Balance


def run_cards(run: RunInfo) -> RunCards:
    """The run's tribe cards (cards.parquet, which read_run_info checked) by card_id."""
    cards = read_parquet_file(RunDir(run.path).cards_path)
    tribe = cards.filter(pl.col("card_type") == "tribe").sort("card_id")
    return RunCards(tribe["vp"].cast(pl.Int64).to_numpy(), tuple(tribe["name"].to_list()),
                    run_classes(run))


def run_chunks(run: RunInfo, n_cards: int, progress: Callable[[str], None] | None = None
               ) -> Iterator[PerDeal]:
    """The run's per-deal sums chunk by chunk, from its games table and game digests
    (targi_sim.runner.digests: never the log tables, unless a chunk's digest must be
    computed from them once; `progress` says so)."""
    from targi_sim.runner.digests import chunk_digests

    for path, digest in zip(run.files["games"], chunk_digests(run, progress=progress),
                            strict=True):
        yield digest_part(read_parquet_file(path, GAME_COLUMNS), digest, n_cards)


def run_measure(run: RunInfo, cards: RunCards, block: int = 1,
                classes: CardClasses | None = None,
                progress: Callable[[str], None] | None = None) -> tuple[DeckStats, PerDeal]:
    """What `balance` measures of the same games, from a run's tables: the DeckStats and
    the per-unit sums a bootstrap resamples (targi_sim.fairness.tables.measure_chunks),
    card columns pooled into `classes`. `cards`: the run's (run_cards)."""
    return measure_chunks(run_chunks(run, cards.n_tribe, progress), block, classes)


def run_terms(run: RunInfo, objective: Objective | None = None) -> Terms:
    """A run's balance terms, exactly as `balance` computes them for the same games (its
    classes of identical cards pooled)."""
    obj = objective or load_settings().objective
    cards = run_cards(run)
    return terms(run_measure(run, cards, classes=cards.classes)[0],  # type: ignore[arg-type]
                 cards, obj, classes=cards.classes)


def _deals(run: RunInfo) -> pl.DataFrame:
    """Every game's deal: game_id, pair_id, seed and first player, by game_id."""
    cols = ("game_id", "pair_id", "seed", "first_player")
    return pl.concat([read_parquet_file(p, cols) for p in run.files["games"]]).sort("game_id")


def _values(t: Terms, obj: Objective) -> dict[str, float]:
    return {k: float(getattr(t, k)) for k in TERMS} | {"objective": t.total(obj)}


def _weights(obj: Objective) -> dict[str, float]:
    return {k: float(getattr(obj, k)) for k in TERMS} | {"objective": 1.0}


def balance_change(a: RunInfo, b: RunInfo, objective: Objective | None = None,
                   count: int = RESAMPLES, seed: int = SEED,
                   progress: Callable[[str], None] | None = None) -> BalanceChange:
    """Run A's and run B's balance terms, each change's 95% bootstrap interval and the
    verdict. The spread compares the cards A's measurement compares (as `balance`
    validates a proposal against its base deck), unless the decks differ in size.
    `progress` hears of game digests computed from a run's rows (an older run)."""
    obj = objective or load_settings().objective
    da, db = _deals(a), _deals(b)
    paired = da.equals(db)
    deals = (da["pair_id"].n_unique(), db["pair_id"].n_unique())
    block = max(1, math.ceil(max(deals) / MAX_UNITS))
    ca, cb = run_cards(a), run_cards(b)
    same = ca.n_tribe == cb.n_tribe
    # copies in both decks are one class; a copy edited in one deck stands alone in both
    ka, kb = ((common_classes(ca.classes, cb.classes, ca.tribe_names),) * 2 if same
              else (ca.classes, cb.classes))
    (sa, pa), (sb, pb) = (run_measure(a, ca, block, ka, progress),
                          run_measure(b, cb, block, kb, progress))
    paired = paired and np.array_equal(pa.deal_ids, pb.deal_ids)
    fixed = (compared_cards(ca, terms(sa, ca, obj, classes=ka),  # type: ignore[arg-type]
                            obj.min_plays, ka) if same else None)
    before = _values(terms(sa, ca, obj, fixed, ka), obj)  # type: ignore[arg-type]
    after = _values(terms(sb, cb, obj, fixed, kb), obj)  # type: ignore[arg-type]
    # resamples keep the point estimates' verdict on which cards are measured: a card
    # of A near min_plays must not drop out of some resamples (the spread would jump to
    # UNMEASURED), while B, if it left a compared card too rarely played, stays so
    fa = fixed if fixed is None else (fixed[0], fixed[1], 0.0)
    fb = fixed if after["spread"] == UNMEASURED else fa
    draws: dict[str, list[float]] = {k: [] for k in ROWS}
    for batch in resamples([pa], [pb], np.random.default_rng(seed), count, paired):
        for (xa,), (xb,) in batch:
            va = _values(terms(xa, ca, obj, fa, ka), obj)  # type: ignore[arg-type]
            vb = _values(terms(xb, cb, obj, fb, kb), obj)  # type: ignore[arg-type]
            for k in ROWS:
                draws[k].append(vb[k] - va[k])
    weights = _weights(obj)
    rows = []
    for k in ROWS:
        lo, hi = interval(draws[k])
        side = "better" if hi < 0 else "worse" if lo > 0 else ""
        rows.append({"term": k, "before": before[k], "after": after[k],
                     "change": after[k] - before[k], "change_lo": lo, "change_hi": hi,
                     "weight": weights[k], "decides": side if weights[k] > 0 else ""})
    table = pl.DataFrame(rows, schema=SCHEMA)
    # Ludii Balance = 1 - |2 rate - 1| = 1 - 2 first_player: its change is -2 times
    return BalanceChange(table, decide(table), paired, deals, block, count,
                         -2.0 * np.asarray(draws["first_player"], dtype=float))


# What each term's move means to a designer, better / worse (lower is better for all).
PHRASES = {
    "spread": ("the card values of equal-VP cards closer together",
               "the card values of equal-VP cards further apart"),
    "extremes": ("fewer cards never or always taken", "more cards never or always taken"),
    "first_player": ("the first player's rate closer to 50%",
                     "the first player's rate further from 50%"),
    "tiebreak": ("fewer games decided by a tie-break", "more games decided by a tie-break"),
    "rounds": ("game length closer to its target", "game length further from its target"),
}


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def decide(table: pl.DataFrame) -> str:
    """The verdict line from a compare_balance table (lower is better for every term):
    one sentence saying what got better and what worse, then the objective's change.

    A term decides when it has a weight and its interval excludes 0. No deciding term:
    no clear change. Deciding terms that agree: their direction. Deciding terms that
    conflict are weighed by the objective (the weighted sum `balance` minimises): its
    own interval decides, and when it includes 0 there is no clear change."""
    rows = {r["term"]: r for r in table.iter_rows(named=True)}
    better = [k for k in TERMS if k in rows and rows[k]["decides"] == "better"]
    worse = [k for k in TERMS if k in rows and rows[k]["decides"] == "worse"]
    obj = rows.get("objective")
    weighed = ("" if obj is None else
               f"; weighing the terms, the balance objective (lower is better) moved by "
               f"{obj['change']:+.3g} "
               f"(95% interval {obj['change_lo']:+.3g} to {obj['change_hi']:+.3g})")
    good = _listed([PHRASES[k][0] for k in better]) if better else ""
    bad = _listed([PHRASES[k][1] for k in worse]) if worse else ""
    if not better and not worse:
        return ("Balance verdict: no clear change: no term of the balance objective moved "
                f"beyond its 95% interval{weighed}")
    if not worse:
        return f"Balance verdict: more balanced: B has {good}, and nothing got worse{weighed}"
    if not better:
        return f"Balance verdict: less balanced: B has {bad}, and nothing got better{weighed}"
    if obj is not None and obj["change_hi"] < 0:
        word = "more balanced"
    elif obj is not None and obj["change_lo"] > 0:
        word = "less balanced"
    else:
        word = "no clear change"
    return f"Balance verdict: {word}: B has {good} (better) but {bad} (worse){weighed}"


def balance_test(change: float, draws: np.ndarray) -> tuple[float, float, float]:
    """(z, p-value, variance) of a change whose bootstrap draws are `draws`: a normal
    test with the bootstrap standard error; a draw-free standard error of 0 gives
    p = 1 for no change and 0 otherwise."""
    d = draws[np.isfinite(draws)]
    if d.size < 2 or not math.isfinite(change):
        return math.nan, math.nan, math.nan
    se = float(np.std(d, ddof=1))
    if se == 0.0:
        return math.nan, 1.0 if change == 0 else 0.0, 0.0
    z = change / se
    return z, 2.0 * (1.0 - NormalDist().cdf(abs(z))), se * se


def with_balance_test(df: pl.DataFrame, change: BalanceChange) -> pl.DataFrame:
    """compare's table with the headline Ludii Balance row tested (balance_test on the
    verdict's bootstrap draws), so that it joins the family of tests."""
    is_row = (pl.col("group") == "headline") & (pl.col("metric") == "Balance")
    row = df.filter(is_row)
    if not row.height:
        return df
    z, p, var = balance_test(float(row["change"][0]), change.balance_draws)
    return df.with_columns(
        pl.when(is_row).then(pl.lit(z)).otherwise(pl.col("z")).alias("z"),
        pl.when(is_row).then(pl.lit(p)).otherwise(pl.col("p_value")).alias("p_value"),
        pl.when(is_row).then(pl.lit(var)).otherwise(pl.col("variance")).alias("variance"))


def verdict_section(change: BalanceChange, objective: Objective | None = None) -> Section:
    """The compare report's first section: the verdict line and the terms' table."""
    obj = objective or load_settings().objective
    how = ("paired: both runs played the same deals, one resample weights each deal of "
           "both alike" if change.paired else
           "unpaired: the runs played different deals (seed, games or pairing differ), "
           "each resampled on its own")
    unit = ("deals" if change.block == 1 else
            f"blocks of {change.block} consecutive deals (runs of more than "
            f"{MAX_UNITS:,} deals)")
    text = [
        f"**{change.line}.**",
        "The terms of the balance objective, the one definition `targi-sim balance` "
        "minimises (docs/balance.md); lower is better for every one: spread = debiased "
        f"SD of the cards' {obj.value} value among cards of equal printed VP (cards played "
        f"at least {obj.min_plays} times in A, held to that play rate in B); extremes = mean "
        f"distance of acquire rates below {obj.never:g} or above {obj.always:g}; "
        "first_player = |first player's rate - 0.5|; tiebreak = share of games reaching "
        f"a tie-break; rounds = |mean rounds - {obj.rounds_target:g}| / 12; objective = "
        "their sum weighted by `weight` (data/balance/default.toml).",
        f"change = B - A with a 95% bootstrap interval over {unit} ({change.resamples:,} "
        f"resamples; {how}; {change.deals[0]:,} vs {change.deals[1]:,} deals). decides: "
        "a weighted term whose interval excludes 0. Terms that agree decide the verdict; "
        "terms that conflict are weighed by the objective, whose interval then decides "
        "(docs/report.md, 'Balance verdict').",
    ]
    return Section("balance", "Balance verdict", text=text, tables=[
        Table("compare_balance", "Balance objective terms, A (before) and B (after)",
              change.table)])
