"""`targi-sim balance`: propose card cost and VP changes toward a balanced deck
(targi_sim.balance). A thin layer: options are parsed here, the search lives in the
library. Bad input is one `Error:` line and exit code 2; Ctrl-C keeps the Optuna
study, and `--resume` continues it."""

from __future__ import annotations

import shlex
import sys
import time

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .common import backend_option, scheduler_option

BALANCE_EPILOG = """\
Examples:

  targi-sim balance --deck base --jobs 2 --out balance/base      # about 8 minutes

  targi-sim balance --deck ./my-deck.toml --strategies balanced,greedy --max-changes 4

  targi-sim balance --deck base --objective my-objective.toml --out balance/mine --resume

The search (Optuna's TPE sampler) proposes edits of at most --max-changes tribe
cards: each card's printed VP and its cost in each good and gold may move by one
(data/balance/default.toml: the space, which cards are frozen, and the objective's
weighted terms — the card-value spread among cards of equal VP, cards never or always
taken, the first-player rate's distance from 50%, tie-breaks, game length, and a
penalty per changed card). Every candidate plays the same deals (common random
numbers) block by block, and candidates out of contention stop early (successive
halving), so games go to the candidates still in the race. The best proposal is
written as FOLDER/proposal.toml, every changed field commented with its old value,
and confirmed on fresh seeds: base and proposal play the same new deals, and
FOLDER/validation.md gives every term's change with a 95% paired-bootstrap interval
over deals (docs/balance.md).
"""


def register(app: typer.Typer) -> None:
    app.command(epilog=BALANCE_EPILOG)(balance)


def balance(
    deck: str = typer.Option("base", "--deck", metavar="NAME|FILE", help="Deck to balance."),
    strategies: list[str] = typer.Option(  # noqa: B008 - typer's idiom
        ["balanced"], "--strategies", "-s", metavar="A,B,...",
        help="Strategies whose mirror matches measure each candidate (terms averaged); "
             "comma-separated or repeated."),
    max_changes: str | None = typer.Option(
        None, "--max-changes", metavar="N",
        help="Most tribe cards a proposal may change (default: the settings file's, 6)."),
    budget: str = typer.Option("8e6", "--budget", "-n", metavar="GAMES",
                               help="Search games in all (validation not included)."),
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
    resume: bool = typer.Option(False, "--resume", help="Continue a stopped search in --out."),
    backend: str = backend_option(),
    scheduler: str | None = scheduler_option(),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    stop_after: int | None = typer.Option(None, "--stop-after", hidden=True,
                                          help="Stop after this many candidates (tests)."),
) -> None:
    """Propose the fewest card changes that balance a deck, confirmed on fresh seeds."""
    from pathlib import Path

    from targi_sim import DataError, InputError, UsageError
    from targi_sim.balance import BalanceConfig, balance_deck, load_settings, with_overrides
    from targi_sim.game.deck import load_deck
    from targi_sim.play.match import prepare_match
    from targi_sim.players.strategy import resolve_strategy

    from . import signals
    from .common import fail, load_engine
    from .parse import ParseError, parse_search_budget, parse_whole_number, split_names

    try:
        n_budget, run_seed, n_jobs = parse_search_budget(budget, seed, jobs)
        n_block = parse_whole_number(block_deals, "--block-deals", 10, 10_000_000)
        n_blocks = parse_whole_number(blocks, "--blocks", 1, 100)
        n_val = parse_whole_number(validate_deals, "--validate-deals", 100, 100_000_000)
        n_max = (parse_whole_number(max_changes, "--max-changes", 1, 45)
                 if max_changes is not None else None)
        names = tuple(split_names(strategies))
        if not names:
            raise ParseError("--strategies needs comma-separated strategies; "
                             f"got {','.join(strategies)!r}")
        resolved = [resolve_strategy(s) for s in names]
        settings = with_overrides(load_settings(objective), max_changes=n_max)
        base = load_deck(deck)
        settings.space.frozen_ids(base, settings.path)
        from targi_sim.runner.dispatch import check_options

        check_options(n_jobs, backend, scheduler)
    except (ParseError, UsageError, DataError, ValueError) as exc:
        raise fail(str(exc)) from None
    out_path = Path(out) if out else Path("balance") / Path(base.name).stem
    config = BalanceConfig(deck=deck, rules=rules, strategies=names, budget=n_budget,
                           block_deals=n_block, blocks=n_blocks, seed=run_seed,
                           validate_deals=n_val)
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
            label = ("validating on fresh seeds" if phase == "play"
                     else "bootstrap over deals")
            unit = "games" if phase == "play" else "resamples"
            phases[phase] = bar.add_task(label, total=total, unit=unit)
        bar.update(phases[phase], completed=done)

    command = "targi-sim balance " + " ".join(shlex.quote(a) for a in sys.argv[1:])
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
                   f"{str(out_path / 'study.journal')!r}: rerun the same command with "
                   "--resume to continue.", err=True)
        raise typer.Exit(signals.exit_code(exc)) from None
    except (UsageError, DataError, InputError, ValueError) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write into {str(out_path)!r}: {exc}") from None
    if result is None:
        typer.echo("Stopped early; rerun with --resume to continue.")
        return
    console = Console()
    v = result.validation.table
    spread = v.row(v["term"].to_list().index("spread"), named=True)
    fp = v.row(v["term"].to_list().index("first_rate"), named=True)
    console.print(f"[bold]balance[/bold] {escape(base.name)}: {result.state.trials} candidates, "
                  f"{result.state.games:,} games, {time.perf_counter() - t0:.0f} s; "
                  f"{len(result.edits)} card(s) changed", highlight=False)
    for r in result.validation.cards.join(_changes(result), on="card_id").iter_rows(named=True):
        console.print(f"  card_id {r['card_id']} {escape(r['name'])}: {escape(r['what'])}",
                      highlight=False)
    console.print(f"fresh seeds ({result.validation.deals:,} deals per match): card-value "
                  f"spread {spread['base']:.4f} -> {spread['proposal']:.4f} "
                  f"({spread['verdict']}), first-player rate {fp['base']:.1%} -> "
                  f"{fp['proposal']:.1%}", highlight=False)
    console.print(f"written: {escape(str(result.paths['proposal']))}, "
                  f"{escape(str(result.paths['summary']))}", highlight=False)


def _changes(result):
    """One row per changed card: its number and 'field old -> new, ...'."""
    import polars as pl

    from targi_sim.balance.space import describe

    rows: dict[int, list[str]] = {}
    for r in describe(result.base, result.edits):
        rows.setdefault(r["card_id"], []).append(f"{r['field']} {r['old']} -> {r['new']}")
    return pl.DataFrame({"card_id": list(rows), "what": [", ".join(v) for v in rows.values()]},
                        schema={"card_id": pl.Int64, "what": pl.Utf8})
