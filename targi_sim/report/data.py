"""The report's input tables, built from a run's merged sums (targi_sim.runner.sums).

Why: the sections used to run analyses/*.sql over every row and aggregate per pair in
Python. They now read these small tables, which hold the same totals and per-pair sums
(named as metrics.with_rate reads them: `<n>__k`, `<n>__nn`, `<x>__xx`, `<x>__xn`),
whether the sums were merged from the chunk summaries or computed from all the rows at
once (runner/summaries.py: run_sums, row_sums).
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from targi_sim.game.classes import CardClasses
from targi_sim.runner.reading import read_parquet_file
from targi_sim.runner.sums import PAID_NAMES, Sums
from targi_sim.stats.rates import ClusterSums

from .metrics import CARD_SUMS
from .values import VpRates

F, I = pl.Float64, pl.Int64


def rate_columns(x: str, n: str, *, as_x: str | None = None, as_n: str | None = None
                 ) -> list[pl.Expr]:
    """The totals and per-pair sums of the rate x / n of a sums table, named for
    with_rate (as `as_x` / `as_n` when given)."""
    ax, an = as_x or x, as_n or n
    return [pl.col(x).alias(ax), pl.col(n).alias(an), pl.col(f"{n}>0").alias(f"{an}__k"),
            pl.col(f"{n}*{n}").alias(f"{an}__nn"), pl.col(f"{x}*{x}").alias(f"{ax}__xx"),
            pl.col(f"{x}*{n}").alias(f"{ax}__xn")]


def cluster_sums_of(row: dict, x: str, n: str) -> ClusterSums:
    """One rate's sufficient statistics from a row of a sums table."""
    return ClusterSums(row[f"{n}>0"], row[x], row[n], row[f"{x}*{x}"], row[f"{x}*{n}"],
                       row[f"{n}*{n}"])


def complement(c: ClusterSums) -> ClusterSums:
    """The sums of n_i - x_i (e.g. the other seat's points) from those of x_i."""
    return ClusterSums(c.clusters, c.n - c.x, c.n, c.nn - 2 * c.xn + c.xx, c.nn - c.xn, c.nn)


def _complement_columns(x: str, n: str, out: str) -> list[pl.Expr]:
    """Columns `out`, `out*out`, `out*n` of n_i - x_i in a sums table."""
    return [(pl.col(n) - pl.col(x)).alias(out),
            (pl.col(f"{n}*{n}") - 2 * pl.col(f"{x}*{n}") + pl.col(f"{x}*{x}"))
            .alias(f"{out}*{out}"),
            (pl.col(f"{n}*{n}") - pl.col(f"{x}*{n}")).alias(f"{out}*{n}")]


class ReportData:
    """The report's tables from one run's sums and its cards.parquet."""

    def __init__(self, sums: Sums, cards_path: Path) -> None:
        self.sums = sums
        self.cards = read_parquet_file(cards_path)

    # ---- games: overview, first player, strategies ----

    def matchups(self) -> pl.DataFrame:
        """Per matchup (p0_strategy, p1_strategy), the games' sums (runner.sums
        `matchups`), with `points_p1` = games - points_p0 and its products."""
        m = self.sums["matchups"].filter(pl.col("games") > 0)
        return m.with_columns(_complement_columns("points_p0", "games", "points_p1"))

    def all_games(self) -> dict:
        """The matchups' sums added up (pairs of different matchups are different)."""
        m = self.matchups()
        return m.select(pl.exclude("p0_strategy", "p1_strategy").sum()).row(0, named=True)

    def game_summary(self) -> dict:
        """analyses/game_summary.sql's row."""
        t, length = self.all_games(), self.sums["game_length"].filter(pl.col("games") > 0)
        n = t["games"]
        var = (t["rounds_sq"] - t["rounds"] ** 2 / n) / (n - 1) if n > 1 else math.nan
        return {"games": int(n), "matchups": self.matchups().height, "draws": int(t["draws"]),
                "first_wins": int(t["first_wins"]), "first_points": t["first_points"],
                "rounds_mean": t["rounds"] / n if n else None,
                "rounds_sd": math.sqrt(max(var, 0.0)) if n > 1 else None,
                "rounds_min": int(length["rounds"].min()) if length.height else None,
                "rounds_max": int(length["rounds"].max()) if length.height else None,
                "score_mean": t["score"] / n / 2 if n else None,
                "tiebreaks": int(t["tiebreaks"])}

    def game_length(self) -> pl.DataFrame:
        return (self.sums["game_length"].filter(pl.col("games") > 0)
                .select(pl.col("rounds").cast(pl.Int8), "end_reason",
                        pl.col("games").cast(I)).sort("rounds", "end_reason"))

    def end_reason(self) -> pl.DataFrame:
        """analyses/first_player_end_reason.sql's table."""
        return (self.sums["end_reason"].filter(pl.col("n") > 0)
                .select("end_reason", "n", "first_wins", "draws", "first_points",
                        *rate_columns("first_points", "n")[2:])
                .sort("end_reason"))

    def lead(self) -> pl.DataFrame:
        return self.sums["lead"].filter(pl.col("games") > 0)

    def score_gap(self) -> pl.DataFrame:
        return self.sums["score_gap"].filter(pl.col("n") > 0).sort("round")

    def shape(self) -> pl.DataFrame:
        return self.sums["shape"].filter(pl.col("n") > 0).sort("strategy")

    # ---- cards ----

    def _cards_of(self, kind: str) -> pl.DataFrame:
        return self.cards.filter(pl.col("card_type") == kind)

    def cards_tribe(self) -> pl.DataFrame:
        """Per tribe card: its printed columns and analyses/sums_tribe.sql's counts."""
        counts = ("offered_rounds", "acquired", "acquired_centre", "acquired_expansion",
                  "played", "kept", "discarded", "acquisition_rows")
        tribe = self._cards_of("tribe").select(
            pl.col("card_id").cast(pl.Int32), "name", "symbol", "vp", "cost_salt",
            "cost_pepper", "cost_dates", "cost_gold")
        sums = self.sums["tribe"].with_columns(pl.col("card_id").cast(pl.Int32))
        out = tribe.join(sums, on="card_id", how="left")
        return out.select(
            *tribe.columns, *(pl.col(c).fill_null(0).cast(I) for c in counts),
            pl.when(pl.col("acquired") > 0).then(pl.col("round_sum") / pl.col("acquired"))
            .alias("round_mean")).sort("card_id")

    def _per_card(self, table: str, key: str, ids: pl.DataFrame,
                  rates: tuple[tuple[str, str], ...], counts: tuple[str, ...]) -> pl.DataFrame:
        """The rates' sums of a per-card sums table for every id of `ids` (0 without rows)."""
        sums = self.sums[table].with_columns(pl.col(key).cast(ids.schema[key]))
        cols = [c for x, n in rates for c in rate_columns(x, n)]
        out = ids.join(sums.select(key, *cols), on=key, how="left")
        return out.with_columns(pl.exclude(key).fill_null(0.0)).with_columns(
            pl.col(c).round().cast(I) for c in counts)

    def tribe_counts(self, classes: CardClasses) -> pl.DataFrame:
        """metrics.card_mask_counts' table, one row per class of identical cards (keyed by
        its first card): the sums were pooled per class before squaring (runner/sums.py),
        for the classes the report asked them for (runner/summaries.run_sums)."""
        ids = pl.DataFrame({"card_id": classes.first()}, schema={"card_id": pl.Int32})
        return self._per_card("tribe_pairs", "card_id", ids, CARD_SUMS, CARD_COUNTS)

    def symbol_counts(self, symbols: list[str]) -> pl.DataFrame:
        """metrics.card_mask_counts' per-group table, the groups being symbols."""
        ids = pl.DataFrame({"symbol": symbols}, schema={"symbol": pl.String})
        return self._per_card("symbol_pairs", "symbol", ids, CARD_SUMS, CARD_COUNTS)

    def cards_border(self) -> pl.DataFrame:
        """Per border position: its card, Targi placements and open rounds, the players
        who used it and their points, with the per-pair sums of use_rate and used_wr."""
        border = (self._cards_of("border")
                  .select(pl.col("card_id").cast(pl.Int32).alias("position"), "name", "kind")
                  .sort("position"))
        counts = self._per_card("border", "position", border.select("position"),
                                (("placements", "open_rounds"), ("used_points", "used_n")),
                                ("placements", "open_rounds", "used_n"))
        return border.join(counts, on="position", how="left").sort("position")

    def cards_goods(self) -> pl.DataFrame:
        """analyses/cards_goods.sql's table with the takers' count and points and their
        per-pair sums."""
        goods = self._cards_of("goods").select(
            pl.col("card_id").cast(pl.Int32), "name", "salt", "pepper", "dates", "gold",
            "choose_one", "vp")
        taken = self.sums["goods"].with_columns(pl.col("card_id").cast(pl.Int32))
        goods = goods.join(taken, on="card_id", how="left").with_columns(
            pl.col(c).fill_null(0).cast(I) for c in ("taken", "taken_centre", "taken_border"))
        counts = self._per_card("goods_pairs", "card_id", goods.select("card_id"),
                                (("taker_points", "taker_n"),), ("taker_n",))
        return goods.join(counts, on="card_id", how="left").sort("card_id")

    # ---- raids ----

    def raids(self, rates: VpRates) -> pl.DataFrame:
        """analyses/raids_mix.sql's table with the per-pair sums of each kind's payers'
        rate (points / n) and share of the players facing the raid (n / raid_n; the
        cross term is `n__xr`)."""
        weight = {"vp": (1.0, 0.0), "goods": (rates.goods_vp, 0.0),
                  "gold": (rates.gold_vp, 0.0), "goods_and_gold": (rates.goods_vp,
                                                                   rates.gold_vp)}
        amount_w = pl.col("paid").replace_strict({k: w[0] for k, w in weight.items()},
                                                 default=0.0, return_dtype=F)
        gold_w = pl.col("paid").replace_strict({k: w[1] for k, w in weight.items()},
                                               default=0.0, return_dtype=F)
        mix = self.sums["raids"].filter(pl.col("n") > 0).with_columns(
            (pl.col("amount") * amount_w + pl.col("gold") * gold_w + pl.col("opponent_bonus"))
            .alias("vp_equivalent"))
        mix = mix.select("raid", "paid", pl.col("n").cast(I), "amount", "opponent_bonus",
                         "vp_equivalent", "points")
        per = self.sums["raid_pairs"]
        kinds = [per.select(
            "raid", pl.lit(k).alias("paid"), pl.col(f"n_{k}>0").alias("n__k"),
            pl.col(f"n_{k}*n_{k}").alias("n__nn"),
            pl.col(f"points_{k}*points_{k}").alias("points__xx"),
            pl.col(f"points_{k}*n_{k}").alias("points__xn"),
            pl.col(f"n_{k}*n_{k}").alias("n__xx"), pl.col(f"n_{k}*facing").alias("n__xr"),
            pl.col("facing").alias("raid_n"), pl.col("facing>0").alias("raid_n__k"),
            pl.col("facing*facing").alias("raid_n__nn")) for k in PAID_NAMES]
        return mix.join(pl.concat(kinds), on=("raid", "paid"), how="left").sort("raid", "paid")

    def swing(self) -> pl.DataFrame:
        """analyses/raids_swing.sql's row."""
        s = self.sums["swing"]
        d = pl.col("decided")

        def mean(c: str) -> pl.Expr:
            return pl.when(d > 0).then(pl.col(c) / d).alias(f"{c}_mean")

        return s.select("decided", "flipped_exact", "flipped_eq", mean("margin"),
                        mean("swing_exact"), mean("swing_eq"),
                        pl.col("decided>0").alias("decided__k"),
                        pl.col("decided*decided").alias("decided__nn"),
                        *(pl.col(f"{x}*{y}").alias(f"{x}__{t}") for x in
                          ("flipped_exact", "flipped_eq")
                          for y, t in ((x, "xx"), ("decided", "xn"))))

    # ---- curves ----

    def curves(self, by: tuple[str, ...]) -> pl.DataFrame:
        """Mean holdings after each round per `by` (curves.sql, curves_first.sql)."""
        means = ("score", "vp_tokens", "gold", "goods", "display")
        c = self.sums["curves"].group_by("round", *by).agg(
            pl.col("n").sum(), *(pl.col(m).sum() for m in means))
        return (c.filter(pl.col("n") > 0)
                .select(pl.col("round").cast(pl.Int8), *(pl.col(b).cast(pl.Int8) if b == "seat"
                                                         else pl.col(b) for b in by),
                        pl.col("n").cast(I),
                        *((pl.col(m) / pl.col("n")).alias(m) for m in means))
                .sort(*reversed(by), "round"))


CARD_COUNTS = ("offered_games", "taken_games", "played_n", "not_taken_n")  # integers
