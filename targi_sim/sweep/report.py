"""The sweep report: every variant against the baseline on the same deals.

Tables: the variants; each headline metric's paired change (deal as the unit,
targi_sim.sweep.paired) with Holm and Benjamini-Hochberg adjusted p-values over the
sweep's whole family of tests; the measured variance reduction against independent
seeds; every tribe card's acquire rate, WR played and WR not taken (the report's
definitions) the same way, and the most changed cards. Plots: a heat map per headline
metric over the grid, and cards x variants for WR played and the acquire rate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from targi_sim._utils.atomic import atomic_write
from targi_sim.stats.rates import Z95, ClusterSums, rates_from_sums, ratio_variance

from ..report.compare import adjust
from ..report.model import Plot, Report, Section, Table, mark_low_n
from ..report.output import write_report
from .deals import CARD_METRICS, HEADLINE, DealData
from .paired import PairedChange, align, paired_change
from .plan import Axis, Variant
from .plots import grid_cells, heatmap

MOST_CHANGED = 15
CARD_HEATMAP_MAX_VARIANTS = 30

SCHEMA = {"variant": pl.String, "label": pl.String, "group": pl.String, "card_id": pl.Int64,
          "card": pl.String, "symbol": pl.String, "metric": pl.String, "baseline": pl.Float64,
          "baseline_lo": pl.Float64, "baseline_hi": pl.Float64, "value": pl.Float64,
          "value_lo": pl.Float64, "value_hi": pl.Float64, "change": pl.Float64,
          "change_lo": pl.Float64,
          "change_hi": pl.Float64, "se": pl.Float64, "z": pl.Float64, "p_value": pl.Float64,
          "deals": pl.Int64, "n_baseline": pl.Float64, "n_variant": pl.Float64,
          "var_paired": pl.Float64, "var_independent": pl.Float64,
          "variance_ratio": pl.Float64, "games_factor": pl.Float64}


def own_interval(x, n, rate: bool) -> tuple[float, float]:
    """One run's 95% interval of x/n with the deal as the unit: Wilson on the effective
    n for a rate (as the report's), normal for a mean."""
    c = ClusterSums.of(x, n)
    if rate:
        r = rates_from_sums(c.clusters, c.x, c.n, c.xx, c.xn, c.nn)
        return float(r["lo"]), float(r["hi"])
    m, var = ratio_variance(c.clusters, c.x, c.n, c.xx, c.xn, c.nn)
    se = math.sqrt(float(var)) if np.isfinite(var) else math.nan
    return float(m) - Z95 * se, float(m) + Z95 * se


def _paired(xb, nb, xv, nv, rate: bool) -> tuple[PairedChange, dict]:
    pc = paired_change(xb, nb, xv, nv)
    (blo, bhi), (vlo, vhi) = own_interval(xb, nb, rate), own_interval(xv, nv, rate)
    return pc, {"baseline_lo": blo, "baseline_hi": bhi, "value_lo": vlo, "value_hi": vhi}


def _row(v: Variant, group: str, metric: str, paired: tuple[PairedChange, dict],
         card_id: int | None = None, card: str | None = None,
         symbol: str | None = None) -> dict:
    pc, own = paired
    return {"variant": v.key, "label": v.label, "group": group, "card_id": card_id,
            "card": card, "symbol": symbol, "metric": metric, "baseline": pc.base,
            "value": pc.variant, **own, "change": pc.change, "change_lo": pc.lo, "change_hi": pc.hi,
            "se": pc.se, "z": pc.z, "p_value": pc.p_value, "deals": pc.deals,
            "n_baseline": pc.n_base, "n_variant": pc.n_variant, "var_paired": pc.var_paired,
            "var_independent": pc.var_independent, "variance_ratio": pc.variance_ratio,
            "games_factor": pc.games_factor}


def changes(variants: Sequence[Variant], data: dict[str, DealData],
            correction: str = "holm") -> pl.DataFrame:
    """One row per (variant, metric) and per (variant, card, card metric): the paired
    change against the baseline (variants[0]), adjusted over the whole family."""
    base = data[variants[0].key]
    rows = []
    for v in variants[1:]:
        d = data[v.key]
        _, ib, iv = align(base.deals, d.deals)
        for key in HEADLINE:
            xb, nb = base.headline[key]
            xv, nv = d.headline[key]
            rate = HEADLINE[key][1] == "rate"
            rows.append(_row(v, "headline", key, _paired(xb[ib], nb[ib], xv[iv], nv[iv], rate)))
        for card_id, name in base.card_names.items():
            if card_id not in d.card_names:
                continue
            for key in CARD_METRICS:
                xb, nb = base.cards[card_id, key]
                xv, nv = d.cards[card_id, key]
                rows.append(_row(v, "card", key, _paired(xb[ib], nb[ib], xv[iv], nv[iv], True),
                                 card_id, name, base.card_symbols[card_id]))
    df = pl.DataFrame(rows, schema=SCHEMA)
    df = df.with_columns(pl.col(pl.Float64).fill_null(math.nan),
                         pl.min_horizontal("n_baseline", "n_variant").alias("n_min"))
    return adjust(df, correction)


def baseline_table(data: DealData) -> pl.DataFrame:
    """The baseline's headline metrics with 95% intervals, the deal as the unit (Wilson
    on the effective n for rates, normal for means)."""
    rows = []
    for key, (label, kind) in HEADLINE.items():
        x, n = data.headline[key]
        c = ClusterSums.of(x, n)
        if kind == "rate":
            r = rates_from_sums(c.clusters, c.x, c.n, c.xx, c.xn, c.nn)
            value, lo, hi = float(r["rate"]), float(r["lo"]), float(r["hi"])
        else:
            m, var = ratio_variance(c.clusters, c.x, c.n, c.xx, c.xn, c.nn)
            value, se = float(m), math.sqrt(float(var))
            lo, hi = value - Z95 * se, value + Z95 * se
        rows.append({"metric": key, "description": label, "value": value, "value_lo": lo,
                     "value_hi": hi, "n": float(c.n), "deals": int(c.clusters)})
    return pl.DataFrame(rows)


def variance_reduction(df: pl.DataFrame) -> pl.DataFrame:
    """Per metric, over the variants (and cards): the paired variance over the
    independent-seeds variance, and the games factor it is worth. A comparison whose
    paired variance is 0 (the variant played every deal exactly as the baseline) measures
    nothing and is left out."""
    ok = df.filter(pl.col("variance_ratio").is_finite() & (pl.col("variance_ratio") > 0))
    return (ok.group_by("group", "metric", maintain_order=True)
            .agg(pl.len().alias("comparisons"),
                 pl.col("variance_ratio").median().alias("variance_ratio_median"),
                 pl.col("games_factor").median().alias("games_factor_median"),
                 pl.col("games_factor").min().alias("games_factor_min"),
                 pl.col("games_factor").max().alias("games_factor_max")))


def most_changed(cards: pl.DataFrame, k: int = MOST_CHANGED) -> pl.DataFrame:
    """Each card's strongest change (smallest p, then largest |z|) over variants and card
    metrics; the k cards with the strongest."""
    ok = cards.filter(pl.col("p_value").is_not_nan())
    best = (ok.with_columns(pl.col("z").abs().alias("_az"))
            .sort(["p_value", "_az"], descending=[False, True])
            .unique("card_id", keep="first", maintain_order=True).head(k).drop("_az"))
    cols = ("card", "symbol", "variant", "label", "metric", "baseline", "baseline_lo",
            "baseline_hi", "value", "value_lo", "value_hi", "change", "change_lo", "change_hi",
            "p_value", "p_holm", "significant")
    return best.select([c for c in (*cols, "n_min", "low_n") if c in best.columns])


_SHOWN = ("variant", "label", "metric", "baseline", "baseline_lo", "baseline_hi", "value",
          "value_lo", "value_hi", "n_variant", "change", "change_lo", "change_hi", "z",
          "p_value", "p_holm", "significant", "deals", "variance_ratio", "games_factor",
          "n_min", "low_n")


def _plots(axes: Sequence[Axis], variants: Sequence[Variant], one_at_a_time: bool,
           df: pl.DataFrame) -> list[Plot]:
    rows, cols, cells = grid_cells(axes, variants, one_at_a_time)
    labelled = one_at_a_time and len(axes) > 1
    out = []
    head = df.filter(pl.col("group") == "headline")
    for key, (label, _kind) in HEADLINE.items():
        by_variant = {r["variant"]: r for r in head.filter(pl.col("metric") == key)
                      .iter_rows(named=True)}
        values = {}
        for (i, j), v in cells.items():
            level_label = axes[i].labels[j] if labelled else ""
            if v.is_baseline:
                values[i, j] = (0.0, False, level_label or "baseline")
            elif v.key in by_variant:
                r = by_variant[v.key]
                values[i, j] = (r["change"], bool(r["significant"]), level_label)
        out.append(Plot(f"sweep_{key}", f"Change of {label} vs baseline",
                        heatmap(f"{label}: change vs baseline (* significant)", rows, cols,
                                values)))
    others = list(variants[1:])
    if 0 < len(others) <= CARD_HEATMAP_MAX_VARIANTS:
        cards = df.filter(pl.col("group") == "card")
        names = cards.select("card_id", "card").unique(maintain_order=True).sort("card_id")
        order = {cid: i for i, cid in enumerate(names["card_id"].to_list())}
        col_of = {v.key: j for j, v in enumerate(others)}
        for key in ("played_wr", "acquire_rate"):
            values = {(order[r["card_id"]], col_of[r["variant"]]):
                      (r["change"], bool(r["significant"]), "")
                      for r in cards.filter(pl.col("metric") == key).iter_rows(named=True)}
            out.append(Plot(f"sweep_cards_{key}", f"Change of each card's {CARD_METRICS[key]}",
                            heatmap(f"{CARD_METRICS[key]} per card: change vs baseline "
                                    "(* significant)", names["card"].to_list(),
                                    [v.key for v in others], values)))
    return out


def variants_table(axes: Sequence[Axis], variants: Sequence[Variant],
                   runs: dict[str, Path], data: dict[str, DealData],
                   games: dict[str, int]) -> pl.DataFrame:
    rows = []
    for v in variants:
        row = {"variant": v.key, "label": v.label}
        for a, level in zip(axes, v.coords, strict=True):
            row[a.name] = a.labels[level]
        row |= {"games": games[v.key], "deals": len(data[v.key].deals),
                "run": str(runs[v.key])}
        rows.append(row)
    return pl.DataFrame(rows)


def sweep_report(name: str, facts: list[tuple[str, str]], axes: Sequence[Axis],
                 variants: Sequence[Variant], one_at_a_time: bool, runs: dict[str, Path],
                 data: dict[str, DealData], games: dict[str, int],
                 correction: str = "holm", min_n: int = 500) -> tuple[Report, pl.DataFrame]:
    """The Report (shown tables and plots) and the full table of every change; rows
    whose smaller n (baseline or variant) is below `min_n` are greyed, as in `report`."""
    df = mark_low_n(changes(variants, data, correction), "n_min", min_n)
    head = df.filter(pl.col("group") == "headline")
    cards = df.filter(pl.col("group") == "card")
    moved = cards.filter(pl.col("significant")).sort("p_value")
    reduction = variance_reduction(df)
    tests = int(df["p_value"].is_not_nan().sum())
    method = "Holm" if correction == "holm" else "Benjamini-Hochberg"
    head_red = reduction.filter(pl.col("group") == "headline")
    gain = (f"Measured on these runs, pairing made the headline comparisons as precise as "
            f"independent seeds with {float(head_red['games_factor_median'].median()):.1f} "
            f"times the games (median over metrics and variants; per metric in the table)."
            if head_red.height else "")
    text = [
        f"{len(variants)} variants ({len(variants) - 1} against the baseline {variants[0].key}), "
        "every one an ordinary run directory that plays the baseline's deals: the same run "
        "seed, so deal k has seed (seed << 32) | k in every variant (common random "
        "numbers). A change is the variant's figure minus the baseline's over the deals both "
        "played; its 95% interval and z-test use the deal as the unit (the cluster-robust "
        "variance of the paired difference, targi_sim/sweep/paired.py). Rates are fractions "
        "(0.5 = 50%).",
        f"{tests} tests in the sweep's family; p_holm / p_bh: Holm (family-wise) and "
        f"Benjamini-Hochberg (false discovery rate) over all of them; 'significant' uses "
        f"{method} at 0.05.",
    ]
    sections = [
        Section("variants", "1. Variants", text=text, tables=[
            Table("sweep_variants", "Variants (level of each axis)",
                  variants_table(axes, variants, runs, data, games))]),
        Section("headline", "2. Headline metrics against the baseline", text=[
            "variance_ratio: the paired variance of the change over the variance two "
            "independent runs of these sizes would give (each run's own deal-clustered "
            "variance, summed); games_factor = 1 / variance_ratio."], tables=[
            Table("sweep_baseline", "The baseline (95% intervals, the deal as the unit)",
                  baseline_table(data[variants[0].key])),
            Table("sweep_headline", "Change of each headline metric (variant - baseline)",
                  head.select(_SHOWN), n_col="n_min", hidden=("n_min",)),
        ], plots=_plots(axes, variants, one_at_a_time, df)),
        Section("variance", "3. Variance reduction from common random numbers",
                text=[gain] if gain else [], tables=[
                    Table("sweep_variance", "Paired vs independent-seeds variance, per "
                          "metric (median over variants, and cards)", reduction)]),
        Section("cards", "4. Tribe cards", text=[
            "Per tribe card, the report's acquire rate, WR played and WR not taken "
            "(docs/report.md), each changed against the baseline with the same paired test "
            f"(rows with fewer than --min-n = {min_n:,} plays, offers or players in either run "
            "are greyed); "
            "cards are matched by their number in the deck (a card's automatic name changes "
            "with its VP). Every card x metric x variant: tables/sweep_cards_all.csv."],
            tables=[
                Table("sweep_most_changed", f"The {MOST_CHANGED} most changed cards (each "
                      "card's smallest p over variants and metrics)", most_changed(cards),
                      n_col="n_min", hidden=("n_min",)),
                Table("sweep_cards_significant", "Every significant card change",
                      moved.select("card", "symbol", *_SHOWN), n_col="n_min",
                      hidden=("n_min",)),
            ]),
    ]
    return Report(title=f"targi-sim sweep: {name}", facts=facts, sections=sections,
                  min_n=min_n), df


def write_sweep_report(report: Report, everything: pl.DataFrame, out: Path) -> list[Path]:
    """report.html, report.md, the shown tables, and every change (tables/sweep_*_all)."""
    written = write_report(report, out)
    cards = everything.filter(pl.col("group") == "card")
    for stem, frame in (("sweep_cards_all", cards), ("sweep_all", everything)):
        written.append(atomic_write(out / "tables" / f"{stem}.parquet", frame.write_parquet))
        written.append(atomic_write(out / "tables" / f"{stem}.csv", frame.write_csv))
    return written


__all__ = ["baseline_table", "changes", "most_changed", "sweep_report", "variance_reduction",
           "write_sweep_report"]
