"""`targi-sim check`: the balance regression guard (sequential tests on independent units),
and `targi-sim check init` (cli/check_init.py), which writes a baseline file for a deck.

Exit codes: 0 every expectation passed, 1 at least one failed, 2 bad input
(unreadable or invalid baseline file, unknown names, bad options), 130 on
Ctrl-C. With --update the files' rates are re-measured and rewritten instead.
--junit-xml and --summary-md write what CI systems read (targi_sim.check.output).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperCommand

from .helptext import epilog

CHECK_EPILOG = epilog("""\
Examples:

  targi-sim check                                  # every file in data/baselines/

  targi-sim check data/baselines/default.toml --jobs 2

  targi-sim check init --deck my-deck.toml --strategies tuned,balanced --out baselines/my-deck.toml

  targi-sim check baselines/my-deck.toml --quiet   # tables only, no progress bar

  targi-sim check baselines/my-deck.toml --junit-xml check.xml \\
    --summary-md summary.md --report-dir reports

  targi-sim check --update                         # re-measure the rates, rewrite the files

Kinds: win_rate, first_player_rate, card_rate (a card's or symbol's acquire
rate or win rate when played), game_shape (mean rounds, full-display share,
mean score, tie-break share), raid_loss (a raid's mean VP-equivalent loss), and
deck_drift (every card at once, Holm-controlled; names the cards that moved).
`targi-sim check init --help` writes a baseline file for your own deck.

Each expectation is decided by two one-sided sequential probability ratio
tests on seat-swapped game pairs (the pentanomial model), or on single games
when both seats play the same deterministic strategy, so that a deal is
played once (trinomial; alpha = beta = 0.05 overall): FAIL when the rate
moved by the tolerance up or down, PASS when it did not; at the game cap a
fixed-sample verdict applies. Results do not depend
on --jobs (default 1; "auto", every CPU, when the CI environment variable is
set, as in GitHub Actions and GitLab CI). Exit code 0: all passed, 1: some
failed, 2: bad input. --update re-measures on --update-games games each and
rewrites only the `rate`/`mean` lines and deck_drift's card list (commit the
change deliberately). See docs/check.md and docs/ci.md.
""")


def default_jobs() -> str:
    """"auto" under CI (the CI variable GitHub Actions and GitLab CI set), else "1"."""
    return "auto" if os.environ.get("CI", "").strip().lower() not in ("", "0", "false") else "1"


class CheckCommand(TyperCommand):
    """`check` itself, except that `check init ...` runs the init command: `check`
    takes baseline files as arguments, so `init` cannot be an ordinary subcommand."""

    def make_context(self, info_name, args, parent=None, **extra):
        if args and args[0] == "init":
            from .check_init import init_command

            return init_command().make_context(f"{info_name} init", list(args[1:]),
                                               parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _side_text(side, e=None) -> str:
    from targi_sim.check.output import fmt_value

    state = {"H0": "accepted H0", "H1": "accepted H1 (moved)", "open": "open"}[side.state]
    target = fmt_value(e, side.p1) if e is not None else _pct(side.p1)
    return (f"{side.llr:+.2f} in [{side.lower:.2f}, {side.upper:.2f}]  "
            f"H1 = {target}: {state}")


def _render_drift(console: Console, result, table: Table) -> None:
    """deck_drift: the tests, the cards that moved, what could not be tested."""
    d = result.drift
    e = result.expectation
    table.add_row("games", f"{result.games:,} (fixed sample), {result.seconds:.1f} s")
    if result.unit:
        table.add_row("unit", result.unit)
    table.add_row("tests", f"{len(d.tests)} card tests (acquire rate, win rate when played), "
                           f"Holm at alpha {e.alpha:g}; fail: Holm p < alpha and moved more "
                           "than half the tolerance")
    labels = d.failed_labels()
    table.add_row("moved", escape("; ".join(labels)) if labels else "no card")
    if d.untested:
        table.add_row("not tested", f"{len(d.untested)} (too few units): "
                      + escape("; ".join(d.untested[:3])) + (" ..." if len(d.untested) > 3 else ""))
    if d.new_cards:
        table.add_row("new cards", escape("; ".join(d.new_cards)) + " (not in the baseline; "
                      "--update adds them)")
    console.print(table)
    if d.failures or d.missing:
        from targi_sim.check.output import drift_lines

        for line in drift_lines(result):
            console.print(f"  {escape(line)}", highlight=False)


def render_result(console: Console, result) -> None:
    """One table per expectation: verdict, rates, games and both sides' LLR and bounds."""
    from targi_sim.check.output import fmt_tolerance, fmt_value

    e = result.expectation
    style = "bold green" if result.passed else "bold red"
    table = Table(box=box.SIMPLE_HEAD, show_header=False, pad_edge=False,
                  title=f"[{style}]{result.verdict.upper()}[/{style}]  {escape(e.name)}",
                  title_justify="left")
    table.add_column("what", style="dim")
    table.add_column("value")
    table.add_row("measures", escape(e.describe(result.card_names)))
    if result.drift is not None:
        _render_drift(console, result, table)
        return
    lo, hi = result.ci
    table.add_row("expected", f"{fmt_value(e, e.rate)} +- {fmt_tolerance(e)}")
    deff = result.design_effect
    shown = f"; design effect {deff:.2f}" if deff == deff and abs(deff - 1) > 0.05 else ""
    test = "; paired-normal test" if result.sums is not None else ""
    table.add_row("measured", f"{fmt_value(e, result.rate)}  (95% CI {fmt_value(e, lo, False)}"
                              f" .. {fmt_value(e, hi, False)}{shown}{test})")
    decided = ("fixed-sample verdict at the cap" if result.capped
               else "sequential test decided")
    table.add_row("games", f"{result.games:,} of cap {e.max_games:,} ({decided}), "
                           f"{result.seconds:.1f} s")
    if result.unit:
        table.add_row("unit", result.unit)
    for side in result.test.sides:
        table.add_row(f"LLR {side.name}", _side_text(side, e))
    missing = {"up", "down"} - {s.name for s in result.test.sides}
    for name in sorted(missing):
        table.add_row(f"LLR {name}", "not tested: the rate cannot move that far")
    console.print(table)


def _load_all(files: list[str]):
    """Validate every file and expectation before a game is played (exit 2 on errors)."""
    from targi_sim._utils.paths import data_dir
    from targi_sim.check.baseline import list_baselines, load_baseline
    from targi_sim.check.playing import prepare

    from .common import fail

    paths = [Path(f) for f in files] if files else list_baselines()
    if not paths:
        raise fail(f"no baseline files given and none found in {data_dir() / 'baselines'}")
    loaded = []
    for p in paths:
        baseline = load_baseline(p)
        loaded.append((baseline, [prepare(e) for e in baseline.expectations]))
    return loaded


def register(app: typer.Typer) -> None:
    """Add the `check` command to the app."""
    app.command(epilog=CHECK_EPILOG, cls=CheckCommand)(check)


Files = Annotated[list[str] | None, typer.Argument(
    metavar="[BASELINE_FILES]...",
    help="Baseline .toml files (default: every file in data/baselines/).")]
Update = Annotated[bool, typer.Option(
    "--update", help="Re-measure every expectation's rate and rewrite the files (atomically).")]
UpdateGames = Annotated[str, typer.Option(
    "--update-games", metavar="N",
    help="Games per expectation for --update (1e5 and 100_000 work; default: the "
    "file's `update_games`, else 200,000).")]
Jobs = Annotated[str, typer.Option(
    "--jobs", "-j", metavar="J|auto", help="Worker processes playing batches ahead (auto: "
    "every CPU; the default under CI); results do not depend on it.")]
JunitXml = Annotated[Path | None, typer.Option(
    "--junit-xml", metavar="FILE",
    help="Also write JUnit XML: one test case per expectation (CI test results).")]
SummaryMd = Annotated[Path | None, typer.Option(
    "--summary-md", metavar="FILE",
    help="Also write a short Markdown table (a job summary or PR comment).")]
ReportDir = Annotated[Path | None, typer.Option(
    "--report-dir", metavar="DIR", help="For each failing expectation, replay its games into "
    "DIR/<name>/run and write their balance report DIR/<name>/report/report.html.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


def check(baseline_files: Files = None, update: Update = False,
          update_games: UpdateGames = "", jobs: Jobs = default_jobs(),  # noqa: B008
          junit_xml: JunitXml = None, summary_md: SummaryMd = None,
          report_dir: ReportDir = None, quiet: Quiet = False) -> None:
    """Fail when a change moved a balance figure: sequential tests against baseline files."""
    from targi_sim.check.playing import worker_pool

    from .common import load_engine, stops, usage_errors
    from .parse import MAX_GAMES, parse_check_jobs, parse_whole_number

    with usage_errors(check):
        n_jobs = parse_check_jobs(jobs)
        n_update = (parse_whole_number(update_games, "--update-games", 1, MAX_GAMES)
                    if update_games else None)
        for option, path in (("--junit-xml", junit_xml), ("--summary-md", summary_md)):
            _check_output_path(option, path)
        loaded = _load_all(baseline_files or [])
    err, out = Console(stderr=True), Console()
    t0 = time.perf_counter()
    with stops("Interrupted; nothing decided, no file written.", command=check):
        load_engine(err, quiet, [p.match for _, prepared in loaded for p in prepared])
        with worker_pool(n_jobs) as parallel:
            if update:
                _update(loaded, n_update, parallel, err, out, quiet)
                return
            results = _check(loaded, parallel, n_jobs, err, out, quiet)
        reports = (_failure_reports(loaded, results, report_dir, n_jobs, err, out, quiet)
                   if report_dir is not None else {})
    seconds = time.perf_counter() - t0
    total = sum(len(rs) for _, rs in results)
    failed = sum(not r.passed for _, rs in results for r in rs)
    _write_outputs(results, seconds, junit_xml, summary_md, reports, out)
    out.print(f"[bold]{'FAILED' if failed else 'passed'}[/bold]: {total - failed} of {total} "
              f"expectations passed, {failed} failed ({seconds:.1f} s, jobs {n_jobs})",
              highlight=False)
    if failed:
        raise typer.Exit(1)


def _check_output_path(option: str, path: Path | None) -> None:
    """An output file's folder must exist and the path must not be a folder."""
    if path is None:
        return
    if path.is_dir():
        raise ValueError(f"{option} {path}: is a folder; give a file name")
    if not path.parent.is_dir():
        raise ValueError(f"{option} {path}: folder {path.parent} does not exist")


def _write_outputs(results, seconds: float, junit: Path | None, summary: Path | None,
                   reports: dict, out: Console) -> None:
    from targi_sim.check.output import write_junit, write_summary

    from .common import fail

    for path, write in ((junit, lambda p: write_junit(p, results, seconds)),
                        (summary, lambda p: write_summary(p, results, seconds, reports))):
        if path is None:
            continue
        try:
            write(path)
        except OSError as exc:
            raise fail(f"cannot write {path}: {exc}") from None
        out.print(f"wrote {escape(str(path))}", highlight=False)


def _failure_reports(loaded, results, folder: Path, n_jobs: int, err: Console, out: Console,
                     quiet: bool) -> dict:
    """The report of every failing expectation's games (targi_sim.check.output)."""
    from targi_sim.check.output import failure_report, slug

    from .common import fail, progress_bar

    prepared = {id(e): p for baseline, ps in loaded
                for e, p in zip(baseline.expectations, ps, strict=True)}
    reports, used = {}, set()
    for _, rs in results:
        for r in rs:
            if r.passed:
                continue
            name = slug(r.expectation.name)
            while name in used:
                name += "-2"
            used.add(name)
            try:
                with progress_bar(err, quiet) as bar:
                    task = bar.add_task(f"report {r.expectation.name}", total=r.games)
                    html = failure_report(r, prepared[id(r.expectation)], folder / name,
                                          jobs=n_jobs,
                                          progress=lambda n, t=task: bar.advance(t, n))
            except OSError as exc:
                raise fail(f"cannot write the report into {folder / name}: {exc}") from None
            out.print(f"report of the failing expectation {escape(r.expectation.name)!r}: "
                      f"{escape(str(html))} (what moved against the baseline: "
                      f"{escape(str(folder / name / 'against-baseline.md'))})", highlight=False)
            reports[r.expectation.name] = html
    return reports


def _check(loaded, parallel, n_jobs: int, err: Console, out: Console, quiet: bool) -> list:
    """Every expectation's CheckResult, by file: [(path, [results])]."""
    from targi_sim.check.guard import run_expectation

    from .common import progress_bar

    results = []
    for baseline, matches in loaded:
        out.print(f"[bold]{escape(str(baseline.path))}[/bold]: {len(matches)} expectations",
                  highlight=False)
        done = []
        for e, match in zip(baseline.expectations, matches, strict=True):
            with progress_bar(err, quiet) as bar:
                task = bar.add_task(e.name, total=e.max_games)
                result = run_expectation(e, parallel, n_jobs, match=match,
                                         progress=lambda n, t=task: bar.advance(t, n))
                bar.update(task, total=result.games, completed=result.games)
            render_result(out, result)
            done.append(result)
        results.append((baseline.path, done))
    return results


def _update(loaded, n_games: int | None, parallel, err: Console, out: Console,
            quiet: bool) -> None:
    from contextlib import ExitStack

    from targi_sim.check.guard import update_baseline, update_games
    from targi_sim.check.output import fmt_value

    from .common import fail, progress_bar

    for baseline, matches in loaded:
        with ExitStack() as bars:
            def progress_for(e, bars=bars):
                bars.close()  # one bar at a time: the previous expectation's is done
                bar = bars.enter_context(progress_bar(err, quiet))
                task = bar.add_task(f"measure {e.name}", total=update_games(e, n_games))
                return lambda n: bar.advance(task, n)

            try:
                measured = update_baseline(baseline, matches, n_games, parallel, progress_for)
            except OSError as exc:
                raise fail(f"cannot write {baseline.path}: {exc}") from None
        table = Table(box=box.SIMPLE_HEAD, title=f"{baseline.path}: re-measured rates",
                      title_justify="left")
        for col in ("expectation", "old", "new", "95% CI", "games"):
            table.add_column(col, justify="left" if col == "expectation" else "right")
        for e in baseline.expectations:
            m = measured[e.index]
            if m.cards:
                table.add_row(e.name, f"{len(e.cards)} cards", f"{len(m.cards)} cards", "",
                              f"{m.games:,}")
            else:
                table.add_row(e.name, fmt_value(e, e.rate), fmt_value(e, m.rate),
                              f"{fmt_value(e, m.ci_low)} .. {fmt_value(e, m.ci_high)}",
                              f"{m.games:,}")
        out.print(table)
        out.print(f"rewrote {baseline.path}; review the diff and commit it deliberately.",
                  highlight=False)
