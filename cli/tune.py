"""`targi-sim tune`: tune a heuristic strategy's weights by play (targi_sim.strength.tune).

Parses the options into a TuneConfig, calls the library and prints; bad input is one
`Error:` line and exit code 2; Ctrl-C keeps the last finished generation's state, and
rerunning the same command continues it.
"""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from . import options
from .helptext import epilog

TUNE_EPILOG = epilog("""\
Examples:

  targi-sim tune balanced --budget 2e6 --out my-tuned.toml

  targi-sim tune balanced --against balanced,greedy --budget 5e5 --seed 3 --jobs 2

  targi-sim tune ./my-strategy.toml --out tuned-mine.toml   # rerun after a stop: continues

  targi-sim tune balanced --budget 4e6 --backend dask --scheduler tcp://10.0.0.5:8786

CMA-ES (the cma package) searches every [weights] and [symbols] entry (noise
stays 0) inside its tuning range (docs/strategies.md), maximising the mean win
rate (draws half) against the pool (default: the start itself, every shipped
heuristic strategy and greedy). Within a generation every candidate plays the
same deals in seat-swapped pairs; every generation plays fresh deals, all
derived from --seed, so the result does not depend on --jobs. The state is saved
after each generation next to --out (FILE.toml.tune-state.pkl): rerunning the
same command continues it (other settings are refused). The result is measured
against each pool member on fresh seeds and tested against the start by an SPRT
on another fresh stream; both go into the header of the written strategy file.
""")


def register(app: typer.Typer) -> None:
    app.command(epilog=TUNE_EPILOG)(tune)


StartArg = Annotated[str, typer.Argument(
    metavar="STRATEGY", help="Heuristic strategy to start from: name or .toml file.")]
Against = Annotated[list[str] | None, typer.Option(
    "--against", metavar="A,B,...",
    help="Pool to play against, comma-separated or repeated (default: the start, shipped "
         "heuristic strategies and greedy).")]
Budget = Annotated[str, typer.Option(
    "--budget", "-n", metavar="GAMES", help="Tuning games in all (whole generations are played).")]
Out = Annotated[str | None, typer.Option(
    "--out", metavar="FILE.toml", help="Strategy file to write (default <strategy>-tuned.toml).")]
Deals = Annotated[str, typer.Option(
    "--deals", metavar="N",
    help="Deals (seat-swapped pairs) per candidate and pool member per generation.")]
Popsize = Annotated[str, typer.Option(
    "--popsize", metavar="N", help="Candidates per generation (0: cma's default).")]
FinalDeals = Annotated[str, typer.Option(
    "--final-deals", metavar="N", help="Deals per pool member for the final win rates.")]
CheckGames = Annotated[str, typer.Option(
    "--check-games", metavar="N", help="Game cap of the closing SPRT against the start.")]
FLAGS = {"pool": "--against"}


def tune(strategy: StartArg, against_list: Against = None, budget: Budget = "2e6",
         seed: options.Seed = "0", jobs: options.Jobs = "1", out: Out = None,
         resume: options.Resume = False, deals: Deals = "100", popsize: Popsize = "0",
         final_deals: FinalDeals = "1000", check_games: CheckGames = "20000",
         deck: options.Deck = "base", rules: options.Rules = "default",
         backend: options.Backend = "loky", scheduler: options.Scheduler = None,
         quiet: options.Quiet = False, stop_after: options.StopAfter = None) -> None:
    """Tune a heuristic strategy's weights (CMA-ES) to win against a pool."""
    from targi_sim.runner.dispatch import check_options
    from targi_sim.strength.tune import TuneConfig, prepare_tune, tune_strategy

    from .common import load_engine, progress_bar, stops, usage_errors
    from .parse import names_or_none, parse_bounded, parse_jobs, parse_seed

    with usage_errors(tune, FLAGS):
        b = TuneConfig.BOUNDS
        config = TuneConfig(
            strategy, names_or_none(against_list, "--against"),
            parse_bounded(budget, "--budget", b["budget"]), parse_seed(seed),
            parse_bounded(deals, "--deals", b["deals"]),
            parse_bounded(popsize, "--popsize", b["popsize"]),
            parse_bounded(final_deals, "--final-deals", b["final_deals"]),
            parse_bounded(check_games, "--check-games", b["check_games"]), deck, rules)
        n_jobs = parse_jobs(jobs)
        plan = prepare_tune(config, out)
        check_options(n_jobs, backend, scheduler)
    err = Console(stderr=True)
    view = TuneView(progress_bar(err, quiet))
    t0 = time.perf_counter()
    with stops(view.stopped, f"cannot write {str(plan.out)!r}", tune, FLAGS):
        load_engine(err, quiet, plan.matches)
        with view.bar:
            result = tune_strategy(plan, jobs=n_jobs, backend=backend, scheduler=scheduler,
                                   stop_after=stop_after, progress=view.generation,
                                   on_phase=view.phase, on_plan=view.plan)
    if result is None:
        typer.echo(f"Stopped after generation {view.done} of {view.generations}; rerun the "
                   "same command to continue.")
        return
    show_result(result, plan, time.perf_counter() - t0)


class TuneView:
    """The progress of a tune: one task for the generations, then one per closing phase
    (each prints its own lines in a log while it runs)."""

    def __init__(self, bar) -> None:
        self.bar, self.task, self.total = bar, None, None
        self.generations, self.done = 0, 0

    def plan(self, generations: int, per_gen: int, done: int) -> None:
        self.generations, self.done = generations, done
        self.total = generations * per_gen
        self.task = self.bar.add_task(f"generation {done}/{generations}", total=self.total,
                                      completed=done * per_gen)

    def generation(self, gen, games: int) -> None:
        self.done = gen.index
        self.bar.update(self.task, advance=games, description=(
            f"generation {gen.index}/{self.generations}  best {gen.best_rate:.1%} "
            f"({gen.best_lo:.1%}-{gen.best_hi:.1%})"))

    def phase(self, phase: str) -> None:
        if self.total:  # the generations end here
            self.bar.update(self.task, completed=self.total)
        elif self.task is not None:  # the previous phase ends here
            self.bar.remove_task(self.task)
        what = {"final": "the result on fresh seeds",
                "sprt": "SPRT against the start"}[phase]
        self.task, self.total = self.bar.add_task(what, total=None, unit="steps"), None

    def stopped(self) -> str:
        return (f"Interrupted after generation {self.done}; the state is saved: rerun the "
                "same command to continue.")


def show_result(result, plan, seconds: float) -> None:
    """The tuned strategy's rates against the pool, the SPRT's verdict, the file."""
    console = Console()
    console.print(f"[bold]tune[/bold] {escape(plan.start.name)}: {result.generations} "
                  f"generations, {result.games:,} games, {seconds:.1f} s", highlight=False)
    for name, r in result.final.items():
        s = result.start_final[name]
        console.print(f"  vs {escape(name):<14} {r.rate:6.1%} ({r.lo:.1%}-{r.hi:.1%})   "
                      f"start {s.rate:.1%}", highlight=False)
    sp = result.sprt
    console.print(f"SPRT against {escape(plan.start.name)} (fresh seeds): "
                  f"[bold]{sp.verdict}[/bold]{' at the game cap' if sp.capped else ''}: "
                  f"{sp.rate:.1%} ({sp.lo:.1%}-{sp.hi:.1%}) on {sp.games:,} games",
                  highlight=False)
    console.print(f"written: {escape(str(plan.out))}", highlight=False)
