"""`targi-sim calibrate`: search the uncertain economy for the real game's shape
(targi_sim.calibrate). A thin layer: options are parsed here; bad input is one `Error:`
line and exit code 2; Ctrl-C or a kill loses at most the candidate being measured, and
the same command with --resume continues."""

from __future__ import annotations

import typer

from .common import backend_option, scheduler_option
from .helptext import epilog

CALIBRATE_EPILOG = epilog("""\
Examples:

  targi-sim calibrate --jobs 2                          # the shipped space and targets

  targi-sim calibrate --budget 30 --out runs/cal-quick  # a quick look

  targi-sim calibrate --playtest my-games.csv           # your playtests as targets

  targi-sim calibrate --playtest runs/playtest-base     # games played in the browser

  targi-sim calibrate --out runs/cal --resume           # after a stop

Searches the values the sources leave open (the space file: data/calibration/
economy-space.toml -- trade tables, trades per action, goods amounts, [S] rules)
for the economy whose play matches the targets (data/calibration/
real-game-shape.toml: share of points from cards, full-display endings, cards
kept, the first player's rate, the strong level's margin), at every level of
--levels. For each candidate deck the strong levels are re-tuned first (CMA-ES,
warm-started from their own weights, --retune-budget games), then every level is
measured on the same deals. The best finalists are validated on fresh deals
with fresh re-tunes. Writes OUT/report/report.html (and .md, tables, a plot),
candidates.csv, targets.csv, and -- when an economy beats the current one --
proposal.toml (the deck) and proposal-<level>.toml (its re-tuned players).
docs/calibrate.md explains the files, the playtest CSV's columns and the method.
""")


def register(app: typer.Typer) -> None:
    app.command(epilog=CALIBRATE_EPILOG)(calibrate)


def calibrate(
    deck: str = typer.Option("base", "--deck", metavar="NAME|FILE", help="Deck to calibrate."),
    rules: str = typer.Option("default", "--rules", metavar="NAME|FILE", help="Rules."),
    space: str = typer.Option("economy-space", "--space", metavar="NAME|FILE.toml",
                              help="The uncertain values and their readings."),
    targets: str = typer.Option("real-game-shape", "--targets", metavar="NAME|FILE.toml",
                                help="The game-shape facts to reproduce, per level."),
    playtest: str | None = typer.Option(
        None, "--playtest", metavar="FILE.csv|DIR",
        help="Playtest games: a CSV (one row per player and game; docs/calibrate.md) or a "
             "run directory (the games `play --browser` keeps). Their figures replace the "
             "same targets at --playtest-level."),
    playtest_level: str | None = typer.Option(
        None, "--playtest-level", metavar="LEVEL",
        help="The level the playtests stand for (default: the last of --levels)."),
    levels: list[str] | None = typer.Option(  # noqa: B008 - typer's idiom
        None, "--levels", metavar="A,B,...",
        help="Levels of play, weakest first (default balanced,tuned)."),
    retune_names: list[str] | None = typer.Option(  # noqa: B008
        None, "--retune", metavar="A,B,...",
        help="Levels re-tuned for each candidate (default: every heuristic level after the "
             "first); 'none' re-tunes none."),
    budget: str = typer.Option("100", "--budget", "-n", metavar="CANDIDATES",
                               help="Candidate economies to measure."),
    deals: str = typer.Option("1000", "--deals", metavar="N",
                              help="Deals per level and candidate in the search."),
    retune_budget: str = typer.Option("3e5", "--retune-budget", metavar="GAMES",
                                      help="Games of each re-tune (0: no re-tune)."),
    validate_deals: str = typer.Option("4000", "--validate-deals", metavar="N",
                                       help="Deals per level in the final validation."),
    finalists: str = typer.Option("3", "--finalists", metavar="K",
                                  help="Best candidates validated on fresh deals."),
    seed: str = typer.Option("0", "--seed", metavar="SEED", help="Seed, 0..2147483647."),
    jobs: str = typer.Option("1", "--jobs", "-j", metavar="J", help="Worker processes."),
    backend: str = backend_option(),
    scheduler: str | None = scheduler_option(),
    out: str | None = typer.Option(None, "--out", metavar="DIR",
                                   help="Output folder (default runs/calibrate-seed<S>)."),
    resume: bool = typer.Option(False, "--resume", help="Continue a stopped calibration."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    stop_after: int | None = typer.Option(None, "--stop-after", hidden=True,
                                          help="Stop after this many candidates (tests)."),
) -> None:
    """Fit the uncertain economy to the real game's shape, strong players re-tuned."""
    import time
    from pathlib import Path

    from rich.console import Console
    from rich.markup import escape

    from targi_sim import DataError, UsageError
    from targi_sim.calibrate.output import write_calibration
    from targi_sim.calibrate.search import CalibrationConfig, load_inputs
    from targi_sim.calibrate.search import calibrate as run_calibration
    from targi_sim.errors import InputError
    from targi_sim.play.match import prepare_match
    from targi_sim.players.strategy import level_spec

    from . import signals
    from .common import fail, load_engine, progress_bar
    from .parse import ParseError, parse_jobs, parse_seed, parse_whole_number, split_names

    try:
        n_trials = parse_whole_number(budget, "--budget", 1, 100_000)
        n_deals = parse_whole_number(deals, "--deals", 1, 10_000_000)
        n_retune = parse_whole_number(retune_budget, "--retune-budget", 0, 10**10)
        n_validate = parse_whole_number(validate_deals, "--validate-deals", 1, 10_000_000)
        n_final = parse_whole_number(finalists, "--finalists", 0, 100)
        run_seed, n_jobs = parse_seed(seed), parse_jobs(jobs)
        level_names = (tuple(level_spec(s) for s in split_names(levels)) if levels
                       else ("balanced", "tuned"))  # expert -> expert@50: a level's budget
        if levels and not level_names:
            raise ParseError("--levels needs comma-separated strategies")
        retuned = tuple(split_names(retune_names)) if retune_names else None
        if retuned == ("none",):
            retuned = ()
        config = CalibrationConfig(deck, rules, space, targets, playtest, playtest_level,
                                   level_names, retuned, n_trials, n_deals, n_retune,
                                   n_validate, n_final, run_seed)
        inputs = load_inputs(config)
    except (ParseError, UsageError, DataError, InputError, ValueError) as exc:
        raise fail(str(exc)) from None
    out_dir = Path(out) if out else Path("runs") / f"calibrate-seed{run_seed}"
    err = Console(stderr=True)
    bar = progress_bar(err, quiet)
    state: dict = {"task": None, "retune": None, "done": 0, "best": None}

    def on_plan(total: int, done: int) -> None:
        state["done"] = done
        state["task"] = bar.add_task(f"candidate {done}/{total}", total=total, completed=done,
                                     unit="candidates")

    def on_trial(done: int, total: int, cand) -> None:
        state["done"] = done
        if not cand.raced and (state["best"] is None or cand.objective < state["best"]):
            state["best"] = cand.objective
        best = f" best {state['best']:.2f}" if state["best"] is not None else ""
        what = "simplify" if done > total else f"candidate {done}/{total}"
        bar.update(state["task"], completed=done, total=max(total, done),
                   description=f"{what}{best}")

    def on_retune(level: str, gen: int, gens: int) -> None:
        if state["retune"] is None:
            state["retune"] = bar.add_task("re-tune", total=max(gens, 1), unit="generations")
        bar.update(state["retune"], completed=gen, total=max(gens, 1),
                   description=f"re-tune {level}")

    def on_phase(phase: str) -> None:
        bar.update(state["task"], description={"simplify": "simplifying the best",
                                               "validate": "validating finalists"}[phase])

    try:
        t0 = time.perf_counter()
        load_engine(err, quiet, [prepare_match((s, s), inputs.deck, inputs.rules)
                                 for s in inputs.strategies])
        with bar:
            result = run_calibration(config, out_dir, jobs=n_jobs, backend=backend,
                                     scheduler=scheduler, resume=resume, on_trial=on_trial,
                                     on_retune=on_retune, on_phase=on_phase, on_plan=on_plan,
                                     stop_after=stop_after, inputs=inputs)
        if result is not None:
            written = write_calibration(result)
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM or SIGHUP (cli/signals.py)
        typer.echo(f"\nInterrupted after {state['done']} candidates; they are kept: rerun the "
                   "same command with --resume to continue.", err=True)
        raise typer.Exit(signals.exit_code(exc)) from None
    except (UsageError, DataError, InputError, ValueError) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write into {str(out_dir)!r}: {exc}") from None
    if result is None:
        typer.echo(f"Stopped after {state['done']} candidates; rerun with --resume to "
                   "continue.")
        return
    console = Console()
    cur = result.validated[0]
    console.print(f"[bold]calibrate[/bold]: {len(result.candidates)} candidates, "
                  f"{time.perf_counter() - t0:.0f} s; objective current {cur.objective:.2f}"
                  + (f", proposed {result.proposal.objective:.2f}" if result.proposal else
                     " -- no economy beats the current one"), highlight=False)
    if result.proposal is not None:
        from targi_sim.calibrate.space import changes
        from targi_sim.game.deck_edit import describe

        for ch in changes(result.space, result.proposal.choice):
            console.print(f"  {escape(ch['note'] or ch['path'])}: {describe(ch['old'])} -> "
                          f"{describe(ch['new'])}", highlight=False)
    report = next((p for p in written if p.name == "report.html"), None)
    console.print(f"report: {escape(str(report))}", highlight=False)
