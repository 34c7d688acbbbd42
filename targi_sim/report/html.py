"""report.html: one self-contained page (inline CSS and JS, plots as base64 PNG).

Tables scroll sideways inside their box with the name column sticky, sort by a click
on a header (a few lines of inline JS, no network), carry column definitions as header
tooltips (data/report/columns.toml), and a wide table is shown by its compact columns
with the full table collapsed in a <details>. Each table has a stable id (its key).
"""

from __future__ import annotations

import base64
from html import escape

from .glossary import column_definitions
from .model import Report, Table
from .render import columns, rows, sort_keys

CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
.wrap{overflow-x:auto;max-width:100%;margin:0.5em 0 1.5em}
table{border-collapse:collapse;font-size:13px}
th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right;white-space:nowrap}
th{background:#f3f3f3;position:sticky;top:0;cursor:pointer}
th[title]{text-decoration:underline dotted}
th.sorted-asc::after{content:" \\25B2"}th.sorted-desc::after{content:" \\25BC"}
td:first-child,th:first-child{text-align:left;position:sticky;left:0;background:#fff;z-index:1}
th:first-child{background:#f3f3f3;z-index:2}
tr.low td{color:#aaa}
.note{color:#555;font-size:13px}
.facts td{text-align:left;position:static}
.findings li{margin:0.3em 0}
.sig{font-weight:bold;color:#b00}
details{margin:0 0 1.5em}summary{cursor:pointer;color:#555;font-size:13px}
img{max-width:100%;margin:0.5em 0 1.5em}
"""

# click a header: sort its table's body by that column (numbers numerically, blanks last)
JS = """
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){
    th.addEventListener('click',function(){
      var asc=!th.classList.contains('sorted-asc');
      t.querySelectorAll('th').forEach(function(h){h.classList.remove('sorted-asc','sorted-desc');});
      th.classList.add(asc?'sorted-asc':'sorted-desc');
      var body=t.tBodies[0],rs=Array.prototype.slice.call(body.rows);
      rs.sort(function(a,b){
        var x=a.cells[i].getAttribute('data-v'),y=b.cells[i].getAttribute('data-v');
        if(x===''&&y==='')return 0;if(x==='')return 1;if(y==='')return -1;
        var c=(isFinite(x)&&isFinite(y))?parseFloat(x)-parseFloat(y):x.localeCompare(y);
        return asc?c:-c;});
      rs.forEach(function(r){body.appendChild(r);});
    });
  });
});
"""


def _table(t: Table, ident: str, compact: bool) -> list[str]:
    definitions = column_definitions()
    cols = columns(t, compact)
    head = "".join(
        f"<th title='{escape(definitions[c])}'>{escape(c)}</th>" if c in definitions
        else f"<th>{escape(c)}</th>" for c in cols)
    out = [f"<div class='wrap'><table class='sortable' id='{escape(ident)}'>"
           f"<thead><tr>{head}</tr></thead><tbody>"]
    for (cells, low), keys in zip(rows(t, compact), sort_keys(t, compact), strict=True):
        cls = " class='low'" if low else ""
        out.append(f"<tr{cls}>" + "".join(
            f"<td data-v='{escape(k)}'>{escape(c)}</td>" for c, k in zip(cells, keys,
                                                                         strict=True))
            + "</tr>")
    out.append("</tbody></table></div>")
    return out


def render_html(report: Report) -> str:
    """The whole report as one HTML string."""
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           f"<title>{escape(report.title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{escape(report.title)}</h1>"]
    if report.findings:
        out.append("<h2 id='findings'>Findings</h2><ul class='findings'>")
        for f in report.findings:
            out.append(f"<li>{escape(f.text)} <a href='#{escape(f.table)}'>(table)</a></li>")
        out.append("</ul><p class='note'>Written by rules from this run's numbers "
                   "(thresholds: docs/report.md, Findings).</p>")
    out.append("<table class='facts'>")
    for k, v in report.facts:
        out.append(f"<tr><td>{escape(k)}</td><td>{escape(v)}</td></tr>")
    out.append("</table>")
    out.append(f"<p class='note'>Rows with n below --min-n = {report.min_n:,} are greyed, "
               "not hidden. Brackets: 95% Wilson intervals. Click a column header to sort; "
               "hover it for its definition. Definitions: docs/report.md.</p>")
    out.append("<ul>")
    if report.findings:
        out.append("<li><a href='#findings'>Findings</a></li>")
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
            if not t.shown:
                continue
            out.append(f"<h3 id='section-{escape(t.key)}'>{escape(t.title)}</h3>")
            if t.note:
                out.append(f"<p class='note'>{escape(t.note)}</p>")
            if t.compact:
                out += _table(t, t.key, compact=True)
                out.append(f"<details id='{escape(t.key)}-full'><summary>every column of "
                           f"{escape(t.key)}</summary>")
                out += _table(t, f"{t.key}-all", compact=False)
                out.append("</details>")
            else:
                out += _table(t, t.key, compact=False)
            out.append(f"<p class='note'>table: tables/{t.key}.csv, tables/{t.key}.parquet</p>")
        for p in s.plots:
            data = base64.b64encode(p.png).decode("ascii")
            out.append(f"<h3 id='plot-{escape(p.key)}'>{escape(p.title)}</h3><img "
                       f"alt='{escape(p.title)}' src='data:image/png;base64,{data}'>")
    out.append(f"<script>{JS}</script>")
    out.append("</body></html>\n")
    return "\n".join(out)
