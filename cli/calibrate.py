"""`targi-sim calibrate`: search the uncertain economy for the real game's shape
(targi_sim.calibrate). Parses the options into a CalibrationConfig, calls the library
and prints; bad input is one `Error:` line and exit code 2; Ctrl-C or a kill loses at
most the candidate being measured, and rerunning the same command continues."""

from __future__ import annotations

from typing import Annotated

import typer

from . import options
from .helptext import epilog

CALIBRATE_EPILOG = epilog("""\
Examples:

  targi-sim calibrate --jobs 2                          # the shipped space and targets

  targi-sim calibrate --budget 30 --out runs/cal-quick  # a quick look

  targi-sim calibrate --playtest my-games.csv           # your playtests as targets

  targi-sim calibrate --playtest runs/playtest-base     # games played in the browser

  targi-sim calibrate --out runs/cal                    # rerun after a stop: continues

  targi-sim calibrate --seeds 0,1,2 --jobs 2            # do other seeds agree?

Searches the values the sources leave open (the space file: data/calibration/
economy-space.toml -- trade tables, trades per action, goods amounts, [S] rules)
for the economy whose play matches the targets (data/calibration/
real-game-shape.toml: share of points from cards, full-display endings, cards
kept, the first player's rate, the strong level's margin), at every level of
--levels. For each candidate deck the strong levels are re-tuned first (CMA-ES,
warm-started from their own weights, --retune-budget games), then every level is
measured on the same deals. The best finalists are validated on fresh deals,
each over --validate-retunes independent re-tunes; the proposal is the one with
the fewest changes among those that meet every target, or, when none does, the
smallest miss -- a met target is never traded for fewer changes. Writes
OUT/report/report.html (and .md, tables, a plot),
candidates.csv, targets.csv, and -- when an economy beats the current one --
proposal.toml (the deck) and proposal-<level>.toml (its re-tuned players).
Rerunning the same command continues a stopped calibration (other settings into
the same --out are refused). docs/calibrate.md explains the files, the playtest
CSV's columns and the method.
""")


def register(app: typer.Typer) -> None:
    app.command(epilog=CALIBRATE_EPILOG)(calibrate)


def _opt(flag: str, default_help: str, metavar: str = "N"):
    return typer.Option(flag, metavar=metavar, help=default_help)


Space = Annotated[str, _opt("--space", "The uncertain values and their readings.",
                            "NAME|FILE.toml")]
Targets = Annotated[str, _opt("--targets", "The game-shape facts to reproduce, per level.",
                              "NAME|FILE.toml")]
Playtest = Annotated[str | None, _opt(
    "--playtest", "Playtest games: a CSV (one row per player and game; docs/calibrate.md) or "
    "a run directory (the games `play --browser` keeps). Their figures replace the same "
    "targets at --playtest-level.", "FILE.csv|DIR")]
PlaytestLevel = Annotated[str | None, _opt(
    "--playtest-level", "The level the playtests stand for (default: the last of --levels).",
    "LEVEL")]
Levels = Annotated[list[str] | None, _opt(
    "--levels", "Levels of play, weakest first (default balanced,tuned).", "A,B,...")]
Retune = Annotated[list[str] | None, _opt(
    "--retune", "Levels re-tuned for each candidate (default: every heuristic level after the "
    "first); 'none' re-tunes none.", "A,B,...")]
Budget = Annotated[str, typer.Option("--budget", "-n", metavar="CANDIDATES",
                                     help="Candidate economies to measure.")]
Deals = Annotated[str, _opt("--deals", "Deals per level and candidate in the search.")]
RetuneBudget = Annotated[str, _opt("--retune-budget", "Games of each re-tune (0: no re-tune).",
                                   "GAMES")]
SearchRetuneBudget = Annotated[str | None, _opt(
    "--search-retune-budget", "Games of each re-tune in the search (0: candidates are "
    "measured with the levels' own weights); the validation's re-tunes keep "
    "--retune-budget.", "GAMES")]
ValidateDeals = Annotated[str, _opt("--validate-deals",
                                    "Deals per level in the final validation.")]
ValidateRetunes = Annotated[str, _opt(
    "--validate-retunes", "Independent re-tunes per validated economy, each on its share of "
    "--validate-deals; the unit of the validation's intervals.", "R")]
Finalists = Annotated[str, _opt("--finalists", "Best candidates validated on fresh deals.",
                                "K")]
Out = Annotated[str | None, _opt("--out", "Output folder (default runs/calibrate-seed<S>, "
                                 "or runs/calibrate-seeds-<A>-<B>... with --seeds).", "DIR")]
Seeds = Annotated[list[str] | None, _opt(
    "--seeds", "Calibrate on each of these seeds (OUT/seed<S>) and compare: do the proposals "
    "agree, which readings do the targets decide? (Replaces --seed.)", "A,B,...")]
FLAGS = {"trials": "--budget"}


def calibrate(deck: options.Deck = "base", rules: options.Rules = "default",
              space: Space = "economy-space", targets: Targets = "real-game-shape",
              playtest: Playtest = None, playtest_level: PlaytestLevel = None,
              levels: Levels = None, retune_names: Retune = None, budget: Budget = "100",
              deals: Deals = "1000", retune_budget: RetuneBudget = "3e5",
              search_retune_budget: SearchRetuneBudget = "0",
              validate_deals: ValidateDeals = "4000", validate_retunes: ValidateRetunes = "4",
              finalists: Finalists = "6",
              seed: options.Seed = "0", seeds: Seeds = None, jobs: options.Jobs = "1",
              backend: options.Backend = "loky", scheduler: options.Scheduler = None,
              out: Out = None, resume: options.Resume = False, quiet: options.Quiet = False,
              stop_after: options.StopAfter = None) -> None:
    """Fit the uncertain economy to the real game's shape, strong players re-tuned."""
    from targi_sim.calibrate.search import BOUNDS, DEFAULT_LEVELS, CalibrationConfig, load_inputs
    from targi_sim.calibrate.seeds import write_seed_comparison
    from targi_sim.runner.dispatch import check_options

    from .common import usage_errors
    from .parse import names_or_none, parse_bounded, parse_jobs

    with usage_errors(calibrate, FLAGS):
        whole = {f: parse_bounded(t, FLAGS.get(f, "--" + f.replace("_", "-")), BOUNDS[f])
                 for f, t in (("trials", budget), ("deals", deals), ("seed", seed),
                              ("retune_budget", retune_budget), ("finalists", finalists),
                              ("validate_deals", validate_deals),
                              ("validate_retunes", validate_retunes),
                              ("search_retune_budget", search_retune_budget)) if t is not None}
        seed_list = parse_seed_list(seeds, seed)
        retuned = names_or_none(retune_names, "--retune")
        config = CalibrationConfig(deck, rules, space, targets, playtest, playtest_level,
                                   names_or_none(levels, "--levels") or DEFAULT_LEVELS,
                                   () if retuned == ("none",) else retuned, **whole)
        n_jobs = parse_jobs(jobs)
        inputs = load_inputs(config)
        check_options(n_jobs, backend, scheduler)
    runs, top = plan_runs(config, seed_list, out)
    engine, results = EngineOnce(inputs, quiet), []
    for k, (cfg, out_dir) in enumerate(runs):
        label = f"seed {cfg.seed} ({k + 1}/{len(runs)}) " if len(runs) > 1 else ""
        result = calibrate_one(cfg, out_dir, label, inputs, quiet, engine, dict(
            jobs=n_jobs, backend=backend, scheduler=scheduler, stop_after=stop_after),
            reuse=seed_list is not None)
        if result is None:
            return
        results.append(result)
    if seed_list is not None:
        show_seeds(results, write_seed_comparison(results, top))


def plan_runs(config, seed_list: tuple[int, ...] | None, out: str | None) -> tuple:
    """(config, folder) of each calibration to run, and the folder of the comparison."""
    from dataclasses import replace
    from pathlib import Path

    if seed_list is None:
        out_dir = Path(out) if out else Path("runs") / f"calibrate-seed{config.seed}"
        return [(config, out_dir)], None
    top = Path(out) if out else Path("runs") / ("calibrate-seeds-"
                                                + "-".join(map(str, seed_list)))
    return [(replace(config, seed=s), top / f"seed{s}") for s in seed_list], top


class EngineOnce:
    """Loads the engine (with its progress) the first time a calibration needs it: not
    at all when every seed's folder is read back."""

    def __init__(self, inputs, quiet: bool) -> None:
        self.inputs, self.quiet, self.loaded = inputs, quiet, False

    def __call__(self, err) -> None:
        from .common import load_engine

        if not self.loaded:
            load_engine(err, self.quiet, self.inputs.matches())
            self.loaded = True


def calibrate_one(cfg, out_dir, label: str, inputs, quiet: bool, engine: EngineOnce,
                  options: dict, reuse: bool):
    """One calibration with its progress, result and report; None when it was stopped.
    `reuse`: a folder finished with these settings is read back (seeds compared)."""
    import time

    from rich.console import Console

    from targi_sim.calibrate.output import write_calibration
    from targi_sim.calibrate.search import calibrate as run_calibration
    from targi_sim.calibrate.seeds import finished_calibration

    from .common import progress_bar, stops

    done = finished_calibration(out_dir, cfg, inputs) if reuse else None
    if done is not None:  # calibrated before with these settings: read back
        typer.echo(f"seed {cfg.seed}: finished before, read from "
                   f"{out_dir / 'validated.json'}")
        return done
    err = Console(stderr=True)
    view, t0 = CalibrationView(progress_bar(err, quiet), label), time.perf_counter()
    with stops(view.stopped, f"cannot write into {str(out_dir)!r}", calibrate, FLAGS):
        engine(err)
        with view.bar:  # the report too: its lines keep coming while it is written
            result = run_calibration(cfg, out_dir, inputs=inputs, **options,
                                     **view.callbacks())
            written = write_calibration(result) if result is not None else []
    if result is None:
        typer.echo(f"Stopped after {view.done} candidates; rerun the same command to "
                   "continue.")
        return None
    show_result(result, written, time.perf_counter() - t0)
    return result


def parse_seed_list(seeds, seed: str) -> tuple[int, ...] | None:
    """--seeds as whole seeds (None when not given); ParseError with --seed too, or
    fewer than two different seeds."""
    from .parse import MAX_SEED, ParseError, parse_whole_number, split_names

    if seeds is None:
        return None
    if seed != "0":
        raise ParseError("give --seed or --seeds, not both")
    out = tuple(parse_whole_number(v, "--seeds", 0, MAX_SEED) for v in split_names(seeds))
    if len(set(out)) != len(out) or len(out) < 2:
        raise ParseError(f"--seeds needs two or more different seeds, e.g. 0,1,2; got "
                         f"{','.join(seeds)!r}")
    return out


class CalibrationView:
    """The progress of a calibration: the candidates, then the simplification and the
    validation, each a task of its own; every re-tune is a task nested in the one it
    serves (its own elapsed time and ETA, and the outer's)."""

    def __init__(self, bar, label: str = "") -> None:
        self.bar, self.task, self.total, self.label = bar, None, 0, label
        from .common import NestedRetunes

        self.retunes = NestedRetunes(bar)
        self.done, self.best, self.phase_name, self.passes = 0, None, None, 0

    def callbacks(self) -> dict:
        return {"on_plan": self.plan, "on_trial": self.trial, "on_retune": self.retune_step,
                "on_phase": self.phase}

    def plan(self, total: int, done: int) -> None:
        self.done, self.total = done, total
        self.task = self.bar.add_task(f"{self.label}candidate {done}/{total}", total=total,
                                      completed=done, unit="candidates")

    def trial(self, done: int, total: int, cand) -> None:
        """A candidate of the search measured, or an economy validated (in a phase)."""
        self.done = done
        if self.phase_name is not None:
            self.bar.update(self.task, advance=1)
            return
        if not cand.raced and (self.best is None or cand.objective < self.best):
            self.best = cand.objective
        best = f" best {self.best:.2f}" if self.best is not None else ""
        self.bar.update(self.task, completed=done,
                        description=f"{self.label}candidate {done}/{total}{best}")

    def retune_step(self, level: str, gen: int, gens: int) -> None:
        self.retunes.step(self.task, level, gen, gens)

    def phase(self, phase: str, economies: int) -> None:
        """A phase begins: its bar counts the economies it measures (simplification
        announces each pass, its count an upper bound: a step already validated is not
        measured again)."""
        if self.phase_name is None:  # the candidates end here
            self.bar.update(self.task, completed=self.total)
        else:  # the previous phase (or pass) ends here
            self.bar.remove_task(self.task)
        self.passes = self.passes + 1 if phase == "simplify" else 0
        self.phase_name = {"simplify": "simplifying the proposal",
                           "validate": "validating finalists"}[phase]
        again = f" (pass {self.passes})" if self.passes > 1 else ""
        self.task = self.bar.add_task(f"{self.label}{self.phase_name}{again}",
                                      total=max(economies, 1), unit="economies")

    def stopped(self) -> str:
        return (f"Interrupted after {self.done} candidates; they are kept: rerun the same "
                "command to continue.")


def show_result(result, written, seconds: float) -> None:
    """The objective of the current economy and of the proposal, its changes, the report."""
    from rich.console import Console
    from rich.markup import escape

    from targi_sim.calibrate.space import changes
    from targi_sim.game.deck_edit import describe

    console = Console()
    cur = result.validated[0]
    console.print(f"[bold]calibrate[/bold]: {len(result.candidates)} candidates, "
                  f"{seconds:.0f} s; objective current {cur.objective:.2f}"
                  + (f", proposed {result.proposal.objective:.2f}" if result.proposal else
                     " -- the current economy stays"), highlight=False)
    from targi_sim.calibrate.output import rule_sentence

    console.print(escape(rule_sentence(result)), highlight=False)
    if result.proposal is not None:
        for ch in changes(result.space, result.proposal.choice):
            console.print(f"  {escape(ch['note'] or ch['path'])}: {describe(ch['old'])} -> "
                          f"{describe(ch['new'])}", highlight=False)
    report = next((p for p in written if p.name == "report.html"), None)
    console.print(f"report: {escape(str(report))}", highlight=False)


def show_seeds(results, written) -> None:
    """Whether the seeds agree, and where the comparison is."""
    from rich.console import Console
    from rich.markup import escape

    from targi_sim.calibrate.seeds import agreement, agreement_text

    console = Console()
    for line in agreement_text(agreement(results)):
        console.print(escape(line), highlight=False)
    report = next((p for p in written if p.name == "report.html"), None)
    console.print(f"seeds compared: {escape(str(report))}", highlight=False)
