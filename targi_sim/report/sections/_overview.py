"""Section 1, overview: games, seats, matchups, rounds, scores (docs/report.md)."""

from __future__ import annotations

import math

import polars as pl

from targi_sim.game.shape import CARD_SHARE, card_point_share, decided_by
from targi_sim.stats.rates import ClusteredRate, ClusterSums, rate_of

from .. import plots
from ..data import ReportData, cluster_sums_of, complement, rate_columns
from ..metrics import (
    drop_sums,
    lead_metrics_of,
    with_rate,
)
from ..model import Section, Table, mark_low_n
from .common import clustered_mean_of, headline_row, make_plot


def overview(d: ReportData, min_n: int, headline: list[dict]) -> tuple[Section, dict]:
    """Games, strategies, game length and the Ludii-style viability metrics (every
    interval with the pair as the unit)."""
    s = d.game_summary()
    games = int(s["games"])
    lm = lead_metrics_of(d.lead())
    t = d.all_games()
    draws = float(t["draws"])
    fp = float(t["first_points"])
    adv = fp / games if games else math.nan
    rows = []

    def rate(metric: str, sums: ClusterSums, note: str) -> ClusteredRate:
        r = rate_of(sums)
        rows.append({"metric": metric, "value": r.rate if games else math.nan, "n": games,
                     "value_lo": r.lo, "value_hi": r.hi, "value_deff": r.deff, "note": note})
        return r

    rows.append({"metric": "Balance", "value": 1 - abs(2 * adv - 1), "n": games,
                 "value_lo": None, "value_hi": None, "value_deff": None,
                 "note": "1 - |first player's rate - second player's rate| (draws = half)"})
    first = rate("AdvantageP1", cluster_sums_of(t, "first_points", "games"),
                 "round-1 first player's rate, draws = half")
    drawn_sums = cluster_sums_of(t, "draws", "games")
    drawn = rate("Drawishness", drawn_sums, "share of drawn games")
    rate("Completion", complement(drawn_sums), "share of games with a winner")
    rate("Tie-break decided", cluster_sums_of(t, "tiebreak_decided", "games"),
         "share of games with equal scores decided by a tie-break (gold, then goods)")
    duration = clustered_mean_of(cluster_sums_of(t, "rounds", "games"), t["rounds_sq"])
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

    headline_row(headline, "first player rate", "rate", adv, games, fp, deff=first.deff,
              se=first.se)
    headline_row(headline, "draw rate", "rate", draws / games if games else math.nan, games,
              draws, deff=drawn.deff, se=drawn.se)
    headline_row(headline, "Balance", "value", rows[0]["value"], games)
    headline_row(headline, "Duration (mean rounds)", "mean", s["rounds_mean"], games,
              sd=s["rounds_sd"] or 0.0, deff=duration["deff"], se=duration["se"])
    headline_row(headline, "LeadChange", "value", lm["lead_change"], games)
    headline_row(headline, "Decisiveness", "value", lm["decisiveness"], lm["decided_games"])

    seat = with_rate(_by_seat(d.matchups()), "win_rate", "points", "n")
    seat = with_rate(seat, "draw_rate", "draws", "n")
    seat = mark_low_n(drop_sums(seat), "n", min_n)
    for r in seat.iter_rows(named=True):
        headline_row(headline, f"win rate {r['strategy']} seat {r['seat']}", "rate",
                  r["win_rate"], r["n"], r["points"], deff=r["win_rate_deff"],
                  se=r["win_rate_se"])

    matchups = with_rate(_by_matchup(d.matchups()), "p0_rate", "points_p0", "games")
    matchups = mark_low_n(drop_sums(matchups), "games", min_n)

    length = d.game_length().with_columns((pl.col("games") / games).alias("share"))
    shape = _game_shape(d.shape(), s, length)
    tiebreaks = int(s["tiebreaks"] or 0)
    sec = Section("overview", "1. Overview", text=[
        f"{games:,} games in {int(s['matchups'])} matchup(s); mean score "
        f"{s['score_mean']:.2f}; {tiebreaks:,} games with equal scores went to a tie-break; "
        f"rounds {s['rounds_min']}..{s['rounds_max']}.",
        "Rates count a draw as half a win. Brackets are 95% intervals with the pair as the "
        f"unit ({int(t['games>0']):,} pairs: games that share a deal; a game on its own when "
        "its deal is played once): Wilson on games / design effect, the design effect (deff) being "
        "the pair-clustered variance over that of independent games.",
    ], tables=[
        Table("viability", "Viability metrics (Ludii style)", viability, pct_flag="is_rate"),
        Table("strategies_by_seat", "Win and draw rates per strategy and seat", seat,
              n_col="n"),
        Table("matchups", "Matchups (seat 0 strategy vs seat 1 strategy)", matchups,
              n_col="games", hidden=("points_p0",)),
        Table("game_length", "Game length", length),
        Table("game_shape", "Game shape: rounds, full displays and where the points come "
              "from (VP per player and game by source; card_point_share = (card VP + row "
              "bonus) / all VP)", shape),
    ], plots=[])
    if length["rounds"].n_unique() > 1 or length["end_reason"].n_unique() > 1:
        sec.plots.append(make_plot("game_length", "Games by rounds played",
                               plots.game_length(length)))
    elif length.height:
        r = length.row(0, named=True)
        sec.text.append(f"No game-length plot: every game lasted {r['rounds']} rounds and "
                        f"ended by {r['end_reason']}.")
    return sec, {"games": games, "matchups": int(s["matchups"]), "pairs": int(t["games>0"])}


VP_SOURCES = ("token_vp", "card_vp", "row_bonus")


def _game_shape(per_pair: pl.DataFrame, summary: dict, length: pl.DataFrame
               ) -> pl.DataFrame:
    """One row: how long the games lasted (analyses/game_summary.sql), the share that
    ended by a full display (the game_length table's shares), and where the points came
    from: the VP by source of the player_shape view, summed over every pair and strategy
    (analyses/strategy_shape.sql), per player and game, with their card_point_share and
    which kind of points decides the games (targi_sim.game.shape)."""
    n = float(per_pair["n"].sum())
    sums = {c: float(per_pair[c].sum()) for c in VP_SOURCES}
    share = card_point_share(sums["card_vp"], sums["row_bonus"], sums["token_vp"])
    display = length.filter(pl.col("end_reason") == "display_full")["share"].sum()
    row = {"games": int(summary["games"]), "rounds_mean": summary["rounds_mean"],
           "rounds_min": summary["rounds_min"], "rounds_max": summary["rounds_max"],
           "display_full_share": float(display), "player_games": int(n),
           **{c: sums[c] / n if n else math.nan for c in VP_SOURCES},
           CARD_SHARE.name: share,
           "decided_by": decided_by(share) if math.isfinite(share) else None}
    return pl.DataFrame([row], schema={
        "games": pl.Int64, "rounds_mean": pl.Float64, "rounds_min": pl.Int64,
        "rounds_max": pl.Int64, "display_full_share": pl.Float64, "player_games": pl.Int64,
        **dict.fromkeys(VP_SOURCES, pl.Float64), CARD_SHARE.name: pl.Float64,
        "decided_by": pl.String})


def _by_seat(matchups: pl.DataFrame) -> pl.DataFrame:
    """Win / draw / loss per strategy and seat from the per-matchup sums (both seats of a
    mirror match are counted), with their per-pair sums."""
    seats = pl.concat([
        matchups.select(pl.col("p0_strategy").alias("strategy"), pl.lit(0).alias("seat"),
                        pl.col("wins_p0").alias("wins"), pl.col("wins_p1").alias("losses"),
                        *rate_columns("points_p0", "games", as_x="points", as_n="n"),
                        *_draws()),
        matchups.select(pl.col("p1_strategy").alias("strategy"), pl.lit(1).alias("seat"),
                        pl.col("wins_p1").alias("wins"), pl.col("wins_p0").alias("losses"),
                        *rate_columns("points_p1", "games", as_x="points", as_n="n"),
                        *_draws())])
    return (seats.group_by("strategy", "seat").agg(pl.exclude("strategy", "seat").sum())
            .with_columns(pl.col("n").cast(pl.Int64), pl.col("draws").cast(pl.Int64),
                          pl.col("seat").cast(pl.Int64), pl.col("wins").cast(pl.Int32),
                          pl.col("losses").cast(pl.Int32))
            .select("strategy", "seat", "n", "wins", "draws", "losses", "points",
                    "n__k", "n__nn", "points__xx", "points__xn", "draws__xx", "draws__xn")
            .sort("strategy", "seat"))


def _draws() -> list[pl.Expr]:
    rate = rate_columns("draws", "games", as_n="n")
    return [rate[0], *rate[4:]]


def _by_matchup(matchups: pl.DataFrame) -> pl.DataFrame:
    """Per matchup (seat 0 strategy, seat 1 strategy): games, results, mean rounds and
    seat 0's points with their per-pair sums."""
    return (matchups.select(
        "p0_strategy", "p1_strategy", pl.col("games").cast(pl.Int64),
        *(pl.col(c).cast(pl.Int32) for c in ("wins_p0", "wins_p1", "draws")),
        (pl.col("rounds") / pl.col("games")).alias("rounds_mean"),
        *rate_columns("points_p0", "games")[:1], *rate_columns("points_p0", "games")[2:])
        .sort("p0_strategy", "p1_strategy"))
