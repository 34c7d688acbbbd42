"""Running totals over chunks of games and the end-of-run summary table.

Rates are per game, but their intervals treat each pair_id (a seat-swapped pair,
or a game whose deal is played once) as one independent unit
(targi_sim.stats.rates): in a seat-swapped pair the deal often decides both games.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from targi_sim.play.pairing import DESCRIPTIONS
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


def _pct(x: float) -> str:
    return f"{x:.2%}"


def render(
    console: Console,
    tally: Tally,
    *,
    seconds: float,
    setup_seconds: float,
    deck: str,
    rules: str,
    seed: int,
    games_played: int | None = None,
    pairing: str | None = None,
) -> None:
    """Print the summary of a finished run (`games_played`: by this invocation)."""
    n = tally.games
    played = n if games_played is None else games_played
    rate = played / seconds if seconds > 0 else float("inf")
    s0, s1 = (escape(name) for name in tally.strategies)  # names and paths are data
    layout = DESCRIPTIONS.get(pairing or "seat_swapped", pairing)
    console.print(
        f"[bold]{n:,} games[/bold], {layout}; seed {seed}, deck {escape(deck)}, "
        f"rules {escape(rules)}",
        highlight=False,
    )
    console.print(
        f"wall time {seconds + setup_seconds:.2f} s (play {seconds:.2f} s + engine load "
        f"{setup_seconds:.2f} s), [bold]{rate:,.0f} games/s[/bold]",
        highlight=False,
    )
    rates = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    rates.add_column("outcome")
    rates.add_column("rate", justify="right")
    rates.add_column("95% Wilson interval", justify="right")
    rates.add_column("design effect", justify="right")
    measured = tally.rates()
    rows = [
        (f"seat 0 ({s0}) wins", "seat0"),
        (f"seat 1 ({s1}) wins", "seat1"),
        ("draws", "draws"),
        (f"seat 0 ({s0}), draws = half", "points0"),
        (f"seat 1 ({s1}), draws = half", "points1"),
        ("round-1 first player wins (draws = half)", "first"),
    ]
    for label, key in rows:
        if n:
            r = measured[key]
            deff = f"{r.deff:.2f}" if r.deff == r.deff else "-"
            rates.add_row(label, _pct(r.rate), f"{_pct(r.lo)} .. {_pct(r.hi)}", deff)
        else:
            rates.add_row(label, "n/a", "n/a", "")
    console.print(rates)
    if n:
        console.print("wins: a draw counts as no win. draws = half: the rate the report "
                      "calls win_rate. Intervals: Wilson on games / design effect, the "
                      "design effect being the variance over pairs (pair_id) relative to "
                      "independent games.", highlight=False, style="dim")
    if not n:
        return
    other = Table(box=None, show_header=False, pad_edge=False)
    other.add_column(style="bold")
    other.add_column()
    other.add_row(
        "mean score", f"seat 0 {tally.score_sum[0] / n:.2f}   seat 1 {tally.score_sum[1] / n:.2f}"
    )
    other.add_row("mean rounds", f"{tally.rounds_sum / n:.2f}")
    for label, counter in (("end reason", tally.end_reasons), ("tie-break", tally.tiebreaks)):
        # most frequent first; equal counts by name, so the line does not depend on the
        # order in which chunks finished
        ranked = sorted(counter.items(), key=lambda kc: (-kc[1], kc[0]))
        other.add_row(label, ", ".join(f"{k} {c / n:.1%}" for k, c in ranked))
    console.print(other)
