"""Helpers shared by the benchmark scripts: pinning, memory, worker processes, labels."""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pin_one_cpu() -> str:
    """Pin this process to a single CPU (Linux); returns a label for the report."""
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned"


def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / (1024 if sys.platform == "darwin" else 1)  # bytes on macOS, KiB else


def spawn(script: str, args: list[str], env: dict[str, str] | None = None) -> dict:
    """Run `script` with `args` in a fresh process; its last stdout line is JSON."""
    if env is None:
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    cmd = [sys.executable, str(Path(script).resolve()), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"benchmark worker failed: {' '.join(args)}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def reference_loop_seconds() -> float:
    """Seconds for 10 million CPython additions: how fast this machine is right now.

    The development VMs share their hosts: the same code measured 1.6x slower an hour
    later on the same VM. Benchmarks print this before and after they run, so a figure
    can be compared with another machine's (or another hour's) at the same index.
    """
    from targi_sim.play.builds import reference_loop_seconds as loop_seconds

    return loop_seconds(10_000_000)


def speed_label() -> str:
    seconds = reference_loop_seconds()
    return f"reference loop {seconds:.2f} s (10M CPython additions; lower = faster)"


def git_label() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=ROOT, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "targi_sim"],
                               capture_output=True, text=True, cwd=ROOT, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "git: unknown"
    n = len(dirty.splitlines())
    return f"git {head}" + (f" + {n} uncommitted file(s) under targi_sim/" if n else "")


def print_table(rows: list[tuple[str, str, str]]) -> None:
    """A plain-text measure | value | notes table, values right-aligned."""
    header = ("measure", "value", "notes")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    line = "+-" + "-+-".join("-" * w for w in widths) + "-+"
    print(line)
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print(line)
    for measure, value, notes in rows:
        print(f"| {measure.ljust(widths[0])} | {value.rjust(widths[1])} | "
              f"{notes.ljust(widths[2])} |")
    print(line)


def export(rev: str, into: Path) -> Path:
    """The source tree of `rev` as a folder (WORKTREE: this checkout), for A/B runs."""
    if rev == "WORKTREE":
        return ROOT
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def time_choices(py_strategy) -> list[float]:
    """Wrap a Python strategy's `choose` so each call's seconds are appended to the
    returned list (the bot benchmarks time the bot's own decisions)."""
    import time

    times: list[float] = []
    choose = py_strategy.choose

    def timed(*args):
        t0 = time.perf_counter()
        answer = choose(*args)
        times.append(time.perf_counter() - t0)
        return answer

    py_strategy.choose = timed
    return times

