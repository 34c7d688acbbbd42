"""`targi-sim report` and `targi-sim compare`: balance reports over run directories."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from .helptext import epilog

REPORT_EPILOG = epilog("""\
Examples:

  targi-sim report runs/base

  targi-sim report runs/base --out reports/base --min-n 1000

Reads a complete run directory written by `targi-sim run --out DIR` and writes
report.html (self-contained, with plots), report.md, plots/*.png and every table
as CSV and Parquet under tables/. Default --out: RUN/report. Rows whose sample
size is below --min-n are greyed, not hidden. Metric definitions: docs/report.md.
""")

COMPARE_EPILOG = epilog("""\
Examples:

  targi-sim compare runs/base runs/cheap-oasis

  targi-sim compare runs/a runs/b --out reports/a-vs-b --correction bh

For an A/B test: both runs analysed as by `report`, then B - A for every
headline and per-card metric with a two-proportion test (the pair of games
sharing a deal is the unit: each run's design effect), and a flag on what
moved significantly after multiple-comparison control (Holm by default, or
Benjamini-Hochberg). Runs whose strategies differ are refused unless
--allow-different-strategies. Default --out: compare-A-vs-B beside run B.

Choosing the number of games: beside every metric, `mde` is the smallest
change these runs detect with 80% power (at alpha / number of tests). If a
change you care about is below it, "not significant" means "too few games".
The MDE shrinks as 1 / sqrt(games): a run of G games with MDE d needs
G * (d / d')^2 games for an MDE d'. `targi-sim report RUN` does that sum for
your own run: the note above its tribe-card table says how many games a run
needs to see a 1-point change in a typical card's win rate when played.
Details: docs/report.md.
""")


def _parse_min_n(text: str) -> int:
    from .parse import parse_whole_number

    return parse_whole_number(text, "--min-n", 0, 10**12)


def shown(path) -> str:
    """A path as the user would type it: relative to the current folder when inside it."""
    from pathlib import Path

    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(p)


def _run(label: str, quiet: bool, work, command):
    """Run work(progress) under a status line on stderr (plain lines every 10 s in a
    log); errors -> one `Error:` line naming `command`'s options."""
    from rich.console import Console

    from .common import status, stops

    err = Console(stderr=True)
    t0 = time.perf_counter()
    with stops("Interrupted; files already written are complete, others absent.",
               command=command):
        if quiet:
            out = work(None)
        else:
            with status(err, label) as shown:
                out = work(lambda msg: shown.update(f"{label}: {msg}..."))
    return out, time.perf_counter() - t0


def register(app: typer.Typer) -> None:
    """Add the `report` and `compare` commands to the app."""
    app.command(epilog=REPORT_EPILOG)(report)
    app.command(epilog=COMPARE_EPILOG)(compare)


RunDir = Annotated[str, typer.Argument(metavar="RUN_DIR", help="A complete run directory.")]
RunA = Annotated[str, typer.Argument(metavar="RUN_A", help="Baseline run directory.")]
RunB = Annotated[str, typer.Argument(metavar="RUN_B", help="Changed run directory.")]
ReportOut = Annotated[str | None, typer.Option(
    "--out", "-o", metavar="DIR", help="Output folder (default RUN_DIR/report).")]
CompareOut = Annotated[str | None, typer.Option(
    "--out", "-o", metavar="DIR", help="Output folder (default compare-A-vs-B beside B).")]
MinN = Annotated[str, typer.Option(
    "--min-n", metavar="N", help="Rows with a sample below N are greyed (default 500).")]
Correction = Annotated[str, typer.Option(
    "--correction", metavar="holm|bh", help="Multiple-comparison control for the flag.")]
AllowDifferent = Annotated[bool, typer.Option(
    "--allow-different-strategies", help="Compare runs even if their strategies differ.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No status line.")]


def report(run: RunDir, out: ReportOut = None, min_n: MinN = "500",
           quiet: Quiet = False) -> None:
    """Balance report of one run: overview, first player, cards, raids, strategies, curves."""
    from targi_sim.report.build import write_run_report

    from .common import usage_errors

    with usage_errors(report):
        n = _parse_min_n(min_n)
    (out_dir, made), seconds = _run("Report", quiet,
                                    lambda step: write_run_report(run, out, n, step), report)
    print_findings([f.text for f in made.findings])
    typer.echo(f"report written in {seconds:.1f} s: {shown(out_dir)}/report.html "
               "(also report.md, plots/, tables/*.csv|.parquet)")


def compare(run_a: RunA, run_b: RunB, out: CompareOut = None, min_n: MinN = "500",
            correction: Correction = "holm", allow_different: AllowDifferent = False,
            quiet: Quiet = False) -> None:
    """Compare two runs (A/B test): change in every metric, tests, what moved."""
    from targi_sim.report import compare_runs

    from .common import usage_errors

    with usage_errors(compare):
        n = _parse_min_n(min_n)
    out_dir, seconds = _run("Compare", quiet, lambda step: compare_runs(
        run_a, run_b, out, min_n=n, correction=correction,
        allow_different_strategies=allow_different, progress=step), compare)
    show_compare(out_dir, correction, seconds)


def show_compare(out_dir, correction: str, seconds: float) -> None:
    """The balance verdict, the metrics that moved significantly, the report."""
    import polars as pl

    with open(out_dir / "tables" / "compare_significant.parquet", "rb") as f:
        moved = pl.read_parquet(f)  # opened by Python: the folder name is not a pattern
    with open(out_dir / "tables" / "compare_balance.parquet", "rb") as f:
        balance = pl.read_parquet(f)
    for line in summary_lines(moved, balance, correction):
        typer.echo(line)
    typer.echo(f"comparison written in {seconds:.1f} s: {shown(out_dir)}/report.html")


def _p(p: float) -> str:
    return "< 1e-300" if p < 1e-300 else f"{p:.2g}"


def summary_lines(moved, balance, correction: str) -> list[str]:  # type: ignore[no-untyped-def]
    """What compare prints: the verdict, what moved, and the abbreviations it used."""
    from targi_sim.report.verdict import decide

    from .words import abbreviations_line, wrapped

    method = "Holm" if correction == "holm" else "Benjamini-Hochberg"
    lines = [wrapped(decide(balance) + ".", "  ", "")]
    lines.append(f"{moved.height} metric(s) moved significantly (p adj < 0.05, {method}):"
                 if moved.height else
                 f"No single metric moved significantly (p adj < 0.05, {method}).")
    for r in moved.head(15).iter_rows(named=True):
        a, b = ((f"{r['a']:.1%}", f"{r['b']:.1%}") if r.get("is_rate")
                else (f"{r['a']:.4g}", f"{r['b']:.4g}"))  # as the report shows them
        p = r["p_holm"] if correction == "holm" else r["p_bh"]
        lines.append(f"  {r['metric']}: {a} -> {b} (p adj {_p(p)})")
    if moved.height > 15:
        lines.append(f"  ... and {moved.height - 15} more in the report")
    note = abbreviations_line(lines)
    if note:
        lines.append(wrapped(note, "  ", ""))
    return lines


def print_findings(texts: list[str]) -> None:
    """The report's Findings, as its first section says them, wrapped to the terminal."""
    from .words import abbreviations_line, wrapped

    if not texts:
        return
    typer.echo("Findings:")
    for text in texts:
        typer.echo(wrapped(text, "    ", "  - "))
    note = abbreviations_line(texts)
    if note:
        typer.echo(wrapped(note, "  ", ""))
