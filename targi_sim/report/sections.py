"""The six report sections, each built from the analyses' aggregated tables.

Definitions of every metric are in docs/report.md; draws count as half a win
throughout ("points": win 1, draw 0.5, loss 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import polars as pl

from ..stats import wilson_interval
from ..tournament import design_effect, fit_elo
from . import plots
from .metrics import (
    card_mask_counts,
    grades,
    half_test_clustered,
    lead_metrics,
    mask_counts,
    with_rate,
)
from .model import Plot, Section, Table, mark_low_n
from .queries import Analyses
from .values import VpRates

Z95 = 1.959963984540054

Step = Callable[[str], None]


def _headline(rows: list[dict], metric: str, kind: str, value: float, n: float,
              x: float = math.nan, sd: float = math.nan, deff: float = 1.0) -> None:
    """One headline metric; `deff` is its design effect (variance over the binomial one,
    > 1 when the games of a seat-swapped pair are correlated), used by `compare`."""
    rows.append({"metric": metric, "kind": kind, "value": float(value), "x": float(x),
                 "n": float(n), "sd": float(sd), "deff": float(deff)})


def overview(a: Analyses, min_n: int, headline: list[dict]) -> tuple[Section, dict]:
    """Games, strategies, game length and the Ludii-style viability metrics."""
    s = a.frame("game_summary").row(0, named=True)
    games = int(s["games"])
    lead = a.frame("lead_codes")
    lm = lead_metrics(lead["code"].to_numpy(), lead["n_rounds"].to_numpy(),
                      lead["winner"].to_numpy())
    draws = float(s["draws"] or 0)
    fp = float(s["first_points"] or 0)
    adv = fp / games if games else math.nan
    rows = []

    def rate(metric: str, x: float, note: str) -> None:
        lo, hi = _wilson(x, games)
        rows.append({"metric": metric, "value": x / games if games else math.nan, "n": games,
                     "value_lo": lo, "value_hi": hi, "note": note})

    rows.append({"metric": "Balance", "value": 1 - abs(2 * adv - 1), "n": games,
                 "value_lo": None, "value_hi": None,
                 "note": "1 - |first player's rate - second player's rate| (draws = half)"})
    rate("AdvantageP1", fp, "round-1 first player's rate, draws = half")
    rate("Drawishness", draws, "share of drawn games")
    rate("Completion", games - draws, "share of games with a winner")
    rows.append({"metric": "Duration (mean rounds)", "value": s["rounds_mean"], "n": games,
                 "value_lo": None, "value_hi": None, "note": f"SD {s['rounds_sd'] or 0:.3f}"})
    rows.append({"metric": "Duration (SD rounds)", "value": s["rounds_sd"], "n": games,
                 "value_lo": None, "value_hi": None, "note": ""})
    rows.append({"metric": "LeadChange", "value": lm["lead_change"], "n": games,
                 "value_lo": None, "value_hi": None,
                 "note": "share of round-to-round steps where the leader changes"})
    rows.append({"metric": "Decisiveness", "value": lm["decisiveness"],
                 "n": int(lm["decided_games"]), "value_lo": None, "value_hi": None,
                 "note": f"mean (d-1)/R; mean decisive round d = "
                         f"{lm['decisive_round_mean']:.2f}"})
    viability = pl.DataFrame(rows, schema={
        "metric": pl.String, "value": pl.Float64, "n": pl.Int64, "value_lo": pl.Float64,
        "value_hi": pl.Float64, "note": pl.String})

    _headline(headline, "first player rate", "rate", adv, games, fp)
    _headline(headline, "draw rate", "rate", draws / games if games else math.nan, games, draws)
    _headline(headline, "Balance", "value", rows[0]["value"], games)
    _headline(headline, "Duration (mean rounds)", "mean", s["rounds_mean"], games,
              sd=s["rounds_sd"] or 0.0)
    _headline(headline, "LeadChange", "value", lm["lead_change"], games)
    _headline(headline, "Decisiveness", "value", lm["decisiveness"], lm["decided_games"])

    seat = a.frame("strategy_seat")
    seat = with_rate(seat, "win_rate", "points", "n")
    seat = with_rate(seat, "draw_rate", "draws", "n")
    seat = mark_low_n(seat, "n", min_n)
    for r in seat.iter_rows(named=True):
        _headline(headline, f"win rate {r['strategy']} seat {r['seat']}", "rate",
                  r["win_rate"], r["n"], r["points"])

    matchups = a.frame("matchups").with_columns(
        (pl.col("wins_p0") + 0.5 * pl.col("draws")).alias("points_p0"))
    matchups = with_rate(matchups, "p0_rate", "points_p0", "games")
    matchups = mark_low_n(matchups, "games", min_n)

    length = a.frame("game_length").with_columns(
        (pl.col("games") / games).alias("share"))
    tiebreaks = int(s["tiebreaks"] or 0)
    sec = Section("overview", "1. Overview", text=[
        f"{games:,} games in {int(s['matchups'])} matchup(s); mean score "
        f"{s['score_mean']:.2f}; {tiebreaks:,} games with equal scores went to a tie-break; "
        f"rounds {s['rounds_min']}..{s['rounds_max']}.",
        "Rates count a draw as half a win; brackets are 95% Wilson intervals.",
    ], tables=[
        Table("viability", "Viability metrics (Ludii style)", viability),
        Table("strategies_by_seat", "Win and draw rates per strategy and seat", seat,
              n_col="n"),
        Table("matchups", "Matchups (seat 0 strategy vs seat 1 strategy)", matchups,
              n_col="games", hidden=("points_p0",)),
        Table("game_length", "Game length", length),
    ], plots=[])
    sec.plots.append(_plot("game_length", "Games by rounds played", plots.game_length(length)))
    return sec, {"games": games, "matchups": int(s["matchups"])}


def _plot(key: str, title: str, png: bytes) -> Plot:
    return Plot(key, title, png)


def _wilson(x: float, n: int) -> tuple[float, float]:
    return wilson_interval(min(max(x, 0.0), n), n)


def first_player(a: Analyses, min_n: int, headline: list[dict]) -> Section:
    """Round-1 first player's rate: overall, per matchup, mirror matches, by end reason."""
    pairs = a.frame("first_player_pairs")
    rows = []

    def scope(name: str, df: pl.DataFrame) -> None:
        if df.height == 0:
            return
        t = half_test_clustered(df["first_points"].to_numpy(), df["games"].to_numpy())
        n = int(df["games"].sum())
        rows.append({"scope": name, "n": n, "pairs": df.height,
                     "first_wins": int(df["first_wins"].sum()), "draws": int(df["draws"].sum()),
                     "first_points": float(df["first_points"].sum()),
                     "z": t["z"], "p_value": t["p"], "design_effect": t["design_effect"]})

    scope("all games", pairs)
    mirror = pairs.filter(pl.col("p0_strategy") == pl.col("p1_strategy"))
    scope("mirror matches", mirror)
    for (p0, p1), df in sorted(pairs.group_by("p0_strategy", "p1_strategy"),
                               key=lambda kv: kv[0]):
        scope(f"{p0} vs {p1}", df)
    table = pl.DataFrame(rows, schema={
        "scope": pl.String, "n": pl.Int64, "pairs": pl.Int64, "first_wins": pl.Int64,
        "draws": pl.Int64, "first_points": pl.Float64, "z": pl.Float64, "p_value": pl.Float64,
        "design_effect": pl.Float64})
    table = with_rate(table, "first_rate", "first_points", "n")
    table = mark_low_n(table, "n", min_n)

    overall = rows[0] if rows else None
    er = a.frame("first_player_end_reason")
    er = with_rate(er, "first_rate", "first_points", "n")
    er = mark_low_n(er, "n", min_n)
    # the pair-level design effect also applies to comparisons of these rates
    measured = overall.get("design_effect") if overall else None
    deff = 1.0 if measured is None or math.isnan(measured) else max(1.0, float(measured))
    for h in headline:
        if h["metric"] == "first player rate":
            h["deff"] = deff
    for r in er.iter_rows(named=True):
        _headline(headline, f"first player rate, {r['end_reason']}", "rate", r["first_rate"],
                  r["n"], r["first_points"], deff=deff)

    gap = a.frame("score_gap").with_columns(
        (pl.col("gap_sd") / pl.col("n").sqrt()).alias("gap_se"))
    gap = gap.with_columns((pl.col("gap_mean") - Z95 * pl.col("gap_se")).alias("gap_lo"),
                           (pl.col("gap_mean") + Z95 * pl.col("gap_se")).alias("gap_hi"))
    gap = mark_low_n(gap, "n", min_n)
    text = ["The round-1 first player is the seat with the amulet in round 1 (it then "
            "alternates). The test against 50% treats each seat-swapped pair (same seed, "
            "first player swapped) as one unit: z uses the cluster-robust variance of pair "
            "totals; the design effect is that variance over the binomial one."]
    if overall:
        text.append(f"Overall: first player rate {overall['first_points'] / overall['n']:.2%} "
                    f"over {overall['n']:,} games, z = {overall['z']:.2f}, "
                    f"p = {overall['p_value']:.3g}.")
    sec = Section("first_player", "2. First-player advantage", text=text, tables=[
        Table("first_player", "Round-1 first player's rate (draws = half)", table, n_col="n",
              hidden=("first_points",)),
        Table("first_player_by_end_reason", "By end reason", er, n_col="n",
              hidden=("first_points",)),
        Table("score_gap", "Score gap after each round: first minus second player (mean, "
              "95% normal interval)", gap, n_col="n"),
    ])
    sec.plots.append(_plot("score_gap", "Score gap per round (round-1 first - second)",
                           plots.score_gap(gap)))
    return sec


def _cost(r: dict) -> str:
    parts = [f"{r[k]}{c}" for k, c in (("cost_salt", "s"), ("cost_pepper", "p"),
                                        ("cost_dates", "d"), ("cost_gold", "g")) if r.get(k)]
    return "".join(parts) or "free"


def _card_rates(df: pl.DataFrame, min_n: int) -> pl.DataFrame:
    df = with_rate(df, "acquire_rate", "taken_games", "offered_games")
    df = with_rate(df, "played_wr", "played_points", "played_n")
    df = with_rate(df, "not_taken_wr", "not_taken_points", "not_taken_n")
    df = df.with_columns((pl.col("played_wr") - pl.col("not_taken_wr")).alias("improvement"))
    df = mark_low_n(df, "played_n", min_n)
    z, g = grades(df["played_wr"].fill_nan(None).fill_null(math.nan).to_list(),
                  [not x for x in df["low_n"].to_list()])
    return df.with_columns(pl.Series("z", z, dtype=pl.Float64),
                           pl.Series("grade", g, dtype=pl.String))


def cards(a: Analyses, min_n: int, games: int) -> Section:
    """Tribe cards (17lands style), per symbol, border cards and goods cards."""
    tribe = a.frame("cards_tribe").with_columns(pl.col("card_id").cast(pl.Int32))
    counts = card_mask_counts(a.frame("cards_tribe_masks"), tribe["card_id"].to_list())
    tribe = tribe.join(counts, on="card_id", how="left").sort("card_id")
    tribe = tribe.with_columns(
        pl.Series("cost", [_cost(r) for r in tribe.iter_rows(named=True)], dtype=pl.String))
    tribe = _card_rates(tribe, min_n)
    tribe = tribe.with_columns((pl.col("acquired") / max(games, 1)).alias("acquired_per_game"))

    sums = ["offered_rounds", "offered_games", "taken_games", "acquired", "acquired_centre",
            "acquired_expansion", "played", "kept", "discarded", "acquisition_rows",
            "played_n", "played_points", "not_taken_n", "not_taken_points"]
    symbol = (tribe.with_columns((pl.col("round_mean") * pl.col("acquired")).alias("_rs"))
              .group_by("symbol")
              .agg([pl.len().alias("cards"), *[pl.col(c).sum() for c in sums],
                    pl.col("_rs").sum()])
              .with_columns((pl.col("_rs") / pl.col("acquired")).alias("round_mean"))
              .drop("_rs").sort("symbol"))
    symbol = _card_rates(symbol, min_n)

    border = a.frame("cards_border").with_columns(pl.col("position").cast(pl.Int32))
    border = border.join(mask_counts(a.frame("cards_border_masks"), "used",
                                     border["position"].to_list(), id_name="position",
                                     n_name="used_n", points_name="used_points"),
                         on="position", how="left").sort("position")
    border = with_rate(border, "use_rate", "placements", "open_rounds")
    border = with_rate(border, "used_wr", "used_points", "used_n")
    border = border.with_columns((pl.col("placements") / max(games, 1)).alias("uses_per_game"))
    border = mark_low_n(border, "used_n", min_n)

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
    goods = mark_low_n(goods, "taker_n", min_n)

    order = tribe.sort("played_wr", descending=True, nulls_last=True)
    sec = Section("cards", "3. Card balance", text=[
        "Tribe cards: offered = face up in the centre when placement starts; acquire rate = "
        "games in which someone took the card from the centre / games in which it was "
        "offered; WR played = rate of the players who played it to their display; WR not "
        "taken = rate of the players in games where it was offered who did not acquire it; "
        "improvement = their difference. Grades are z-scores of WR played among cards with "
        f"n played >= {min_n} (C = average, one step per third of a standard deviation).",
        "Border cards: use rate = Targi placements / rounds the card was open (robber "
        "elsewhere); WR used = rate of players who used the card at least once in the game.",
    ], tables=[
        Table("cards_tribe", "Tribe cards", tribe, n_col="played_n", hidden=(
            "cost_salt", "cost_pepper", "cost_dates", "cost_gold", "played_points",
            "not_taken_points", "acquisition_rows", "taken_games", "kept", "discarded",
            "acquired_centre", "acquired_expansion", "played")),
        Table("cards_symbol", "Tribe cards per symbol (pooled over the symbol's cards)", symbol,
              n_col="played_n", hidden=("played_points", "not_taken_points", "taken_games",
                                        "acquisition_rows", "kept", "discarded",
                                        "acquired_centre", "acquired_expansion", "played")),
        Table("cards_border", "Border cards", border, n_col="used_n",
              hidden=("used_points",)),
        Table("cards_goods", "Goods cards (one id per physical card)", goods, n_col="taker_n",
              hidden=("taker_points",)),
    ])
    sec.plots.append(_plot(
        "cards_played_wr", "Win rate when played, per tribe card (grey: n below --min-n)",
        plots.card_bars(order["name"].to_list(), _nan0(order["played_wr"]),
                        order["played_wr_lo"].to_list(), order["played_wr_hi"].to_list(),
                        order["low_n"].to_list(), "win rate when played", ref=0.5)))
    return sec


def _nan0(s: pl.Series) -> list[float]:
    return [0.0 if (v is None or math.isnan(v)) else v for v in s.to_list()]


def raids(a: Analyses, min_n: int, headline: list[dict], rates: VpRates) -> Section:
    """Payment mix, VP-equivalent losses, payer win rates and raid-decided games."""
    mix = a.frame("raids_mix", goods_vp=rates.goods_vp, gold_vp=rates.gold_vp)
    totals = mix.group_by("raid").agg(pl.col("n").sum().alias("raid_n"))
    mix = mix.join(totals, on="raid").sort("raid", "paid")
    mix = with_rate(mix, "share", "n", "raid_n")
    mix = with_rate(mix, "payer_wr", "points", "n")
    mix = mix.with_columns((pl.col("amount") / pl.col("n")).alias("amount_mean"),
                           (pl.col("vp_equivalent") / pl.col("n")).alias("vp_lost_mean"))
    mix = mark_low_n(mix, "n", min_n)

    per = []
    for raid, df in sorted(mix.group_by("raid"), key=lambda kv: kv[0]):
        d = {r["paid"]: r for r in df.iter_rows(named=True)}
        n = int(df["n"].sum())
        vp, gd = d.get("vp"), d.get("goods")
        per.append({
            "raid": raid[0], "n": n, "vp_lost_mean": float(df["vp_equivalent"].sum()) / n,
            "wr_paid_vp": vp["payer_wr"] if vp else None, "n_paid_vp": vp["n"] if vp else 0,
            "wr_paid_goods": gd["payer_wr"] if gd else None,
            "n_paid_goods": gd["n"] if gd else 0,
        })
    per_raid = pl.DataFrame(per, schema={
        "raid": pl.Int64, "n": pl.Int64, "vp_lost_mean": pl.Float64, "wr_paid_vp": pl.Float64,
        "n_paid_vp": pl.Int64, "wr_paid_goods": pl.Float64, "n_paid_goods": pl.Int64})
    per_raid = per_raid.with_columns(
        (pl.col("wr_paid_vp") - pl.col("wr_paid_goods")).alias("wr_vp_minus_goods"))
    per_raid = mark_low_n(per_raid, "n", min_n)

    sw = a.frame("raids_swing", goods_vp=rates.goods_vp, gold_vp=rates.gold_vp)
    sw = with_rate(sw, "flipped_exact_share", "flipped_exact", "decided")
    sw = with_rate(sw, "flipped_eq_share", "flipped_eq", "decided")
    sw = mark_low_n(sw, "decided", min_n)
    r = sw.row(0, named=True)
    _headline(headline, "games decided by raids (VP)", "rate", r["flipped_exact_share"],
              r["decided"], r["flipped_exact"])
    _headline(headline, "games decided by raids (VP-equivalent)", "rate",
              r["flipped_eq_share"], r["decided"], r["flipped_eq"])
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
                                               "opponent_bonus")),
        Table("raids_per_raid", "Per raid: mean VP-equivalent lost, rate of VP payers vs goods "
              "payers", per_raid, n_col="n"),
        Table("raids_winner_change", "Games whose winner would change if raids cost nothing",
              sw, n_col="decided"),
    ])
    sec.plots.append(_plot("raids_mix", "Payment mix per raid", plots.raid_mix(mix)))
    return sec


def strategies(a: Analyses, min_n: int) -> Section:
    """Win-rate matrix (both seats pooled) and Bradley-Terry Elo when >= 2 strategies."""
    pairs = a.frame("strategy_pairs")
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
        keyed.setdefault((a_, b_), []).append((games, wins_a, dr, pts_a))
    for (a_, b_), parts in sorted(keyed.items()):
        games = np.concatenate([p[0] for p in parts])
        wins = int(np.concatenate([p[1] for p in parts]).sum())
        draws = int(np.concatenate([p[2] for p in parts]).sum())
        pts = np.concatenate([p[3] for p in parts])
        n = int(games.sum())
        deff = design_effect(pts, games_per_deal=2) if (games == 2).all() else 1.0
        for x, y, w, l in ((a_, b_, wins, n - wins - draws), (b_, a_, n - wins - draws, wins)):
            rows.append({"a": x, "b": y, "games": n, "wins_a": w, "draws": draws,
                         "losses_a": l, "points_a": w + 0.5 * draws, "design_effect": deff})
    matrix = pl.DataFrame(rows, schema={
        "a": pl.String, "b": pl.String, "games": pl.Int64, "wins_a": pl.Int64,
        "draws": pl.Int64, "losses_a": pl.Int64, "points_a": pl.Float64,
        "design_effect": pl.Float64})
    matrix = with_rate(matrix, "rate_a", "points_a", "games")
    matrix = mark_low_n(matrix, "games", min_n)
    mirror = pairs.filter(pl.col("p0_strategy") == pl.col("p1_strategy"))
    text = []
    tables = [Table("strategy_matrix", "Row strategy's rate against column strategy (both "
                    "seats pooled, draws = half)", matrix, n_col="games",
                    hidden=("points_a",))]
    in_matrix = sorted(set(matrix["a"].to_list()))
    if len(in_matrix) >= 2:
        elo = fit_elo(in_matrix, matrix)
        tables.append(Table("elo", "Elo (Bradley-Terry maximum likelihood, mean 1500; 95% "
                            "interval with the design effect of seat-swapped pairs)", elo))
        text.append(f"{len(in_matrix)} strategies play each other; Elo is fitted by "
                    "targi_sim.tournament.fit_elo (one virtual draw per pair).")
    else:
        plural = "y" if len(names) == 1 else "ies"
        text.append(f"This run holds {len(names)} strateg{plural} ({', '.join(names)}) in "
                    "mirror matches only; Elo needs at least two strategies that play each "
                    "other.")
    if mirror.height:
        text.append(f"Mirror matches ({', '.join(sorted(set(mirror['p0_strategy'].to_list())))}) "
                    "are not part of the matrix: a strategy's rate against itself is 50% by "
                    "construction; see the first-player section for seat effects.")
    return Section("strategies", "5. Strategies", text=text, tables=tables)


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
