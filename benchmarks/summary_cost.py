"""Benchmark: what the chunk summaries and game digests cost a worker, per chunk, measured
so that the machine's drift cancels.

Why: `report.py --run-cost` compares whole runs with and without summaries; on a shared
2-vCPU VM two runs of the same command differ by several percent from one minute to
the next, more than the few percent it measures. Here one process plays chunks of one
balanced run (the default chunk size, --seed 4) alternately with and without the
summaries (TARGI_SIM_NO_SUMMARIES, read per chunk), swapping the order in every other
pair, and reports the CPU time of each (time.process_time: every thread of the process)
as a median over the pairs and the share the summaries add. The chunks are written
(parts, markers, summaries, digests) exactly as a run's worker writes them.

    python benchmarks/summary_cost.py [--pairs 16] [--seed 4]

Target (issue 31): with summaries, a worker's games/s at most 5% below its games/s
without them (CPU time t_with <= t_without / 0.95).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from targi_sim.runner import RunConfig, RunDir, resolve_run
from targi_sim.runner import summaries as summ
from targi_sim.runner.chunks import run_chunk, warm_summaries
from targi_sim.runner.config import DEFAULT_CHUNK

TARGET = 0.05


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=16, help="chunk pairs (with, without)")
    ap.add_argument("--seed", type=int, default=4)
    args = ap.parse_args()
    if args.pairs < 1:
        ap.error("--pairs must be at least 1")
    chunk = DEFAULT_CHUNK
    run = resolve_run(RunConfig(games=chunk * (2 * args.pairs + 1), seed=args.seed,
                                p0="balanced", p1="balanced"))
    with tempfile.TemporaryDirectory() as tmp:
        spec = run.spec(Path(tmp) / "run")
        RunDir(spec.out).make_folders()
        t0 = time.perf_counter()
        print("loading the engine and the summary kernels, warming up on chunk 0 ...",
              flush=True)
        warm_summaries(spec)
        run_chunk(spec, 0)  # the first chunk pays for loading: left out
        cpu: dict[str, list[float]] = {"with": [], "without": []}
        started = time.perf_counter()
        for k in range(args.pairs):
            order = ("with", "without") if k % 2 == 0 else ("without", "with")
            for j, mode in enumerate(order):
                if mode == "without":
                    os.environ[summ.OFF] = "1"
                else:
                    os.environ.pop(summ.OFF, None)
                c0 = time.process_time()
                run_chunk(spec, 1 + 2 * k + j)
                cpu[mode].append(time.process_time() - c0)
            os.environ.pop(summ.OFF, None)
            done = time.perf_counter() - started
            eta = done / (k + 1) * (args.pairs - k - 1)
            print(f"\rpair {k + 1}/{args.pairs}: {done:.0f} s elapsed, ETA {eta:.0f} s",
                  end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    on, off = (statistics.median(cpu[m]) for m in ("with", "without"))
    diffs = sorted(a - b for a, b in zip(cpu["with"], cpu["without"], strict=True))
    share = statistics.median(diffs) / off
    slower = 1 - 1 / (1 + share)  # games/s lost: the bar's measure
    print(f"{args.pairs} pairs of {chunk:,}-game chunks (balanced, seed {args.seed}), "
          f"{time.perf_counter() - t0:.0f} s: CPU per chunk with summaries {on:.3f} s, "
          f"without {off:.3f} s (medians); the summaries add {1000 * statistics.median(diffs):.0f}"
          f" ms per chunk (median of the pairs' differences; quartiles "
          f"{1000 * diffs[len(diffs) // 4]:.0f}-{1000 * diffs[3 * len(diffs) // 4]:.0f} ms): "
          f"{100 * share:+.1f}% of a chunk's CPU, so {100 * slower:.1f}% fewer games/s "
          f"(target <= {100 * TARGET:.0f}%)")
    ok = slower <= TARGET
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
