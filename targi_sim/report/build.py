"""`build_report`: one run directory -> report.html, report.md and every table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl

from targi_sim.game.classes import CardClasses
from targi_sim.runner.classes import run_classes
from targi_sim.runner.reading import ReportError, RunInfo, read_run_info
from targi_sim.runner.summaries import row_sums, run_sums

from . import card_value, sections
from .data import ReportData
from .examples import add_examples
from .family import ALPHA, POWER, annotate_report_mde, games_for_change
from .findings import findings
from .model import Report
from .output import write_report
from .values import rates_from_manifest

DEFAULT_MIN_N = 500


def check_min_n(min_n: int) -> int:
    if isinstance(min_n, bool) or not isinstance(min_n, int) or min_n < 0:
        raise ReportError(f"`min_n` must be a whole number >= 0; got {min_n!r}")
    return min_n


def _facts(run: RunInfo, games: int, matchups: int, pairs: int) -> list[tuple[str, str]]:
    m = run.manifest
    config = m.get("config") if isinstance(m.get("config"), dict) else {}
    strategies = ", ".join(name for name, _ in run.strategy_fingerprint()) or "?"
    facts = [("run", str(run.path)), ("games", f"{games:,}"),
             ("pairs (independent units)", f"{pairs:,}"), ("matchups", str(matchups)),
             ("strategies (seat 0, seat 1)", strategies), ("deck", run.deck),
             ("rules", run.rules)]
    if "seed" in config:
        facts.append(("seed", str(config["seed"])))
    facts.append(("pairing", run.pairing))
    if m.get("version"):
        facts.append(("targi-sim", str(m["version"])))
    return facts


def analyse(run: RunInfo, min_n: int = DEFAULT_MIN_N,
            progress: Callable[[str], None] | None = None,
            card_values: pl.DataFrame | None = None,
            classes: CardClasses | None = None, *, from_rows: bool = False) -> Report:
    """Run every analysis over a run directory and assemble the Report (no files written).

    The tables come from the run's chunk summaries (runner/summaries.py; computed once
    from the rows of a chunk without a valid one), or with `from_rows` from all the rows
    at once: the same numbers, the raw-row path the tests compare with.
    card_values: optional per-class values (card_id of the class's first card, value, se)
    that the tribe-card grades use instead of WR played; by default the run's causal card
    values when it has forks (targi-sim card-value), else none. classes: the classes of
    identical tribe cards the card tables pool; by default those of the run's deck
    (targi_sim.runner.classes.run_classes); other classes than those its summaries pooled
    are summed from the rows again."""
    step = progress or (lambda _msg: None)
    if classes is None:
        classes = run_classes(run)
    headline: list[dict] = []
    rates = rates_from_manifest(run.manifest)
    if from_rows:
        step("summing the rows")
        sums = row_sums(run, rates.goods_vp, rates.gold_vp, classes)
    else:
        step("reading the chunk summaries")
        sums = run_sums(run, rates.goods_vp, rates.gold_vp, classes, progress=step)
    d = ReportData(sums, run.path / "cards.parquet")
    step("overview")
    overview, info = sections.overview(d, min_n, headline)
    step("first-player advantage")
    first = sections.first_player(d, min_n, headline)
    step("card balance")
    if card_values is None:  # a run with forks is graded on its causal card values
        card_values = card_value.grading_values(run, min_n, classes)
    cards = sections.cards(d, min_n, info["games"], card_values, classes)
    if card_value.has_forks(run):  # only then is there a section (targi-sim card-value)
        step("causal card value")
    causal = card_value.section(run, cards.tables[0].df, min_n, classes)
    step("raid impact")
    raids = sections.raids(d, min_n, headline, rates)
    step("strategies")
    strat = sections.strategies(d, min_n)
    step("curves per round")
    curves = sections.curves(d, min_n)
    report = Report(
        title=f"targi-sim report: {run.name}",
        facts=_facts(run, info["games"], info["matchups"], info["pairs"]),
        sections=[s for s in (overview, first, cards, causal, raids, strat, curves) if s],
        min_n=min_n,
        headline=pl.DataFrame(headline, schema={
            "metric": pl.String, "kind": pl.String, "value": pl.Float64, "x": pl.Float64,
            "n": pl.Float64, "sd": pl.Float64, "deff": pl.Float64, "se": pl.Float64}),
    )
    _note_mde(report, info["games"], min_n)
    report.findings = findings(report)
    return report


def _note_mde(report: Report, games: int, min_n: int) -> None:
    """Per-card MDE columns, and a note saying what they mean for this run's size."""
    m, level = annotate_report_mde(report)
    tribe = report.table("cards_tribe")
    ok = tribe.df.filter(~pl.col("low_n"))["played_wr_mde"].drop_nans().drop_nulls()
    note = (f"*_mde: the smallest change of that rate that `targi-sim compare` against "
            f"another run of this size and design effect flags with {POWER:.0%} power at "
            f"alpha / m = {ALPHA} / {m} = {level:.2g} (Bonferroni, the level of Holm's first "
            f"step; m = the tests such a comparison makes).")
    if ok.len():
        mde = float(ok.median())
        note += (f" WR played: median MDE {100 * mde:.1f} points over the cards with n "
                 f">= {min_n}; to see a 1-point change in a typical card's WR played, runs "
                 f"of about {games_for_change(games, mde):,.0f} games each are needed "
                 f"(this run: {games:,}).")
    tribe.note = note


def build_report(run_dir: str | Path, out_dir: str | Path | None = None,
                 min_n: int = DEFAULT_MIN_N,
                 progress: Callable[[str], None] | None = None) -> Path:
    """Analyse a complete run directory and write the report; returns the output folder.

    out_dir defaults to `<run_dir>/report`. Raises ReportError (one line) for a missing,
    incomplete or malformed run directory or a bad min_n.
    """
    return write_run_report(run_dir, out_dir, min_n, progress)[0]


def write_run_report(run_dir: str | Path, out_dir: str | Path | None = None,
                     min_n: int = DEFAULT_MIN_N,
                     progress: Callable[[str], None] | None = None) -> tuple[Path, Report]:
    """build_report, returning the Report too (its Findings are what the command line
    prints after writing the files)."""
    check_min_n(min_n)
    run = read_run_info(run_dir)
    out = Path(out_dir) if out_dir is not None else run.path / "report"
    if out.exists() and not out.is_dir():
        raise ReportError(f"`out` {str(out)!r} exists and is not a folder")
    report = analyse(run, min_n, progress)
    if progress:
        progress("writing")
    try:
        add_examples(report, run, out, progress)  # example games' viewer pages, linked
        write_report(report, out)
    except OSError as exc:
        raise ReportError(f"cannot write to {out}: {exc}") from None
    return out, report
