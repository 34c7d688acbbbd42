"""The end-of-run summary table of `targi-sim run` (the totals: targi_sim.runner.summary)."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from targi_sim.play.pairing import DESCRIPTIONS
from targi_sim.runner.summary import Tally


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
    console.print(_rates_table(tally, s0, s1))
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


def _rates_table(tally: Tally, s0: str, s1: str) -> Table:
    """Each seat's win rate (and with draws as half), draws, the first player's rate, with
    their Wilson intervals and design effects."""
    n = tally.games
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
    return rates
