"""The six report sections, each built from the analyses' aggregated tables.

Definitions of every metric are in docs/report.md; draws count as half a win
throughout ("points": win 1, draw 0.5, loss 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import polars as pl

from targi_sim.game.shape import PLAYER_FIGURES, PLAYER_NAMES
from targi_sim.runner.queries import Analyses
from targi_sim.stats.elo import fit_elo_model
from targi_sim.stats.grades import GradeModel, grade_values, grades
from targi_sim.stats.rates import (
    ClusteredRate,
    ClusterSums,
    cluster_index,
    clustered_rate,
    means_from_sums,
    per_cluster,
)

from . import plots
from .metrics import (
    border_counts,
    card_mask_counts,
    drop_sums,
    half_test_clustered,
    lead_metrics,
    mask_counts,
    raid_sums,
    with_rate,
)
from .model import Plot, Section, Table, mark_low_n
from .values import VpRates

Step = Callable[[str], None]


def _headline(rows: list[dict], metric: str, kind: str, value: float, n: float,
              x: float = math.nan, sd: float = math.nan, deff: float = math.nan,
              se: float = math.nan) -> None:
    """One headline metric for `compare`: its design effect (the pair-clustered variance
    over the binomial / independent one; NaN when unknown) and clustered standard error."""
    rows.append({"metric": metric, "kind": kind, "value": _num(value), "x": _num(x),
                 "n": _num(n), "sd": _num(sd), "deff": _num(deff), "se": _num(se)})


def _num(v: object) -> float:
    return math.nan if v is None else float(v)  # type: ignore[arg-type]


def _pair_arrays(pairs: pl.DataFrame, *cols: str) -> list[np.ndarray]:
    return [pairs[c].cast(pl.Float64).to_numpy() for c in cols]


def overview(a: Analyses, min_n: int, headline: list[dict],
             pairs: pl.DataFrame) -> tuple[Section, dict]:
    """Games, strategies, game length and the Ludii-style viability metrics.

    `pairs`: analyses/pairs.sql, one row per pair_id (the unit of every interval here)."""
    s = a.frame("game_summary").row(0, named=True)
    games = int(s["games"])
    lead = a.frame("lead_codes")
    lm = lead_metrics(lead["code"].to_numpy(), lead["n_rounds"].to_numpy(),
                      lead["winner"].to_numpy())
    n_i, fp_i, draws_i, rounds_i, rounds_sq = _pair_arrays(
        pairs, "games", "first_points", "draws", "rounds", "rounds_sq")
    draws = float(draws_i.sum())
    fp = float(fp_i.sum())
    adv = fp / games if games else math.nan
    rows = []

    def rate(metric: str, x_i: np.ndarray, note: str) -> ClusteredRate:
        r = clustered_rate(x_i, n_i)
        rows.append({"metric": metric, "value": r.rate if games else math.nan, "n": games,
                     "value_lo": r.lo, "value_hi": r.hi, "value_deff": r.deff, "note": note})
        return r

    rows.append({"metric": "Balance", "value": 1 - abs(2 * adv - 1), "n": games,
                 "value_lo": None, "value_hi": None, "value_deff": None,
                 "note": "1 - |first player's rate - second player's rate| (draws = half)"})
    first = rate("AdvantageP1", fp_i, "round-1 first player's rate, draws = half")
    drawn = rate("Drawishness", draws_i, "share of drawn games")
    rate("Completion", n_i - draws_i, "share of games with a winner")
    rate("Tie-break decided", pairs["tiebreak_decided"].cast(pl.Float64).to_numpy(),
         "share of games with equal scores decided by a tie-break (gold, then goods)")
    duration = _clustered_mean(rounds_i, n_i, rounds_sq)
    rows.append({"metric": "Duration (mean rounds)", "value": s["rounds_mean"], "n": games,
                 "value_lo": duration["lo"], "value_hi": duration["hi"],
                 "value_deff": duration["deff"], "note": f"SD {s['rounds_sd'] or 0:.3f}"})
    rows.append({"metric": "Duration (SD rounds)", "value": s["rounds_sd"], "n": games,
                 "value_lo": None, "value_hi": None, "value_deff": None, "note": ""})
    rows.append({"metric": "LeadChange", "value": lm["lead_change"], "n": games,
                 "value_lo": None, "value_hi": None, "value_deff": None,
                 "note": "share of round-to-round steps where the leader changes"})
    rows.append({"metric": "Decisiveness", "value": lm["decisiveness"],
                 "n": int(lm["decided_games"]), "value_lo": None, "value_hi": None,
                 "value_deff": None,
                 "note": f"mean (d-1)/R; mean decisive round d = "
                         f"{lm['decisive_round_mean']:.2f}"})
    viability = pl.DataFrame(rows, schema={
        "metric": pl.String, "value": pl.Float64, "n": pl.Int64, "value_lo": pl.Float64,
        "value_hi": pl.Float64, "value_deff": pl.Float64, "note": pl.String})
    viability = viability.with_columns(pl.col("metric").is_in(
        ["AdvantageP1", "Drawishness", "Completion", "Tie-break decided"]).alias("is_rate"))

    _headline(headline, "first player rate", "rate", adv, games, fp, deff=first.deff,
              se=first.se)
    _headline(headline, "draw rate", "rate", draws / games if games else math.nan, games,
              draws, deff=drawn.deff, se=drawn.se)
    _headline(headline, "Balance", "value", rows[0]["value"], games)
    _headline(headline, "Duration (mean rounds)", "mean", s["rounds_mean"], games,
              sd=s["rounds_sd"] or 0.0, deff=duration["deff"], se=duration["se"])
    _headline(headline, "LeadChange", "value", lm["lead_change"], games)
    _headline(headline, "Decisiveness", "value", lm["decisiveness"], lm["decided_games"])

    seat = with_rate(_by_seat(pairs), "win_rate", "points", "n")
    seat = with_rate(seat, "draw_rate", "draws", "n")
    seat = mark_low_n(drop_sums(seat), "n", min_n)
    for r in seat.iter_rows(named=True):
        _headline(headline, f"win rate {r['strategy']} seat {r['seat']}", "rate",
                  r["win_rate"], r["n"], r["points"], deff=r["win_rate_deff"],
                  se=r["win_rate_se"])

    matchups = with_rate(_by_matchup(pairs), "p0_rate", "points_p0", "games")
    matchups = mark_low_n(drop_sums(matchups), "games", min_n)

    length = a.frame("game_length").with_columns(
        (pl.col("games") / games).alias("share"))
    tiebreaks = int(s["tiebreaks"] or 0)
    sec = Section("overview", "1. Overview", text=[
        f"{games:,} games in {int(s['matchups'])} matchup(s); mean score "
        f"{s['score_mean']:.2f}; {tiebreaks:,} games with equal scores went to a tie-break; "
        f"rounds {s['rounds_min']}..{s['rounds_max']}.",
        "Rates count a draw as half a win. Brackets are 95% intervals with the pair as the "
        f"unit ({len(n_i):,} pairs: games that share a deal; a game on its own when its deal "
        "is played once): Wilson on games / design effect, the design effect (deff) being "
        "the pair-clustered variance over that of independent games.",
    ], tables=[
        Table("viability", "Viability metrics (Ludii style)", viability, pct_flag="is_rate"),
        Table("strategies_by_seat", "Win and draw rates per strategy and seat", seat,
              n_col="n"),
        Table("matchups", "Matchups (seat 0 strategy vs seat 1 strategy)", matchups,
              n_col="games", hidden=("points_p0",)),
        Table("game_length", "Game length", length),
    ], plots=[])
    if length["rounds"].n_unique() > 1 or length["end_reason"].n_unique() > 1:
        sec.plots.append(_plot("game_length", "Games by rounds played",
                               plots.game_length(length)))
    elif length.height:
        r = length.row(0, named=True)
        sec.text.append(f"No game-length plot: every game lasted {r['rounds']} rounds and "
                        f"ended by {r['end_reason']}.")
    return sec, {"games": games, "matchups": int(s["matchups"]), "pairs": len(n_i)}


def _cluster_sums(successes: list[str], n: str) -> list[pl.Expr]:
    """Totals and per-cluster sums (see metrics.with_rate) over rows that are clusters."""
    out = [pl.col(n).sum(), (pl.col(n) > 0).sum().alias(f"{n}__k"),
           (pl.col(n) * pl.col(n)).sum().alias(f"{n}__nn")]
    for x in successes:
        out += [pl.col(x).sum(), (pl.col(x) * pl.col(x)).sum().alias(f"{x}__xx"),
                (pl.col(x) * pl.col(n)).sum().alias(f"{x}__xn")]
    return out


def _by_seat(pairs: pl.DataFrame) -> pl.DataFrame:
    """Win / draw / loss per strategy and seat from the per-pair rows (both seats of a
    mirror match are counted), with their per-pair sums."""
    f = pl.Float64
    seats = pl.concat([
        pairs.select(pl.col("p0_strategy").alias("strategy"), pl.lit(0).alias("seat"),
                     pl.col("games").cast(f).alias("n"), pl.col("wins_p0").alias("wins"),
                     "draws", pl.col("wins_p1").alias("losses"),
                     pl.col("points_p0").cast(f).alias("points")),
        pairs.select(pl.col("p1_strategy").alias("strategy"), pl.lit(1).alias("seat"),
                     pl.col("games").cast(f).alias("n"), pl.col("wins_p1").alias("wins"),
                     "draws", pl.col("wins_p0").alias("losses"),
                     (pl.col("games") - pl.col("points_p0")).cast(f).alias("points"))])
    seats = seats.with_columns(pl.col("draws").cast(f))
    return (seats.group_by("strategy", "seat")
            .agg(*_cluster_sums(["points", "draws"], "n"), pl.col("wins").sum(),
                 pl.col("losses").sum())
            .with_columns(pl.col("n").cast(pl.Int64), pl.col("draws").cast(pl.Int64),
                          pl.col("seat").cast(pl.Int64))
            .select("strategy", "seat", "n", "wins", "draws", "losses", "points",
                    pl.col("^.*__.*$"))
            .sort("strategy", "seat"))


def _by_matchup(pairs: pl.DataFrame) -> pl.DataFrame:
    """Per matchup (seat 0 strategy, seat 1 strategy): games, results, mean rounds and
    seat 0's points with their per-pair sums."""
    f = pl.Float64
    rows = pairs.with_columns(pl.col("games").cast(f), pl.col("points_p0").cast(f))
    return (rows.group_by("p0_strategy", "p1_strategy")
            .agg(*_cluster_sums(["points_p0"], "games"), pl.col("wins_p0").sum(),
                 pl.col("wins_p1").sum(), pl.col("draws").sum(), pl.col("rounds").sum())
            .with_columns((pl.col("rounds") / pl.col("games")).alias("rounds_mean"),
                          pl.col("games").cast(pl.Int64))
            .select("p0_strategy", "p1_strategy", "games", "wins_p0", "wins_p1", "draws",
                    "rounds_mean", "points_p0", pl.col("^.*__.*$"))
            .sort("p0_strategy", "p1_strategy"))


def _clustered_mean(total_i: np.ndarray, n_i: np.ndarray, sq_i: np.ndarray) -> dict[str, float]:
    """Mean of values summed per cluster (total_i over n_i values, their squares sq_i)."""
    c = ClusterSums.of(total_i, n_i)
    n = c.n
    unit_var = (float(sq_i.sum()) - c.x * c.x / n) / (n - 1) if n > 1 else math.nan
    r = means_from_sums(c.clusters, c.x, c.n, c.xx, c.xn, c.nn, unit_var)
    return {k: float(v) for k, v in r.items()}


def score_gaps(rows: pl.DataFrame, single_games: bool = False) -> pl.DataFrame:
    """Per round: the mean first-minus-second score gap, its SD, and its 95% interval
    with the pair as the unit (rows: analyses/score_gap.sql, one per game and round;
    `single_games`: every pair_id holds one game)."""
    rnd = rows["round"].to_numpy()
    gap = rows["gap"].to_numpy()
    width = int(rnd.max()) + 1 if len(rnd) else 1
    if not single_games:
        index, size = cluster_index(rows["pair_id"].to_numpy())

    def sums(r: int) -> tuple[ClusterSums, float]:
        """Round r's sums: a pair's gaps added up first unless every pair is one game."""
        at = rnd == r
        g = gap[at]
        squares = float(np.einsum("i,i->", g, g))
        if single_games:
            return ClusterSums(len(g), g.sum(), len(g), squares, g.sum(), len(g)), squares
        idx = index[at]
        x = np.bincount(idx, weights=g, minlength=size)
        n = np.bincount(idx, minlength=size).astype(float)
        return ClusterSums.of(x, n), squares

    out = []
    for r in range(1, width):
        c, squares = sums(r)
        if c.n == 0:
            continue
        sd = math.sqrt(max(squares - c.x * c.x / c.n, 0.0) / (c.n - 1)) if c.n > 1 else math.nan
        m = means_from_sums(c.clusters, c.x, c.n, c.xx, c.xn, c.nn, sd * sd)
        out.append({"round": r, "n": int(c.n), "gap_mean": float(m["mean"]), "gap_sd": sd,
                    "gap_mean_lo": float(m["lo"]), "gap_mean_hi": float(m["hi"]),
                    "gap_mean_se": float(m["se"]), "gap_mean_deff": float(m["deff"])})
    return pl.DataFrame(out, schema={
        "round": pl.Int64, "n": pl.Int64, "gap_mean": pl.Float64, "gap_sd": pl.Float64,
        "gap_mean_lo": pl.Float64, "gap_mean_hi": pl.Float64, "gap_mean_se": pl.Float64,
        "gap_mean_deff": pl.Float64})


def _plot(key: str, title: str, png: bytes) -> Plot:
    return Plot(key, title, png)


def first_player(a: Analyses, min_n: int, headline: list[dict],
                 pairs: pl.DataFrame) -> Section:
    """Round-1 first player's rate: overall, per matchup, mirror matches, by end reason."""
    rows = []

    def scope(name: str, df: pl.DataFrame) -> None:
        if df.height == 0:
            return
        t = half_test_clustered(df["first_points"].to_numpy(), df["games"].to_numpy())
        n = int(df["games"].sum())
        rows.append({"scope": name, "n": n, "pairs": df.height,
                     "first_wins": int(df["first_wins"].sum()), "draws": int(df["draws"].sum()),
                     "first_points": float(df["first_points"].sum()),
                     "first_rate": float(df["first_points"].sum()) / n,
                     "first_rate_lo": t["lo"], "first_rate_hi": t["hi"],
                     "z": t["z"], "p_value": t["p"], "design_effect": t["design_effect"]})

    scope("all games", pairs)
    mirror = pairs.filter(pl.col("p0_strategy") == pl.col("p1_strategy"))
    groups = sorted(pairs.group_by("p0_strategy", "p1_strategy"), key=lambda kv: kv[0])
    if mirror.height < pairs.height:  # else the same games as "all games"
        scope("mirror matches", mirror)
    if len(groups) > 1:  # one matchup: its row would repeat "all games"
        for (p0, p1), df in groups:
            scope(f"{p0} vs {p1}", df)
    table = pl.DataFrame(rows, schema={
        "scope": pl.String, "n": pl.Int64, "pairs": pl.Int64, "first_wins": pl.Int64,
        "draws": pl.Int64, "first_points": pl.Float64, "first_rate": pl.Float64,
        "first_rate_lo": pl.Float64, "first_rate_hi": pl.Float64, "z": pl.Float64,
        "p_value": pl.Float64, "design_effect": pl.Float64})
    table = mark_low_n(table, "n", min_n)

    overall = rows[0] if rows else None
    er = with_rate(a.frame("first_player_end_reason"), "first_rate", "first_points", "n")
    er = mark_low_n(drop_sums(er), "n", min_n)
    for r in er.iter_rows(named=True):
        _headline(headline, f"first player rate, {r['end_reason']}", "rate", r["first_rate"],
                  r["n"], r["first_points"], deff=r["first_rate_deff"], se=r["first_rate_se"])

    single = pairs.height == 0 or int(pairs["games"].max()) == 1
    gap = mark_low_n(score_gaps(a.frame("score_gap"), single), "n", min_n)
    text = ["The round-1 first player is the seat with the amulet in round 1 (it then "
            "alternates). The test against 50% and every interval treat each pair_id (a "
            "seat-swapped pair: same seed, first player swapped; or a game whose deal is "
            "played once) as one unit: z uses the cluster-robust variance of pair totals; "
            "the design effect is that variance over the binomial one."]
    if overall:
        text.append(f"Overall: first player rate {overall['first_points'] / overall['n']:.2%} "
                    f"({overall['first_rate_lo']:.2%}-{overall['first_rate_hi']:.2%}) over "
                    f"{overall['n']:,} games in {overall['pairs']:,} pairs, "
                    f"z = {overall['z']:.2f}, p = {overall['p_value']:.3g}, design effect "
                    f"{overall['design_effect']:.2f}.")
    sec = Section("first_player", "2. First-player advantage", text=text, tables=[
        Table("first_player", "Round-1 first player's rate (draws = half)", table, n_col="n",
              hidden=("first_points",)),
        Table("first_player_by_end_reason", "By end reason", er, n_col="n",
              hidden=("first_points",)),
        Table("score_gap", "Score gap after each round: first minus second player (mean, "
              "95% interval with the pair as the unit)", gap, n_col="n",
              hidden=("gap_mean_se",)),
    ])
    _interval_plot(sec, "first_player_by_matchup", "Round-1 first player's rate by matchup "
                   "(95% intervals; dashed: 50%)",
                   table.filter(~pl.col("scope").is_in(["all games", "mirror matches"])),
                   "scope", "matchup")
    _interval_plot(sec, "first_player_by_end_reason_plot", "Round-1 first player's rate by "
                   "end reason (95% intervals; dashed: 50%)", er, "end_reason", "end reason")
    if gap.height > 1:
        sec.plots.append(_plot("score_gap", "Score gap per round (round-1 first - second)",
                               plots.score_gap(gap)))
    else:
        sec.text.append(f"No score-gap plot: {gap.height} round(s); the table has it.")
    return sec


def _interval_plot(sec: Section, key: str, title: str, df: pl.DataFrame, by: str,
                   what: str) -> None:
    """The first-player rate per `by` as a forest plot, or one sentence when there is
    only one category (a plot of one point says nothing the table does not)."""
    if df.height < 2:
        only = f" ({df[by][0]})" if df.height else ""
        sec.text.append(f"No first-player plot by {what}: this run has one {what}{only}; "
                        "the table above has its rate.")
        return
    rows = list(df.iter_rows(named=True))
    sec.plots.append(_plot(key, title, plots.forest(
        [f"{r[by]} (n {r['n']:,})" for r in rows],
        [("round-1 first player's rate", *_cols(df, "first_rate"), 0.5)],
        ["#4477aa"] * df.height, df["low_n"].to_list())))


def _cost(r: dict) -> str:
    parts = [f"{r[k]}{c}" for k, c in (("cost_salt", "s"), ("cost_pepper", "p"),
                                        ("cost_dates", "d"), ("cost_gold", "g")) if r.get(k)]
    return "".join(parts) or "free"


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
    """Cost- and VP-adjusted grades of the tribe cards (targi_sim.stats.grades).

    values: a per-card table (card_id, value, se), e.g. causal card values from forked
    play; graded on those when given (every card with a value is eligible), else on WR
    played among the cards with played_n >= --min-n."""
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


def cards(a: Analyses, min_n: int, games: int,
          values: pl.DataFrame | None = None) -> Section:
    """Tribe cards (17lands style), per symbol, border cards and goods cards.

    values: optional per-card values (card_id, value, se) to grade on (grade_tribe)."""
    tribe = a.frame("cards_tribe").with_columns(pl.col("card_id").cast(pl.Int32))
    by_symbol: dict[str, list[int]] = {}
    for cid, sym in tribe.select("card_id", "symbol").iter_rows():
        by_symbol.setdefault(sym, []).append(cid)
    counts, pooled = card_mask_counts(a.frame("cards_tribe_masks"), tribe["card_id"].to_list(),
                                      by_symbol)
    tribe = tribe.join(counts, on="card_id", how="left").sort("card_id")
    tribe = tribe.with_columns(
        pl.Series("cost", [_cost(r) for r in tribe.iter_rows(named=True)], dtype=pl.String))
    tribe, model = grade_tribe(_card_rates(tribe, min_n, z_grades=False), values)
    tribe = tribe.with_columns((pl.col("acquired") / max(games, 1)).alias("acquired_per_game"))

    sums = ["offered_rounds", "acquired", "acquired_centre", "acquired_expansion", "played",
            "kept", "discarded", "acquisition_rows"]
    symbol = (tribe.with_columns((pl.col("round_mean") * pl.col("acquired")).alias("_rs"))
              .group_by("symbol")
              .agg([pl.len().alias("cards"), *[pl.col(c).sum() for c in sums],
                    pl.col("_rs").sum()])
              .with_columns((pl.col("_rs") / pl.col("acquired")).alias("round_mean"))
              .drop("_rs"))
    symbol = symbol.join(pooled.rename({"group": "symbol"}), on="symbol", how="left")
    symbol = _card_rates(symbol.sort("symbol"), min_n)

    border = a.frame("cards_border").with_columns(pl.col("position").cast(pl.Int32))
    border = border.join(border_counts(a.frame("cards_border_masks"),
                                       border["position"].to_list()),
                         on="position", how="left").sort("position")
    border = with_rate(border, "use_rate", "placements", "open_rounds")
    border = with_rate(border, "used_wr", "used_points", "used_n")
    border = border.with_columns((pl.col("placements") / max(games, 1)).alias("uses_per_game"))
    border = mark_low_n(drop_sums(border), "used_n", min_n)

    goods = a.frame("cards_goods").with_columns(pl.col("card_id").cast(pl.Int32))
    goods = goods.join(mask_counts(a.frame("cards_goods_masks"), "taken",
                                   goods["card_id"].to_list(), id_name="card_id",
                                   n_name="taker_n", points_name="taker_points"),
                       on="card_id", how="left").sort("card_id")
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
        Table("cards_tribe", "Tribe cards", tribe, n_col="played_n", hidden=(
            "cost_salt", "cost_pepper", "cost_dates", "cost_gold", *_CARD_HIDDEN),
            compact=("name", "card_id", "symbol", "vp", "cost", "played_n", "played_wr",
                     "played_wr_expected", "played_wr_excess", "value", "value_excess",
                     "grade", "acquire_rate")),
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


def _pooled(df: pl.DataFrame, x: str, n: str) -> float:
    total = float(df[n].sum())
    return float(df[x].sum()) / total if total else math.nan


def _card_forests(sec: Section, tribe: pl.DataFrame, symbol: pl.DataFrame) -> None:
    """Forest plots of WR played and acquire rate per card and per symbol, sorted by WR
    played, coloured by symbol, a dashed line at the rate pooled over every card."""
    wr_ref = _pooled(tribe, "played_points", "played_n")
    acq_ref = _pooled(tribe, "taken_games", "offered_games")
    for df, key, title, label in (
            (tribe, "cards_forest", "Tribe cards: WR played and acquire rate (95% intervals; "
             "hollow grey: n below --min-n; dashed: all cards pooled)",
             lambda r: f"{r['name']} (id {r['card_id']})"),
            (symbol, "symbols_forest", "Per symbol: WR played and acquire rate (95% "
             "intervals; dashed: all cards pooled)", lambda r: r["symbol"])):
        if df.height < 2:
            sec.text.append(f"{title.split(':')[0]}: only {df.height} row(s), no plot.")
            continue
        order = df.sort("played_wr", descending=True, nulls_last=True)
        rows = list(order.iter_rows(named=True))
        panels = [("win rate when played", *_cols(order, "played_wr"), wr_ref),
                  ("acquire rate (taken / offered games)", *_cols(order, "acquire_rate"),
                   acq_ref)]
        if "played_wr_excess" in order.columns:
            panels.append(("WR played - expected for its VP and cost (grade)",
                           *_cols(order, "played_wr_excess"), 0.0))
        sec.plots.append(_plot(key, title, plots.forest(
            [label(r) for r in rows], panels,
            [plots.SYMBOL_COLOURS.get(r["symbol"], "#444444") for r in rows],
            order["low_n"].to_list(),
            legend={k: v for k, v in plots.SYMBOL_COLOURS.items()
                    if k in set(order["symbol"].to_list())})))


def _cols(df: pl.DataFrame, c: str) -> tuple[list, list, list]:
    return df[c].to_list(), df[f"{c}_lo"].to_list(), df[f"{c}_hi"].to_list()


def raids(a: Analyses, min_n: int, headline: list[dict], rates: VpRates) -> Section:
    """Payment mix, VP-equivalent losses, payer win rates and raid-decided games."""
    mix = a.frame("raids_mix", goods_vp=rates.goods_vp, gold_vp=rates.gold_vp)
    mix = mix.with_columns(pl.col("raid").cast(pl.Int64), pl.col("paid").cast(pl.String))
    mix = mix.join(raid_sums(a.frame("raids_pairs")), on=("raid", "paid"),
                   how="left").sort("raid", "paid")
    mix = with_rate(mix, "share", "n", "raid_n", xx="n__xx", xn="n__xr")
    mix = with_rate(mix, "payer_wr", "points", "n")
    mix = mix.with_columns((pl.col("amount") / pl.col("n")).alias("amount_mean"),
                           (pl.col("vp_equivalent") / pl.col("n")).alias("vp_lost_mean"))
    mix = mark_low_n(drop_sums(mix), "n", min_n)

    per = []
    for raid, df in sorted(mix.group_by("raid"), key=lambda kv: kv[0]):
        d = {r["paid"]: r for r in df.iter_rows(named=True)}
        n = int(df["n"].sum())
        row = {"raid": raid[0], "n": n, "vp_lost_mean": float(df["vp_equivalent"].sum()) / n}
        for kind in ("vp", "goods"):
            r = d.get(kind) or {}
            row |= {f"wr_paid_{kind}": r.get("payer_wr"),
                    f"wr_paid_{kind}_lo": r.get("payer_wr_lo"),
                    f"wr_paid_{kind}_hi": r.get("payer_wr_hi"), f"n_paid_{kind}": r.get("n", 0)}
        per.append(row)
    per_raid = pl.DataFrame(per, schema={
        "raid": pl.Int64, "n": pl.Int64, "vp_lost_mean": pl.Float64,
        **{f"{c}_{kind}{b}": t for kind in ("vp", "goods")
           for c, b, t in (("wr_paid", "", pl.Float64), ("wr_paid", "_lo", pl.Float64),
                           ("wr_paid", "_hi", pl.Float64), ("n_paid", "", pl.Int64))}})
    per_raid = per_raid.with_columns(
        (pl.col("wr_paid_vp") - pl.col("wr_paid_goods")).alias("wr_vp_minus_goods"))
    per_raid = mark_low_n(per_raid, "n", min_n)

    sw = a.frame("raids_swing", goods_vp=rates.goods_vp, gold_vp=rates.gold_vp)
    sw = with_rate(sw, "flipped_exact_share", "flipped_exact", "decided")
    sw = with_rate(sw, "flipped_eq_share", "flipped_eq", "decided")
    sw = mark_low_n(drop_sums(sw), "decided", min_n)
    r = sw.row(0, named=True)
    for label, key, x in (("VP", "flipped_exact_share", "flipped_exact"),
                          ("VP-equivalent", "flipped_eq_share", "flipped_eq")):
        _headline(headline, f"games decided by raids ({label})", "rate", r[key], r["decided"],
                  r[x], deff=r[f"{key}_deff"], se=r[f"{key}_se"])
    sec = Section("raids", "4. Raid impact", text=[
        f"VP-equivalent of a payment: VP paid, a good = {rates.goods_vp:g} VP, a gold = "
        f"{rates.gold_vp:g} VP ({rates.source}), plus the VP the opponent received when the "
        "player could not pay.",
        "A decided game would change winner without raids when the winner's margin is at most "
        "what raids cost the loser minus what they cost the winner (and that is > 0). "
        "'exact' counts only VP tokens paid and VP given to the opponent, which is exactly "
        "their score effect; 'VP-equivalent' also values goods and gold paid.",
    ], tables=[
        Table("raids_payments", "Payment mix per raid (share of players) and the payers' "
              "rate", mix, n_col="n", hidden=("raid_n", "points", "vp_equivalent", "amount",
                                               "opponent_bonus", "share_se", "payer_wr_se")),
        Table("raids_per_raid", "Per raid: mean VP-equivalent lost, rate of VP payers vs goods "
              "payers", per_raid, n_col="n"),
        Table("raids_winner_change", "Games whose winner would change if raids cost nothing",
              sw, n_col="decided", hidden=("flipped_exact_share_se", "flipped_eq_share_se")),
    ])
    sec.plots.append(_plot("raids_mix", "Payment mix per raid", plots.raid_mix(mix)))
    return sec


def strategies(a: Analyses, min_n: int, pairs: pl.DataFrame) -> Section:
    """Win-rate matrix (both seats pooled) and Bradley-Terry Elo when >= 2 strategies
    (`pairs`: analyses/pairs.sql)."""
    names = sorted(set(pairs["p0_strategy"].to_list()) | set(pairs["p1_strategy"].to_list()))
    cross = pairs.filter(pl.col("p0_strategy") != pl.col("p1_strategy"))
    rows = []
    keyed: dict[tuple[str, str], list] = {}
    for (p0, p1), df in cross.group_by("p0_strategy", "p1_strategy"):
        a_, b_ = sorted((p0, p1))
        seat_a = 0 if p0 == a_ else 1
        games = df["games"].to_numpy()
        w0 = df["wins_p0"].to_numpy()
        dr = df["draws"].to_numpy()
        pts0 = df["points_p0"].to_numpy()
        wins_a = w0 if seat_a == 0 else games - w0 - dr
        pts_a = pts0 if seat_a == 0 else games - pts0
        keyed.setdefault((a_, b_), []).append((df["pair_id"].to_numpy(), games, wins_a, dr,
                                               pts_a))
    for (a_, b_), parts in sorted(keyed.items()):
        ids = np.concatenate([p[0] for p in parts])
        games = np.concatenate([p[1] for p in parts]).astype(float)
        wins = int(np.concatenate([p[2] for p in parts]).sum())
        draws = int(np.concatenate([p[3] for p in parts]).sum())
        pts = np.concatenate([p[4] for p in parts])
        index, size = cluster_index(ids)  # a deal may hold games of both seat orders
        deal_pts, deal_games = per_cluster(index, size, pts, games)
        n = int(games.sum())
        for x, y, w, l, flip in ((a_, b_, wins, n - wins - draws, False),
                                 (b_, a_, n - wins - draws, wins, True)):
            r = clustered_rate(deal_games - deal_pts if flip else deal_pts, deal_games)
            rows.append({"a": x, "b": y, "games": n, "wins_a": w, "draws": draws,
                         "losses_a": l, "points_a": w + 0.5 * draws, "rate_a": r.rate,
                         "rate_a_lo": r.lo, "rate_a_hi": r.hi, "design_effect": r.deff,
                         "pairs": r.clusters})
    matrix = pl.DataFrame(rows, schema={
        "a": pl.String, "b": pl.String, "games": pl.Int64, "wins_a": pl.Int64,
        "draws": pl.Int64, "losses_a": pl.Int64, "points_a": pl.Float64, "rate_a": pl.Float64,
        "rate_a_lo": pl.Float64, "rate_a_hi": pl.Float64, "design_effect": pl.Float64,
        "pairs": pl.Int64})
    matrix = mark_low_n(matrix, "games", min_n)
    mirror = pairs.filter(pl.col("p0_strategy") == pl.col("p1_strategy"))
    text = []
    tables = [Table("strategy_matrix", "Row strategy's rate against column strategy (both "
                    "seats pooled, draws = half; 95% interval with the pair as the unit)",
                    matrix, n_col="games", hidden=("points_a",),
                    shown=matrix.height > 0)]  # an empty one is still written as CSV
    in_matrix = sorted(set(matrix["a"].to_list()))
    if len(in_matrix) >= 2:
        fit = fit_elo_model(in_matrix, matrix)
        tables.append(Table("elo", "Elo (Bradley-Terry maximum likelihood, mean 1500; 95% "
                            "interval with the design effect of the pairs)", fit.table))
        tables.append(Table("elo_fit", "Elo fit per pair: observed vs fitted rate", fit.pairs))
        text.append(f"{len(in_matrix)} strategies play each other; Elo is fitted by "
                    "targi_sim.strength.tournament.fit_elo_model (one virtual draw per pair).")
        text.append(fit.verdict())
    else:
        plural = "y" if len(names) == 1 else "ies"
        text.append(f"This run holds {len(names)} strateg{plural} ({', '.join(names)}) in "
                    "mirror matches only; Elo needs at least two strategies that play each "
                    "other.")
    if len(names) >= 2:
        tables.append(strategy_shape(a, min_n))
        text.append("Game shape by strategy: how each strategy's own games look (cards kept, "
                    "where its VP come from, what raids cost it), the same figures as the "
                    "skill ladder's (docs/ladder.md).")
    if mirror.height:
        text.append(f"Mirror matches ({', '.join(sorted(set(mirror['p0_strategy'].to_list())))}) "
                    "are not part of the matrix: a strategy's rate against itself is 50% by "
                    "construction; see the first-player section for seat effects.")
    return Section("strategies", "5. Strategies", text=text, tables=tables)


SHAPE_FIGURES = PLAYER_NAMES  # targi_sim/game/shape.py


def strategy_shape(a: Analyses, min_n: int) -> Table:
    """Per strategy, the mean of each figure of its player-games (analyses/
    strategy_shape.sql) with a 95% interval with the pair as the unit."""
    df = a.frame("strategy_shape")
    rows = []
    for (strategy,), g in sorted(df.group_by("strategy"), key=lambda kv: kv[0]):
        n_i = g["n"].to_numpy()
        row: dict[str, object] = {"strategy": strategy, "player_games": int(n_i.sum()),
                                  "pairs": g.height}
        for f in SHAPE_FIGURES:
            m = _clustered_mean(g[f].to_numpy(), n_i, g[f"{f}_sq"].to_numpy())
            row |= {f: m["mean"], f"{f}_lo": m["lo"], f"{f}_hi": m["hi"]}
        rows.append(row)
    out = mark_low_n(pl.DataFrame(rows), "player_games", min_n)
    figures = ", ".join(f.label for f in PLAYER_FIGURES)
    return Table("strategy_shape", f"Game shape by strategy, per player and game: {figures} "
                 "(95% interval with the pair as the unit)", out, n_col="player_games")


def curves(a: Analyses, min_n: int) -> Section:
    """Mean score, VP tokens, gold, goods and display size after each round."""
    df = a.frame("curves")
    df = mark_low_n(df, "n", min_n)
    cols = [("score", "score"), ("vp_tokens", "VP tokens"), ("gold", "gold"),
            ("goods", "goods"), ("display", "display size")]
    roles = mark_low_n(a.frame("curves_first"), "n", min_n)
    sec = Section("curves", "6. Curves per round", text=[
        "Means after each round over the games that reached it (n), by strategy and seat, "
        "and by role (round-1 first or second player; the amulet then alternates)."],
        tables=[Table("curves", "Per-round means by strategy and seat", df, n_col="n"),
                Table("curves_by_role", "Per-round means by role", roles, n_col="n")])
    sec.plots.append(_plot("curves", "Per-round means by strategy and seat",
                           plots.curves(df, cols)))
    by_role = roles.with_columns(pl.col("role").alias("strategy"), pl.lit(0).alias("seat"))
    sec.plots.append(_plot("curves_by_role", "Per-round means by role (round-1 first / second)",
                           plots.curves(by_role, cols, label=lambda s, _seat: s)))
    return sec
