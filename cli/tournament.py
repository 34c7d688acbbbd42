"""Printing a tournament: the win-rate matrix and the Elo table (rich)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from targi_sim.strength.tournament import TournamentResult, fit_verdict

from .parse import ParseError, cap_jobs, split_names


def parse_strategy_list(values: list[str]) -> list[str]:
    """`-s a,b -s c` -> ["a", "b", "c"]: at least two, no repeats (names or file paths)."""
    names = split_names(values)
    if len(names) < 2:
        raise ParseError(f"--strategies needs at least two comma-separated strategies; "
                         f"got {','.join(values)!r}")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ParseError(f"--strategies lists {', '.join(repeated)} more than once")
    return names


def parse_jobs(text: str) -> int:
    """The --jobs value: worker processes, 1..1024, capped at the CPU count (with a note)."""
    raw = str(text).strip()
    if not raw.isdigit() or not 1 <= int(raw) <= 1024:
        raise ParseError(f"--jobs must be a whole number from 1 to 1024; got {text!r}")
    return cap_jobs(int(raw))


def claim_default_out_dir(started: datetime, parent: Path = Path("runs")) -> Path:
    """A new folder `runs/tournament-<started>`, with `-2`, `-3`, ... when the name is
    taken: created here (mkdir is atomic), so two tournaments started in the same
    second never share a folder and one never overwrites the other's results."""
    base = f"tournament-{started:%Y%m%d-%H%M%S}"
    parent.mkdir(parents=True, exist_ok=True)
    for k in range(1, 10_000):
        folder = parent / (base if k == 1 else f"{base}-{k}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise FileExistsError(f"no free folder name {base}-N in {parent}")


def _render_fit(console: Console, result: TournamentResult) -> None:
    """The Elo model's goodness of fit: per pair observed vs fitted, and one verdict line."""
    fit = result.fit or {}
    if not fit.get("pairs"):
        return
    table = Table(title="Elo fit: observed vs fitted rate per pair (row strategy's rate)",
                  box=box.SIMPLE_HEAD, title_justify="left")
    for name in ("pair", "games", "observed", "fitted", "Pearson residual"):
        table.add_column(name, justify="left" if name == "pair" else "right")
    for p in fit["pairs"]:
        resid = p["pearson_residual"]
        table.add_row(escape(f"{p['a']} vs {p['b']}"), f"{p['games']:,}",
                      f"{p['observed_rate_a']:.2%}", f"{p['fitted_rate_a']:.2%}",
                      f"{resid:+.2f}" if resid is not None else "-")
    console.print(table)
    style = "bold red" if fit.get("poor_fit") else ""
    line = fit_verdict(fit)
    console.print(f"[{style}]{line}[/{style}]" if style else line, highlight=False)


def render(console: Console, result: TournamentResult, *, setup_seconds: float,
           out_dir: Path | None) -> None:
    n_pairs = len(result.strategies) * (len(result.strategies) - 1) // 2
    total = n_pairs * result.games_per_pair
    rate = total / result.seconds if result.seconds > 0 else float("inf")
    console.print(
        f"[bold]tournament[/bold]: {len(result.strategies)} strategies, {n_pairs} pairs x "
        f"{result.games_per_pair:,} games = {total:,} games  seed {result.seed}, "
        f"deck {escape(result.deck)}, rules {escape(result.rules)}",
        highlight=False,
    )
    console.print(
        f"wall time {result.seconds + setup_seconds:.2f} s (play {result.seconds:.2f} s + "
        f"engine load {setup_seconds:.2f} s), [bold]{rate:,.0f} games/s[/bold]",
        highlight=False,
    )

    matrix = Table(
        title=f"Row's win rate against column (draws = half), 95% interval (the deal is the "
              f"unit), ties; n = {result.games_per_pair:,} per cell",
        box=box.SIMPLE_HEAD, title_justify="left", show_lines=True,
    )
    matrix.add_column("row vs column", style="bold")
    for b in result.strategies:
        matrix.add_column(escape(b), justify="right")
    cells = {(r["a"], r["b"]): r for r in result.matrix.iter_rows(named=True)}
    for a in result.strategies:
        row = [escape(a)]
        for b in result.strategies:
            if a == b:
                row.append("-")
                continue
            c = cells[(a, b)]
            style = "green" if c["ci_low"] > 0.5 else "red" if c["ci_high"] < 0.5 else ""
            text = (f"{c['rate_a']:.1%}\n{c['ci_low']:.1%}-{c['ci_high']:.1%}\n"
                    f"ties {c['draw_rate']:.1%}")
            deff = c.get("design_effect")
            if deff is not None and deff == deff and abs(deff - 1) > 0.05:
                text += f"\ndeff {deff:.2f}"  # the deal's games are correlated
            row.append(f"[{style}]{text}[/{style}]" if style else text)
        matrix.add_row(*row)
    console.print(matrix)

    fit = result.fit or {}
    scale = fit.get("se_scale") or 1.0
    widened = f", widened x{scale:.2f} for misfit" if scale > 1 else ""
    elo = Table(
        title="Elo (Bradley-Terry maximum likelihood, mean 1500; 95% parametric interval"
              f"{widened})",
        box=box.SIMPLE_HEAD, title_justify="left",
    )
    for name, justify in (("rank", "right"), ("strategy", "left"), ("Elo", "right"),
                          ("95% interval", "right"), ("score", "right"), ("games", "right")):
        elo.add_column(name, justify=justify)
    for r in result.elo.iter_rows(named=True):
        elo.add_row(str(r["rank"]), escape(r["strategy"]), f"{r['elo']:.0f}",
                    f"{r['ci_low']:.0f} .. {r['ci_high']:.0f}", f"{r['score']:.1%}",
                    f"{r['games']:,}")
    console.print(elo)
    _render_fit(console, result)
    if out_dir is not None:
        console.print(f"written: {escape(str(out_dir))}/ (matrix, elo: .parquet and .csv; "
                      "tournament.json)",
                      highlight=False)
