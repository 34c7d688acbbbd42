"""The six report sections, one module each, built from the analyses' aggregated tables
(overview, first_player, cards, raids, strategies, curves; common holds what they share).

Definitions of every metric are in docs/report.md; draws count as half a win
throughout ("points": win 1, draw 0.5, loss 0).
"""

from .cards import CARD_RATE_COLUMNS, COST_COLUMNS, cards, grade_tribe
from .curves import curves
from .first_player import first_player, score_gaps
from .overview import overview
from .raids import raids
from .strategies import SHAPE_FIGURES, strategies, strategy_shape

__all__ = ["CARD_RATE_COLUMNS", "COST_COLUMNS", "SHAPE_FIGURES", "cards", "curves",
           "first_player", "grade_tribe", "overview", "raids", "score_gaps", "strategies",
           "strategy_shape"]
