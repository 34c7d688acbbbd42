"""report.html: one self-contained page (inline CSS, plots as base64 PNG)."""

from __future__ import annotations

import base64
from html import escape

from .model import Report
from .render import columns, rows

CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:13px}
th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right;white-space:nowrap}
th{background:#f3f3f3;position:sticky;top:0}
td:first-child,th:first-child{text-align:left}
tr.low td{color:#aaa}
.note{color:#555;font-size:13px}
.facts td{text-align:left}
.sig{font-weight:bold;color:#b00}
img{max-width:100%;margin:0.5em 0 1.5em}
"""


def render_html(report: Report) -> str:
    """The whole report as one HTML string."""
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
           f"<title>{escape(report.title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{escape(report.title)}</h1>", "<table class='facts'>"]
    for k, v in report.facts:
        out.append(f"<tr><td>{escape(k)}</td><td>{escape(v)}</td></tr>")
    out.append("</table>")
    out.append(f"<p class='note'>Rows with n below --min-n = {report.min_n:,} are greyed, "
               "not hidden. Brackets: 95% Wilson intervals. Definitions: docs/report.md.</p>")
    out.append("<ul>")
    for s in report.sections:
        out.append(f"<li><a href='#{s.key}'>{escape(s.title)}</a></li>")
    out.append("</ul>")
    for s in report.sections:
        out.append(f"<h2 id='{s.key}'>{escape(s.title)}</h2>")
        for p in s.text:
            out.append(f"<p class='note'>{escape(p)}</p>")
        if s.links:  # example games (report/examples.py)
            out.append("<ul class='examples'>" + "".join(
                f"<li>{escape(k.label)} <a href='{escape(k.href)}'>{escape(k.text)}</a></li>"
                for k in s.links) + "</ul>")
        for t in s.tables:
            out.append(f"<h3>{escape(t.title)}</h3>")
            if t.note:
                out.append(f"<p class='note'>{escape(t.note)}</p>")
            cols = columns(t)
            out.append("<table><tr>" + "".join(f"<th>{escape(c)}</th>" for c in cols) + "</tr>")
            for cells, low in rows(t):
                cls = " class='low'" if low else ""
                out.append(f"<tr{cls}>" + "".join(f"<td>{escape(c)}</td>" for c in cells)
                           + "</tr>")
            out.append("</table>")
            out.append(f"<p class='note'>table: tables/{t.key}.csv, tables/{t.key}.parquet</p>")
        for p in s.plots:
            data = base64.b64encode(p.png).decode("ascii")
            out.append(f"<h3>{escape(p.title)}</h3><img alt='{escape(p.title)}' "
                       f"src='data:image/png;base64,{data}'>")
    out.append("</body></html>\n")
    return "\n".join(out)
