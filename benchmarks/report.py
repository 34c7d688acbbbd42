"""Benchmark: `targi-sim report` on a 1e6-game balanced-vs-balanced run.

Generates the run with the real runner once (default runs/bench-balanced-1e6 under
the current folder, which git ignores when it is the repository root; about 1-2
minutes on 2 cores) and reuses it
afterwards, then times `targi-sim report` in a child process and prints the wall
time (median of --repeats runs) and the children's peak RSS
(resource.getrusage(RUSAGE_CHILDREN)).
Targets: <= 30 s and <= 2 GB.

    python benchmarks/report.py [--run DIR] [--games 1e6] [--jobs 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 30.0
TARGET_RSS_GB = 2.0


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("targi-sim")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.app"]


def ensure_run(run: Path, games: str, jobs: int) -> None:
    manifest = run / "manifest.json"
    if manifest.is_file() and json.loads(manifest.read_text()).get("status") == "complete":
        print(f"reusing {run}")
        return
    print(f"generating {run} ({games} games, balanced vs balanced, --jobs {jobs}) ...")
    t0 = time.perf_counter()
    subprocess.run([*_cli(), "run", "--games", games, "--p0", "balanced", "--p1", "balanced",
                    "--out", str(run), "--jobs", str(jobs), "--quiet"], check=True)
    print(f"generated in {time.perf_counter() - t0:.1f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", default="runs/bench-balanced-1e6")
    ap.add_argument("--games", default="1e6")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3, help="report runs; the median is printed")
    args = ap.parse_args()
    run = Path(args.run)
    ensure_run(run, args.games, args.jobs)
    load0 = os.getloadavg()[0]
    walls, cpus = [], []
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as out:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([*_cli(), "report", str(run), "--out", out, "--quiet"], check=True)
            walls.append(time.perf_counter() - t0)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
    seconds = statistics.median(walls)
    peak_kb = r1.ru_maxrss
    rss_gb = peak_kb / 1024**2
    note = "" if peak_kb > before else " (at most; an earlier child peaked higher)"
    games = json.loads((run / "manifest.json").read_text()).get("counts", {}).get("games")
    print(f"report on {games:,} games, {args.repeats} repeats: wall median {seconds:.1f} s "
          f"(min {min(walls):.1f}, max {max(walls):.1f}; target <= {TARGET_SECONDS:.0f}), "
          f"peak RSS {rss_gb:.2f} GB, max over repeats{note} (target <= {TARGET_RSS_GB:.0f}); "
          f"CPU median {statistics.median(cpus):.1f} s user+sys; load average before/after "
          f"{load0:.2f}/{os.getloadavg()[0]:.2f} (other processes on the machine slow the wall "
          "time)")
    ok = seconds <= TARGET_SECONDS and rss_gb <= TARGET_RSS_GB
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
