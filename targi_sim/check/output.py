"""What CI systems read from `targi-sim check`: JUnit XML, a Markdown summary, and the
balance report of each failing expectation's games.

Why: a failing exit code alone says nothing in a pull request. JUnit XML is what
GitHub Actions, GitLab CI and Jenkins render as test results (one test case per
expectation, the failure message carrying the measured value, its interval and
the LLRs); the Markdown table goes into a job summary or a pull-request
comment; the report shows what moved. All three are written atomically.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from targi_sim._utils.atomic import atomic_write_text

Results = Sequence[tuple[Path, Sequence[object]]]  # (baseline file, its CheckResults)


def fmt_value(e, x: float, unit: bool = True) -> str:
    """A measured or expected value as the file writes it: percent, or the mean's units."""
    from targi_sim.check.metrics import UNITS

    if x != x:
        return "n/a"
    if e.is_mean:
        return f"{x:.3f} {UNITS[e.metric]}" if unit else f"{x:.3f}"
    return f"{100 * x:.2f}%"


def fmt_tolerance(e) -> str:
    from targi_sim.check.metrics import UNITS

    if e.is_mean:
        return f"{e.tolerance:.3g} {UNITS[e.metric]}"
    return f"{100 * e.tolerance:.2f} points"


def summary_line(r) -> str:
    """One line: measured value, interval, games and (sequential kinds) each side's LLR."""
    e = r.expectation
    if r.drift is not None:
        d = r.drift
        failed = d.failed_labels()
        head = (f"{len(d.tests)} card tests on {r.games:,} games, Holm at alpha {e.alpha:g}: "
                f"{len(d.failures)} moved")
        return head + (f" -- {'; '.join(failed)}" if failed else "")
    lo, hi = r.ci
    sides = "; ".join(f"LLR {s.name} {s.llr:+.2f} in [{s.lower:.2f}, {s.upper:.2f}] "
                      f"({s.state})" for s in r.test.sides)
    how = "fixed-sample verdict at the cap" if r.capped else "sequential test decided"
    return (f"measured {fmt_value(e, r.rate)} (95% CI {fmt_value(e, lo, False)} .. "
            f"{fmt_value(e, hi, False)}), "
            f"expected {fmt_value(e, e.rate)} +- {fmt_tolerance(e)}; {r.games:,} games "
            f"({how}); {sides}")


def drift_lines(r, limit: int | None = None) -> list[str]:
    """deck_drift: one line per failing card test (then the cards missing)."""
    d = r.drift
    out = []
    for t in sorted(d.failures, key=lambda t: t.p)[:limit]:
        out.append(f"{t.label} {t.metric}: {100 * t.measured:.2f}% vs {100 * t.expected:.2f}% "
                   f"(tolerance {100 * t.tolerance:.1f} points, n {t.n:,.0f}, "
                   f"p {t.p:.2g}, Holm p {t.p_holm:.2g})")
    out += [f"{c.label}: in the baseline, not in the deck" for c in d.missing]
    return out


def junit_xml(results: Results, seconds: float = 0.0) -> str:
    """One <testsuite> per baseline file, one <testcase> per expectation."""
    root = ET.Element("testsuites", name="targi-sim check")
    total = failures = 0
    for path, rs in results:
        suite = ET.SubElement(root, "testsuite", name=str(path), tests=str(len(rs)),
                              failures=str(sum(not r.passed for r in rs)), errors="0",
                              skipped="0", time=f"{sum(r.seconds for r in rs):.3f}")
        for r in rs:
            e = r.expectation
            case = ET.SubElement(suite, "testcase", name=e.name, classname=Path(path).stem,
                                 time=f"{r.seconds:.3f}")
            detail = [e.describe(getattr(r, "card_names", ())), summary_line(r)]
            if r.unit:
                detail.append(f"unit: {r.unit}")
            if r.drift is not None:
                detail += drift_lines(r)
            if not r.passed:
                failure = ET.SubElement(case, "failure", type=e.kind,
                                        message=summary_line(r))
                failure.text = "\n".join(detail)
            ET.SubElement(case, "system-out").text = "\n".join(detail)
        total += len(rs)
        failures += sum(not r.passed for r in rs)
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", "0")
    root.set("time", f"{seconds:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def summary_markdown(results: Results, seconds: float = 0.0, reports: dict | None = None
                     ) -> str:
    """A short Markdown table: verdict, expectation, expected, measured (95% CI), games."""
    rows = [r for _, rs in results for r in rs]
    failed = sum(not r.passed for r in rows)
    word = "FAILED" if failed else "passed"
    out = [f"### targi-sim check: {len(rows) - failed} of {len(rows)} expectations passed"
           f"{f', {failed} failed' if failed else ''} ({seconds:.0f} s)", "",
           "| | expectation | expected | measured (95% CI) | games |",
           "|---|---|---|---|---|"]
    for r in rows:
        e = r.expectation
        mark = "✅" if r.passed else "❌"
        if r.drift is not None:
            labels = r.drift.failed_labels()
            expected = f"{len(e.cards)} cards within tolerance"
            measured = (f"moved: {'; '.join(labels)}" if labels
                        else f"no card moved ({len(r.drift.tests)} tests, Holm)")
        else:
            lo, hi = r.ci
            expected = f"{fmt_value(e, e.rate)} ± {fmt_tolerance(e)}"
            measured = (f"{fmt_value(e, r.rate)} ({fmt_value(e, lo, False)} – "
                        f"{fmt_value(e, hi, False)})")
        out.append(f"| {mark} | {_cell(e.name)} | {_cell(expected)} | {_cell(measured)} | "
                   f"{r.games:,} |")
    if reports:
        out += ["", "Reports of the failing expectations' games: "
                + ", ".join(f"`{p}`" for p in reports.values())]
    out.append("")
    out.append(f"Result: **{word}**. Sequential tests on independent units (seat-swapped "
               "pairs or deals); docs/check.md.")
    return "\n".join(out) + "\n"


def write_junit(path: str | Path, results: Results, seconds: float = 0.0) -> Path:
    return atomic_write_text(path, junit_xml(results, seconds))


def write_summary(path: str | Path, results: Results, seconds: float = 0.0,
                  reports: dict | None = None) -> Path:
    return atomic_write_text(path, summary_markdown(results, seconds, reports))


def slug(name: str) -> str:
    """A folder name from an expectation's name (letters, digits, dashes)."""
    s = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()
    return s[:60] or "expectation"


def against_baseline(result) -> str:
    """Markdown: what moved against the baseline in a failing expectation -- the baseline's
    value, the measured one with its interval, and for deck_drift every card that moved
    (by card_id and name) -- so a report of the changed deck opens with the change."""
    e = result.expectation
    lines = [f"# What moved against the baseline: {e.name}", "",
             f"Baseline file: `{e.path}`; deck `{e.deck}`, rules `{e.rules}`, "
             f"{e.strategy} vs {e.opponent}.", ""]
    if result.drift is not None:
        lines += [f"{len(result.drift.failures)} of {len(result.drift.tests)} card tests "
                  f"moved beyond their tolerance ({result.games:,} games, Holm at alpha "
                  f"{e.alpha:g}):", ""]
        lines += [f"- {line}" for line in drift_lines(result)]
    else:
        lo, hi = result.ci
        lines += ["| | value |", "|---|---|",
                  f"| baseline | {fmt_value(e, e.rate)} +- {fmt_tolerance(e)} |",
                  f"| measured | {fmt_value(e, result.rate)} (95% CI "
                  f"{fmt_value(e, lo, False)} .. {fmt_value(e, hi, False)}), "
                  f"{result.games:,} games |"]
    lines += ["", "The balance report of these very games (same seeds): report/report.html."]
    return "\n".join(lines) + "\n"


def failure_report(result, prepared, folder: str | Path, *, jobs: int = 1,
                   progress=None) -> Path:
    """Replay a failing expectation's games into `folder/run` (an ordinary run directory:
    the same seed and layout, so the very games the check decided on), write what moved
    against the baseline to `folder/against-baseline.md` and the games' balance report
    to `folder/report`; returns the report.html path."""
    from targi_sim.report import build_report
    from targi_sim.runner import RunConfig, resolve_run
    from targi_sim.runner.dispatch import execute

    e = result.expectation
    folder = Path(folder)
    config = RunConfig(games=max(2, result.games), seed=e.seed, p0=e.strategy,
                       p1=e.opponent, deck=e.deck, rules=e.rules, pairing=prepared.pairing)
    run = folder / "run"
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(folder / "against-baseline.md", against_baseline(result))
    execute(resolve_run(config), run, jobs=jobs, force=True, progress=progress,
            command=["targi-sim", "check", "(report of a failing expectation)"])
    out = build_report(run, folder / "report")
    return out / "report.html"


__all__ = ["against_baseline", "failure_report", "fmt_tolerance", "fmt_value", "junit_xml", "slug",
           "summary_line", "summary_markdown", "write_junit", "write_summary"]
