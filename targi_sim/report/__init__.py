"""Balance reports over a run directory (`targi-sim report`, `targi-sim compare`).

Modules, one job each (a run directory is opened and checked by
targi_sim/runner/reading.py, queried by targi_sim/runner/queries.py; cards are graded by
targi_sim/stats/grades.py): metrics (intervals, tests, Ludii metrics), findings (the
rules that write the Findings), sections (the six report sections), plots, render / html / markdown
(renderers), glossary (column tooltips), output (atomic writes), build (build_report),
compare (compare_runs), verdict (compare's balance verdict), compare_cards (compare's
card columns).

The entry points below load DuckDB and matplotlib only when called, so that
`import targi_sim` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from targi_sim.runner.reading import ReportError, RunInfo, read_run_info

if TYPE_CHECKING:
    import polars as pl

    from targi_sim.game.classes import CardClasses

    from .model import Report


def build_report(run_dir: str | Path, out_dir: str | Path | None = None, min_n: int = 500,
                 progress: Callable[[str], None] | None = None) -> Path:
    """Analyse a complete run directory and write report.html, report.md, plots/ and
    tables/ (CSV and Parquet) into out_dir (default `<run_dir>/report`); returns out_dir.

    Raises ReportError (one line) for a missing, incomplete or malformed run or bad min_n.
    """
    from .build import build_report as _build

    return _build(run_dir, out_dir, min_n, progress)


def compare_runs(run_a: str | Path, run_b: str | Path, out_dir: str | Path | None = None, *,
                 min_n: int = 500, correction: str = "holm",
                 allow_different_strategies: bool = False,
                 progress: Callable[[str], None] | None = None) -> Path:
    """Compare run B against run A (A/B test) and write the same outputs as build_report
    (default out_dir: `compare-<A>-vs-<B>` beside B); returns out_dir.

    correction: "holm" or "bh" for the `significant` flag. Raises ReportError when the
    runs' strategies differ unless allow_different_strategies.
    """
    from .compare import compare_runs as _compare

    return _compare(run_a, run_b, out_dir, min_n=min_n, correction=correction,
                    allow_different_strategies=allow_different_strategies, progress=progress)


def analyse(run: RunInfo, min_n: int = 500,
            progress: Callable[[str], None] | None = None,
            card_values: pl.DataFrame | None = None,
            classes: CardClasses | None = None) -> Report:
    """The Report of a run (every table and plot in memory), without writing files.

    card_values: optional values per class of identical cards (card_id of its first
    card, value, se), e.g. causal values from forked play; the tribe-card grades then use
    them instead of WR played. classes: the classes of identical tribe cards the card
    tables pool (targi_sim.game.classes); by default those of the run's deck."""
    from .build import analyse as _analyse

    return _analyse(run, min_n, progress, card_values, classes)


__all__ = ["ReportError", "RunInfo", "analyse", "build_report", "compare_runs",
           "read_run_info"]
