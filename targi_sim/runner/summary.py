"""The running totals of a run: counts and sums folded in chunk by chunk, enough for the
summary `targi-sim run` prints and `targi_sim.run` users read; memory does not grow
with games.

Rates are per game, but their intervals treat each pair_id (a seat-swapped pair,
or a game whose deal is played once) as one independent unit
(targi_sim.stats.rates): in a seat-swapped pair the deal often decides both games.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from targi_sim.runner.layout import RunDir
from targi_sim.stats.rates import ClusterAccumulator, ClusteredRate

RATES = ("seat0", "seat1", "draws", "first", "points0", "points1")


@dataclass
class Tally:
    """Counts and sums that are enough for the summary; memory does not grow with games."""

    strategies: tuple[str, str]
    games: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    first_wins: int = 0
    score_sum: list[int] = field(default_factory=lambda: [0, 0])
    rounds_sum: int = 0
    end_reasons: Counter = field(default_factory=Counter)
    tiebreaks: Counter = field(default_factory=Counter)
    clusters: ClusterAccumulator = field(default_factory=lambda: ClusterAccumulator(RATES))

    def add(self, games: pl.DataFrame) -> None:
        """Fold in a chunk's `games` table (targi_sim.game.record.games_frame columns)."""
        winner = games["winner"]
        self.games += games.height
        self.wins[0] += int((winner == 0).sum())
        self.wins[1] += int((winner == 1).sum())
        self.draws += int((winner == -1).sum())
        self.first_wins += int((winner == games["first_player"]).sum())
        self.score_sum[0] += int(games["score_p0"].sum())
        self.score_sum[1] += int(games["score_p1"].sum())
        self.rounds_sum += int(games["rounds"].sum())
        self.end_reasons.update(dict(games["end_reason"].value_counts().iter_rows()))
        self.tiebreaks.update(dict(games["tiebreak"].value_counts().iter_rows()))
        w = winner.to_numpy()
        draw = 0.5 * (w == -1)
        self.clusters.add(games["pair_id"].to_numpy(), np.ones(len(w)), {
            "seat0": (w == 0) * 1.0, "seat1": (w == 1) * 1.0, "draws": (w == -1) * 1.0,
            "first": (w == games["first_player"].to_numpy()) + draw,
            "points0": (w == 0) + draw, "points1": (w == 1) + draw})

    def rates(self) -> dict[str, ClusteredRate]:
        """Seat 0's and seat 1's win rates (a draw is no win), the draw rate, the round-1
        first player's rate and each seat's rate with draws as half (the report's
        win_rate), each with its pair-clustered interval."""
        return self.clusters.result()


SUMMARY_COLUMNS = ("pair_id", "winner", "first_player", "score_p0", "score_p1", "rounds",
                   "end_reason", "tiebreak")


def summarise_run(out: str | Path, strategies: tuple[str, str], chunks: int) -> Tally:
    """Fold every chunk's `games` file into a Tally (one file at a time).

    The files are the run's own, by chunk number (the run has just checked them
    against their markers); each is opened by Python, so no character of `out` is
    read as a pattern, and a stray file in the folder is never counted.
    """
    tally = Tally(strategies)
    rd = RunDir(Path(out))
    for chunk in range(chunks):
        with open(rd.table_path("games", chunk), "rb") as f:
            tally.add(pl.read_parquet(f, columns=list(SUMMARY_COLUMNS)))
    return tally


__all__ = ["RATES", "SUMMARY_COLUMNS", "Tally", "summarise_run"]
