"""`targi-sim balance`: propose card cost and VP changes toward a balanced deck
(targi_sim.balance). A thin layer: options are parsed here, the search lives in the
library. Bad input is one `Error:` line and exit code 2; Ctrl-C keeps the Optuna
study, and rerunning the same command continues it."""

from __future__ import annotations

import shlex
import sys
import time

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .common import backend_option, scheduler_option
from .helptext import epilog

BALANCE_EPILOG = epilog("""\
Examples:

  targi-sim balance --deck base --jobs 2 --out balance/base

  targi-sim balance --levels balanced,tuned --jobs 2        # balanced at two levels

  targi-sim balance --levels balanced,tuned --economy economy-space --jobs 2

  targi-sim balance --deck ./my-deck.toml --strategies balanced,greedy --max-changes 4

The search (Optuna's TPE sampler) proposes edits of at most --max-changes classes of
identical printed tribe cards (an edit changes every copy): each class's printed VP
and its cost in each good and gold may move by one; with --economy (or `economy` in
the settings file) the open economy values of a calibration space file may change
too (data/balance/default.toml: the space, which cards are frozen or meant to differ,
and the objective's weighted terms — the card-value spread among classes of equal VP,
cards never or always taken, the first-player rate's distance from 50%, tie-breaks,
game length, and a penalty per change). Each level of --levels plays mirror matches;
every heuristic level after the first is re-tuned for each candidate deck (warm
start, --retune-budget games) before it is measured, and the levels' objectives
combine into one (the worst level by default). Every candidate plays the same deals
(common random numbers) block by block, and candidates out of contention stop early
(successive halving). The best proposal is written as FOLDER/proposal.toml, every
changed field commented with its old value, and confirmed on fresh seeds: base and
proposal play the same new deals at every level, and FOLDER/validation.md (and .html)
gives every term's change per level with a 95% paired-bootstrap interval over deals,
the causal card-value spread from forked play, and the game shape against the
calibration targets. Rerunning a stopped command continues its search
(docs/balance.md).
""")


DEFAULT_RETUNED_BUDGET = 40_000_000  # re-tunes make a candidate ~4x dearer


def register(app: typer.Typer) -> None:
    app.command(epilog=BALANCE_EPILOG)(balance)


def balance(
    deck: str = typer.Option("base", "--deck", metavar="NAME|FILE", help="Deck to balance."),
    strategies: list[str] = typer.Option(  # noqa: B008 - typer's idiom
        [], "--strategies", "-s", metavar="A,B,...",
        help="Fixed players whose mirror matches measure each candidate (never re-tuned; "
             "default balanced); comma-separated or repeated."),
    levels: list[str] = typer.Option(  # noqa: B008 - typer's idiom
        [], "--levels", "-l", metavar="A,B,...",
        help="Levels of play, weakest first: each heuristic level after the first is "
             "re-tuned for every candidate deck (e.g. balanced,tuned)."),
    retune_budget: str = typer.Option("300000", "--retune-budget", metavar="GAMES",
                                      help="Games of each re-tune of a --levels level."),
    retune_step: str = typer.Option(
        "0.04", "--retune-step", metavar="SIGMA",
        help="First step of each re-tune in the unit cube of weights (0.001..0.5): small "
             "refines near the level's weights; the tune's own is 0.15."),
    economy: str | None = typer.Option(
        None, "--economy", metavar="NAME|FILE",
        help="A calibration space file (e.g. economy-space) whose values the search may "
             "change too (default: the settings file's `economy`, none)."),
    max_changes: str | None = typer.Option(
        None, "--max-changes", metavar="N",
        help="Most changes a proposal may make: classes of identical cards plus economy "
             "values (default: the settings file's, 6)."),
    budget: str | None = typer.Option(
        None, "--budget", "-n", metavar="GAMES",
        help="Search games in all, re-tunes included (validation not included); default "
             "8e6, or 4e7 when --levels re-tunes a level."),
    objective: str | None = typer.Option(
        None, "--objective", metavar="FILE.toml",
        help="Settings file: objective weights and search space (default "
             "data/balance/default.toml)."),
    out: str | None = typer.Option(None, "--out", metavar="FOLDER",
                                   help="Output folder (default balance/<deck>)."),
    seed: str = typer.Option("0", "--seed", metavar="SEED", help="Seed, 0..2147483647."),
    jobs: str = typer.Option("1", "--jobs", "-j", metavar="J", help="Worker processes."),
    block_deals: str = typer.Option("20000", "--block-deals", metavar="N",
                                    help="Deals per block of the race."),
    blocks: str = typer.Option("3", "--blocks", metavar="N",
                               help="Blocks a candidate plays unless pruned."),
    validate_deals: str = typer.Option("60000", "--validate-deals", metavar="N",
                                       help="Fresh deals per match for the validation."),
    rules: str = typer.Option("default", "--rules", metavar="NAME|FILE",
                              help="Rules name or file."),
    resume: bool = typer.Option(False, "--resume", hidden=True,
                                help="Accepted for old scripts: rerunning continues."),
    backend: str = backend_option(),
    scheduler: str | None = scheduler_option(),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    stop_after: int | None = typer.Option(None, "--stop-after", hidden=True,
                                          help="Stop after this many candidates (tests)."),
) -> None:
    """Propose the fewest card changes that balance a deck, confirmed on fresh seeds."""
    from pathlib import Path

    from targi_sim import DataError, InputError, UsageError
    from targi_sim.balance import (
        BalanceConfig,
        balance_deck,
        load_settings,
        resolve_levels,
        with_overrides,
    )
    from targi_sim.game.deck import load_deck
    from targi_sim.play.match import prepare_match
    from targi_sim.players.strategy import resolve_strategy

    from . import signals
    from .common import fail, load_engine
    from .parse import (
        ParseError,
        parse_fraction,
        parse_search_budget,
        parse_whole_number,
        split_names,
    )

    try:
        n_budget, run_seed, n_jobs = parse_search_budget(budget or "8e6", seed, jobs)
        n_block = parse_whole_number(block_deals, "--block-deals", 10, 10_000_000)
        n_blocks = parse_whole_number(blocks, "--blocks", 1, 100)
        n_val = parse_whole_number(validate_deals, "--validate-deals", 100, 100_000_000)
        n_max = (parse_whole_number(max_changes, "--max-changes", 1, 45)
                 if max_changes is not None else None)
        n_retune = parse_whole_number(retune_budget, "--retune-budget", 0, 10**10)
        sigma = parse_fraction(retune_step, "--retune-step", 0.001, 0.5)
        if strategies and levels:
            raise ParseError("give --levels or --strategies, not both")
        if levels:
            names, retuned = resolve_levels(tuple(split_names(levels)))
        else:
            names = tuple(split_names(strategies)) if strategies else ("balanced",)
            retuned = ()
        if not names:
            raise ParseError("--strategies needs comma-separated strategies; "
                             f"got {','.join(strategies)!r}")
        if budget is None and retuned:
            n_budget = DEFAULT_RETUNED_BUDGET
        resolved = [resolve_strategy(s) for s in names]
        settings = with_overrides(load_settings(objective), max_changes=n_max,
                                  economy=economy)
        base = load_deck(deck)
        settings.space.frozen_ids(base, settings.path)
        settings.space.distinct_ids(base, settings.path)
        if settings.space.economy:
            from targi_sim.calibrate.space import load_space
            from targi_sim.game.rules import load_rules

            load_space(settings.space.economy, base, load_rules(rules))
        if settings.validation.targets:
            from targi_sim.calibrate.targets import load_targets

            load_targets(settings.validation.targets, list(names), strict=False)
        from targi_sim.runner.dispatch import check_options

        check_options(n_jobs, backend, scheduler)
    except (ParseError, UsageError, DataError, InputError, ValueError) as exc:
        raise fail(str(exc)) from None
    out_path = Path(out) if out else Path("balance") / Path(base.name).stem
    config = BalanceConfig(deck=deck, rules=rules, strategies=names, budget=n_budget,
                           block_deals=n_block, blocks=n_blocks, seed=run_seed,
                           validate_deals=n_val, retuned=retuned, retune_budget=n_retune,
                           retune_sigma=sigma)
    err = Console(stderr=True)
    bar = Progress(TextColumn("{task.description}"), BarColumn(),
                   TextColumn("{task.completed:,.0f}/{task.total:,.0f} {task.fields[unit]}"),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                   console=err, disable=quiet)
    task = bar.add_task("searching", total=n_budget, unit="games")

    def on_progress(state, total: int) -> None:
        best = state.best
        what = (f"candidate {state.trials}  best {best.value:.4f} "
                f"({len(best.edits)} change{'s' if len(best.edits) != 1 else ''})"
                if best else f"candidate {state.trials}")
        bar.update(task, completed=min(state.games, total), description=what)

    phases: dict[str, int] = {}

    def on_validation(phase: str, done: int, total: int) -> None:
        """Validation has its own bars (games of both decks, then the resamples), so its
        elapsed time and ETA are its own and not the search's."""
        if phase not in phases:
            label, unit = {"retune": ("re-tuning for validation", "decks"),
                           "play": ("validating on fresh seeds", "games"),
                           "bootstrap": ("bootstrap over deals", "resamples")}[phase]
            phases[phase] = bar.add_task(label, total=total, unit=unit)
        bar.update(phases[phase], completed=done)

    command = "targi-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        t0 = time.perf_counter()
        load_engine(err, quiet, [prepare_match((s, s), deck, rules) for s in resolved])
        with bar:
            result = balance_deck(config, out_path, settings=settings, jobs=n_jobs,
                                  resume=resume, command=command, progress=on_progress,
                                  validation_progress=on_validation,
                                  stop_after=stop_after, backend=backend,
                                  scheduler=scheduler)
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM or SIGHUP (cli/signals.py)
        typer.echo("\nInterrupted; the finished candidates are kept in "
                   f"{str(out_path / 'study.journal')!r}: rerun the same command to "
                   "continue.", err=True)
        raise typer.Exit(signals.exit_code(exc)) from None
    except (UsageError, DataError, InputError, ValueError) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write into {str(out_path)!r}: {exc}") from None
    if result is None:
        typer.echo("Stopped early; rerun the same command to continue.")
        return
    console = Console()
    val = result.validation
    v = val.table
    console.print(f"[bold]balance[/bold] {escape(base.name)}: {result.state.trials} candidates, "
                  f"{result.state.games:,} games, {time.perf_counter() - t0:.0f} s; "
                  f"{len(_changes(result))} change(s)", highlight=False)
    for r in _changes(result).iter_rows(named=True):
        console.print(f"  {escape(r['what'])}", highlight=False)
    for lv in val.levels:
        spread = v.filter((v["level"] == lv) & (v["term"] == "spread")).row(0, named=True)
        fp = v.filter((v["level"] == lv) & (v["term"] == "first_rate")).row(0, named=True)
        console.print(f"{escape(lv)} on fresh seeds ({val.deals:,} deals): card-value spread "
                      f"{spread['base']:.4f} -> {spread['proposal']:.4f} ({spread['verdict']}"
                      f"; {val.compared.get(lv, 0)} classes compared), first-player rate "
                      f"{fp['base']:.1%} -> {fp['proposal']:.1%}", highlight=False)
    verdict = ("accepted" if val.accepted
               else "NOT accepted: " + "; ".join(val.reasons))
    console.print(f"verdict: {escape(verdict)}", highlight=False)
    console.print(f"written: {escape(str(result.paths['proposal']))}, "
                  f"{escape(str(result.paths['summary']))}", highlight=False)


def _changes(result):
    """One row per change: a class ('Camel Rider 1VP #1, #2 (cards 14, 15): salt 0 -> 1')
    or an economy value, from the result's changes table."""
    import polars as pl

    what: dict[str, list[str]] = {}
    for r in result.changes.iter_rows(named=True):
        if not r["card_ids"]:
            what[r["field"]] = [f"-> {r['new']}"]
            continue
        label = r["name"] if "," not in r["card_ids"] else f"{r['name']} (cards {r['card_ids']})"
        what.setdefault(f"{label}:", []).append(f"{r['field']} {r['old']} -> {r['new']}")
    return pl.DataFrame({"what": [f"{k} {', '.join(v)}" for k, v in what.items()]},
                        schema={"what": pl.Utf8})
