"""Interleaved A/B speed of two versions of the engine on a noisy machine.

    python benchmarks/ab.py 1b238c2 HEAD                        # balanced mirror
    python benchmarks/ab.py 1b238c2 HEAD --pairing tuned,tuned --trials 30
    python benchmarks/ab.py main WORKTREE --games 10000         # WORKTREE: this checkout

On a shared VM the speed of the same code drifts by 1.5x within an hour, so two
separate benchmark runs cannot be compared. Here each version (a git revision,
exported with `git archive`, or WORKTREE for the files as they are) gets its own
worker process pinned to the same CPU, with its own compile cache, and the two play
the same games in alternating short trials (ABBA order); the drift then hits both
alike. Prints best, 75th percentile and median games/s of each, and the ratio of the
medians of the per-round pairs. Each version compiles once into
`--cache-root/<name>` (kept, so a rerun starts warm). Nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import export, speed_label  # noqa: E402 - script dir on sys.path

WORKER = r'''
import os, sys, time
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {int(sys.argv[4])})
try:  # the package layout (2026-12-04 on)
    from targi_sim.play.games import run_batch
    from targi_sim.play.match import prepare_match
    from targi_sim.play.pairing import game_plan
except ImportError:  # revisions before it: targi_sim.api, Match.play
    from targi_sim.api import game_plan, prepare_match
    def run_batch(match, *plan, logs=False):
        return match.play(*plan, logs=logs)
m = prepare_match((sys.argv[1], sys.argv[2]), "base", "default")
run_batch(m, *game_plan(200, 1), logs=False)        # compile or load, warm up
plan = game_plan(int(sys.argv[3]), 5)
print("ready", flush=True)
for _ in sys.stdin:
    t = time.perf_counter()
    run_batch(m, *plan, logs=False)
    print(time.perf_counter() - t, flush=True)
'''


def start(tree: Path, cache: Path, pairing: list[str], games: int, cpu: int):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["PYTHONPATH"] = str(tree)
    env["TARGI_SIM_CACHE_DIR"] = str(cache)
    proc = subprocess.Popen([sys.executable, "-c", WORKER, *pairing, str(games), str(cpu)],
                            env=env, cwd=tree, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    if proc.stdout.readline().strip() != "ready":
        sys.exit(f"the worker for {tree} did not start")
    return proc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--pairing", default="balanced,balanced",
                    help="two strategies A,B (one name: its mirror)")
    ap.add_argument("--games", type=int, default=4000, help="games per trial")
    ap.add_argument("--trials", type=int, default=20, help="trials per version")
    ap.add_argument("--cpu", type=int, default=min(os.sched_getaffinity(0))
                    if hasattr(os, "sched_getaffinity") else 0)
    ap.add_argument("--cache-root", default=str(Path(tempfile.gettempdir()) / "targi-ab"))
    args = ap.parse_args()
    pairing = [name.strip() for name in args.pairing.split(",") if name.strip()]
    if len(pairing) == 1:
        pairing *= 2  # one name: the mirror
    if len(pairing) != 2:
        ap.error(f"--pairing takes one or two strategy names; got {args.pairing!r}")
    print(f"A = {args.a}, B = {args.b}; {' vs '.join(pairing)}, {args.trials} trials of "
          f"{args.games:,} games each, pinned to CPU {args.cpu}; {speed_label()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="targi-ab-") as tmp:
        procs = {}
        for label, rev in (("A", args.a), ("B", args.b)):
            tree = export(rev, Path(tmp) / label)
            cache = Path(args.cache_root) / f"{label}-{rev.replace('/', '_')}"
            procs[label] = start(tree, cache, pairing, args.games, args.cpu)
        rates: dict[str, list[float]] = {"A": [], "B": []}
        for t in range(args.trials):
            for label in (("A", "B") if t % 2 == 0 else ("B", "A")):
                proc = procs[label]
                proc.stdin.write("go\n")
                proc.stdin.flush()
                rates[label].append(args.games / float(proc.stdout.readline()))
        for proc in procs.values():
            proc.stdin.close()
            proc.wait()
    for label, rev in (("A", args.a), ("B", args.b)):
        r = sorted(rates[label])
        print(f"{label} {rev:>12}: best {r[-1]:9,.0f}  p75 {r[int(0.75 * (len(r) - 1))]:9,.0f}"
              f"  median {statistics.median(r):9,.0f} games/s")
    ratio = statistics.median(b / a for a, b in zip(rates["A"], rates["B"], strict=True))
    print(f"B / A, median of the {args.trials} paired trials: {ratio:.3f}; {speed_label()}")


if __name__ == "__main__":
    main()
