"""`targi-sim sweep`: parses the options into a SweepSpec, calls targi_sim.sweep and
prints; rerunning the same command resumes (complete variants are skipped)."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from . import options
from .helptext import epilog

SWEEP_EPILOG = epilog("""\
Examples:

  targi-sim sweep --games 20000 --set "border.Merchant.trades[1].give_amount = 2, 4"

  targi-sim sweep --games 100000 \\
    --set "tribe['Oasis 3VP #1'].cost = {salt=1, pepper=1}, {salt=2}" \\
    --set "border.Silversmith.trades[1].get_amount = 1, 3" \\
    --rules default,finish-round-after-raid4 --out sweeps/oasis

  targi-sim sweep uncertain-rules --jobs 2      # data/sweeps/uncertain-rules.toml

  targi-sim sweep --strategies balanced:balanced,tuned:balanced --games 20000

A variant is a deck edit (--set PATH = V1, V2: a tribe card by name or number, a border
card by name or position, a goods entry, or rules.SETTING), a rules file (--rules A,B)
or a strategy pair (--strategies P0:P1,...). Level 0 of every axis is the baseline (the
deck and rules as given, the first file, the first pair); the variants are the grid of
all levels, or with --one-at-a-time each level alone. Every variant plays the same
seeds as the baseline (common random numbers) into OUT/runs/<variant>, an ordinary
resumable run directory; OUT/sweep.json is the sweep's manifest: rerun the same command
to resume (complete variants are skipped). Then OUT/report/report.html (and .md,
tables/, plots/): each headline and per-card metric against the baseline with a paired
test (the deal as the unit), the measured variance reduction against independent seeds,
a heat map per metric over the grid and the most changed cards.
""")


def register(app: typer.Typer) -> None:
    app.command(epilog=SWEEP_EPILOG)(sweep)


File = Annotated[str | None, typer.Argument(
    metavar="[FILE.toml]", help="A sweep file (a path, or a name from data/sweeps/) listing "
    "games, deck, rules, strategies and the [[set]] paths and values.")]
Games = Annotated[str | None, typer.Option(
    "--games", "-n", metavar="N",
    help="Games per variant (default 20000, or the file's); 1e5 and 100_000 work.")]
Sets = Annotated[list[str] | None, typer.Option(
    "--set", metavar="'PATH = V1, V2'",
    help="An axis: a deck or rules path and the values to try (repeatable).")]
RulesList = Annotated[list[str] | None, typer.Option(
    "--rules", metavar="A,B,...", help="Rules files or names, comma-separated or repeated; "
    "the first is the baseline's (default: default).")]
StrategiesList = Annotated[list[str] | None, typer.Option(
    "--strategies", metavar="P0:P1,...", help="Strategy pairs, comma-separated or repeated; "
    "the first is the baseline's (default balanced:balanced).")]
Deck = Annotated[str | None, typer.Option(
    "--deck", metavar="NAME|FILE", help="The deck every edit starts from (default base).")]
OneAtATime = Annotated[bool, typer.Option(
    "--one-at-a-time", help="Vary one axis at a time instead of the grid.")]
Seed = Annotated[str | None, typer.Option("--seed", metavar="SEED",
                                          help="Run seed of every variant (default 0).")]
Jobs = Annotated[str, typer.Option("--jobs", "-j", metavar="J",
                                   help="Worker processes (0: every CPU).")]
ChunkSize = Annotated[str | None, typer.Option(
    "--chunk-size", metavar="K", help="Games per chunk (default as `run`).")]
Out = Annotated[str | None, typer.Option(
    "--out", metavar="DIR", help="Sweep folder (default sweeps/<name>-seed<S>).")]
Correction = Annotated[str, typer.Option(
    "--correction", metavar="holm|bh", help="Multiple-testing control of 'significant'.")]
MinN = Annotated[str, typer.Option(
    "--min-n", metavar="N", help="Grey card rows with fewer plays/offers than N.")]
Force = Annotated[bool, typer.Option(
    "--force", help="Replace a different sweep (or runs) in OUT.")]


def sweep(file: File = None, games: Games = None, sets: Sets = None,
          rules_list: RulesList = None, strategies_list: StrategiesList = None,
          deck: Deck = None, one_at_a_time: OneAtATime = False, seed: Seed = None,
          jobs: Jobs = "0", chunk_size: ChunkSize = None, out: Out = None,
          backend: options.Backend = "loky", scheduler: options.Scheduler = None,
          correction: Correction = "holm", min_n: MinN = "500", force: Force = False,
          quiet: options.Quiet = False) -> None:
    """What-if sweep: many deck, rules or strategy variants on the same deals."""
    from pathlib import Path

    from targi_sim.sweep import plan_sweep
    from targi_sim.sweep.run import check_out

    from .common import stops, usage_errors
    from .parse import parse_whole_number, split_names, sweep_jobs

    with usage_errors(sweep):
        spec = sweep_spec(file, games, sets, split_names(rules_list),
                          split_names(strategies_list), deck, one_at_a_time, seed,
                          chunk_size, correction)
        n_min = parse_whole_number(min_n, "--min-n", 0, 10**12)
        n_jobs = sweep_jobs(jobs, backend, scheduler)
        plan, resolved = plan_sweep(spec)
        out_dir = out or f"sweeps/{spec.name}-seed{spec.seed}"
        check_out(plan, Path(out_dir), force)
    t0 = time.perf_counter()
    with stops(f"Interrupted; complete variants and chunks are kept in {out_dir}; rerun the "
               "same command to resume.",
               lambda exc: f"cannot write the sweep to {out_dir}: {exc.strerror or exc}; "
                           "completed chunks are kept, rerun the same command to resume",
               sweep):
        result = play_sweep(spec, plan, resolved, out_dir, n_jobs, backend, scheduler, force,
                            correction, n_min, quiet)
    _summary(result)
    skipped = sum(1 for n in result.played.values() if n == 0)
    if skipped:
        typer.echo(f"Resumed: {skipped} of {len(result.played)} variants were already "
                   "complete.")
    from .report import shown

    typer.echo(f"sweep of {len(plan.variants)} variants x {spec.games:,} games in "
               f"{time.perf_counter() - t0:.1f} s: {shown(result.out / 'report')}"
               "/report.html")


def sweep_spec(file, games, sets, rules, strategies, deck, one_at_a_time, seed, chunk_size,
               correction):
    """The SweepSpec of the options (a FILE lists everything but games, seed, chunks)."""
    from targi_sim import InputError
    from targi_sim.sweep import SweepSpec, load_sweep_file, resolve_file_path

    from .parse import parse_games, parse_seed, parse_whole_number

    if file is not None:
        if sets or rules or strategies or deck or one_at_a_time:
            raise InputError("a sweep FILE lists the deck, rules, strategies and [[set]] "
                             "axes; give them in the file, or no FILE")
        kwargs = load_sweep_file(resolve_file_path(file))
    else:
        kwargs = {"sets": tuple(sets or ()), "one_at_a_time": one_at_a_time}
        kwargs |= {k: v for k, v in (("rules", tuple(rules)), ("strategies", tuple(strategies)),
                                     ("deck", deck)) if v}
    if games is not None:
        kwargs["games"] = parse_games(games)
    kwargs.setdefault("games", 20_000)
    if seed is not None:
        kwargs["seed"] = parse_seed(seed)
    if chunk_size is not None:
        kwargs["chunk_size"] = parse_whole_number(chunk_size, "--chunk-size", 1, 10_000_000)
    if correction not in ("holm", "bh"):
        raise InputError(f"--correction must be holm or bh; got {correction!r}")
    return SweepSpec(**kwargs)


def play_sweep(spec, plan, resolved, out_dir, n_jobs, backend, scheduler, force, correction,
               n_min, quiet):
    """Load the engine builds, play every variant and write the report, under a bar."""
    from rich.console import Console

    from targi_sim.sweep.run import run_sweep

    from .common import load_engine, progress_bar

    err = Console(stderr=True)
    load_engine(err, quiet, [r.match for r in resolved.values()])
    with progress_bar(err, quiet) as bar:
        games = bar.add_task(f"{len(plan.variants)} variants",
                             total=spec.games * len(plan.variants))
        report: list[int] = []

        def step(message: str) -> None:  # the report has its own task, after the games
            if not report:
                bar.update(games, completed=spec.games * len(plan.variants))
                report.append(bar.add_task(message, total=None, unit="steps"))
            bar.update(report[0], advance=1, description=message)

        return run_sweep(spec, out_dir, jobs=n_jobs, backend=backend, scheduler=scheduler,
                         force=force, correction=correction, min_n=n_min,
                         command=["targi-sim", *sys.argv[1:]],
                         progress=lambda key, n: bar.update(games, advance=n,
                                                            description=f"sweep {key}"),
                         report_step=step, plan=plan)


def _summary(result) -> None:
    """The headline changes that are significant, one line each."""
    import polars as pl

    head = result.tables["sweep_headline"]
    moved = head.filter(pl.col("significant"))
    typer.echo(f"{moved.height} of {head.height} headline changes are significant "
               "(paired on common deals):")
    for r in moved.head(12).iter_rows(named=True):
        typer.echo(f"  {r['variant']} {r['metric']}: {r['baseline']:.4g} -> {r['value']:.4g} "
                   f"({r['change']:+.4g}, 95% {r['change_lo']:+.4g}..{r['change_hi']:+.4g}); "
                   f"{r['label']}")
    cards = result.tables["sweep_most_changed"].filter(pl.col("significant"))
    if cards.height:
        typer.echo("most changed cards:")
        for r in cards.head(5).iter_rows(named=True):
            typer.echo(f"  {r['card']} {r['metric']} {r['change']:+.3f} in {r['variant']} "
                       f"({r['label']})")
