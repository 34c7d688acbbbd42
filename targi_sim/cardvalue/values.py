"""Each tribe card's causal value from a run's `forks` table (docs/report.md#causal-card-value).

A fork's effect is (result when taking the card) - (result with the player's best
alternative), results 1 win, 1/2 draw, 0 loss, and the same for the final score margin.
A card's value is the mean effect over its forks; identical printed copies of a card
(targi_sim.game.classes) are one card, the forks of every copy pooled. Forks of one deal
(a seat-swapped pair, or one game) share that deal's luck and often the same card, so
the deal is the unit of the interval: a cluster-robust mean
(targi_sim.stats.rates.means_from_sums) with a normal 95% interval.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from targi_sim.cardvalue.forkdir import fork_files
from targi_sim.game.classes import CardClasses, singletons
from targi_sim.runner.classes import run_classes, tribe_cards
from targi_sim.runner.reading import ReportError, RunInfo, read_run_info
from targi_sim.stats.rates import means_from_sums

from ..errors import InputError

BY = {"card": ("card_id",), "symbol": ("symbol",), "round": ("round",),
      "card_round": ("card_id", "round")}


def read_forks(run_dir: str | Path) -> pl.DataFrame:
    """The run's forks table (every part checked against its marker); InputError if the
    run has none: make them with cardvalue.job (the `card-value` command)."""
    files = fork_files(run_dir)
    if files is None:
        raise InputError(f"{run_dir} has no complete card-value forks; make them with "
                         f"`targi-sim card-value {run_dir}` (or `run` with `card_value`)")
    frames = []
    for path in files:
        with open(path, "rb") as f:
            frames.append(pl.read_parquet(f))
    return pl.concat(frames).with_columns(pl.col("symbol").cast(pl.String),
                                          pl.col("source").cast(pl.String))


def clustered_effects(forks: pl.DataFrame, keys: tuple[str, ...]) -> pl.DataFrame:
    """Per group of `keys`: n_forks, n_deals, value (mean win effect) and margin (mean
    score-margin effect), each with se and 95% interval clustered by pair_id."""
    df = forks.with_columns(
        (pl.col("result_take") - pl.col("result_alt")).cast(pl.Float64).alias("_v"),
        (pl.col("margin_take").cast(pl.Float64) - pl.col("margin_alt")).alias("_m"))
    per = (df.group_by([*keys, "pair_id"])
           .agg(pl.len().alias("_n"), pl.col("_v").sum(), pl.col("_m").sum(),
                (pl.col("_v") ** 2).sum().alias("_vv"), (pl.col("_m") ** 2).sum().alias("_mm")))
    g = (per.group_by(keys)
         .agg(pl.len().alias("n_deals"), pl.col("_n").sum().alias("n_forks"),
              pl.col("_v").sum().alias("v"), (pl.col("_v") ** 2).sum().alias("vv"),
              (pl.col("_v") * pl.col("_n")).sum().alias("vn"),
              pl.col("_m").sum().alias("m"), (pl.col("_m") ** 2).sum().alias("mm"),
              (pl.col("_m") * pl.col("_n")).sum().alias("mn"),
              (pl.col("_n") ** 2).sum().alias("nn"),
              pl.col("_vv").sum().alias("v2"), pl.col("_mm").sum().alias("m2"))
         .sort(keys))
    out = {k: g[k] for k in keys}
    out["n_forks"] = g["n_forks"]
    out["n_deals"] = g["n_deals"]
    n = g["n_forks"].to_numpy().astype(float)
    for name, s, ss, sn, sq in (("value", "v", "vv", "vn", "v2"),
                                ("margin", "m", "mm", "mn", "m2")):
        x = g[s].to_numpy()
        with np.errstate(invalid="ignore", divide="ignore"):
            unit_var = np.where(n > 1, (g[sq].to_numpy() - x * x / n) / (n - 1), np.nan)
        r = means_from_sums(g["n_deals"].to_numpy(), x, n, g[ss].to_numpy(), g[sn].to_numpy(),
                            g["nn"].to_numpy(), unit_var)
        pre = "" if name == "value" else "margin_"
        out[name] = pl.Series(name, r["mean"])
        out[f"{pre}se" if pre else "se"] = pl.Series(r["se"])
        out[f"{pre}ci_low" if pre else "ci_low"] = pl.Series(r["lo"])
        out[f"{pre}ci_high" if pre else "ci_high"] = pl.Series(r["hi"])
        out[f"{name}_deff"] = pl.Series(r["deff"])
    return pl.DataFrame(out).with_columns(pl.col("n_forks").cast(pl.Int64),
                                          pl.col("n_deals").cast(pl.Int64))


COLUMNS = ("card_id", "name", "copies", "card_ids", "symbol", "vp", "n_forks", "n_deals",
           "value", "ci_low", "ci_high", "margin", "margin_ci_low", "margin_ci_high", "se",
           "margin_se", "value_deff", "margin_deff")


def _run(run_dir: Path) -> RunInfo:
    """The run directory, once it checks out (runner.reading.read_run_info: manifest,
    every chunk against its marker, cards.parquet against its checksum)."""
    try:
        return read_run_info(run_dir)
    except ReportError as exc:
        raise InputError(str(exc)) from None


def values_of(forks: pl.DataFrame, cards: pl.DataFrame,
              classes: CardClasses | None = None) -> pl.DataFrame:
    """One row per class of identical cards (targi_sim.game.classes), every class (n_forks
    0 when never forked): the forks of all its copies pooled into one value, clustered by
    deal like one card's, named by classes.columns() (card_id: its first card). `cards`:
    the deck's tribe cards (card_id 0..n-1, name, symbol, vp); without `classes`, every
    card is its own class (one row per card)."""
    cards = cards.sort("card_id")
    if classes is None:
        classes = singletons(cards.height, cards["name"].to_list())
    first = classes.first()[classes.of_card]  # card id -> its class's first card
    pooled = forks.with_columns(pl.Series("card_id", first[forks["card_id"].to_numpy()],
                                          dtype=pl.Int64))
    eff = clustered_effects(pooled, ("card_id",))
    printed = cards.select(pl.col("card_id").cast(pl.Int64), "symbol",
                           pl.col("vp").cast(pl.Int64))
    df = (pl.DataFrame(classes.columns()).with_columns(pl.col("card_id").cast(pl.Int64))
          .join(printed, on="card_id", how="left").join(eff, on="card_id", how="left")
          .with_columns(pl.col("n_forks").fill_null(0), pl.col("n_deals").fill_null(0)))
    return df.select(COLUMNS).sort("card_id")


def card_values(run_dir: str | Path) -> pl.DataFrame:
    """Each tribe card's causal value, one row per class of identical printed cards (the
    forks of its copies pooled): card_id (the class's first card), name, copies,
    card_ids, symbol, vp, n_forks, n_deals, value (win-probability effect of taking
    it), ci_low, ci_high, margin (score-margin effect), margin_ci_low, margin_ci_high,
    and se / margin_se / design effects.

    The run needs its forks (`targi-sim card-value RUN`); InputError otherwise."""
    info = _run(Path(run_dir))
    return values_of(read_forks(run_dir), tribe_cards(info), run_classes(info))


def symbol_values(run_dir: str | Path) -> pl.DataFrame:
    """The same per symbol (every fork of the symbol's cards)."""
    return clustered_effects(read_forks(run_dir), BY["symbol"])


def round_values(run_dir: str | Path) -> pl.DataFrame:
    """The same per round of the forked decision (all cards)."""
    return clustered_effects(read_forks(run_dir), BY["round"])
