"""The game-shape figures a calibration target may name, measured per level of play.

Why here: targets, the measurement, the playtest reader and the report must agree on
each figure's name, meaning and scale; the per-player figures themselves are those of
targi_sim.game.shape (card_point_share is its CARD_SHARE).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ShapeFigure:
    """A figure of a level's games: name, label, and the distance that counts as one
    unit of miss (`scale`) when a target file gives none."""

    name: str
    label: str
    scale: float
    unit: str


FIGURES: dict[str, ShapeFigure] = {f.name: f for f in (
    ShapeFigure("card_point_share", "share of points from cards (card VP + row bonus)",
                0.05, "share"),
    ShapeFigure("display_full_share", "games ended by a full display (12 cards)", 0.02,
                "share"),
    ShapeFigure("cards_per_player", "cards in a player's display at the end", 0.5, "cards"),
    ShapeFigure("card_vp", "VP from cards per player", 1.0, "VP"),
    ShapeFigure("row_bonus", "VP from row bonuses per player", 0.5, "VP"),
    ShapeFigure("token_vp", "VP from tokens per player", 1.0, "VP"),
    ShapeFigure("rounds", "rounds played", 0.5, "rounds"),
    ShapeFigure("first_player_rate", "round-1 first player's win rate in the mirror "
                "(draws half)", 0.02, "share"),
    ShapeFigure("score", "points per player (cards, row bonuses and tokens)", 1.0, "VP"),
    ShapeFigure("raid_losses", "units (goods, gold or VP) a player paid to raids", 0.5,
                "units"),
    ShapeFigure("beats_previous", "win rate against the level before it (seat-swapped "
                "pairs, draws half)", 0.05, "share"),
)}

# the figures a playtest CSV yields as targets (beats_previous needs two levels of play;
# the CSV has no raid column; score is the sum of three of them)
PLAYTEST_FIGURES = tuple(f for f in FIGURES
                         if f not in ("beats_previous", "raid_losses", "score"))

__all__ = ["FIGURES", "PLAYTEST_FIGURES", "ShapeFigure"]
