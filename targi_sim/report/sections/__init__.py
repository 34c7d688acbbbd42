"""The six report sections, one module each, built from the analyses' aggregated tables
(_overview, _first_player, _cards, _raids, _strategies, _curves; common holds what they
share). The section modules carry an underscore so that the section functions this
package exports (`cards`, `raids`, ...) never hide a module of the same name.

Definitions of every metric are in docs/report.md; draws count as half a win
throughout ("points": win 1, draw 0.5, loss 0).
"""

from ._cards import CARD_RATE_COLUMNS, COST_COLUMNS, cards, grade_tribe
from ._curves import curves
from ._first_player import first_player, score_gaps
from ._overview import overview
from ._raids import raids
from ._strategies import SHAPE_FIGURES, strategies, strategy_shape

__all__ = ["CARD_RATE_COLUMNS", "COST_COLUMNS", "SHAPE_FIGURES", "cards", "curves",
           "first_player", "grade_tribe", "overview", "raids", "score_gaps", "strategies",
           "strategy_shape"]
