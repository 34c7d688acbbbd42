"""The shape of a game: the one definition of its per-player figures and of the per-game
shares every part of targi-sim reports (ladder, signatures, check, sweep, report, the
run's summary).

Why one module: "how many cards did a player keep", "how many VP came from tokens" were
computed six ways (SQL per report, Polars per ladder and signature...), and six
definitions drift. Here each figure is named once, with its label and unit; the rows
are one per game and player, built the same way as the `player_shape` view of
analyses/views.sql (tests/test_shape.py holds the two equal on a real run).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl


@dataclass(frozen=True)
class Figure:
    """A figure of a game: its column, how people read it, its unit."""

    name: str
    label: str
    unit: str


# per player and game, in the order every table shows them
PLAYER_FIGURES: tuple[Figure, ...] = (
    Figure("cards", "cards in the display at the end", "cards"),
    Figure("token_vp", "VP from tokens", "VP"),
    Figure("card_vp", "VP from cards", "VP"),
    Figure("row_bonus", "VP from row bonuses", "VP"),
    Figure("raid_losses", "goods, gold and VP paid to raids", "items"),
)
# per game
GAME_FIGURES: tuple[Figure, ...] = (
    Figure("rounds", "rounds played", "rounds"),
    Figure("display_full_share", "games ended by a full display", "share"),
    Figure("tiebreak_share", "games decided by a tie-break", "share"),
    Figure("draw_share", "games drawn", "share"),
)
# derived from the player figures: the share of all points that came from cards
CARD_SHARE = Figure("card_point_share", "share of points from cards (card VP + row bonus)",
                    "share")
CARD_SHARE_DECIDES = 0.5  # at or above it a game "is decided by cards", below by tokens
PLAYER_NAMES: tuple[str, ...] = tuple(f.name for f in PLAYER_FIGURES)

# the games-table column of each figure read straight from it (suffix _p0 / _p1)
GAMES_COLUMNS = {"token_vp": "tokens", "card_vp": "card_vp", "row_bonus": "row_bonus"}


def player_rows(games: pl.DataFrame, rounds: pl.DataFrame, raids: pl.DataFrame
                ) -> pl.DataFrame:
    """One row per game and player: game_id, pair_id, player, strategy and every
    PLAYER_FIGURES column (as Float64), sorted by game and player.

    `games`, `rounds`, `raids`: a run's tables (docs/data-model.md) or a batch's
    (targi_sim.play.games.play_games); pair_id, the strategy columns and a figure whose
    games column is absent (a hand-built frame in a test) are left out.
    """
    seats = []
    for p in (0, 1):
        cols = [pl.col("game_id"), pl.lit(p, dtype=pl.Int8).alias("player")]
        if "pair_id" in games.columns:
            cols.append(pl.col("pair_id"))
        if f"p{p}_strategy" in games.columns:
            cols.append(pl.col(f"p{p}_strategy").alias("strategy"))
        cols += [pl.col(f"{col}_p{p}").cast(pl.Float64).alias(name)
                 for name, col in GAMES_COLUMNS.items() if f"{col}_p{p}" in games.columns]
        seats.append(games.select(cols))
    rows = pl.concat(seats)
    key = ["game_id", "player"]
    added = [raids.group_by(key).agg(pl.col("amount").sum().cast(pl.Float64)
                                     .alias("raid_losses"))]
    if "display_count" in rounds.columns:
        added.append(rounds.sort("round").group_by(key).agg(
            pl.col("display_count").last().cast(pl.Float64).alias("cards")))
    for table in added:
        rows = rows.join(table.with_columns(pl.col("player").cast(pl.Int8)), on=key,
                         how="left")
    front = [c for c in ("game_id", "pair_id", "player", "strategy") if c in rows.columns]
    figures = [f for f in PLAYER_NAMES if f in rows.columns]
    return (rows.with_columns(pl.col(*figures).fill_null(0.0))
            .select(*front, *figures).sort(key))


def game_flags(games: pl.DataFrame) -> dict[str, np.ndarray]:
    """Per game, True where it counts towards each share of GAME_FIGURES (booleans)."""
    return {
        "display_full_share": (games["end_reason"] == "display_full").to_numpy(),
        "tiebreak_share": (~games["tiebreak"].is_in(["none"])).to_numpy(),
        "draw_share": (games["winner"] == -1).to_numpy(),
    }


def card_point_share(card_vp: float, row_bonus: float, token_vp: float) -> float:
    """Points from cards (card VP + row bonus) over all points, a ratio of totals (or
    means): the figure that says whether a set of games is a card game or a token race.
    NaN when nobody scored anything."""
    cards = card_vp + row_bonus
    total = cards + token_vp
    return float(cards / total) if total > 0 else float("nan")


def decided_by(share: float) -> str:
    """'cards' or 'tokens': which kind of points the games are mostly won with."""
    return "cards" if share >= CARD_SHARE_DECIDES else "tokens"


def game_shape(games: pl.DataFrame, rounds: pl.DataFrame, raids: pl.DataFrame) -> dict:
    """Means per game (GAME_FIGURES) and per player and game (PLAYER_FIGURES; `cards` is
    reported as `cards_per_player`) of a set of games."""
    n = games.height
    rows = player_rows(games, rounds, raids)
    means = {f: float(rows[f].sum() / (2 * n)) for f in PLAYER_NAMES}
    shares = {name: float(flags.mean()) for name, flags in game_flags(games).items()}
    return {
        "games": n,
        "rounds": float(games["rounds"].mean()),
        **shares,
        "cards_per_player": means["cards"],
        **{f: means[f] for f in PLAYER_NAMES if f != "cards"},
        CARD_SHARE.name: card_point_share(means["card_vp"], means["row_bonus"],
                                          means["token_vp"]),
    }


def digest_shape(games: pl.DataFrame, digest: pl.DataFrame) -> dict:
    """game_shape of a run's games from its games table and game digests
    (targi_sim.runner.digests), without its round and raid rows: the digest's per-seat
    display size and raid losses are what player_rows takes from those rows."""
    def seats(column: str, name: str, extra: dict) -> pl.DataFrame:
        return pl.concat([digest.select("game_id", pl.lit(p, dtype=pl.Int8).alias("player"),
                                        pl.col(f"{column}_p{p}").alias(name),
                                        *(pl.lit(v).alias(k) for k, v in extra.items()))
                          for p in (0, 1)])

    return game_shape(games, seats("cards", "display_count", {"round": 0}),
                      seats("raid_losses", "amount", {}))


__all__ = ["CARD_SHARE", "CARD_SHARE_DECIDES", "GAMES_COLUMNS", "GAME_FIGURES", "PLAYER_FIGURES",
           "PLAYER_NAMES", "Figure", "card_point_share", "decided_by", "digest_shape", "game_flags",
           "game_shape", "player_rows"]
