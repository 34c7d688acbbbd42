"""`targi-sim tournament`: every pair of strategies plays; the win-rate matrix and the Elo
table are printed (rich) and written."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from targi_sim.strength.tournament import TournamentResult, fit_verdict

from . import options
from .common import load_engine, progress_bar
from .helptext import epilog
from .parse import ParseError, parse_games, parse_seed, split_names


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
    console.print(matrix_table(result))
    console.print(elo_table(result))
    _render_fit(console, result)
    if out_dir is not None:
        console.print(f"written: {escape(str(out_dir))}/ (matrix, elo: .parquet and .csv; "
                      "tournament.json)",
                      highlight=False)


def matrix_table(result: TournamentResult) -> Table:
    """Each row's win rate against each column, its interval and ties (green: above 50%)."""
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
    return matrix


def elo_table(result: TournamentResult) -> Table:
    """The Elo ratings with their intervals, widened when the model fits poorly."""
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
    return elo


TOURNAMENT_EPILOG = epilog("""\
Examples:

  targi-sim tournament --strategies random,greedy,balanced --games 2000

  targi-sim tournament --strategies balanced,blocker,./my-strategy.toml --games 1e4 --jobs 4

  targi-sim tournament --strategies balanced,montecarlo --games 200 --out runs/mc

Every pair of strategies plays N games (rounded up to even): half with each
strategy in seat 0, both halves on the same seeds, each half in seat-swapped
pairs (two deterministic strategies: all N games in one seat order, since the
other would replay them relabelled). Intervals treat the deal as the unit. The
Elo fit is tested (deviance, df, p); a poor fit says to trust the matrix.
Results do not depend on --jobs. Writes matrix and elo tables as Parquet and
CSV into --out (default runs/tournament-<timestamp>, plus -2, -3, ... if that
folder exists).
""")


Strategies = Annotated[list[str], typer.Option(
    "--strategies", "-s", metavar="A,B,...",
    help="Strategy names or .toml paths (at least two), comma-separated or repeated.")]
Games = Annotated[str, typer.Option(
    "--games", "-n", metavar="N",
    help="Games per pair of strategies (rounded up to even); 1e4 and 10_000 work.")]
Seed = Annotated[str, typer.Option("--seed", metavar="SEED",
                                   help="Tournament seed, 0..2147483647.")]
Jobs = Annotated[str, typer.Option("--jobs", "-j", metavar="J", help="Worker processes.")]
Out = Annotated[str | None, typer.Option(
    "--out", metavar="DIR", help="Output folder (default runs/tournament-<timestamp>).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar; tables only.")]


def tournament(strategies: Strategies, games: Games = "2000", seed: Seed = "0",
               jobs: Jobs = "1", out: Out = None, deck: options.Deck = "base",
               rules: options.Rules = "default", backend: options.Backend = "loky",
               scheduler: options.Scheduler = None, quiet: Quiet = False,
               strategy_file: options.StrategyFile = None) -> None:
    """Round-robin tournament: win-rate matrix with 95% intervals and Elo ratings."""
    from targi_sim import InputError, load_deck, load_rules
    from targi_sim.players.strategy import register_plugin, resolve_strategy
    from targi_sim.runner.dispatch import check_options
    from targi_sim.strength.tournament import check_names, even_games

    from .common import stops, usage_errors
    from .parse import parse_jobs

    started = datetime.now()
    with usage_errors(tournament):
        if strategy_file:
            register_plugin(strategy_file)
        names = parse_strategy_list(strategies)
        n_games, run_seed, n_jobs = parse_games(games), parse_seed(seed), parse_jobs(jobs)
        resolved = [resolve_strategy(n) for n in names]
        deck_obj, rules_obj = load_deck(deck), load_rules(rules)
        check_names(resolved)
        check_options(n_jobs, backend, scheduler)
        out_dir = Path(out) if out else None
        if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
            raise InputError(f"--out {str(out_dir)!r} exists and is not a folder")
    total = len(resolved) * (len(resolved) - 1) // 2 * even_games(n_games)
    done = [0]
    with stops(lambda: f"Interrupted after {done[0]:,} of {total:,} games; nothing written.",
               command=tournament):
        result, setup = play_tournament(resolved, n_games, run_seed, n_jobs, deck_obj,
                                        rules_obj, backend, scheduler, quiet, done)
    with stops("Interrupted while writing.", lambda exc: f"cannot write to "
               f"{out_dir or 'runs/'}: {exc}", tournament):
        out_dir = out_dir or claim_default_out_dir(started)  # claimed only once there is data
        result.write(out_dir)
    render(Console(), result, setup_seconds=setup, out_dir=out_dir)


def play_tournament(resolved, n_games, run_seed, n_jobs, deck, rules, backend, scheduler,
                    quiet, done: list[int]):
    """Load the engine builds and play every pair under a progress bar (`done[0]`: games
    so far); returns the result and the engine's load time."""
    from targi_sim.strength.tournament import even_games, matches_by_build, run_tournament

    err = Console(stderr=True)
    n_pairs = len(resolved) * (len(resolved) - 1) // 2
    t0 = time.perf_counter()
    load_engine(err, quiet, matches_by_build(resolved, deck, rules))
    setup = time.perf_counter() - t0
    with progress_bar(err, quiet) as bar:
        task = bar.add_task(f"{n_pairs} pairs", total=n_pairs * even_games(n_games))

        def advance(n: int) -> None:
            done[0] += n
            bar.advance(task, n)

        result = run_tournament(resolved, n_games, seed=run_seed, jobs=n_jobs, deck=deck,
                                rules=rules, progress=advance, backend=backend,
                                scheduler=scheduler)
    return result, setup
