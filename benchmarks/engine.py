"""Engine speed, compile time and memory, printed as one table.

    python benchmarks/engine.py                  # 200,000 games x 5 runs per mode
    python benchmarks/engine.py --games 50000 --repeats 3

Random-vs-random games on the base deck and default rules, played by the
compiled batch function (targi_sim.engine.batch.play_batch, through
targi_sim.play.games.run_batch) with logs on and with logs off. Each mode runs in its
own subprocess pinned to one CPU, warms up, then times `--repeats` runs of
`--games` games and reports the median games/s and that process's peak RSS.
Compile time is measured in fresh subprocesses: cold with TARGI_SIM_CACHE_DIR
pointing at an empty temporary directory, then cached with the same directory.
Numbers depend on the machine and its load; nothing here asserts on them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from common import cpu_model as _cpu_model  # noqa: E402 - script dir on sys.path
from common import peak_rss_mb as _peak_rss_mb
from common import pin_one_cpu as _pin_one_cpu
from common import print_table, spawn

ROOT = Path(__file__).resolve().parent.parent






def _plan(n: int):
    """Engine inputs for n random-vs-random games (base deck, default rules)."""
    from targi_sim.play.match import prepare_match
    from targi_sim.play.pairing import game_plan

    match = prepare_match(("random", "random"))
    seeds, first, ids = game_plan(n, seed=0)
    return match, seeds, first, ids


def worker_speed(games: int, repeats: int, logs: bool) -> dict:
    """Runs in a subprocess: warm up, then time `repeats` batches of `games` games."""
    pinned = _pin_one_cpu()
    from targi_sim.play.games import run_batch

    match, seeds, first, ids = _plan(games)
    run_batch(match, seeds[:200], first[:200], ids[:200], logs=logs)  # warm-up
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run_batch(match, seeds, first, ids, logs=logs)
        rates.append(games / (time.perf_counter() - t0))
    return {"rates": rates, "rss_mb": _peak_rss_mb(), "pinned": pinned}


def worker_compile() -> dict:
    """Runs in a subprocess: time the import and the first game (compile or cache load)."""
    _pin_one_cpu()
    t0 = time.perf_counter()
    from targi_sim.play.games import run_batch

    match, seeds, first, ids = _plan(1)
    t1 = time.perf_counter()
    run_batch(match, seeds, first, ids, logs=False)
    t2 = time.perf_counter()
    return {"import_s": t1 - t0, "first_game_s": t2 - t1}






def _spawn(args: list[str], env: dict[str, str] | None = None) -> dict:
    return spawn(__file__, args, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000, help="games per timed run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per mode")
    parser.add_argument("--worker", choices=("logs-on", "logs-off", "compile"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.games < 1 or args.repeats < 1:
        parser.error("--games and --repeats must be at least 1")

    if args.worker == "compile":
        print(json.dumps(worker_compile()))
        return
    if args.worker:
        print(json.dumps(worker_speed(args.games, args.repeats, args.worker == "logs-on")))
        return

    import numba

    import targi_sim

    print(f"targi-sim {targi_sim.__version__} engine benchmark: random vs random, "
          "deck base, rules default", flush=True)
    print(f"python {platform.python_version()}, numba {numba.__version__}, {_cpu_model()}",
          flush=True)

    with tempfile.TemporaryDirectory(prefix="targi-sim-bench-cache-") as cache:
        env = {**os.environ, "TARGI_SIM_CACHE_DIR": cache}
        env.pop("NUMBA_DISABLE_JIT", None)
        print("measuring compile time (cold, then cached) ...", flush=True)
        cold = _spawn(["--worker", "compile"], env)
        cached = _spawn(["--worker", "compile"], env)
        speed = {}
        for mode in ("logs-off", "logs-on"):
            print(f"measuring {mode}: {args.repeats} x {args.games:,} games ...", flush=True)
            speed[mode] = _spawn(
                ["--worker", mode, "--games", str(args.games), "--repeats", str(args.repeats)],
                env,
            )

    rows = []
    for mode in ("logs-off", "logs-on"):
        r = speed[mode]["rates"]
        rows.append((f"games/s, {mode.replace('-', ' ')} (median)",
                     f"{statistics.median(r):,.0f}", f"min {min(r):,.0f}, max {max(r):,.0f}"))
    for mode in ("logs-off", "logs-on"):
        rows.append((f"peak RSS, {mode.replace('-', ' ')}", f"{speed[mode]['rss_mb']:,.0f} MB",
                     f"whole worker process, {args.games:,} games per batch"))
    rows.append(("compile, cold (empty cache)", f"{cold['first_game_s']:.1f} s",
                 f"first game; import {cold['import_s']:.2f} s"))
    rows.append(("compile, cached", f"{cached['first_game_s']:.2f} s",
                 f"first game; import {cached['import_s']:.2f} s"))

    pinned = speed["logs-off"]["pinned"]
    print()
    print(f"{args.repeats} timed runs x {args.games:,} games per mode after a warm-up, "
          f"one core ({pinned})")
    print_table(rows)


if __name__ == "__main__":
    main()
