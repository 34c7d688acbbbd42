"""`targi-sim check`: the win-rate regression guard (sequential tests on independent units).

Exit codes: 0 every expectation passed, 1 at least one failed, 2 bad input
(unreadable or invalid baseline file, unknown names, bad options), 130 on
Ctrl-C. With --update the files' rates are re-measured and rewritten instead.
"""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

CHECK_EPILOG = """\
Examples:

  targi-sim check                                  # every file in data/baselines/

  targi-sim check data/baselines/default.toml --jobs 2

  targi-sim check my-baselines.toml --quiet        # tables only, no progress bar

  targi-sim check --update                          # re-measure the rates, rewrite the files

Each expectation is decided by two one-sided sequential probability ratio
tests on seat-swapped game pairs (the pentanomial model), or on single games
when both seats play the same deterministic strategy, so that a deal is
played once (trinomial; alpha = beta = 0.05 overall): FAIL when the rate
moved by the tolerance up or down, PASS when it did not; at the game cap a
fixed-sample verdict applies. Results do not depend
on --jobs. Exit code 0: all passed, 1: some failed, 2: bad input.
--update re-measures on --update-games games each and rewrites only the
`rate` lines (commit the change deliberately). See docs/check.md.
"""


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _side_text(side) -> str:
    state = {"H0": "accepted H0", "H1": "accepted H1 (moved)", "open": "open"}[side.state]
    return (f"{side.llr:+.2f} in [{side.lower:.2f}, {side.upper:.2f}]  "
            f"H1 = {_pct(side.p1)}: {state}")


def render_result(console: Console, result) -> None:
    """One table per expectation: verdict, rates, games and both sides' LLR and bounds."""
    e = result.expectation
    style = "bold green" if result.passed else "bold red"
    table = Table(box=box.SIMPLE_HEAD, show_header=False, pad_edge=False,
                  title=f"[{style}]{result.verdict.upper()}[/{style}]  {e.name}",
                  title_justify="left")
    table.add_column("what", style="dim")
    table.add_column("value")
    lo, hi = result.ci
    table.add_row("measures", e.describe())
    table.add_row("expected", f"{_pct(e.rate)} +- {100 * e.tolerance:.2f} points")
    deff = result.design_effect
    shown = f"; design effect {deff:.2f}" if deff == deff and abs(deff - 1) > 0.05 else ""
    table.add_row("measured", f"{_pct(result.rate)}  (95% CI {_pct(lo)} .. {_pct(hi)}{shown})")
    decided = ("fixed-sample verdict at the cap" if result.capped
               else "sequential test decided")
    table.add_row("games", f"{result.games:,} of cap {e.max_games:,} ({decided}), "
                           f"{result.seconds:.1f} s")
    if result.unit:
        table.add_row("unit", result.unit)
    for side in result.test.sides:
        table.add_row(f"LLR {side.name}", _side_text(side))
    missing = {"up", "down"} - {s.name for s in result.test.sides}
    for name in sorted(missing):
        table.add_row(f"LLR {name}", "not tested: the rate cannot move that far")
    console.print(table)


def _load_all(files: list[str]):
    """Validate every file and expectation before a game is played (exit 2 on errors)."""
    from targi_sim.baseline import list_baselines, load_baseline
    from targi_sim.check import prepare
    from targi_sim.paths import data_dir

    from .app import _fail

    paths = [Path(f) for f in files] if files else list_baselines()
    if not paths:
        raise _fail(f"no baseline files given and none found in {data_dir() / 'baselines'}")
    loaded = []
    for p in paths:
        baseline = load_baseline(p)
        loaded.append((baseline, [prepare(e) for e in baseline.expectations]))
    return loaded


def register(app: typer.Typer) -> None:
    """Add the `check` command to the app."""

    @app.command(epilog=CHECK_EPILOG)
    def check(
        baseline_files: list[str] = typer.Argument(  # noqa: B008 (typer's idiom)
            None, metavar="[BASELINE_FILES]...",
            help="Baseline .toml files (default: every file in data/baselines/).",
        ),
        update: bool = typer.Option(
            False, "--update",
            help="Re-measure every expectation's rate and rewrite the files (atomically).",
        ),
        update_games: str = typer.Option(
            "200000", "--update-games", metavar="N",
            help="Games per expectation for --update (1e5 and 100_000 work).",
        ),
        jobs: str = typer.Option(
            "1", "--jobs", "-j", metavar="J",
            help="Worker processes playing batches ahead; results do not depend on it.",
        ),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    ) -> None:
        """Fail when a change moved a win rate: sequential tests against baseline files."""
        from targi_sim import DataError, UsageError
        from targi_sim.check import worker_pool

        from .app import _fail
        from .parse import ParseError, parse_games
        from .signals import exit_code
        from .tournament import parse_jobs

        try:
            n_jobs = parse_jobs(jobs)
            n_update = parse_games(update_games)
            loaded = _load_all(baseline_files or [])
        except ParseError as exc:
            raise _fail(str(exc).replace("--games", "--update-games")) from None
        except (UsageError, DataError, ValueError) as exc:
            raise _fail(str(exc)) from None

        err, out = Console(stderr=True), Console()
        t0 = time.perf_counter()
        try:
            from .app import load_engine

            load_engine(err, quiet, [p.match for _, prepared in loaded for p in prepared])
            with worker_pool(n_jobs) as parallel:
                if update:
                    _update(loaded, n_update, parallel, err, out, quiet)
                    return
                failed, total = _check(loaded, parallel, n_jobs, err, out, quiet)
        except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM or SIGHUP (cli/signals.py)
            typer.echo("\nInterrupted; nothing decided, no file written.", err=True)
            raise typer.Exit(exit_code(exc)) from None
        seconds = time.perf_counter() - t0
        word = "FAILED" if failed else "passed"
        out.print(f"[bold]{word}[/bold]: {total - failed} of {total} expectations passed, "
                  f"{failed} failed ({seconds:.1f} s, jobs {n_jobs})", highlight=False)
        if failed:
            raise typer.Exit(1)


def _check(loaded, parallel, n_jobs: int, err: Console, out: Console,
           quiet: bool) -> tuple[int, int]:
    from targi_sim.check import run_expectation

    from .app import _progress

    failed = total = 0
    for baseline, matches in loaded:
        out.print(f"[bold]{escape(str(baseline.path))}[/bold]: {len(matches)} expectations",
                  highlight=False)
        for e, match in zip(baseline.expectations, matches, strict=True):
            with _progress(err, quiet) as bar:
                task = bar.add_task(e.name, total=e.max_games)
                result = run_expectation(e, parallel, n_jobs, match=match,
                                         progress=lambda n, t=task: bar.advance(t, n))
                bar.update(task, total=result.games, completed=result.games)
            render_result(out, result)
            total += 1
            failed += not result.passed
    return failed, total


def _update(loaded, n_games: int, parallel, err: Console, out: Console, quiet: bool) -> None:
    from targi_sim.baseline import updated_text, write_atomic
    from targi_sim.check import measure

    from .app import _fail, _progress

    for baseline, matches in loaded:
        measured = {}
        table = Table(box=box.SIMPLE_HEAD, title=f"{baseline.path}: re-measured rates",
                      title_justify="left")
        for col in ("expectation", "old", "new", "95% CI", "games"):
            table.add_column(col, justify="left" if col == "expectation" else "right")
        for e, match in zip(baseline.expectations, matches, strict=True):
            with _progress(err, quiet) as bar:
                task = bar.add_task(f"measure {e.name}", total=n_games)
                m = measure(e, n_games, parallel, match=match,
                            progress=lambda n, t=task: bar.advance(t, n))
            measured[e.index] = m
            table.add_row(e.name, _pct(e.rate), _pct(m.rate),
                          f"{_pct(m.ci_low)} .. {_pct(m.ci_high)}", f"{m.games:,}")
        try:
            write_atomic(baseline.path, updated_text(baseline, measured))
        except OSError as exc:
            raise _fail(f"cannot write {baseline.path}: {exc}") from None
        out.print(table)
        out.print(f"rewrote {baseline.path}; review the diff and commit it deliberately.",
                  highlight=False)
