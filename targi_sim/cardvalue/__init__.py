"""Causal card value by forked play (docs/report.md#causal-card-value).

`forks.py` plays a chunk's games with forks (the compiled driver engine/forks.py) and
builds the `forks` table; `forkdir.py` adds that table to a run directory (resumable,
checksummed like the other tables); `values.py` turns it into each card's value with
a deal-clustered interval (graded by targi_sim.stats.grades).
"""

from .values import card_values, round_values, symbol_values

__all__ = ["card_values", "round_values", "symbol_values"]

