"""The ladder's report: the report model (targi_sim.report.model), so it renders to the
same HTML, Markdown, CSV and Parquet as `targi-sim report`."""

from __future__ import annotations

import math

import polars as pl

from targi_sim.game.shape import CARD_SHARE, decided_by
from targi_sim.report import plots
from targi_sim.report.findings import display_full_words
from targi_sim.report.model import Plot, Report, Section, Table


def _pct(x: float) -> str:
    return f"{x:.1%}"


def shape_words(shape: pl.DataFrame, stability: pl.DataFrame) -> list[str]:
    """Per rung, in words, from the game_shape table: the share of the points that come
    from cards and whether its mirror is decided by cards or by tokens (decided_by), the
    share of games ended by a full display, and, from the stability table, the round-1
    first player's rate."""
    first = dict(zip(stability["rung"], stability["first_player_rate"], strict=True)
                 ) if stability.height else {}
    out = []
    for r in shape.iter_rows(named=True):
        share = r[CARD_SHARE.name]
        if share is None or math.isnan(share):
            points = "nobody scored a point"
        else:
            points = (f"{share:.0%} of the points come from cards (card VP + row bonus) — "
                      f"the game is decided by {decided_by(share)}")
        text = f"{r['rung']} mirror: {points}; {display_full_words(r['display_full_share'])}"
        rate = first.get(r["rung"])
        if rate is not None and not math.isnan(rate):
            text += f"; the round-1 first player wins {_pct(rate)} (draws half)"
        out.append(text + ".")
    return out


def stability_words(result, min_n: int) -> list[str]:
    """The stability section's text: per pair of rungs compared, how many conclusions
    change (each grade move of two letters or more called significant or noise)."""
    moves = result.tables["grade_moves"]
    flagged = moves.filter(pl.col("verdict") != "")
    out = []
    for lower, upper in result.pairs:
        pair = f"{lower} and {upper}"
        mine = flagged.filter((pl.col("lower") == lower) & (pl.col("upper") == upper))
        real = mine.filter(pl.col("verdict") == "significant").height
        counts = result.compared[f"{lower} / {upper}"]
        if mine.height:
            out.append(f"Between {pair}: {mine.height} grade(s) move by two letters or more, "
                       f"{real} of them significant (Holm over the {counts['card']} cards and "
                       f"{counts['symbol']} symbols graded at both), the rest within the noise "
                       "of two finite runs.")
        else:
            out.append(f"Between {pair}: no grade moves by two letters or more "
                       f"({counts['card']} cards and {counts['symbol']} symbols graded at both).")
        if not counts["card"] and not counts["symbol"]:
            out.append(f"No card or symbol has a grade at both {pair}, so the card conclusions "
                       "cannot be checked there: play more games, or read the grades of the "
                       "rungs below.")
    out += [f"- {f}" for f in result.flags]
    out.append(f"A rate with fewer than {min_n} observations gets no grade.")
    return out


def _games_used(row: dict) -> str:
    """A cross run's games, and whether it stopped before its cap (interval narrow enough)."""
    cap = row.get("games_cap") or row["games"]
    if row["games"] < cap:
        return (f"{row['games']:,} of at most {cap:,} games: stopped when its interval was "
                "narrow enough")
    return f"{row['games']:,} games"


def ladder_report(result, names: list[str], seed: int, deck: str, rules: str,
                  min_n: int) -> Report:
    t = result.tables
    depth, luck, shape = t["skill_depth"], t["luck_index"], t["game_shape"]
    stability = t["stability"]
    adjacent = depth.filter(pl.col("adjacent"))
    text = [f"{r['rung']} wins {_pct(r['win_rate'])} ({_pct(r['win_rate_lo'])}–"
            f"{_pct(r['win_rate_hi'])}) of the points against {r['against']} "
            f"({_games_used(r)})." for r in adjacent.iter_rows(named=True)]
    weak = adjacent.filter(pl.col("win_rate_lo") <= 0.5)
    if weak.height:
        text.append("Not clearly stronger than the rung below: "
                    + ", ".join(weak["rung"].to_list()) + ". The ladder is not ordered there.")
    depth_plot = plots.card_bars(
        [f"{r} vs {a}" for r, a in zip(depth["rung"], depth["against"], strict=True)],
        depth["win_rate"].to_list(), depth["win_rate_lo"].to_list(),
        depth["win_rate_hi"].to_list(), [False] * depth.height,
        "win rate of the stronger rung (draws half)", ref=0.5)
    luck_text = [f"Luck index {r['luck_index']:.3f} ({r['luck_index_lo']:.3f}–"
                 f"{r['luck_index_hi']:.3f}): the share of points {r['bottom']} takes from "
                 f"{r['top']} on the same deals (0: skill decides every game; 0.5: the "
                 "players do not matter)." for r in luck.iter_rows(named=True)]
    noise = t["luck_noise"]
    for r in noise.filter(pl.col("deals") > 0).iter_rows(named=True):
        if r["deal_share"] is None or math.isnan(r["deal_share"]):
            luck_text.append(
                f"{r['rung']} vs {r['against']}: every one of {r['replays']} replays of "
                f"{r['deals']} deals ended the same way: no variance for the deal or the "
                "noise to explain.")
            continue
        luck_text.append(
            f"{r['rung']} vs {r['against']}: the deal explains {r['deal_share']:.2f} of the "
            f"outcome's variance over {r['replays']} replays of {r['deals']} deals with fresh "
            f"policy randomness (within one deal the result's SD is "
            f"{r['within_deal_sd']:.2f} points; F-test p = {r['p_value']:.2g}).")
    fixed = noise.filter(pl.col("deals") == 0)
    if fixed.height:
        luck_text.append("Deterministic matches (" + ", ".join(
            f"{a} vs {b}" for a, b in zip(fixed["rung"], fixed["against"], strict=True))
            + "): the same deal always gives the same game, so given the two players the "
            "deal decides the outcome.")
    flag_text = stability_words(result, min_n)
    sections = [
        Section("skill_depth", "1. Skill depth", text=text,
                tables=[Table("skill_depth", "Each rung against the rung below (and the top "
                              "against the bottom)", depth)],
                plots=[Plot("skill_depth", "Win rate of the stronger rung", depth_plot)]),
        Section("luck", "2. Luck index", text=luck_text,
                tables=[Table("luck_index", "Bottom rung against top rung", luck),
                        Table("luck_noise", "The deal's share of the outcome over repeated "
                              "policy noise (ICC from a one-way ANOVA, scipy f_oneway)",
                              noise)]),
        Section("game_shape", "3. Game shape by skill",
                text=["Each rung's mirror: means per game; cards, VP and raid losses per "
                      "player and game; card_point_share = (card VP + row bonus) / all VP.",
                      *shape_words(shape, stability)],
                tables=[Table("game_shape", "Game shape in each mirror", shape)]),
        Section("stability", "4. Stability of conclusions", text=flag_text,
                tables=[Table("stability", "First player and raid impact in each mirror",
                              stability),
                        Table("grade_moves", "Every grade compared between two rungs: the "
                              "change of what it reads, z-test over the two runs' "
                              "pair-clustered errors, Holm over the cards (symbols); a move of "
                              "two letters or more is significant or noise", t["grade_moves"]),
                        Table("symbol_grades", "Symbol grades in each mirror",
                              t["symbol_grades"]),
                        Table("card_grades", "Tribe card grades in each mirror",
                              t["card_grades"])]),
    ]
    facts = [("rungs", ", ".join(names)), ("deck", deck), ("rules", rules),
             ("seed", str(seed)), ("runs", ", ".join(r.key for r in result.runs))]
    return Report(title="targi-sim skill ladder", facts=facts, sections=sections, min_n=min_n)
