"""Make README.md's picture from a real run: the top of its report.html and its forest plot.

    python scripts/readme_images.py                       # 50,000 games -> docs/images/report.png
    python scripts/readme_images.py --games 200000 --jobs 2

It runs the real commands (`targi-sim run`, then `targi-sim report`) in a scratch folder,
opens report.html in Debian's Chromium through Playwright (never a downloaded browser:
set CHROMIUM to another executable), takes the top of the page, and stacks it above the
report's own forest plot of the tribe cards (plots/cards_forest.png). The image is
written atomically; the run's command is written beside it (report.txt) so the picture
says what it shows.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 1000  # pixels of the picture
TOP = 760  # pixels of the report's top shown


def _chromium() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which(
        "chromium-browser")
    if not path:
        sys.exit("no Chromium found: apt-get install chromium, or set CHROMIUM=/path/to/it")
    return path


def _cli(*args: str, cwd: Path) -> None:
    exe = shutil.which("targi-sim") or sys.exit("targi-sim is not installed here")
    subprocess.run([exe, *args], cwd=cwd, check=True)


def _screenshot(html: Path) -> bytes:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium())
        page = browser.new_page(viewport={"width": WIDTH, "height": TOP})
        page.goto(html.resolve().as_uri())
        png = page.screenshot(full_page=False)
        browser.close()
    return png


def compose(top_png: bytes, plot_png: bytes) -> bytes:
    """The page's top above the forest plot, one width, a rule between them."""
    from PIL import Image

    top = Image.open(io.BytesIO(top_png)).convert("RGB")
    plot = Image.open(io.BytesIO(plot_png)).convert("RGB")
    plot = plot.resize((WIDTH, round(plot.height * WIDTH / plot.width)))
    rule = 6
    out = Image.new("RGB", (WIDTH, top.height + rule + plot.height), (200, 200, 200))
    out.paste(top, (0, 0))
    out.paste(plot, (0, top.height + rule))
    buf = io.BytesIO()
    out.quantize(colors=256).save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="50000")
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="targi-readme-") as tmp:
        work = Path(tmp)
        run = ["run", "--games", args.games, "--jobs", args.jobs, "--out", "runs/base",
               "--quiet"]
        _cli(*run, cwd=work)
        _cli("report", "runs/base", "--quiet", cwd=work)
        report = work / "runs" / "base" / "report"
        image = compose(_screenshot(report / "report.html"),
                        (report / "plots" / "cards_forest.png").read_bytes())
    args.out.mkdir(parents=True, exist_ok=True)
    from targi_sim._utils.atomic import atomic_write, atomic_write_text

    atomic_write(args.out / "report.png", lambda tmp: tmp.write_bytes(image))
    atomic_write_text(args.out / "report.txt", (
        f"report.png: the top of report.html and the tribe cards' forest plot of\n"
        f"  targi-sim {' '.join(run)}\n  targi-sim report runs/base\n"
        f"made by: python scripts/readme_images.py --games {args.games}\n"))
    print(f"wrote {args.out / 'report.png'} ({len(image) / 1024:,.0f} KB)")


if __name__ == "__main__":
    main()
