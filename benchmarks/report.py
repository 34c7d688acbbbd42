"""Benchmark: `targi-sim report` on a 1e6-game balanced-vs-balanced run, and what the chunk
summaries cost the run (issue 31's bars).

Report: generates the run with the real runner once (default runs/bench-balanced-1e6
under the current folder, which git ignores when it is the repository root; about 1-2
minutes on 2 cores), printing its wall time and peak RSS (its largest process's, as
/usr/bin/time gives it, and the whole process tree's, sampled from /proc as
benchmarks/run.py does), and reuses it afterwards; then times `targi-sim report` in a
child process and prints the wall time (median of --repeats runs) and the peak RSS
(resource.getrusage(RUSAGE_CHILDREN): the largest process's; when the run is generated
in the same call that maximum includes the run's processes, so reuse a run for the
report's RSS). Targets: the report's wall time <= 0.2 x the run's (its wall time when
generated here, else the manifest's play seconds, which leave out loading the engine:
a stricter bar) and peak RSS <= 600 MB; for a 1e7-game run pass --rss-ref-mb with the
1e6 report's peak: the target is then <= 1.2 x that (and the run's largest process
<= 500 MB). The report reads the chunk summaries; the first report of a run made
before them computes them once (run it once before timing).

Run cost (--run-cost GAMES): `targi-sim run --games GAMES --jobs 2 --seed 4` with the
workers' summaries and without them (TARGI_SIM_NO_SUMMARIES=1 in the environment: each
worker process reads it, so on an external Dask cluster set it on the workers), the two
--repeats times each in ABBA order (with, without, without, with, ...: which one goes
first moved a single pair by more than the bar's margin); prints the median games/s of
each (the manifest's, play time without loading the engine) and of wall time, and, from
the completion markers, the summaries' share of the chunks' CPU inside the runs with
them and each mode's median chunk CPU (a worker's first chunk, which loads the engine,
left out); a status line shows each run's chunks, elapsed time and ETA. With --together
the two runs start at the same moment and share the machine, so that its drift over
minutes (several percent on a shared VM, more than the cost measured) slows both alike;
the status line shows both runs' chunks. Side by side, each run gets half the cores' workers
(--jobs defaults to cores / 2: one worker per core in all, as a run alone with --jobs
= cores has). With --jobs 2 each on 2 cores, four workers would time-share two cores,
and the switches cost the run whose worker touches more memory more than its own work:
4e6 games side by side, with vs without summaries, -5.5% at --jobs 2 each, -3.8% at
--jobs 1 each (1.6e6 games), where chunk by chunk in one process (summary_cost.py) they
cost 3.9%; two runs without summaries side by side at --jobs 2: -1.0%. Target: with
summaries within 5%.

    python benchmarks/report.py [--run DIR] [--games 1e6] [--jobs 2] [--repeats 3]
                                [--rss-ref-mb MB]
    python benchmarks/report.py --run-cost 2e5 [--jobs N] [--repeats 3] [--together]
    python benchmarks/report.py --compare [--run DIR] [--repeats 3]

Compare (--compare): times `targi-sim compare DIR DIR` instead (the run against itself:
both sides read, the balance verdict's bootstrap paired over the deals); target <= 0.2 x
the run's time for each of the two runs it reads.
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
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import timed_run  # noqa: E402

from targi_sim.runner import RunDir  # noqa: E402
from targi_sim.runner.config import DEFAULT_CHUNK  # noqa: E402

TARGET_RATIO = 0.2  # report wall / run wall
TARGET_RSS_MB = 600.0
RSS_GROWTH = 1.2  # a bigger run's report peak over the 1e6 report's
RUN_RSS_MB = 500.0  # a 1e7 run's peak
RUN_COST = 0.05  # the summaries may slow the run's games/s by this share at most
OFF = "TARGI_SIM_NO_SUMMARIES"


def _cli() -> list[str]:
    """This checkout's CLI (the installed `targi-sim` may be another checkout's)."""
    root = Path(__file__).resolve().parents[1]
    if (root / "cli" / "app.py").is_file():
        return [sys.executable, "-m", "cli.app"]
    exe = Path(sys.executable).with_name("targi-sim")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.app"]


def ensure_run(run: Path, games: str, jobs: int) -> float:
    """The run's wall time: measured when generated here, else its manifest's seconds."""
    manifest = run / "manifest.json"
    if manifest.is_file() and json.loads(manifest.read_text()).get("status") == "complete":
        seconds = float(json.loads(manifest.read_text())["timings"]["seconds"])
        print(f"reusing {run} (played in {seconds:.1f} s, its manifest says)")
        return seconds
    print(f"generating {run} ({games} games, balanced vs balanced, --jobs {jobs}) ...")
    seconds, peak = timed_run([*_cli(), "run", "--games", games, "--p0", "balanced", "--p1",
                               "balanced", "--out", str(run), "--jobs", str(jobs), "--quiet"])
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"generated in {seconds:.1f} s wall; peak RSS of its largest process {largest:.0f} "
          f"MB (as /usr/bin/time reports it; target for a 1e7 run <= {RUN_RSS_MB:.0f} MB), of "
          f"the whole process tree {peak / 2**20:.0f} MB; load average "
          f"{os.getloadavg()[0]:.2f}")
    return seconds


def _env(mode: str) -> dict[str, str]:
    """The environment of a run `with` or `without` the workers' summaries."""
    env = {k: v for k, v in os.environ.items() if k != OFF}
    if mode == "without":
        env[OFF] = "1"
    return env


def _markers(run: Path) -> list[Path]:
    return list((run / "chunks").glob("*.json"))


def warm_compile_cache() -> None:
    """Play a few games with summaries first, so that neither measured run compiles: a
    cache made stale by an edit would otherwise be rebuilt inside the run with summaries
    (the engine and the summary kernels, several seconds) and counted as its play."""
    print("warming the compile cache (a 20-game run with summaries) ...", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([*_cli(), "run", "--games", "20", "--jobs", "1", "--seed", "4",
                        "--out", str(Path(tmp) / "warm"), "--quiet"], env=_env("with"),
                       check=True, stdout=subprocess.DEVNULL)


def chunk_cpu(run: Path) -> tuple[list[float], list[float]]:
    """Each chunk's process CPU seconds and, of them, its summaries' (add, long form,
    digest, both writes), from the completion markers, in chunk order."""
    rd = RunDir(run)
    markers = [rd.read_marker(chunk) for chunk in sorted(rd.done_chunks())]
    return ([float(m["cpu_seconds"]) for m in markers],
            [float(m.get("summary_cpu_seconds", 0.0)) for m in markers])


def run_cost(games: str, jobs: int, repeats: int) -> bool:
    """Median games/s of `run` with and without the workers' summaries, in ABBA order
    (with, without, then without, with, ...): which one goes first moved a single pair
    by more than the bar's margin, as the VM's speed drifts over minutes. Also from the
    markers: the summaries' share of the chunks' CPU inside the runs with them, and each
    mode's median chunk CPU, which the drift of wall time between runs affects less."""
    warm_compile_cache()
    speed: dict[str, list[float]] = {"with": [], "without": []}
    walls: dict[str, list[float]] = {"with": [], "without": []}
    cpus: dict[str, list[float]] = {"with": [], "without": []}
    chunk: dict[str, list[float]] = {"with": [], "without": []}
    summary: list[float] = []
    loads = [os.getloadavg()[0]]
    for k in range(repeats):
        for mode in ("with", "without") if k % 2 == 0 else ("without", "with"):
            print(f"repeat {k + 1}/{repeats}: run --games {games} {mode} summaries ...",
                  file=sys.stderr)
            env = _env(mode)
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "run"
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.time()  # the markers' clock
                wall, _ = timed_run([*_cli(), "run", "--games", games, "--jobs", str(jobs),
                                     "--seed", "4", "--out", str(out), "--quiet"], env,
                                    tick=partial(_progress, k, repeats, start, {mode: out}))
                print(file=sys.stderr)
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                timings = json.loads((out / "manifest.json").read_text())["timings"]
                cpu, summed = chunk_cpu(out)
            speed[mode].append(float(timings["games_per_second"]))
            cpus[mode].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
            walls[mode].append(wall)
            chunk[mode] += cpu[jobs:]  # not a worker's first chunk, which loads the engine
            if mode == "with":
                summary += summed[jobs:]
            loads.append(os.getloadavg()[0])
            print(f"  {speed[mode][-1]:,.0f} games/s, wall {wall:.1f} s", file=sys.stderr)
    w, wo = (statistics.median(speed[m]) for m in ("with", "without"))
    for mode in speed:
        print(f"{mode} summaries: {statistics.median(speed[mode]):,.0f} games/s median "
              f"({', '.join(f'{x:,.0f}' for x in speed[mode])}), wall median "
              f"{statistics.median(walls[mode]):.1f} s, CPU median "
              f"{statistics.median(cpus[mode]):.1f} s user+sys (the command and the workers "
              f"it waited for); a chunk's CPU median {statistics.median(chunk[mode]):.4f} s")
    share = sum(summary) / sum(chunk["with"])
    per_chunk = statistics.median(chunk["with"]) / statistics.median(chunk["without"]) - 1
    print(f"inside the runs with summaries: the summaries took {100 * share:.2f}% of the "
          f"chunks' CPU (median {1000 * statistics.median(summary):.1f} ms a chunk); a "
          "chunk's median CPU with vs without: "
          f"{100 * per_chunk:+.1f}%")
    print(f"run --games {games} --jobs {jobs} --seed 4, {repeats} repeats in ABBA order: "
          f"with summaries {100 * (w / wo - 1):+.1f}% games/s (target >= "
          f"{-100 * RUN_COST:.0f}%); load average {min(loads):.2f}-{max(loads):.2f}")
    return w >= (1 - RUN_COST) * wo


def run_cost_together(games: str, jobs: int, repeats: int) -> bool:
    """Games/s of the run with and without the workers' summaries, the two started at the
    same moment and sharing the machine (each with --jobs `jobs`), `repeats` times. Two
    runs one after the other differ by several percent on a shared VM as its speed
    drifts over minutes; side by side, the drift slows both alike. Each run's speed is
    counted over the same window, from the start until the first of the two finished
    (its games then: the chunks whose markers were written by then), so that the other
    one's last minutes alone on the machine do not count; their ratio is the measure
    (that window ends at a chunk's marker: meaningful for runs of many chunks)."""
    warm_compile_cache()
    ratios: list[float] = []
    for k in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            runs = {mode: Path(tmp) / mode for mode in ("with", "without")}
            procs = {}
            start = time.time()  # the markers' clock
            for mode, out in runs.items():
                procs[mode] = subprocess.Popen(
                    [*_cli(), "run", "--games", games, "--jobs", str(jobs), "--seed", "4",
                     "--out", str(out), "--quiet"], env=_env(mode),
                    stdout=subprocess.DEVNULL, stderr=(Path(tmp) / f"{mode}.err").open("w"))
            while any(proc.poll() is None for proc in procs.values()):
                time.sleep(2)
                _progress(k, repeats, start, runs)
            print(file=sys.stderr)
            for mode, proc in procs.items():
                if proc.returncode != 0:
                    sys.exit(f"run failed ({proc.returncode}):\n"
                             f"{(Path(tmp) / f'{mode}.err').read_text()}")
            done = {mode: [(f.stat().st_mtime, json.loads(f.read_text())["games"])
                           for f in _markers(out)] for mode, out in runs.items()}
            end = min(max(t for t, _ in chunks) for chunks in done.values())
            speed = {mode: sum(n for t, n in chunks if t <= end) / (end - start)
                     for mode, chunks in done.items()}
        ratios.append(speed["with"] / speed["without"])
        print(f"repeat {k + 1}: with summaries {speed['with']:,.0f} games/s, without "
              f"{speed['without']:,.0f}: {100 * (ratios[-1] - 1):+.1f}%", flush=True)
    ratio = statistics.median(ratios)
    print(f"run --games {games} --jobs {jobs} --seed 4, with and without summaries side by "
          f"side, {repeats} repeats: with summaries {100 * (ratio - 1):+.1f}% games/s (median; "
          f"target >= {-100 * RUN_COST:.0f}%)")
    return ratio >= 1 - RUN_COST


def _progress(k: int, repeats: int, start: float, runs: dict[str, Path]) -> None:
    """One status line: the runs' chunks so far (one run, or two side by side), elapsed
    time and ETA (from the slower run's share of its chunks)."""
    elapsed = time.time() - start
    markers = {mode: _markers(run) for mode, run in runs.items()}
    share = min(len(m) for m in markers.values()) / max(1, _chunks(runs))
    eta = f"ETA {elapsed * (1 - share) / share:.0f} s" if share else "ETA --"
    counts = ", ".join(f"{mode} {len(m)} chunks" for mode, m in markers.items())
    print(f"\rrepeat {k + 1}/{repeats}: {counts}; {elapsed:.0f} s elapsed, {eta}   ",
          end="", file=sys.stderr, flush=True)


def _chunks(runs: dict[str, Path]) -> int:
    """A run's chunk count, from the manifest the first of the runs has written (0 before)."""
    for run in runs.values():
        try:
            return int(json.loads((run / "manifest.json").read_text())["chunks"])
        except (OSError, ValueError, KeyError):
            continue
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", default="runs/bench-balanced-1e6")
    ap.add_argument("--games", default="1e6")
    ap.add_argument("--jobs", type=int, default=None,
                    help="workers per run (default 2; with --together, cores / 2)")
    ap.add_argument("--repeats", type=int, default=3, help="report runs; the median is printed")
    ap.add_argument("--rss-ref-mb", type=float, default=None,
                    help="the 1e6 report's peak RSS: the target becomes 1.2 x this")
    ap.add_argument("--run-cost", metavar="GAMES", default=None,
                    help="instead: the run's games/s with and without the summaries")
    ap.add_argument("--together", action="store_true",
                    help="with --run-cost: start the two runs at once, side by side")
    ap.add_argument("--compare", action="store_true",
                    help="time `compare RUN RUN` instead of `report RUN`")
    args = ap.parse_args()
    if args.jobs is None:
        args.jobs = max(1, (os.cpu_count() or 2) // 2) if args.together else 2
    if args.run_cost and not args.together:
        try:
            games = int(float(args.run_cost))
        except ValueError:
            ap.error(f"--run-cost: a number of games, not {args.run_cost!r}")
        if games <= args.jobs * DEFAULT_CHUNK:  # each worker's first chunk is left out
            ap.error(f"--run-cost: more than {args.jobs * DEFAULT_CHUNK:,} games at --jobs "
                     f"{args.jobs} (chunks of {DEFAULT_CHUNK:,}; each worker's first chunk, "
                     "which loads the engine, does not count)")
    if args.run_cost:
        cost = run_cost_together if args.together else run_cost
        ok = cost(args.run_cost, args.jobs, args.repeats)
        print("PASS" if ok else "FAIL")
        return 0 if ok else 1
    run = Path(args.run)
    run_seconds = ensure_run(run, args.games, args.jobs)
    load0 = os.getloadavg()[0]
    walls, cpus = [], []
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as out:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            command = (["compare", str(run), str(run)] if args.compare
                       else ["report", str(run)])
            subprocess.run([*_cli(), *command, "--out", out, "--quiet"], check=True)
            walls.append(time.perf_counter() - t0)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
    seconds = statistics.median(walls)
    peak_kb = r1.ru_maxrss
    rss_mb = peak_kb / 1024
    note = "" if peak_kb > before else " (at most; an earlier child peaked higher)"
    games = json.loads((run / "manifest.json").read_text()).get("counts", {}).get("games")
    rss_target = RSS_GROWTH * args.rss_ref_mb if args.rss_ref_mb else TARGET_RSS_MB
    target = TARGET_RATIO * run_seconds * (2 if args.compare else 1)
    what = "compare" if args.compare else "report"
    per = " per run read" if args.compare else ""
    print(f"{what} on {games:,} games, {args.repeats} repeats: wall median {seconds:.1f} s "
          f"(min {min(walls):.1f}, max {max(walls):.1f}; target <= {target:.1f} s = "
          f"{TARGET_RATIO} x the run's {run_seconds:.1f} s{per}), peak RSS {rss_mb:.0f} MB, "
          f"max over repeats{note} (target <= {rss_target:.0f} MB); CPU median "
          f"{statistics.median(cpus):.1f} s user+sys; load average before/after "
          f"{load0:.2f}/{os.getloadavg()[0]:.2f} (other processes on the machine slow the wall "
          "time)")
    ok = seconds <= target and rss_mb <= rss_target
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
