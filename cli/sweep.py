"""`targi-sim sweep`: a thin layer over targi_sim.sweep."""

from __future__ import annotations

import sys
import time

import typer

from .common import backend_option, scheduler_option
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
    @app.command(epilog=SWEEP_EPILOG)
    def sweep(
        file: str | None = typer.Argument(
            None, metavar="[FILE.toml]",
            help="A sweep file (a path, or a name from data/sweeps/) listing games, deck, "
                 "rules, strategies and the [[set]] paths and values."),
        games: str | None = typer.Option(
            None, "--games", "-n", metavar="N",
            help="Games per variant (default 20000, or the file's); 1e5 and 100_000 work."),
        sets: list[str] | None = typer.Option(  # noqa: B008 - typer's idiom
            None, "--set", metavar="'PATH = V1, V2'",
            help="An axis: a deck or rules path and the values to try (repeatable)."),
        rules_list: list[str] | None = typer.Option(  # noqa: B008 - typer's idiom
            None, "--rules", metavar="A,B,...",
            help="Rules files or names, comma-separated or repeated; the first is the "
                 "baseline's (default: default)."),
        strategies_list: list[str] | None = typer.Option(  # noqa: B008 - typer's idiom
            None, "--strategies", metavar="P0:P1,...",
            help="Strategy pairs, comma-separated or repeated; the first is the baseline's "
                 "(default balanced:balanced)."),
        deck: str | None = typer.Option(None, "--deck", metavar="NAME|FILE",
                                        help="The deck every edit starts from (default base)."),
        one_at_a_time: bool = typer.Option(
            False, "--one-at-a-time", help="Vary one axis at a time instead of the grid."),
        seed: str | None = typer.Option(None, "--seed", metavar="SEED",
                                        help="Run seed of every variant (default 0)."),
        jobs: str = typer.Option("0", "--jobs", "-j", metavar="J",
                                 help="Worker processes (0: every CPU)."),
        chunk_size: str | None = typer.Option(None, "--chunk-size", metavar="K",
                                              help="Games per chunk (default as `run`)."),
        out: str | None = typer.Option(None, "--out", metavar="DIR",
                                       help="Sweep folder (default sweeps/<name>-seed<S>)."),
        backend: str = backend_option(),
        scheduler: str | None = scheduler_option(),
        correction: str = typer.Option("holm", "--correction", metavar="holm|bh",
                                       help="Multiple-testing control of 'significant'."),
        min_n: str = typer.Option("500", "--min-n", metavar="N",
                                  help="Grey card rows with fewer plays/offers than N."),
        force: bool = typer.Option(False, "--force",
                                   help="Replace a different sweep (or runs) in OUT."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    ) -> None:
        """What-if sweep: many deck, rules or strategy variants on the same deals."""
        import os

        from rich.console import Console

        from targi_sim import DataError, InputError, ReportError, UsageError
        from targi_sim.runner.dispatch import check_options
        from targi_sim.sweep import SweepSpec, load_sweep_file, plan_sweep, resolve_file_path
        from targi_sim.sweep.run import check_out, run_sweep

        from .common import fail, load_engine, progress_bar
        from .parse import (
            ParseError,
            cap_jobs,
            parse_games,
            parse_seed,
            parse_whole_number,
            split_names,
        )
        from .report import shown
        from .signals import exit_code

        rules = split_names(rules_list)
        strategies = split_names(strategies_list)

        try:
            kwargs: dict = {}
            if file is not None:
                if sets or rules or strategies or deck or one_at_a_time:
                    raise InputError("a sweep FILE lists the deck, rules, strategies and "
                                     "[[set]] axes; give them in the file, or no FILE")
                kwargs = load_sweep_file(resolve_file_path(file))
            else:
                kwargs = {"sets": tuple(sets or ()), "one_at_a_time": one_at_a_time}
                if rules:
                    kwargs["rules"] = tuple(rules)
                if strategies:
                    kwargs["strategies"] = tuple(strategies)
                if deck:
                    kwargs["deck"] = deck
            if games is not None:
                kwargs["games"] = parse_games(games)
            kwargs.setdefault("games", 20_000)
            if seed is not None:
                kwargs["seed"] = parse_seed(seed)
            if chunk_size is not None:
                kwargs["chunk_size"] = parse_whole_number(chunk_size, "--chunk-size", 1,
                                                          10_000_000)
            if correction not in ("holm", "bh"):
                raise InputError(f"--correction must be holm or bh; got {correction!r}")
            spec = SweepSpec(**kwargs)
            n_min = parse_whole_number(min_n, "--min-n", 0, 10**12)
            n_jobs = parse_whole_number(jobs, "--jobs", 0, 4096) or (os.cpu_count() or 1)
            if not (backend == "dask" and scheduler):
                n_jobs = cap_jobs(n_jobs)
            check_options(n_jobs, backend, scheduler)
            plan, resolved = plan_sweep(spec)
            out_dir = out or f"sweeps/{spec.name}-seed{spec.seed}"
            from pathlib import Path

            check_out(plan, Path(out_dir), force)
        except (ParseError, InputError, UsageError, DataError, ValueError) as exc:
            raise fail(str(exc)) from None
        err = Console(stderr=True)
        total = spec.games * len(plan.variants)
        t0 = time.perf_counter()
        try:
            load_engine(err, quiet, [r.match for r in resolved.values()])
            with progress_bar(err, quiet) as bar:
                task = bar.add_task(f"{len(plan.variants)} variants", total=total)

                def step(key: str, n: int) -> None:
                    bar.update(task, advance=n, description=f"sweep {key}")

                def say(message: str) -> None:
                    bar.update(task, description=message)

                result = run_sweep(spec, out_dir, jobs=n_jobs, backend=backend,
                                   scheduler=scheduler, force=force, correction=correction,
                                   min_n=n_min,
                                   command=["targi-sim", *sys.argv[1:]], progress=step,
                                   report_step=say, plan=plan)
        except (InputError, UsageError, DataError, ReportError) as exc:
            raise fail(str(exc)) from None
        except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM or SIGHUP (cli/signals.py)
            typer.echo(f"\nInterrupted; complete variants and chunks are kept in {out_dir}; "
                       "rerun the same command to resume.", err=True)
            raise typer.Exit(exit_code(exc)) from None
        except OSError as exc:
            raise fail(f"cannot write the sweep to {out_dir}: {exc.strerror or exc}; "
                        "completed chunks are kept, rerun the same command to resume") from None
        _summary(result)
        skipped = sum(1 for n in result.played.values() if n == 0)
        if skipped:
            typer.echo(f"Resumed: {skipped} of {len(result.played)} variants were already "
                       "complete.")
        typer.echo(f"sweep of {len(plan.variants)} variants x {spec.games:,} games in "
                   f"{time.perf_counter() - t0:.1f} s: {shown(result.out / 'report')}"
                   "/report.html")


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
