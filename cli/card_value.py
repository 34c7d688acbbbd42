"""`targi-sim card-value RUN`: each tribe card's causal value by forked play, added to a
run directory as its `forks` table (also `run --card-value`)."""

from __future__ import annotations

import time
from contextlib import nullcontext
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import options
from .helptext import epilog

CARD_VALUE_EPILOG = epilog("""\
Examples:

  targi-sim card-value runs/base                    # fork 25% of take-or-not decisions

  targi-sim card-value runs/base --fork-rate 1 --jobs 2

  targi-sim run --games 20000 --card-value --fork-rate 0.5 --out runs/base-forks

At a sampled decision where a player can take a tribe card, the game is copied and
played out twice by the run's strategies on the same random streams: once taking the
card (the strategy's best way to pay and place it), once with the strategy's best
alternative (leave or discard). The difference in the result is the card's causal
value at that moment. Identical printed copies of a card (same symbol, VP, cost and
ability) are one row, the forks of every copy pooled. The run's own tables are not
touched; the forks go to RUN/forks/ (docs/data-model.md#forks), resumable like a run,
and `targi-sim report RUN` then shows a causal card value section
(docs/report.md#causal-card-value).
""")


def fork_run(out_dir, rate: float, jobs: int, *, force: bool, quiet: bool,
             strategy_files: tuple[str, ...] = (), backend: str = "loky",
             scheduler: str | None = None) -> None:
    """Add forks to a complete run directory and print the cards' values (shared by
    `card-value` and `run --card-value`); InputError for a run or rate it cannot use."""
    from targi_sim.cardvalue.job import load_fork_driver, prepare_forks, run_forks

    from .common import load_engine, progress_bar, status

    job, force = prepare_forks(out_dir, rate, force=force, strategy_files=strategy_files)
    err = Console(stderr=True)
    t0 = time.perf_counter()
    load_engine(err, quiet, [job.match])  # the run's build, with its compile estimate
    with status(err, "Loading the card-value forks (compiled once per machine and version, "
                    "about a minute the first time)...") if not quiet else nullcontext():
        load_fork_driver(job)
    setup = time.perf_counter() - t0
    with progress_bar(err, quiet) as bar:
        task = bar.add_task(escape(f"forks ({rate:g} of decisions)"), total=job.games)
        done = run_forks(job, jobs=jobs, force=force, load_driver=False,
                         progress=lambda n: bar.advance(task, n), backend=backend,
                         scheduler=scheduler)
    show_forks(job, done.outcome, done.values, setup, out_dir)


def show_forks(job, outcome, values, setup: float, out_dir) -> None:
    """What was forked now, and each card's causal value with its interval."""
    console = Console()
    if outcome.chunks_skipped:
        console.print(f"Resumed: {outcome.chunks_skipped} of {outcome.chunks_total} chunks "
                      "were already forked.", highlight=False)
    if outcome.games_forked:
        made = outcome.forks * outcome.games_forked / job.games  # about: the new chunks'
        console.print(f"{outcome.forks:,} forks over {job.games:,} games; forking took "
                      f"{outcome.seconds:.1f} s (about {made / outcome.seconds:,.0f} forks/s; "
                      f"loading {setup:.1f} s).", highlight=False)
    else:
        console.print(f"{outcome.forks:,} forks over {job.games:,} games (already complete).",
                      highlight=False)
    console.print(value_table(values))
    console.print(f"Forks: {job.root / 'forks'}; `targi-sim report {out_dir}` shows them.",
                  highlight=False, markup=False)


def value_table(values) -> Table:
    """One row per class of identical cards that was forked, most valuable first."""
    shown = values.filter(values["n_forks"] > 0).sort("value", descending=True)
    table = Table(title="Causal value of taking each card (win-probability points, 95% "
                  "interval clustered by deal; identical printed copies are one row, their "
                  "forks pooled)", title_justify="left")
    for col, just in (("card", "left"), ("ids", "right"), ("symbol", "left"), ("vp", "right"),
                      ("value", "right"), ("95% interval", "right"), ("margin", "right"),
                      ("forks", "right")):
        table.add_column(col, justify=just)
    for r in shown.iter_rows(named=True):
        table.add_row(escape(r["name"]), r["card_ids"], escape(r["symbol"]), str(r["vp"]),
                      f"{100 * r['value']:+.1f}",
                      f"[{100 * r['ci_low']:+.1f}, {100 * r['ci_high']:+.1f}]",
                      f"{r['margin']:+.2f}", f"{r['n_forks']:,}")
    return table


def register(app: typer.Typer) -> None:
    """Add the `card-value` command to the app."""
    app.command("card-value", epilog=CARD_VALUE_EPILOG)(card_value)


RunDir = Annotated[str, typer.Argument(metavar="RUN_DIR",
                                       help="A complete run directory (targi-sim run).")]
ForkRate = Annotated[str, typer.Option(
    "--fork-rate", metavar="R",
    help="Share of take-or-not decisions forked, in (0, 1] (cost grows with it).")]
Jobs = Annotated[str, typer.Option("--jobs", "-j", metavar="J",
                                   help="Worker processes (default: one per CPU).")]
Force = Annotated[bool, typer.Option("--force",
                                     help="Replace forks made with another rate or engine.")]
StrategyFiles = Annotated[list[str] | None, typer.Option(
    "--strategy-file", metavar="FILE.py",
    help="The .py plug-in a seat was played with (its code must match the run's).")]


def card_value(run_dir: RunDir, fork_rate: ForkRate = "0.25", jobs: Jobs = "auto",
               force: Force = False, backend: options.Backend = "loky",
               scheduler: options.Scheduler = None, quiet: options.Quiet = False,
               strategy_file: StrategyFiles = None) -> None:
    """Each tribe card's causal value by forked play, into RUN_DIR/forks/."""
    from targi_sim.runner.dispatch import check_options

    from .common import stops, usage_errors
    from .parse import parse_rate
    from .parse import parse_run_jobs as parse_jobs

    with usage_errors(card_value):
        rate = parse_rate(fork_rate)
        n_jobs = parse_jobs(jobs, 1_000_000)
        check_options(n_jobs, backend, scheduler)
    with stops("Interrupted. Forked chunks are kept; rerun the same command to resume.",
               command=card_value):
        fork_run(run_dir, rate, n_jobs, force=force, quiet=quiet,
                 strategy_files=tuple(strategy_file or ()), backend=backend,
                 scheduler=scheduler)
