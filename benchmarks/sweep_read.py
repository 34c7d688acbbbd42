"""What a sweep's analysis costs per variant: its per-deal numbers read from the runs'
game digests (targi_sim.sweep.deals.deal_data) against the report's queries over all the
rows (deal_data_from_rows, the path before the digests), and what the digests cost on disk.

    python benchmarks/sweep_read.py [--games 1e5] [--repeats 3] [--run DIR]

Plays one balanced-mirror run (its chunks keep digests) into DIR
(default: a temporary folder) unless DIR already holds one, then times both paths,
interleaved, and prints the medians, the peak RSS of each path (a fresh process each) and
the bytes a game of the digests and of the whole run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PATHS = {"digests": "deal_data", "rows": "deal_data_from_rows"}


def _one(run: Path, path: str) -> float:
    """Time one path in a fresh process; returns (seconds, peak RSS MB) printed by it."""
    code = ("import resource, time; from targi_sim.runner.reading import read_run_info; "
            f"from targi_sim.sweep.deals import {PATHS[path]} as f; "
            f"info = read_run_info({str(run)!r}); t = time.perf_counter(); f(info); "
            "print(time.perf_counter() - t, "
            "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=float, default=1e5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--run", type=Path, default=None)
    args = ap.parse_args()
    run = args.run or Path(tempfile.mkdtemp(prefix="targi-sweep-read-")) / "run"
    if not (run / "manifest.json").exists():
        from targi_sim.runner import RunConfig, resolve_run
        from targi_sim.runner.dispatch import execute

        total = int(args.games)
        print(f"playing {total:,} games into {run} ...", flush=True)
        t, done = time.perf_counter(), 0

        def step(n: int) -> None:
            nonlocal done
            done += n
            elapsed = time.perf_counter() - t
            print(f"  {done:,}/{total:,} games, {elapsed:.0f} s elapsed, ETA "
                  f"{elapsed / done * (total - done):.0f} s", flush=True)

        execute(resolve_run(RunConfig(games=total, seed=20261204)), run, jobs=2,
                progress=step)
        print(f"  {time.perf_counter() - t:.1f} s", flush=True)
    times: dict[str, list[tuple[float, float]]] = {p: [] for p in PATHS}
    for r in range(args.repeats):
        for p in PATHS:
            times[p].append(_one(run, p))
            print(f"  repeat {r + 1}/{args.repeats} {p}: {times[p][-1][0]:.3f} s, "
                  f"{times[p][-1][1]:.0f} MB", flush=True)
    games = int(args.games)
    digest = sum(f.stat().st_size for f in (run / "summaries").glob("games-*.parquet"))
    total = sum(f.stat().st_size for f in run.rglob("*") if f.is_file())
    for p in PATHS:
        secs = statistics.median(t for t, _ in times[p])
        rss = max(m for _, m in times[p])
        print(f"{p:8s} median {secs:.3f} s over {args.repeats}, peak RSS {rss:.0f} MB")
    print(f"digests {digest / games:.1f} B/game of the run's {total / games:.1f} B/game")


if __name__ == "__main__":
    main()
