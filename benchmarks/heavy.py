"""The heavy commands timed beside the calibration loop: "normalised minutes" and the
answers they give (issue 47).

    python benchmarks/heavy.py --parts mirrors                     # one core, minutes
    python benchmarks/heavy.py --parts ladder --jobs 2             # the default ladder
    python benchmarks/heavy.py --parts balance,calibrate --jobs 2
    python benchmarks/heavy.py --parts ladder --baseline 1570e31   # and that revision's
    python benchmarks/heavy.py --parts ladder --ladder-args "--rungs random,greedy,balanced,tuned"

Parts (each alone with --parts; all four by default):
* mirrors: the balanced and the tuned mirror on one pinned core (`--games` games a
  trial, `--trials` trials, logs off, the base deck), each trial followed by a run of the
  calibration loop on the same core; prints games/s and the ratio to the loop (median
  of the trials' ratios). The bars: balanced >= 0.40x, tuned >= 0.30x.
* ladder: `targi-sim ladder --seed 4242` (the default rungs; `--ladder-args` replaces
  them for a cheap run). Bar: <= 8 normalised minutes.
* balance: `targi-sim balance --deck base --levels balanced,tuned`. Bar: <= 10.
* calibrate: `targi-sim calibrate --deck base-token-economy`. Bar: <= 8.

A command part prints the command it ran, its wall time, the loop's games/s measured
just before and just after it (the machine's clock; their mean is used), the normalised
minutes = wall minutes x loop games/s / 112,000 (a figure that holds across machines
of different speed), and the command's answer lines (its stdout, times blanked). With
`--baseline REV` the same command of revision REV (exported with `git archive`, its
own compile cache under `--cache-root`) runs next, timed the same way, and both
answers are printed one above the other, so faster never silently means different.

The loop: the shared calibration loop (`--loop`, default ../shared/tools/calib_loop.py
beside the checkout), run as `taskset -c 0 python LOOP 200000`. Nothing here asserts;
it prints whether each bar is met.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, cpu_model, export, git_label  # noqa: E402 - script dir on sys.path

LOOP_UNIT = 112_000  # games/s of the loop that a "normalised minute" is measured against
PARTS = ("mirrors", "ladder", "balance", "calibrate")
COMMANDS = {
    "ladder": ["ladder", "--seed", "4242"],
    "balance": ["balance", "--deck", "base", "--levels", "balanced,tuned"],
    "calibrate": ["calibrate", "--deck", "base-token-economy"],
}
BARS = {"ladder": 8.0, "balance": 10.0, "calibrate": 8.0}
MIRROR_BARS = {"balanced": 0.40, "tuned": 0.30}
_TIMES = re.compile(r"\b\d+(\.\d+)? ?(s|min|seconds)\b")


def loop_rate(loop: Path, cpu: int = 0) -> float:
    """The calibration loop's games/s on `cpu` (its best of three runs)."""
    cmd = ["taskset", "-c", str(cpu), sys.executable, str(loop), "200000"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def run_command(tree: Path, args: list[str], cache: Path, cwd: Path) -> tuple[float, str]:
    """`targi-sim ARGS` of the code in `tree`, from `cwd`: (wall seconds, stdout)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["PYTHONPATH"] = str(tree)
    env["TARGI_SIM_CACHE_DIR"] = str(cache)
    env["COLUMNS"] = "200"
    code = "import sys; from targi_sim.cli.launch import main; sys.exit(main())"
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        sys.exit(f"targi-sim {shlex.join(args)} failed ({done.returncode}):\n"
                 f"{done.stderr[-3000:]}")
    return seconds, done.stdout


def timed_part(name: str, args: list[str], tree: Path, label: str, loop: Path,
               cache: Path, work: Path) -> dict:
    """One command timed between two runs of the loop; prints and returns its figures."""
    cwd = work / f"{name}-{label}"
    cwd.mkdir(parents=True, exist_ok=True)
    before = loop_rate(loop)
    seconds, stdout = run_command(tree, args, cache, cwd)
    after = loop_rate(loop)
    rate = (before + after) / 2
    minutes = seconds / 60 * rate / LOOP_UNIT
    print(f"\n[{name}, {label}] targi-sim {shlex.join(args)}")
    print(f"  wall {seconds / 60:.1f} min; loop {before:,.0f} / {after:,.0f} games/s; "
          f"normalised {minutes:.1f} min (bar <= {BARS[name]:.0f}: "
          f"{'met' if minutes <= BARS[name] else 'NOT met'})", flush=True)
    if name == "calibrate":
        print(f"  {calibration_split(cwd / 'out', seconds)}", flush=True)
    answer = [_TIMES.sub("<t>", ln) for ln in stdout.splitlines() if ln.strip()]
    return {"minutes": minutes, "seconds": seconds, "answer": answer}


def calibration_split(out: Path, seconds: float) -> str:
    """Where a calibration's time went, from its own files: the search's candidates
    (candidates.csv) and the rest -- the validation's economies, each re-tuned
    `validate_retunes` times (validated.json, the folder's settings)."""
    import csv
    import json

    from targi_sim.searches import SETTINGS_FILE

    with open(out / "candidates.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    search = sum(float(r["seconds"] or 0) for r in rows)
    validated = json.loads((out / "validated.json").read_text())["validated"]
    raced = sum(bool(v.get("raced")) for v in validated)
    retunes = json.loads((out / SETTINGS_FILE).read_text())["validate_retunes"]
    return (f"search {search:.0f} s ({len(rows)} candidates); the rest {seconds - search:.0f} s: "
            f"{len(validated) - raced} validated economies x {retunes} re-tunes"
            f" (and {raced} steps stopped before their re-tunes)")


MIRROR_WORKER = r'''
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[3])})
from targi_sim.play.games import run_batch
from targi_sim.play.match import prepare_match
from targi_sim.play.pairing import game_plan
m = prepare_match((sys.argv[1], sys.argv[1]), "base", "default")
run_batch(m, *game_plan(500, 1), logs=False)
plan = game_plan(int(sys.argv[2]), 5)
print("ready", flush=True)
for _ in sys.stdin:
    t = time.perf_counter()
    run_batch(m, *plan, logs=False)
    print(time.perf_counter() - t, flush=True)
'''


def mirrors(loop: Path, games: int, trials: int, cpu: int) -> None:
    """Each mirror's games/s and its ratio to the loop, trial by trial on one core."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["PYTHONPATH"] = str(ROOT)
    print(f"\n[mirrors] {games:,} games a trial, {trials} trials, pinned to CPU {cpu}, "
          "each trial followed by the loop on the same CPU")
    for name, bar in MIRROR_BARS.items():
        proc = subprocess.Popen([sys.executable, "-c", MIRROR_WORKER, name, str(games),
                                 str(cpu)], env=env, cwd=ROOT, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
        if proc.stdout.readline().strip() != "ready":
            sys.exit(f"the {name} worker did not start")
        rates, ratios = [], []
        for _ in range(trials):
            proc.stdin.write("go\n")
            proc.stdin.flush()
            rate = games / float(proc.stdout.readline())
            clock = loop_rate(loop, cpu)
            rates.append(rate)
            ratios.append(rate / clock)
        proc.stdin.close()
        proc.wait()
        ratio = statistics.median(ratios)
        print(f"  {name} mirror: {statistics.median(rates):,.0f} games/s (median), "
              f"{ratio:.3f}x the loop (median of {trials}; range {min(ratios):.3f}-"
              f"{max(ratios):.3f}); bar >= {bar:.2f}x: {'met' if ratio >= bar else 'NOT met'}",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--baseline", default=None, help="a git revision: run its commands too")
    ap.add_argument("--ladder-args", default="", help="extra ladder options (e.g. --rungs)")
    ap.add_argument("--games", type=int, default=50_000, help="mirrors: games a trial")
    ap.add_argument("--trials", type=int, default=5, help="mirrors: trials")
    ap.add_argument("--cpu", type=int, default=0)
    ap.add_argument("--loop", type=Path,
                    default=ROOT.parent / "shared" / "tools" / "calib_loop.py")
    ap.add_argument("--cache-root", type=Path,
                    default=Path(tempfile.gettempdir()) / "targi-heavy")
    ap.add_argument("--work", type=Path, default=None,
                    help="folder for the commands' outputs (default: a temporary one)")
    args = ap.parse_args()
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        ap.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    if not args.loop.is_file():
        ap.error(f"no calibration loop at {args.loop} (--loop)")
    print(f"heavy.py on {git_label()}, {cpu_model()}, {os.cpu_count()} CPUs; "
          f"load average {os.getloadavg()[0]:.1f}")
    if "mirrors" in parts:
        mirrors(args.loop, args.games, args.trials, args.cpu)
    with tempfile.TemporaryDirectory(prefix="targi-heavy-") as tmp:
        work = args.work or Path(tmp)
        own = os.environ.get("TARGI_SIM_CACHE_DIR")
        trees = {"now": (ROOT, Path(own) if own else args.cache_root / "now")}
        if args.baseline:
            trees[args.baseline] = (export(args.baseline, Path(tmp) / "baseline"),
                                    args.cache_root / args.baseline.replace("/", "_"))
        for name in (p for p in parts if p != "mirrors"):
            command = [*COMMANDS[name], "--jobs", args.jobs, "--out", "out", "--quiet"]
            if name == "ladder":
                command += shlex.split(args.ladder_args)
            answers = {}
            for label, (tree, cache) in trees.items():
                answers[label] = timed_part(name, command, tree, label, args.loop, cache,
                                            work)["answer"]
            for label, lines in answers.items():
                print(f"  answer ({label}):")
                for line in lines:
                    print(f"    {line}")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
