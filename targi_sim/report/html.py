"""report.html: one self-contained page (inline CSS and JS, plots as base64 PNG).

Tables scroll sideways inside their box with the name column sticky, sort by a click
on a header (a few lines of inline JS, no network), carry column definitions as header
tooltips (data/report/columns.toml), and a wide table is shown by its compact columns
with the full table collapsed in a <details>. Each table has a stable id (its key).
The example games' viewer pages are embedded too (JSON in a <script>, opened as a blob:
URL on a click), so a report.html mailed without its games/ folder still opens them.
"""

from __future__ import annotations

import base64
import json
from functools import cache
from html import escape

from .glossary import column_definitions
from .model import Link, Report, Table
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
// an example game's link opens the page embedded below (games/ may not be beside this file)
document.querySelectorAll('a[data-embedded]').forEach(function(a){
  a.addEventListener('click',function(ev){
    var src=document.getElementById(a.getAttribute('data-embedded'));
    if(!src)return;
    ev.preventDefault();
    var blob=new Blob([JSON.parse(src.textContent)],{type:'text/html;charset=utf-8'});
    var url=URL.createObjectURL(blob)+a.hash;
    if(ev.ctrlKey||ev.metaKey||ev.shiftKey){window.open(url,'_blank');}
    else{location.assign(url);}
  });
});
"""

EMBEDDED_NOTE = ("The example games are embedded in this page: the links open them even "
                 "when report.html is read without the games/ folder beside it.")


def _embedded_ids(report: Report) -> dict[str, str]:
    """An element id per distinct embedded page (its file path beside the report)."""
    pages = dict.fromkeys(_page_path(k) for s in report.sections for k in s.links if k.page)
    return {path: f"embedded-page-{i}" for i, path in enumerate(pages)}


def _page_path(link: Link) -> str:
    return link.href.split("#", 1)[0]


def _embedded_pages(report: Report, ids: dict[str, str]) -> list[str]:
    """Each page as a JSON string in a non-running <script>; '<' escaped so no '</script>'
    or '<!--' inside can end the element early."""
    html = {_page_path(k): k.page for s in report.sections for k in s.links if k.page}
    return [f"<script type='application/json' id='{ident}' data-page='{escape(path)}'>"
            + json.dumps(html[path], ensure_ascii=False).replace("<", "\\u003c")
            + "</script>" for path, ident in ids.items()]


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


def _embed_attr(link: Link, ids: dict[str, str]) -> str:
    return f" data-embedded='{ids[_page_path(link)]}'" if link.page else ""


@cache
def _markdown():  # type: ignore[no-untyped-def]
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False})  # raw HTML in a text stays text


def inline(text: str) -> str:
    """A report sentence, written once for report.md, as HTML: its **bold** and `code`
    become tags, everything else is escaped."""
    return _markdown().renderInline(text)


def render_html(report: Report) -> str:
    """The whole report as one HTML string."""
    ids = _embedded_ids(report)
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           f"<title>{escape(report.title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{escape(report.title)}</h1>"]
    if report.findings:
        out.append("<h2 id='findings'>Findings</h2><ul class='findings'>")
        for f in report.findings:
            out.append(f"<li>{inline(f.text)} <a href='#{escape(f.table)}'>(table)</a></li>")
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
            out.append(f"<p class='note'>{inline(p)}</p>")
        if s.links:  # example games (report/examples.py)
            out.append("<ul class='examples'>" + "".join(
                f"<li>{escape(k.label)} <a href='{escape(k.href)}'{_embed_attr(k, ids)}>"
                f"{escape(k.text)}</a></li>" for k in s.links) + "</ul>")
            if any(k.page for k in s.links):
                out.append(f"<p class='note'>{escape(EMBEDDED_NOTE)}</p>")
        for t in s.tables:
            if not t.shown:
                continue
            out.append(f"<h3 id='section-{escape(t.key)}'>{escape(t.title)}</h3>")
            if t.note:
                out.append(f"<p class='note'>{inline(t.note)}</p>")
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
    out += _embedded_pages(report, ids)
    out.append(f"<script>{JS}</script>")
    out.append("</body></html>\n")
    return "\n".join(out)
