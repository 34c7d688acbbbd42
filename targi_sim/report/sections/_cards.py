"""Section 3, cards: acquire and play rates, win rate when played, grades for VP and cost."""

from __future__ import annotations

import math

import polars as pl

from targi_sim.game.classes import CardClasses, singletons
from targi_sim.stats.grades import GradeModel, grade_values, grades

from .. import plots
from ..data import ReportData
from ..metrics import (
    drop_sums,
    with_rate,
)
from ..model import Section, Table, mark_low_n
from .common import columns_of, cost_text, make_plot, pooled_rate


def _card_rates(df: pl.DataFrame, min_n: int, z_grades: bool = True) -> pl.DataFrame:
    df = with_rate(df, "acquire_rate", "taken_games", "offered_games")
    df = with_rate(df, "played_wr", "played_points", "played_n")
    df = with_rate(df, "not_taken_wr", "not_taken_points", "not_taken_n")
    df = df.with_columns((pl.col("played_wr") - pl.col("not_taken_wr")).alias("improvement"))
    df = mark_low_n(drop_sums(df), "played_n", min_n)
    if not z_grades:
        return df
    z, g = grades(df["played_wr"].fill_nan(None).fill_null(math.nan).to_list(),
                  [not x for x in df["low_n"].to_list()])
    return df.with_columns(pl.Series("z", z, dtype=pl.Float64),
                           pl.Series("grade", g, dtype=pl.String))


def grade_tribe(tribe: pl.DataFrame, values: pl.DataFrame | None = None
                ) -> tuple[pl.DataFrame, GradeModel]:
    """Cost- and VP-adjusted grades of the tribe cards (targi_sim.stats.grades), one per
    row of `tribe` (a class of identical cards in the report).

    values: a table (card_id, value, se) keyed like `tribe`'s rows (a class by its first
    card), e.g. causal card values from forked play; graded on those when given (every
    row with a value is eligible), else on WR played among the rows with played_n >=
    --min-n."""
    cost = sum(pl.col(c).fill_null(0) for c in COST_COLUMNS)
    base = tribe.select("card_id", pl.col("vp"), cost.alias("cost"), "low_n")
    if values is None:
        base = base.with_columns(tribe["played_wr"].alias("value"),
                                 tribe["played_wr_se"].alias("se"))
        eligible, name, prefix = ~base["low_n"], "WR played", "played_wr"
    else:
        base = base.join(values.select(pl.col("card_id").cast(pl.Int32), "value", "se"),
                         on="card_id", how="left")
        eligible, name, prefix = base["value"].is_not_null(), "causal card value", "value"
    graded, model = grade_values(base, eligible=eligible, value_name=name)
    cols = [pl.col("expected").alias(f"{prefix}_expected"),
            pl.col("residual").alias(f"{prefix}_excess"),
            pl.col("residual_lo").alias(f"{prefix}_excess_lo"),
            pl.col("residual_hi").alias(f"{prefix}_excess_hi"),
            pl.col("residual_z").alias("grade_z"), "grade"]
    if values is not None:
        cols = [pl.col("value"), pl.col("se").alias("value_se"), *cols]
    return tribe.with_columns(graded.select(cols)), model


COST_COLUMNS = ("cost_salt", "cost_pepper", "cost_dates", "cost_gold")


# rates of the tribe-card and symbol tables that `compare` tests and that get an MDE
CARD_RATE_COLUMNS = ("acquire_rate", "played_wr", "not_taken_wr")


_CARD_HIDDEN = ("played_points", "not_taken_points", "taken_games", "acquisition_rows", "kept",
                "discarded", "acquired_centre", "acquired_expansion", "played",
                *(f"{r}_se" for r in CARD_RATE_COLUMNS))


# counts of the tribe-card table (analyses/sums_tribe.sql) a class or a symbol sums over
POOLED_SUMS = ("offered_rounds", "acquired", "acquired_centre", "acquired_expansion", "played",
               "kept", "discarded", "acquisition_rows")


def pool_cards(df: pl.DataFrame, by: str, *first: pl.Expr) -> pl.DataFrame:
    """Rows of a tribe-card table pooled per `by` (a class of copies, a symbol): the
    POOLED_SUMS summed, round_mean the mean round over every acquisition (null without
    one), `first` for the other columns. Why one routine: a class of identical cards and
    a symbol are both read as one card with its cards' counts added."""
    return (df.with_columns((pl.col("round_mean") * pl.col("acquired")).alias("_rs"))
            .group_by(by, maintain_order=True)
            .agg(*first, *[pl.col(c).sum() for c in POOLED_SUMS], pl.col("_rs").sum())
            .with_columns(pl.when(pl.col("acquired") > 0)
                          .then(pl.col("_rs") / pl.col("acquired")).alias("round_mean"))
            .drop("_rs"))


def tribe_classes(per_card: pl.DataFrame, classes: CardClasses) -> pl.DataFrame:
    """The tribe-card rows (one per card, ReportData.cards_tribe) as one row per class of
    identical printed cards (targi_sim.game.classes), named by classes.columns(): card_id
    is the class's first card, name its class name, with copies and card_ids; the printed
    columns are the first card's (the copies print the same)."""
    key = pl.Series("card_id", classes.first()[classes.of_card[per_card["card_id"].to_numpy()]],
                    dtype=pl.Int32)
    printed = [c for c in per_card.columns if c not in (*POOLED_SUMS, "round_mean", "card_id",
                                                        "name")]
    pooled = pool_cards(per_card.with_columns(key), "card_id",
                        *[pl.col(c).first() for c in printed])
    named = pl.DataFrame(classes.columns()).with_columns(pl.col("card_id").cast(pl.Int32))
    return named.join(pooled, on="card_id", how="left").select(
        *named.columns, *printed, *POOLED_SUMS, "round_mean")


_CLASS_TEXT = (
    "A row of the tribe-card table is a class of identical printed cards (same symbol, VP, "
    "cost and ability, from the run's deck): the deck prints some cards twice, and two "
    "copies cannot differ in play, so they are one row (`copies`, `card_ids`; card_id is "
    "the first copy's) and are graded once. Its counts are summed over the copies, per "
    "pair before the intervals, as a symbol's are: its rates are per copy (acquire rate = "
    "games a copy was taken / games a copy was offered, both counted per copy; a player "
    "who played both copies counts twice in n played), and per-game columns are the "
    "class's total.")


def cards(d: ReportData, min_n: int, games: int, values: pl.DataFrame | None = None,
          classes: CardClasses | None = None) -> Section:
    """Tribe cards (17lands style), per symbol, border cards and goods cards.

    values: optional per-class values (card_id of the class's first card, value, se) to
    grade on (grade_tribe). classes: the deck's classes of identical cards (one row each,
    their copies pooled); None: every card its own row."""
    per_card = d.cards_tribe()
    if classes is None:
        classes = singletons(per_card.height, per_card["name"].to_list())
    symbols = list(dict.fromkeys(per_card["symbol"].to_list()))
    counts = d.tribe_counts(classes)
    tribe = tribe_classes(per_card, classes).join(counts, on="card_id", how="left")
    tribe = tribe.sort("card_id").with_columns(
        pl.Series("cost", [cost_text(r) for r in tribe.iter_rows(named=True)], dtype=pl.String))
    tribe, model = grade_tribe(_card_rates(tribe, min_n, z_grades=False), values)
    tribe = tribe.with_columns((pl.col("acquired") / max(games, 1)).alias("acquired_per_game"))

    symbol = pool_cards(tribe, "symbol", pl.col("copies").sum().alias("cards"))
    symbol = symbol.join(d.symbol_counts(symbols), on="symbol", how="left")
    symbol = _card_rates(symbol.sort("symbol"), min_n)

    border = d.cards_border()
    border = with_rate(border, "use_rate", "placements", "open_rounds")
    border = with_rate(border, "used_wr", "used_points", "used_n")
    border = border.with_columns((pl.col("placements") / max(games, 1)).alias("uses_per_game"))
    border = mark_low_n(drop_sums(border), "used_n", min_n)

    goods = d.cards_goods()
    goods = goods.with_columns(
        (pl.col("salt") + pl.col("pepper") + pl.col("dates") + pl.col("choose_one"))
        .alias("goods_per_take"),
        (pl.col("taken") / max(games, 1)).alias("taken_per_game"))
    goods = goods.with_columns(
        (pl.col("goods_per_take") * pl.col("taken") / max(games, 1)).alias("goods_per_game"),
        (pl.col("gold") * pl.col("taken") / max(games, 1)).alias("gold_per_game"),
        (pl.col("vp") * pl.col("taken") / max(games, 1)).alias("vp_per_game"))
    goods = with_rate(goods, "taker_wr", "taker_points", "taker_n")
    goods = mark_low_n(drop_sums(goods), "taker_n", min_n)

    sec = Section("cards", "3. Card balance", text=[
        "Tribe cards: offered = face up in the centre when placement starts; acquire rate = "
        "games in which someone took the card from the centre / games in which it was "
        "offered; WR played = rate of the players who played it to their display; WR not "
        "taken = rate of the players in games where it was offered who did not acquire it; "
        "improvement = their difference.",
        _CLASS_TEXT,
        f"Grades compare a card with the cards it competes with: {model.value_name} against "
        "what a line of it on printed VP and total cost across the cards predicts for a "
        "card of its VP and cost (`*_expected`); `*_excess` is the difference with its 95% "
        "interval, and the grade reads it in SDs of the cards' excesses: C = as its VP and "
        "cost predict, one step per third of an SD (A = well above, F = well below). Only "
        f"cards with n played >= {min_n} are graded. Symbols are graded by the z-score of "
        "their WR played among the symbols.",
        model.describe(),
        "Border cards: use rate = Targi placements / rounds the card was open (robber "
        "elsewhere); WR used = rate of players who used the card at least once in the game.",
        "Intervals and tests count each pair_id (the games sharing a deal) as one unit; "
        "*_deff columns are the design effects, shown where some differ from 1. *_mde: the "
        "smallest change `compare` against another run of this size would flag with 80% "
        "power (see the note under the tribe-card table).",
    ], tables=[
        Table("cards_tribe", "Tribe cards (one row per class of identical printed cards)",
              tribe, n_col="played_n", hidden=(
                  "cost_salt", "cost_pepper", "cost_dates", "cost_gold", *_CARD_HIDDEN),
              compact=("name", "card_id", "copies", "symbol", "vp", "cost", "played_n",
                       "played_wr", "played_wr_expected", "played_wr_excess", "value",
                       "value_excess", "grade", "acquire_rate")),
        Table("cards_symbol", "Tribe cards per symbol (pooled over the symbol's cards)", symbol,
              n_col="played_n", hidden=_CARD_HIDDEN,
              compact=("symbol", "cards", "played_n", "played_wr", "acquire_rate",
                       "not_taken_wr", "grade")),
        Table("cards_border", "Border cards", border, n_col="used_n",
              hidden=("used_points", "use_rate_se", "used_wr_se")),
        Table("cards_goods", "Goods cards (one id per physical card)", goods, n_col="taker_n",
              hidden=("taker_points", "taker_wr_se")),
    ])
    _card_forests(sec, tribe, symbol)
    return sec


def _card_forests(sec: Section, tribe: pl.DataFrame, symbol: pl.DataFrame) -> None:
    """Forest plots of WR played and acquire rate per card and per symbol, sorted by WR
    played, coloured by symbol, a dashed line at the rate pooled over every card."""
    wr_ref = pooled_rate(tribe, "played_points", "played_n")
    acq_ref = pooled_rate(tribe, "taken_games", "offered_games")
    for df, key, title, label in (
            (tribe, "cards_forest", "Tribe cards: WR played and acquire rate (95% intervals; "
             "hollow grey: n below --min-n; dashed: all cards pooled)",
             lambda r: f"{r['name']} ({'ids' if r['copies'] > 1 else 'id'} {r['card_ids']})"),
            (symbol, "symbols_forest", "Per symbol: WR played and acquire rate (95% "
             "intervals; dashed: all cards pooled)", lambda r: r["symbol"])):
        if df.height < 2:
            sec.text.append(f"{title.split(':')[0]}: only {df.height} row(s), no plot.")
            continue
        order = df.sort("played_wr", descending=True, nulls_last=True)
        rows = list(order.iter_rows(named=True))
        panels = [("win rate when played", *columns_of(order, "played_wr"), wr_ref),
                  ("acquire rate (taken / offered games)", *columns_of(order, "acquire_rate"),
                   acq_ref)]
        if "played_wr_excess" in order.columns:
            panels.append(("WR played - expected for its VP and cost (grade)",
                           *columns_of(order, "played_wr_excess"), 0.0))
        sec.plots.append(make_plot(key, title, plots.forest(
            [label(r) for r in rows], panels,
            [plots.SYMBOL_COLOURS.get(r["symbol"], "#444444") for r in rows],
            order["low_n"].to_list(),
            legend={k: v for k, v in plots.SYMBOL_COLOURS.items()
                    if k in set(order["symbol"].to_list())})))
