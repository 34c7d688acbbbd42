"""Benchmark the main job: `targi-sim run` of 1e6 balanced-vs-balanced games with all tables.

Runs the real command line (a fresh process each time, engine loaded from the
compile cache) with --jobs 1 and --jobs 2, several times each, and prints the
median wall time, games/s, the peak resident memory of the whole process tree
(the command plus its worker processes, sampled every 100 ms from /proc), the
bytes written per game, and the speed-up from 1 to 2 jobs. It also checks that
both job counts wrote byte-identical Parquet files.

    python benchmarks/run.py                      # 1e6 games, 3 repeats per job count
    python benchmarks/run.py --games 2e5 --repeats 1

Targets (issue 4): <= 60 s wall and <= 1.5 GB peak RSS for 1e6 games on a 2-core
machine, and >= 1.8x speed-up from --jobs 1 to --jobs 2.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import cpu_model, git_label, print_table  # noqa: E402

SAMPLE_SECONDS = 0.1  # RSS sampling period: faster sampling steals CPU from the 2 busy workers
TICK_SECONDS = 5.0  # progress period of timed_run's tick
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its descendants (Linux /proc)."""
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            total += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
        stack.extend(_children(p))
    return total


def timed_run(args: list[str], env: dict[str, str] | None = None,
              tick: Callable[[], None] | None = None) -> tuple[float, int]:
    """(wall seconds, peak tree RSS in bytes) of one command (`env`: its environment);
    `tick`, if given, is called every TICK_SECONDS while it runs (a progress line)."""
    peak = 0
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        ticked = time.perf_counter()
        while not stop.is_set():
            peak = max(peak, tree_rss(proc.pid))
            if tick is not None and time.perf_counter() - ticked >= TICK_SECONDS:
                tick()
                ticked = time.perf_counter()
            stop.wait(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    stop.set()
    sampler.join()
    if proc.returncode != 0:
        sys.exit(f"run failed ({proc.returncode}):\n{err}")
    return wall, peak


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.glob("*/part-*.parquet")):
        h.update(str(p.relative_to(folder)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="1e6")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jobs", default="1,2", help="comma-separated job counts")
    ap.add_argument("--p0", default="balanced")
    ap.add_argument("--p1", default="balanced")
    ap.add_argument("--keep", default=None, help="keep the last run directory here")
    a = ap.parse_args()
    exe = shutil.which("targi-sim", path=str(Path(sys.executable).parent)) or "targi-sim"
    games = int(float(a.games))
    jobs_list = [int(j) for j in a.jobs.split(",")]
    work = Path(tempfile.mkdtemp(prefix="targi-bench-run-"))
    base = [exe, "run", "--games", str(games), "--p0", a.p0, "--p1", a.p1, "--quiet",
            "--force"]
    try:
        subprocess.run([exe, "run", "--games", "10", "--p0", a.p0, "--p1", a.p1, "--quiet",
                        "--out", str(work / "warm")], check=True, capture_output=True)
        results: dict[int, list[tuple[float, int]]] = {j: [] for j in jobs_list}
        digests: dict[int, str] = {}
        info: dict = {}
        for r in range(a.repeats):
            for j in jobs_list:
                out = work / f"jobs{j}"
                shutil.rmtree(out, ignore_errors=True)
                wall, peak = timed_run([*base, "--jobs", str(j), "--out", str(out)])
                results[j].append((wall, peak))
                digests[j] = digest(out)
                info = json.loads((out / "manifest.json").read_text())
                print(f"repeat {r + 1}, --jobs {j}: {wall:.1f} s wall, peak RSS "
                      f"{peak / 2**20:,.0f} MB", flush=True)
        counts = info["counts"]
        rows = []
        medians = {}
        for j in jobs_list:
            walls = [w for w, _ in results[j]]
            peaks = [p for _, p in results[j]]
            medians[j] = statistics.median(walls)
            rows.append((f"--jobs {j}: wall (median of {len(walls)})", f"{medians[j]:.1f} s",
                         f"min {min(walls):.1f}, max {max(walls):.1f}; "
                         f"{games / medians[j]:,.0f} games/s"))
            median_mb = statistics.median(peaks) / 2**20
            rows.append((f"--jobs {j}: peak RSS, process tree", f"{max(peaks) / 2**20:,.0f} MB",
                         f"max of {len(peaks)} runs (median {median_mb:,.0f} MB)"))
        if 1 in medians and 2 in medians:
            rows.append(("speed-up --jobs 1 -> 2", f"{medians[1] / medians[2]:.2f}x",
                         "target >= 1.8x"))
        rows.append(("bytes per game written", f"{counts['bytes'] / games:,.0f}",
                     f"{counts['bytes'] / 2**20:,.0f} MB in all, zstd Parquet"))
        rows.append(("rows", f"{sum(counts['rows'].values()):,}",
                     ", ".join(f"{k} {v:,}" for k, v in counts["rows"].items())))
        same = len(set(digests.values())) == 1
        rows.append(("identical files across --jobs", "yes" if same else "NO", str(digests)))
        print(f"\ntargi-sim run --games {games:,} --p0 {a.p0} --p1 {a.p1}; {cpu_model()}, "
              f"{os.cpu_count()} CPUs; python {sys.version.split()[0]}; {git_label()}")
        print_table(rows)
        if a.keep:
            shutil.rmtree(a.keep, ignore_errors=True)
            shutil.move(str(work / f"jobs{jobs_list[-1]}"), a.keep)
        if not same:
            sys.exit("files differ between job counts")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
