"""Does each named strategy do what its name says? Its signature figure against balanced.

Why: a strategy called `row-builder` that builds fewer rows than `balanced` misleads
every conclusion drawn from it. Each named strategy has one figure that its name
promises to move (row bonuses for row-builder, gold held for gold-hoarder, VP lost to
raids for raid-averse, cards taken from the opponent's reach for blocker). `signature` plays
the strategy against `balanced` in seat-swapped pairs and measures the figure for both
seats of the same games; the difference per deal (the pair, the independent unit) gives
the estimate, its interval (scipy's t interval over pairs) and a p-value.

Figures, per player and game:
* `row_bonus`, `raid_losses`: as defined for every report in targi_sim/game/shape.py.
* `gold_held`: gold held at the end of a round, averaged over the game's rounds.
* `raid_vp_lost`: VP paid to raids (what keeping goods for the raids saves).
* `cards_denied`: tribe cards taken from the centre that the opponent could have paid
  for with what they held at the start of that round (their end-of-round holdings of
  the round before; round 1 uses the starting tokens of the rules), its printed cost.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats as sps

from targi_sim.game.deck import Deck, load_deck
from targi_sim.game.rules import load_rules
from targi_sim.game.shape import player_rows
from targi_sim.play.games import play_games

RESOURCES = ("salt", "pepper", "dates", "gold")  # the columns of a tribe card's cost
FIGURES = ("row_bonus", "gold_held", "raid_losses", "raid_vp_lost", "cards_denied")
# The figure each named strategy's name promises, and the direction it should move.
PROMISES: dict[str, tuple[str, int]] = {
    "row-builder": ("row_bonus", +1),
    "gold-hoarder": ("gold_held", +1),
    "raid-averse": ("raid_vp_lost", -1),
    "blocker": ("cards_denied", +1),
}


@dataclass(frozen=True)
class Signature:
    """One figure of a strategy (seat X) against balanced (seat B) over the same deals."""

    strategy: str
    figure: str
    games: int
    pairs: int
    strategy_mean: float
    balanced_mean: float
    difference: float  # strategy - balanced, per player and game
    ci_low: float
    ci_high: float
    p_value: float

    def keeps_promise(self, direction: int, alpha: float = 0.01) -> bool:
        """True if the difference has the promised sign and is significant at alpha."""
        return self.p_value < alpha and np.sign(self.difference) == direction


def _per_player(games: pl.DataFrame, tables: dict[str, pl.DataFrame], deck: Deck,
                start: dict[str, int]) -> pl.DataFrame:
    """Every figure per (game_id, player)."""
    rounds = tables["rounds"]
    base = player_rows(games, rounds, tables["raids"]).select(
        "game_id", "pair_id", pl.col("player").cast(pl.Int32), "row_bonus", "raid_losses")
    gold = rounds.group_by("game_id", "player").agg(pl.col("gold").mean().alias("gold_held"))
    raids = tables["raids"].group_by("game_id", "player").agg(
        pl.col("amount").filter(pl.col("paid") == "vp").sum().cast(pl.Float64)
        .alias("raid_vp_lost"))
    # what each player held at the start of each round
    held = rounds.select("game_id", "player", (pl.col("round") + 1).alias("round"),
                         "salt", "pepper", "dates", "gold")
    acq = tables["acquisitions"].filter(pl.col("source") == "centre")
    cost = np.asarray(deck.tribe_cost)
    costs = pl.DataFrame({"card_id": np.arange(len(cost), dtype=np.int32),
                          **{f"c_{k}": cost[:, i] for i, k in enumerate(RESOURCES)}})
    opp = acq.with_columns((1 - pl.col("player")).alias("opponent")).join(
        costs, on="card_id").join(
        held.rename({"player": "opponent"}), on=["game_id", "opponent", "round"], how="left")
    for k in RESOURCES:
        opp = opp.with_columns(pl.col(k).fill_null(start[k]))
    affordable = pl.all_horizontal(pl.col(k) >= pl.col(f"c_{k}") for k in RESOURCES)
    denied = opp.filter(affordable).group_by("game_id", "player").agg(
        pl.len().cast(pl.Float64).alias("cards_denied"))
    out = base
    for t in (gold, raids, denied):
        out = out.join(t, on=["game_id", "player"], how="left")
    return out.fill_null(0.0)


def signature(strategy: str, *, games: int = 10_000, seed: int = 0,
              deck: str = "base", rules: str = "default") -> dict[str, Signature]:
    """Every figure of `strategy` (seat 0) against balanced (seat 1), seat-swapped pairs."""
    batch = play_games(games, seed=seed, strategies=(strategy, "balanced"), deck=deck,
                       rules=rules, pairing="seat_swapped")
    d = load_deck(deck)
    start = dict(load_rules(rules).settings["start"])
    rows = _per_player(batch.games, batch.tables, d, start)
    by_pair = rows.group_by("pair_id", "player").agg(pl.col(f).mean() for f in FIGURES)
    x = by_pair.filter(pl.col("player") == 0).sort("pair_id")
    b = by_pair.filter(pl.col("player") == 1).sort("pair_id")
    out = {}
    for f in FIGURES:
        diff = x[f].to_numpy() - b[f].to_numpy()
        if np.allclose(diff, diff[0]):
            lo = hi = float(diff[0])
            p = 1.0
        else:
            test = sps.ttest_1samp(diff, 0.0)
            lo, hi = test.confidence_interval(0.95)
            p = float(test.pvalue)
        out[f] = Signature(strategy, f, batch.games.height, len(diff), float(x[f].mean()),
                           float(b[f].mean()), float(diff.mean()), float(lo), float(hi), p)
    return out


__all__ = ["FIGURES", "PROMISES", "Signature", "signature"]
