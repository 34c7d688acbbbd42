"""`targi-sim tune`: tune a heuristic strategy's weights by play (targi_sim.strength.tune).

A thin layer: options are parsed here, the search lives in targi_sim.strength.tune. Bad
input is one `Error:` line and exit code 2; Ctrl-C keeps the last finished
generation's state and says how to resume.
"""

from __future__ import annotations

import time

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .common import backend_option, scheduler_option
from .helptext import epilog

TUNE_EPILOG = epilog("""\
Examples:

  targi-sim tune balanced --budget 2e6 --out my-tuned.toml

  targi-sim tune balanced --against balanced,greedy --budget 5e5 --seed 3 --jobs 2

  targi-sim tune ./my-strategy.toml --out tuned-mine.toml --resume   # after a stop

  targi-sim tune balanced --budget 4e6 --backend dask --scheduler tcp://10.0.0.5:8786

CMA-ES (the cma package) searches every [weights] and [symbols] entry (noise
stays 0) inside its tuning range (docs/strategies.md), maximising the mean win
rate (draws half) against the pool (default: the start itself, every shipped
heuristic strategy and greedy). Within a generation every candidate plays the
same deals in seat-swapped pairs; every generation plays fresh deals, all
derived from --seed, so the result does not depend on --jobs. The state is saved
after each generation next to --out (FILE.toml.tune-state.pkl); --resume
continues it. The result is measured against each pool member on fresh seeds
and tested against the start by an SPRT on another fresh stream; both go into
the header of the written strategy file.
""")


def register(app: typer.Typer) -> None:
    app.command(epilog=TUNE_EPILOG)(tune)


def tune(
    strategy: str = typer.Argument(..., metavar="STRATEGY",
                                   help="Heuristic strategy to start from: name or .toml file."),
    against_list: list[str] | None = typer.Option(  # noqa: B008 - typer's idiom
        None, "--against", metavar="A,B,...",
        help="Pool to play against, comma-separated or repeated (default: the start, "
             "shipped heuristic strategies and greedy)."),
    budget: str = typer.Option("2e6", "--budget", "-n", metavar="GAMES",
                               help="Tuning games in all (whole generations are played)."),
    seed: str = typer.Option("0", "--seed", metavar="SEED", help="Seed, 0..2147483647."),
    jobs: str = typer.Option("1", "--jobs", "-j", metavar="J", help="Worker processes."),
    out: str | None = typer.Option(None, "--out", metavar="FILE.toml",
                                   help="Strategy file to write (default <strategy>-tuned.toml)."),
    resume: bool = typer.Option(False, "--resume", help="Continue a stopped tune of --out."),
    deals: str = typer.Option("100", "--deals", metavar="N",
                              help="Deals (seat-swapped pairs) per candidate and pool member "
                                   "per generation."),
    popsize: str = typer.Option("0", "--popsize", metavar="N",
                                help="Candidates per generation (0: cma's default)."),
    final_deals: str = typer.Option("1000", "--final-deals", metavar="N",
                                    help="Deals per pool member for the final win rates."),
    check_games: str = typer.Option("20000", "--check-games", metavar="N",
                                    help="Game cap of the closing SPRT against the start."),
    deck: str = typer.Option("base", "--deck", metavar="NAME|FILE", help="Deck name or file."),
    rules: str = typer.Option("default", "--rules", metavar="NAME|FILE",
                              help="Rules name or file."),
    backend: str = backend_option(),
    scheduler: str | None = scheduler_option(),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    stop_after: int | None = typer.Option(None, "--stop-after", hidden=True,
                                          help="Stop after this many generations (tests)."),
) -> None:
    """Tune a heuristic strategy's weights (CMA-ES) to win against a pool."""
    from pathlib import Path

    from targi_sim import DataError, UsageError
    from targi_sim.play.match import prepare_match
    from targi_sim.players.strategy import resolve_strategy
    from targi_sim.strength.tune import check_start, resolve_pool
    from targi_sim.strength.tune import tune_strategy as run_tune

    from . import signals
    from .common import fail, load_engine
    from .parse import ParseError, parse_search_budget, parse_whole_number, split_names

    try:
        n_budget, run_seed, n_jobs = parse_search_budget(budget, seed, jobs)
        n_deals = parse_whole_number(deals, "--deals", 1, 1_000_000)
        n_pop = parse_whole_number(popsize, "--popsize", 0, 10_000)
        n_final = parse_whole_number(final_deals, "--final-deals", 1, 10_000_000)
        n_check = parse_whole_number(check_games, "--check-games", 1, 100_000_000)
        start = resolve_strategy(strategy)
        check_start(start)
        pool_specs = split_names(against_list) if against_list else None
        if against_list and not pool_specs:
            raise ParseError("--against needs comma-separated strategies; "
                             f"got {','.join(against_list)!r}")
        pool = resolve_pool(start, pool_specs)
        from targi_sim.runner.dispatch import check_options

        check_options(n_jobs, backend, scheduler)
    except (ParseError, UsageError, DataError, ValueError) as exc:
        raise fail(str(exc)) from None
    out_path = Path(out) if out else Path(f"{Path(start.name).stem}-tuned.toml")

    err = Console(stderr=True)
    bar = Progress(TextColumn("{task.description}"), BarColumn(),
                   TextColumn("{task.completed:,.0f}/{task.total:,.0f} games"),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                   console=err, disable=quiet)
    state: dict = {"task": None, "generations": 0, "done": 0}

    def on_plan(generations: int, per_gen: int, done: int) -> None:
        state.update(generations=generations, done=done)
        state["task"] = bar.add_task(f"generation {done}/{generations}",
                                     total=generations * per_gen, completed=done * per_gen)

    def on_generation(gen, games: int) -> None:
        state["done"] = gen.index
        bar.update(state["task"], advance=games, description=(
            f"generation {gen.index}/{state['generations']}  best {gen.best_rate:.1%} "
            f"({gen.best_lo:.1%}-{gen.best_hi:.1%})"))

    def on_phase(phase: str) -> None:
        what = {"final": "measuring the result on fresh seeds",
                "sprt": "SPRT against the start on fresh seeds"}[phase]
        if not quiet:
            err.print(what + "...", highlight=False)

    try:
        t0 = time.perf_counter()
        load_engine(err, quiet, [prepare_match((start, member), deck, rules) for member in pool])
        with bar:
            result = run_tune(start, against=pool_specs, budget=n_budget, out=out_path,
                              seed=run_seed, jobs=n_jobs, deals=n_deals, popsize=n_pop,
                              final_deals=n_final, check_games=n_check, deck=deck,
                              rules=rules, resume=resume, stop_after=stop_after,
                              backend=backend, scheduler=scheduler,
                              progress=on_generation, on_phase=on_phase, on_plan=on_plan)
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM or SIGHUP (cli/signals.py)
        typer.echo(f"\nInterrupted after generation {state['done']}; the state is saved: "
                   "rerun the same command with --resume to continue.", err=True)
        raise typer.Exit(signals.exit_code(exc)) from None
    except (UsageError, DataError, ValueError) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write {str(out_path)!r}: {exc}") from None
    if result is None:
        typer.echo(f"Stopped after generation {state['done']} of {state['generations']}; "
                   "rerun with --resume to continue.")
        return
    console = Console()
    console.print(f"[bold]tune[/bold] {escape(start.name)}: {result.generations} generations, "
                  f"{result.games:,} games, {time.perf_counter() - t0:.1f} s", highlight=False)
    for name, r in result.final.items():
        s = result.start_final[name]
        console.print(f"  vs {escape(name):<14} {r.rate:6.1%} ({r.lo:.1%}-{r.hi:.1%})   "
                      f"start {s.rate:.1%}", highlight=False)
    sp = result.sprt
    console.print(f"SPRT against {escape(start.name)} (fresh seeds): [bold]{sp.verdict}[/bold]"
                  f"{' at the game cap' if sp.capped else ''}: {sp.rate:.1%} "
                  f"({sp.lo:.1%}-{sp.hi:.1%}) on {sp.games:,} games", highlight=False)
    console.print(f"written: {escape(str(out_path))}", highlight=False)
