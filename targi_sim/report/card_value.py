"""The report's causal card value section (docs/report.md#causal-card-value), shown when
the run has card-value forks (`targi-sim card-value RUN`)."""

from __future__ import annotations

import math

import polars as pl

from targi_sim.runner.reading import RunInfo
from targi_sim.stats.grades import grade_by_z

from ..cardvalue.forkdir import fork_files
from ..cardvalue.values import BY, clustered_effects, read_forks, values_of
from ..errors import InputError
from ..game.classes import CardClasses
from ..runner.classes import run_classes, tribe_cards
from .model import Plot, Section, Table, mark_low_n
from .plots import card_bars, scatter

MIN_FORKS_DIVISOR = 5  # a card is graded with n_forks >= --min-n / 5 (a fork is 2 games)


def has_forks(run: RunInfo) -> bool:
    """True if the run has complete card-value forks (the section is shown)."""
    return fork_files(run.path) is not None


def _values(run: RunInfo, classes: CardClasses | None) -> pl.DataFrame | None:
    """The run's causal values, one row per class of identical cards (`classes`, else the
    run deck's); None when the run has no forks."""
    try:
        forks = read_forks(run.path)
    except InputError:
        return None
    return values_of(forks, tribe_cards(run), classes or run_classes(run))


def grading_values(run: RunInfo, min_n: int,
                   classes: CardClasses | None = None) -> pl.DataFrame | None:
    """(card_id, value, se) per class of identical cards (card_id: its first card) of the
    causal values the tribe-card grades use when the run has forks (classes with fewer
    than --min-n / 5 forks get none: ungraded); None without forks, so the grades fall
    back to WR played."""
    values = _values(run, classes)
    if values is None:
        return None
    min_forks = max(1, min_n // MIN_FORKS_DIVISOR)
    enough = pl.col("n_forks") >= min_forks
    return values.select(pl.col("card_id"), pl.when(enough).then(pl.col("value")).alias("value"),
                         pl.when(enough).then(pl.col("se")).alias("se"))


def section(run: RunInfo, observed: pl.DataFrame, min_n: int,
            classes: CardClasses | None = None) -> Section | None:
    """None when the run has no forks; `observed` is the cards_tribe table, one row per
    class of `classes` (its `improvement` is plotted against the causal value)."""
    try:
        forks = read_forks(run.path)
    except InputError:
        return None
    min_forks = max(1, min_n // MIN_FORKS_DIVISOR)
    values = grade_by_z(values_of(forks, tribe_cards(run), classes or run_classes(run)),
                        min_forks)
    values = values.join(observed.select(pl.col("card_id").cast(pl.Int64), "improvement",
                                         pl.col("grade").alias("observed_grade")),
                         on="card_id", how="left")
    values = mark_low_n(values, "n_forks", min_forks)
    symbol = mark_low_n(clustered_effects(forks, BY["symbol"]), "n_forks", min_forks)
    rounds = mark_low_n(clustered_effects(forks, BY["round"]), "n_forks", min_forks)
    order = values.sort("value", descending=True, nulls_last=True)
    finite = values.filter(pl.col("value").is_not_nan() & pl.col("improvement").is_not_nan()
                           & ~pl.col("low_n"))
    sec = Section("card_value", "3b. Causal card value (forked play)", text=[
        f"{forks.height:,} forks over {forks['pair_id'].n_unique():,} deals. At a sampled "
        "decision where a player could take a tribe card (centre or Tribal Expansion) the "
        "game was copied and played out twice on the same random streams by the run's "
        "strategies: once with the player's best way to take the card (pay and place), "
        "once with its best alternative with taking excluded (leave or discard). value = "
        "mean difference in the player's result (win 1, draw 1/2), margin = in its final "
        "score margin; 95% intervals cluster by deal (pair_id).",
        "A row is a class of identical printed cards (`copies`, `card_ids`; card_id is the "
        "first copy's), as in the tribe-card table: the forks of every copy are pooled "
        "into one value, their intervals still clustered by deal.",
        f"Grades are z-scores of value among classes with n_forks >= {min_forks}. Observed "
        "'improvement' (WR played - WR not taken) mixes a card's strength with who takes it "
        "and when; the scatter's distance from a straight line is that confounding.",
    ], tables=[
        Table("card_value", "Causal value per tribe card (one row per class of "
              "identical printed cards)", values, n_col="n_forks",
              hidden=("se", "margin_se", "value_deff", "margin_deff")),
        Table("card_value_symbol", "Causal value per symbol", symbol, n_col="n_forks",
              hidden=("se", "margin_se", "value_deff", "margin_deff")),
        Table("card_value_round", "Causal value by round of the decision (all cards)", rounds,
              n_col="n_forks", hidden=("se", "margin_se", "value_deff", "margin_deff")),
    ])
    sec.plots.append(Plot("card_value_bars", "Causal value per tribe card (95% interval)",
                          card_bars(order["name"].to_list(), _nan0(order["value"]),
                                    _nan0(order["ci_low"]), _nan0(order["ci_high"]),
                                    order["low_n"].to_list(), "win-probability effect of "
                                    "taking it", ref=0.0)))
    if finite.height >= 2:
        sec.plots.append(Plot(
            "card_value_scatter", "Observed improvement when played vs causal value",
            scatter(finite["improvement"].to_list(), finite["value"].to_list(),
                    finite["name"].to_list(), "observed improvement (WR played - WR not "
                    "taken)", "causal value (forked play)")))
    return sec


def _nan0(s: pl.Series) -> list[float]:
    return [0.0 if (v is None or math.isnan(v)) else v for v in s.to_list()]
