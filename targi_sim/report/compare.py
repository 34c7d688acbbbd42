"""`compare_runs`: run A vs run B for a designer's A/B test.

Every headline metric and every per-card metric of both runs side by side, the
change B - A, a two-proportion z-test for rates (a normal test of means for mean
round counts), both with the pair as the unit (each run's design effect; see
family.py), adjusted p-values for multiple comparisons (Holm and
Benjamini-Hochberg over the whole family of tests), `significant` by the chosen
correction at alpha 0.05, and beside every metric the minimum detectable effect
(`mde`): the smallest change these runs detect with 80% power. First, the balance
verdict (verdict.py): the balance objective's terms before and after, with intervals.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import polars as pl

from targi_sim.runner.reading import ReportError, RunInfo, read_run_info

from . import plots
from .build import DEFAULT_MIN_N, analyse, check_min_n
from .compare_cards import CARD_COLUMNS, with_card_columns
from .family import ALPHA, POWER, compare_tables, family_size, mde_level, with_mde
from .metrics import benjamini_hochberg, holm
from .model import Report, Section, Table, mark_low_n
from .output import write_report
from .verdict import BalanceChange, balance_change, verdict_section, with_balance_test

CORRECTIONS = ("holm", "bh")

def _matchups(run: RunInfo) -> list[tuple[str, str | None]]:
    return run.strategy_fingerprint()


def check_same_strategies(a: RunInfo, b: RunInfo) -> None:
    """ReportError unless both runs' seats play the same strategies (name and file hash)."""
    fa, fb = _matchups(a), _matchups(b)
    if [n for n, _ in fa] != [n for n, _ in fb]:
        raise ReportError(
            f"runs play different strategies ({', '.join(n for n, _ in fa) or '?'} vs "
            f"{', '.join(n for n, _ in fb) or '?'}); pass `allow_different_strategies` "
            "to compare them anyway")
    for (name, ha), (_, hb) in zip(fa, fb, strict=True):
        if ha and hb and ha != hb:
            raise ReportError(
                f"strategy {name!r} has different parameters in the two runs (file sha256 "
                f"{ha[:12]} vs {hb[:12]}); pass `allow_different_strategies` to compare anyway")


def adjust(df: pl.DataFrame, correction: str = "holm", alpha: float = ALPHA) -> pl.DataFrame:
    """Add p_holm, p_bh and `significant` (by `correction`) over the whole family."""
    p = [math.nan if v is None else v for v in df["p_value"].to_list()]
    ph, pb = holm(p), benjamini_hochberg(p)
    chosen = ph if correction == "holm" else pb
    return df.with_columns(
        pl.Series("p_holm", ph, dtype=pl.Float64), pl.Series("p_bh", pb, dtype=pl.Float64),
        pl.Series("significant", [(not math.isnan(q)) and q < alpha for q in chosen],
                  dtype=pl.Boolean))


def default_compare_dir(a: Path, b: Path) -> Path:
    """Beside run B: `compare-<A>-vs-<B>`."""
    return b.resolve().parent / f"compare-{a.resolve().name}-vs-{b.resolve().name}"


def _check_folder_given(path: Path) -> None:
    """A file where a run folder goes (a deck file, most likely): say what compare wants."""
    if path.is_file():
        hint = (f"; to compare a deck, run it first: targi-sim run --deck {path} --out "
                f"runs/{path.stem}, then compare that folder" if path.suffix == ".toml" else "")
        raise ReportError(f"compare wants two run folders (RUN_A RUN_B, each written by "
                          f"`targi-sim run`); {str(path)!r} is a file{hint}")


def compare_runs(run_a: str | Path, run_b: str | Path, out_dir: str | Path | None = None, *,
                 min_n: int = DEFAULT_MIN_N, correction: str = "holm",
                 allow_different_strategies: bool = False,
                 progress: Callable[[str], None] | None = None) -> Path:
    """Compare two complete runs and write report.html/.md and the tables; returns out_dir.

    Refuses (ReportError) runs whose strategies differ unless allow_different_strategies.
    """
    check_min_n(min_n)
    if correction not in CORRECTIONS:
        raise ReportError(f"`correction` must be one of {', '.join(CORRECTIONS)}; "
                          f"got {correction!r}")
    for given in (run_a, run_b):
        _check_folder_given(Path(given))
    a, b = read_run_info(run_a), read_run_info(run_b)
    if not allow_different_strategies:
        check_same_strategies(a, b)
    out = Path(out_dir) if out_dir is not None else default_compare_dir(a.path, b.path)
    if out.exists() and not out.is_dir():
        raise ReportError(f"`out` {str(out)!r} exists and is not a folder")
    step = progress or (lambda _m: None)
    with plots.skipped():  # the comparison shows numbers of A and B, not their plots
        step(f"analysing A ({a.name})")
        ra = analyse(a, min_n)
        step(f"analysing B ({b.name})")
        rb = analyse(b, min_n)
    step("balance verdict (bootstrap over deals)")
    change = balance_change(a, b, progress=step)
    step("testing differences")
    report = comparison_report(a, b, ra, rb, min_n, correction, change)
    step("writing")
    try:
        write_report(report, out)
    except OSError as exc:
        raise ReportError(f"cannot write to {out}: {exc}") from None
    return out


def comparison_report(a: RunInfo, b: RunInfo, ra: Report, rb: Report, min_n: int,
                      correction: str, change: BalanceChange | None = None) -> Report:
    """The comparison as a Report: the balance verdict (report/verdict.py), significant
    changes, then every metric."""
    change = change if change is not None else balance_change(a, b)
    df = with_mde(adjust(with_balance_test(compare_tables(ra, rb), change), correction))
    df = with_card_columns(df, ra, rb)
    df = df.with_columns(pl.min_horizontal("n_a", "n_b").alias("n_min"))
    df = mark_low_n(df, "n_min", min_n)
    moved = df.filter(pl.col("significant")).sort("p_value")
    name = "Holm" if correction == "holm" else "Benjamini-Hochberg"
    tests = family_size(df)
    level = mde_level(tests)
    text = [f"B - A for every headline and per-card metric. Rates: pooled two-proportion "
            f"z-test with each run's design effect (the pair is the unit); mean rounds: "
            f"normal test of the clustered means; Balance (Ludii): normal test with the "
            f"standard error of the balance verdict's bootstrap; LeadChange, Decisiveness: "
            f"untested. {tests} tests; adjusted p-values "
            f"by Holm (family-wise) and Benjamini-Hochberg (false discovery rate); "
            f"'significant' uses {name} at {ALPHA}.",
            f"mde: the smallest change these two runs detect with {POWER:.0%} power at "
            f"alpha / m = {ALPHA} / {tests} = {level:.2g} (Bonferroni, the level of Holm's "
            "first step; a conservative bound for Benjamini-Hochberg too). A metric whose "
            "|change| is below its mde may have moved by that much unseen: more games "
            "shrink it as 1 / sqrt(games) (docs/report.md, 'Choosing the number of games').",
            f"{moved.height} metric(s) moved significantly."]
    def games(r: Report) -> int:
        return int(r.headline.filter(pl.col("metric") == "first player rate")["n"][0])

    facts = [("A", str(a.path)), ("B", str(b.path)),
             ("games", f"{games(ra):,} vs {games(rb):,}"),
             ("deck", f"{a.deck} vs {b.deck}"), ("rules", f"{a.rules} vs {b.rules}"),
             ("strategies", f"{', '.join(n for n, _ in a.strategy_fingerprint())} vs "
                            f"{', '.join(n for n, _ in b.strategy_fingerprint())}"),
             ("pairing", f"{a.pairing} vs {b.pairing}"),
             ("correction", name)]
    hidden = ("n_min", "variance")
    pct = "is_rate"  # rates in %, their changes and mde in percentage points
    sections = [
        verdict_section(change),
        Section("moved", "Significant changes", text=text, tables=[
            Table("compare_significant", "Metrics that moved (adjusted p < 0.05)", moved,
                  n_col="n_min", hidden=hidden, pct_flag=pct)]),
        Section("all", "Every metric", tables=[
            Table("compare_headline", "Headline metrics",
                  df.filter(pl.col("group") == "headline").drop(CARD_COLUMNS), n_col="n_min",
                  hidden=hidden, pct_flag=pct),
            Table("compare_symbols", "Per symbol",
                  df.filter(pl.col("group") == "cards_symbol").drop(CARD_COLUMNS),
                  n_col="n_min", hidden=hidden, pct_flag=pct),
            Table("compare_cards", "Per tribe card", df.filter(pl.col("group") == "cards_tribe"),
                  n_col="n_min", hidden=hidden, pct_flag=pct),
        ]),
    ]
    return Report(title=f"targi-sim compare: {a.name} (A) vs {b.name} (B)", facts=facts,
                  sections=sections, min_n=min_n, headline=df)
