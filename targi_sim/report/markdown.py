"""report.md: the same tables as Markdown (plots are in report.html and plots/).

Each table has an HTML anchor (`<a id="KEY">`) so that the Findings link to it; a wide
table is shown by its compact columns, the full one inside a <details> block.
"""

from __future__ import annotations

from .model import Report, Table
from .render import columns, rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _table(t: Table, compact: bool) -> list[str]:
    cols = columns(t, compact)
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for cells, low in rows(t, compact):
        if low:
            cells = [f"† {cells[0]}", *cells[1:]]
        out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return out


def render_markdown(report: Report) -> str:
    """The whole report as Markdown; rows below --min-n are marked with a dagger."""
    out = [f"# {report.title}", ""]
    if report.findings:
        out += ['<a id="findings"></a>', "", "## Findings", ""]
        for f in report.findings:
            out.append(f"- {f.text} ([table](#{f.table}))")
        out += ["", "Written by rules from this run's numbers (thresholds: docs/report.md, "
                "Findings).", ""]
    for k, v in report.facts:
        out.append(f"- **{k}**: {v}")
    out += ["", f"Rows marked † have n below --min-n = {report.min_n:,} (greyed in "
            "report.html). Brackets: 95% Wilson intervals. Definitions: docs/report.md.", ""]
    for s in report.sections:
        out += [f"## {s.title}", ""]
        for p in s.text:
            out += [p, ""]
        if s.links:  # example games (report/examples.py)
            out += [f"- {k.label} [{k.text}]({k.href})" for k in s.links] + [""]
        for t in s.tables:
            if not t.shown:
                continue
            out += [f'<a id="{t.key}"></a>', "", f"### {t.title}", ""]
            if t.note:
                out += [t.note, ""]
            if t.compact:
                out += _table(t, compact=True)
                out += ["", f"<details><summary>every column of {t.key}</summary>", ""]
                out += _table(t, compact=False)
                out += ["", "</details>"]
            else:
                out += _table(t, compact=False)
            out.append("")
        for p in s.plots:
            out += [f"![{p.title}](plots/{p.key}.png)", ""]
    return "\n".join(out) + "\n"
