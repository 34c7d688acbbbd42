"""Do the commands still write the same bytes? Record every search's outputs on fixed
seeds at a small but real size, then rerun them after a change and diff.

    python benchmarks/identical_outputs.py record /tmp/before      # on the old code
    python benchmarks/identical_outputs.py record /tmp/after       # on the new code
    python benchmarks/identical_outputs.py diff /tmp/before /tmp/after
    python benchmarks/identical_outputs.py record /tmp/x --only tune,balance

Each case runs one `targi-sim` command (one worker, --quiet) into CASE/ under the
folder and keeps its stdout as CASE/stdout.txt with times, speeds and the folder's
own path blanked out. `diff` compares every file of both folders byte for byte,
except the few that hold a time or a machine's path by design (IGNORED), and says
which differ. The sizes keep each command to tens of seconds on one core; the total
is a few minutes. Nothing here asserts on speed.
"""

from __future__ import annotations

import argparse
import filecmp
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
            "--chunk-size", "1000", "--jobs", "1", "--out", "{d}/run"],
    "card-value": ["card-value", "{root}/run/run", "--fork-rate", "0.25", "--jobs", "1"],
    "report": ["report", "{root}/run/run", "--out", "{d}/report"],
    "tune": ["tune", "balanced", "--against", "balanced,greedy", "--budget", "1600",
             "--deals", "10", "--popsize", "4", "--final-deals", "50", "--check-games",
             "400", "--seed", "3", "--jobs", "1", "--out", "{d}/tuned.toml"],
    "calibrate": ["calibrate", "--budget", "3", "--deals", "40", "--retune-budget", "0",
                  "--validate-deals", "80", "--finalists", "1", "--seed", "5", "--jobs",
                  "1", "--out", "{d}/cal"],
    "calibrate-retune": ["calibrate", "--levels", "balanced,tuned", "--retune-budget",
                         "20000", "--budget", "2", "--deals", "40", "--validate-deals", "80",
                         "--finalists", "1", "--seed", "6", "--jobs", "1", "--out", "{d}/cal"],
    "balance": ["balance", "--budget", "3000", "--block-deals", "100", "--blocks", "2",
                "--validate-deals", "200", "--seed", "2", "--jobs", "1", "--out",
                "{d}/bal"],
    "balance-levels": ["balance", "--levels", "greedy,balanced", "--retune-budget", "20000",
                       "--budget", "45000", "--block-deals", "100", "--blocks", "2",
                       "--validate-deals", "200", "--seed", "4", "--jobs", "1", "--out",
                       "{d}/bal"],
    "ladder": ["ladder", "--rungs", "random,greedy,balanced", "--games", "1000", "--seed",
               "1", "--jobs", "1", "--out", "{d}/ladder"],
    "sweep": ["sweep", "--games", "1000", "--set", SET, "--seed", "1", "--jobs", "1",
              "--out", "{d}/sweep"],
    "tournament": ["tournament", "-s", "random,greedy,balanced", "--games", "400", "--seed",
                   "2", "--out", "{d}/tournament"],
    "check": ["check", "{d}/baseline.toml", "--summary-md", "{d}/summary.md"],
}

# files that hold a time, a duration, a version or a path by design (compared: all else)
IGNORED = re.compile(r"(^|/)(manifest\.json|sweep\.json|ladder\.json|\.lock|"
                     r"[^/]*\.log|study\.journal|[^/]*\.tune-state\.pkl)$")
# in stdout: seconds, rates and the folder's path
_TIMES = re.compile(r"\d[\d,.]*\s*(s\b|games/s|forks/s|ms\b|min\b)|"
                    r"\d+(\.\d+)? s (wall|engine load)|ETA \S+|elapsed \S+")


def _normalise(text: str, root: Path) -> str:
    return _TIMES.sub("<t>", text.replace(str(root), "<root>"))


def record(root: Path, only: list[str] | None) -> None:
    root.mkdir(parents=True, exist_ok=True)
    exe = shutil.which("targi-sim", path=str(Path(sys.executable).parent)) or "targi-sim"
    for name, args in CASES.items():
        if only and name not in only:
            continue
        d = root / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        if name == "check":
            (d / "baseline.toml").write_text(BASELINE, encoding="utf-8")
        argv = [a.format(d=d, root=root) for a in args]
        if name == "card-value":  # forks go into the run's folder: keep them here too
            shutil.rmtree(root / "run" / "run" / "forks", ignore_errors=True)
        t0 = time.perf_counter()
        done = subprocess.run([exe, *argv, "--quiet"], capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if done.returncode not in (0, 1):  # check exits 1 on a failed expectation
            sys.exit(f"{name} failed ({done.returncode}):\n{done.stderr}")
        if name == "card-value":
            shutil.copytree(root / "run" / "run" / "forks", d / "forks")
        (d / "stdout.txt").write_text(_normalise(done.stdout, root) +
                                      f"exit {done.returncode}\n", encoding="utf-8")
        print(f"{name:<15} {seconds:6.1f} s", flush=True)


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and not IGNORED.search(str(p.relative_to(root)))}


def diff(a: Path, b: Path) -> int:
    fa, fb = files(a), files(b)
    bad = 0
    for name in sorted(fa ^ fb):
        print(f"only in {'the first' if name in fa else 'the second'}: {name}")
        bad += 1
    same = sorted(fa & fb)
    for name in same:
        if not filecmp.cmp(a / name, b / name, shallow=False):
            print(f"differs: {name}")
            bad += 1
    cases = sorted({n.split("/", 1)[0] for n in same})
    print(f"{len(same) - bad if bad <= len(same) else 0} of {len(fa | fb)} files identical "
          f"over {len(cases)} cases ({', '.join(cases)}); {bad} differ")
    return 1 if bad else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    rec = sub.add_parser("record", help="run every case into FOLDER")
    rec.add_argument("folder", type=Path)
    rec.add_argument("--only", help="comma-separated case names")
    dif = sub.add_parser("diff", help="compare two recorded folders")
    dif.add_argument("a", type=Path)
    dif.add_argument("b", type=Path)
    args = ap.parse_args()
    if args.what == "record":
        record(args.folder.resolve(), args.only.split(",") if args.only else None)
    else:
        sys.exit(diff(args.a, args.b))


if __name__ == "__main__":
    main()
