"""Do the commands still write the same bytes? Record every search's outputs on fixed
seeds at a small but real size, then rerun them after a change and diff.

    python benchmarks/identical_outputs.py record /tmp/before      # on the old code
    python benchmarks/identical_outputs.py record /tmp/after       # on the new code
    python benchmarks/identical_outputs.py diff /tmp/before /tmp/after
    python benchmarks/identical_outputs.py record /tmp/x --only tune,balance
    python benchmarks/identical_outputs.py hashes /tmp/after       # sha256 of each Parquet

Each case runs one `targi-sim` command (one worker, --quiet) in its own folder CASE/
with relative paths, and keeps its stdout as CASE/stdout.txt with times and speeds
blanked out. `diff` compares every file of both folders byte for byte, except the
few that hold a time, the engine's source hash or a search's settings record by
design (IGNORED: run and chunk markers, manifests, config.json) and a calibration's
`seconds` column (a candidate's measuring time), and says which differ. The sizes
keep each command to tens of seconds on one core; the total is a few minutes.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

BASELINE = """\
description = "identical_outputs: two quick expectations"
seed = 11

[defaults]
deck = "base"
rules = "default"
batch_games = 200
max_games = 1000

[[expectation]]
name = "greedy beats random"
kind = "win_rate"
strategy = "greedy"
opponent = "random"
rate = 99.0
tolerance = 1.0

[[expectation]]
name = "balanced mirror first player"
kind = "first_player_rate"
strategy = "balanced"
rate = 50.0
tolerance = 5.0
"""

SET = "border.Merchant.trades[1].give_amount = 2, 4"

# name -> the command's arguments after `targi-sim` ({d}: the case's folder)
CASES: dict[str, list[str]] = {
    "run": ["run", "--games", "4000", "--p0", "balanced", "--p1", "greedy", "--seed", "7",
            "--chunk-size", "1000", "--jobs", "1", "--out", "run"],
    # the heuristic's own games at a run's size: every decision of both mirrors
    "run-balanced": ["run", "--games", "20000", "--p0", "balanced", "--p1", "balanced",
                     "--seed", "47", "--jobs", "1", "--out", "run"],
    "run-tuned": ["run", "--games", "20000", "--p0", "tuned", "--p1", "tuned",
                  "--seed", "47", "--jobs", "1", "--out", "run"],
    "card-value": ["card-value", "../run/run", "--fork-rate", "0.25", "--jobs", "1"],
    "report": ["report", "../run/run", "--out", "report"],
    "tune": ["tune", "balanced", "--against", "balanced,greedy", "--budget", "1600",
             "--deals", "10", "--popsize", "4", "--final-deals", "50", "--check-games",
             "400", "--seed", "3", "--jobs", "1", "--out", "tuned.toml"],
    "calibrate": ["calibrate", "--budget", "5", "--deals", "60", "--retune-budget", "0",
                  "--validate-deals", "120", "--finalists", "2", "--seed", "1", "--jobs",
                  "1", "--out", "cal"],  # a proposal: the Merchant's two trades change
    "calibrate-retune": ["calibrate", "--levels", "balanced,tuned", "--retune-budget",
                         "20000", "--budget", "2", "--deals", "40", "--validate-deals", "80",
                         "--finalists", "1", "--seed", "6", "--jobs", "1", "--out", "cal"],
    "balance": ["balance", "--budget", "3000", "--block-deals", "100", "--blocks", "2",
                "--validate-deals", "200", "--seed", "2", "--jobs", "1", "--out",
                "bal"],
    "balance-levels": ["balance", "--levels", "greedy,balanced", "--retune-budget", "20000",
                       "--budget", "45000", "--block-deals", "100", "--blocks", "2",
                       "--validate-deals", "200", "--seed", "4", "--jobs", "1", "--out",
                       "bal"],
    "ladder": ["ladder", "--rungs", "random,greedy,balanced", "--games", "1000", "--seed",
               "1", "--jobs", "1", "--out", "ladder"],
    "sweep": ["sweep", "--games", "1000", "--set", SET, "--seed", "1", "--jobs", "1",
              "--out", "sweep"],
    "tournament": ["tournament", "-s", "random,greedy,balanced", "--games", "400", "--seed",
                   "2", "--out", "tournament"],
    "check": ["check", "baseline.toml", "--summary-md", "summary.md"],
}

# files that hold a time, an engine hash, a path or the search's settings by design
IGNORED = re.compile(r"(^|/)(manifest\.json|sweep\.json|ladder\.json|tournament\.json|"
                     r"config\.json|forks\.json|chunk-\d+\.json|\.targi-sim\.lock|"
                     r"study\.journal|[^/]*\.tune-state\.pkl)$")
# in stdout: seconds, rates; a cold engine's compile time
_TIMES = re.compile(r"\d[\d,.]*\s*(s\b|games/s|forks/s|ms\b|min\b)|ETA \S+|elapsed \S+")
_LOAD = re.compile(r"<t> engine load, then ")
_MINUTES = re.compile(r"\d+(\.\d+)? minutes|\(\d+(\.\d+)? in this call\)")


def _normalise(text: str, root: Path) -> str:
    """Stdout without times, speeds and the recording's own folder."""
    return _LOAD.sub("", _TIMES.sub("<t>", text.replace(str(root), "<root>")))


def record(root: Path, only: list[str] | None) -> None:
    """Run the cases into root/CASE (each in its own folder, with relative paths, so the
    files name no absolute path)."""
    root.mkdir(parents=True, exist_ok=True)
    exe = shutil.which("targi-sim", path=str(Path(sys.executable).parent)) or "targi-sim"
    env = {**os.environ, "COLUMNS": "500"}  # no wrapped lines in stdout
    for name, args in CASES.items():
        if only and name not in only:
            continue
        d = root / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        if name == "check":
            (d / "baseline.toml").write_text(BASELINE, encoding="utf-8")
        if name == "card-value":  # forks go into the run's folder: keep them here too
            shutil.rmtree(root / "run" / "run" / "forks", ignore_errors=True)
        t0 = time.perf_counter()
        done = subprocess.run([exe, *args, "--quiet"], capture_output=True, text=True,
                              cwd=d, env=env)
        seconds = time.perf_counter() - t0
        if done.returncode not in (0, 1):  # check exits 1 on a failed expectation
            sys.exit(f"{name} failed ({done.returncode}):\n{done.stderr}")
        if name == "card-value":
            shutil.copytree(root / "run" / "run" / "forks", d / "forks")
        (d / "stdout.txt").write_text(_normalise(done.stdout, root) +
                                      f"exit {done.returncode}\n", encoding="utf-8")
        print(f"{name:<17} {seconds:6.1f} s", flush=True)


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and not IGNORED.search(str(p.relative_to(root)))}


def _without_seconds(path: Path) -> bytes | object:
    """A file with its `seconds` column (a candidate's measuring time) left out: tables
    (CSV, Parquet) and the Markdown and HTML tables of a report; other files as bytes."""
    if path.suffix in (".csv", ".parquet"):
        import polars as pl

        frame = pl.read_csv(path) if path.suffix == ".csv" else pl.read_parquet(path)
        if "seconds" in frame.columns:
            return frame.drop("seconds").to_dicts()
    if path.suffix in (".md", ".html"):  # and a calibration's minutes of measuring
        text = _MINUTES.sub("<t>", path.read_text(encoding="utf-8"))
        return _drop_column(text, "seconds")
    return path.read_bytes()


def _drop_column(text: str, name: str) -> list[str]:
    """The text as tokens, every cell below a header cell `name` blanked: in Markdown
    tables (| a | b |) and in HTML tables (<th>a</th> ... <td>...</td>)."""
    from html.parser import HTMLParser

    tokens: list[str] = []
    column = None
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if line.startswith("|") and name in cells:
            column = cells.index(name)
        elif line.startswith("|") and column is not None and column < len(cells):
            cells[column] = "-"
        elif not line.startswith("|"):
            column = None
        tokens.append("|".join(cells) if line.startswith("|") else line)
    if "<table" not in text:
        return tokens

    class Cells(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.out: list[str] = []
            self.col, self.blank, self.cell, self.skip = -1, None, "", False

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.blank = None
            elif tag == "tr":
                self.col = -1
            elif tag in ("td", "th"):
                self.col, self.cell = self.col + 1, ""
                self.skip = tag == "td" and self.col == self.blank
            self.out.append(f"<{tag} {[] if self.skip else attrs}>")

        def handle_data(self, data):
            self.cell += data
            self.out.append("-" if self.skip else data)

        def handle_endtag(self, tag):
            if tag == "th" and self.cell.strip() == name:
                self.blank = self.col
            if tag in ("td", "th"):
                self.skip = False
            self.out.append(f"</{tag}>")

    parser = Cells()
    parser.feed(text)
    return parser.out


def diff(a: Path, b: Path) -> int:
    fa, fb = files(a), files(b)
    bad = 0
    for name in sorted(fa ^ fb):
        print(f"only in {'the first' if name in fa else 'the second'}: {name}")
        bad += 1
    same = sorted(fa & fb)
    for name in same:
        if not filecmp.cmp(a / name, b / name, shallow=False) and \
                _without_seconds(a / name) != _without_seconds(b / name):
            print(f"differs: {name}")
            bad += 1
    cases = sorted({n.split("/", 1)[0] for n in fa | fb})
    print(f"{len(fa & fb) + len(fa ^ fb) - bad} of {len(fa | fb)} files identical over "
          f"{len(cases)} cases ({', '.join(cases)}); {bad} differ")
    return 1 if bad else 0


def hashes(root: Path) -> None:
    """sha256 of every Parquet file of a recording, one line each (to quote in a note)."""
    import hashlib

    for path in sorted(root.rglob("*.parquet")):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        print(f"{digest[:16]}  {path.relative_to(root)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    rec = sub.add_parser("record", help="run every case into FOLDER")
    rec.add_argument("folder", type=Path)
    rec.add_argument("--only", help="comma-separated case names")
    dif = sub.add_parser("diff", help="compare two recorded folders")
    dif.add_argument("a", type=Path)
    dif.add_argument("b", type=Path)
    sub.add_parser("hashes", help="sha256 of every Parquet file").add_argument(
        "folder", type=Path)
    args = ap.parse_args()
    if args.what == "record":
        record(args.folder.resolve(), args.only.split(",") if args.only else None)
    elif args.what == "hashes":
        hashes(args.folder)
    else:
        sys.exit(diff(args.a, args.b))


if __name__ == "__main__":
    main()
