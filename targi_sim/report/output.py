"""Writing a Report to disk: report.html, report.md, plots/*.png, tables/*.csv|.parquet.

Every file is written to a hidden temporary file in its folder and renamed into place,
so a reader never sees half a file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from targi_sim._utils.atomic import atomic_write

from .html import render_html
from .markdown import render_markdown
from .model import Report


def _text(text: str) -> Callable[[Path], object]:
    return lambda p: Path(p).write_text(text, encoding="utf-8")


def _bytes(data: bytes) -> Callable[[Path], object]:
    return lambda p: Path(p).write_bytes(data)


def write_report(report: Report, out_dir: str | Path) -> list[Path]:
    """Write every output of `report` into out_dir (created); returns the paths written."""
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    written = []
    for t in report.tables():
        written.append(atomic_write(out / "tables" / f"{t.key}.parquet", t.df.write_parquet))
        written.append(atomic_write(out / "tables" / f"{t.key}.csv", t.df.write_csv))
    if report.headline is not None:
        written.append(atomic_write(out / "tables" / "headline.parquet",
                                    report.headline.write_parquet))
        written.append(atomic_write(out / "tables" / "headline.csv", report.headline.write_csv))
    for s in report.sections:
        for p in s.plots:
            written.append(atomic_write(out / "plots" / f"{p.key}.png", _bytes(p.png)))
    written.append(atomic_write(out / "report.md", _text(render_markdown(report))))
    written.append(atomic_write(out / "report.html", _text(render_html(report))))
    return written
