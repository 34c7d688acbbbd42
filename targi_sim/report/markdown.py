"""report.md: the same tables as Markdown (plots are in report.html and plots/)."""

from __future__ import annotations

from .model import Report
from .render import columns, rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(report: Report) -> str:
    """The whole report as Markdown; rows below --min-n are marked with a dagger."""
    out = [f"# {report.title}", ""]
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
            out += [f"### {t.title}", ""]
            if t.note:
                out += [t.note, ""]
            cols = columns(t)
            out.append("| " + " | ".join(cols) + " |")
            out.append("|" + "|".join("---" for _ in cols) + "|")
            for cells, low in rows(t):
                if low:
                    cells = [f"† {cells[0]}", *cells[1:]]
                out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
            out.append("")
        for p in s.plots:
            out += [f"![{p.title}](plots/{p.key}.png)", ""]
    return "\n".join(out) + "\n"
