"""Start-up cost: cold engine compiles, the cached load, a plug-in on a warm engine.

    python benchmarks/startup.py                 # every measure once, fresh caches
    python benchmarks/startup.py --repeats 3     # median of 3 fresh-cache runs each
    python benchmarks/startup.py --table         # plus the per-function compile table

Each measure runs in a fresh Python process with its own empty compile cache
(TARGI_SIM_CACHE_DIR pointing at a new temporary folder), so nothing is reused:
* cold random vs random: the generic engine build and the random policy;
* cold balanced vs balanced: the build with the heuristic inside (engine/ask.py),
  which is what the README's main command needs;
* cold balanced after random: the heuristic build when the generic one is cached;
* warm balanced vs balanced: a second process on the cache the cold run filled;
* the plug-in data/strategies/card-rush.py, compiled on top of a warm engine.
Times are from `import targi_sim` to the end of the first game (import included).
`--table` prints numba's per-function compile times for the cold balanced run (the
"numba:compile" events, exclusive of nested compiles), largest first.
Numbers depend on the machine and its load; nothing here asserts on them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import cpu_model, git_label, print_table, spawn, speed_label  # noqa: E402 - script dir on path

PLUGIN = Path(__file__).resolve().parent.parent / "data" / "strategies" / "card-rush.py"


def worker(steps: list[str], table: bool) -> None:
    """Play one game per step (`a,b` strategy pairs; a path alone plays it vs random)."""
    t0 = time.perf_counter()
    events = []
    recording = recorder = None
    if table:
        from numba.core import event

        recording = event.install_recorder("numba:compile")
        recorder = recording.__enter__()
    import targi_sim

    out = {"import": time.perf_counter() - t0, "steps": []}
    for step in steps:
        a, b = step.split(",") if "," in step else (step, "random")
        t = time.perf_counter()
        targi_sim.play_games(2, strategies=(a, b), logs=False)
        out["steps"].append(time.perf_counter() - t)
    if recording is not None:
        recording.__exit__(None, None, None)
        events = _exclusive_times(recorder.buffer)
    out["total"] = time.perf_counter() - t0
    out["table"] = events
    print(json.dumps(out))


def _exclusive_times(buffer: list) -> list[tuple[str, float, int]]:
    """(function, exclusive seconds, compiles) from numba's nested compile events."""
    stack: list[list] = []
    excl: dict[str, float] = {}
    count: dict[str, int] = {}
    for ts, e in buffer:
        d = e.data["dispatcher"]
        name = f"{d.py_func.__module__.removeprefix('targi_sim.')}.{d.py_func.__name__}"
        if e.is_start:
            stack.append([name, ts, 0.0])
            continue
        n, start, child = stack.pop()
        excl[n] = excl.get(n, 0.0) + (ts - start) - child
        count[n] = count.get(n, 0) + 1
        if stack:
            stack[-1][2] += ts - start
    return sorted(((n, x, count[n]) for n, x in excl.items()), key=lambda r: -r[1])


def run(steps: list[str], cache: Path, table: bool = False) -> dict:
    env = {k: v for k, v in __import__("os").environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["TARGI_SIM_CACHE_DIR"] = str(cache)
    args = ["--worker", *steps] + (["--table"] if table else [])
    return spawn(__file__, args, env)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--worker", nargs="*")
    args = ap.parse_args()
    if args.worker is not None:
        worker(args.worker, args.table)
        return
    before = speed_label()
    results: dict[str, list[float]] = {k: [] for k in (
        "cold random", "cold balanced", "cold balanced after random", "warm balanced",
        "plug-in on a warm engine", "warm import")}
    table = None
    for r in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="targi-startup-") as tmp:
            a = run(["random,random", "balanced,balanced"], Path(tmp) / "a")
            results["cold random"].append(a["import"] + a["steps"][0])
            results["cold balanced after random"].append(a["steps"][1])
            b = run(["balanced,balanced"], Path(tmp) / "b", table=args.table and r == 0)
            results["cold balanced"].append(b["import"] + b["steps"][0])
            table = table or b["table"]
            w = run(["balanced,balanced", str(PLUGIN)], Path(tmp) / "b")
            results["warm balanced"].append(w["import"] + w["steps"][0])
            results["warm import"].append(w["import"])
            results["plug-in on a warm engine"].append(w["steps"][1])
    print(f"targi-sim start-up, {git_label()}, {cpu_model()}, python {sys.version.split()[0]}, "
          f"median of {args.repeats} fresh-cache run(s)")
    print(f"before: {before}; after: {speed_label()}")
    notes = {
        "cold random": "import + first game, empty cache: generic build + random policy",
        "cold balanced": "import + first game, empty cache: heuristic build (README command)",
        "cold balanced after random": "first balanced game when the generic build is cached",
        "warm balanced": "import + first game from the cache",
        "plug-in on a warm engine": "card-rush.py compiled alone against the cached engine",
        "warm import": "import targi_sim",
    }
    print_table([(k, f"{statistics.median(v):.1f} s", notes[k]) for k, v in results.items()])
    if table:
        total = sum(x for _, x, _ in table)
        print(f"\nper-function compile time, cold balanced (exclusive; {total:.1f} s in all):")
        for name, seconds, n in table[:40]:
            print(f"  {seconds:7.2f} s  {n:>2} x  {name}")


if __name__ == "__main__":
    main()
