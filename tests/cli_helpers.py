"""Shared assertions for command-line tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


def one_error_line(result, *needles: str) -> str:
    """A user mistake: exit 2, one `Error: ...` line naming the problem, no traceback."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def parquet_files(run: Path) -> dict[str, bytes]:
    """Every chunk table file of a run directory, by relative path: for byte comparisons."""
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.glob("*/part-*.parquet"))}


def kill_after_trials(args: list[str], journal: Path, trials: int) -> None:
    """Start the command `args`, SIGKILL its process group once its Optuna `journal`
    records `trials` finished trials (or after 300 s), and wait for it to die."""
    import os
    import signal
    import subprocess
    import time

    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline:
        if journal.is_file() and journal.read_text().count('"state":1') >= trials:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


# ------------------------------------------------------------ progress and stops
EVERY = 0.5  # seconds between progress lines the tests ask for (TARGI_SIM_PROGRESS_EVERY)
GAP = 5.0  # no stderr silence may reach this (the real interval is 10 s; here 0.5 s)


@dataclass
class Piped:
    """A command run with stderr not a terminal: its exit code, stdout, every stderr line
    with the time it arrived (seconds since the start), and when its last output (the
    result on stdout) arrived."""

    returncode: int
    stdout: str
    lines: list[tuple[float, str]]
    end: float

    def gaps(self) -> list[float]:
        times = [t for t, _ in self.lines] + [self.end]
        return [b - a for a, b in zip(times, times[1:], strict=False)]


def targi_sim() -> str:
    """The console script of this environment."""
    import sys

    return str(Path(sys.executable).parent / "targi-sim")


def piped(args: list[str], cwd: Path | None = None, timeout: float = 600) -> Piped:
    """Run `targi-sim ARGS` with stderr a pipe and progress lines due every EVERY s."""
    import os
    import subprocess
    import threading
    import time

    env = {**os.environ, "TARGI_SIM_PROGRESS_EVERY": str(EVERY), "COLUMNS": "200"}
    t0 = time.monotonic()
    proc = subprocess.Popen([targi_sim(), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd, env=env)
    lines: list[tuple[float, str]] = []
    out: list[tuple[float, str]] = []

    def read(stream, into) -> None:
        for line in stream:
            into.append((time.monotonic() - t0, line.rstrip("\n")))

    readers = [threading.Thread(target=read, args=(stream, into), daemon=True)
               for stream, into in ((proc.stderr, lines), (proc.stdout, out))]
    for r in readers:
        r.start()
    proc.wait(timeout=timeout)
    for r in readers:
        r.join(timeout=10)
    end = max([t for t, _ in out + lines], default=time.monotonic() - t0)
    return Piped(proc.returncode, "\n".join(line for _, line in out), lines, end)


def assert_steady_progress(p: Piped) -> None:
    """Plain progress lines (nothing animated), none of the silences between them (and
    before the end) as long as GAP: every phase of the command reports."""
    text = "\n".join(line for _, line in p.lines)
    assert p.returncode == 0, text[-3000:]
    assert len(p.lines) >= 2 and "\r" not in text and "\x1b[" not in text, text[-3000:]
    worst = max(p.gaps())
    assert worst < GAP, (worst, [f"{t:6.2f} {line}" for t, line in p.lines][-40:])


def kill_when(args: list[str], ready, cwd: Path | None = None, timeout: float = 300) -> None:
    """Start `targi-sim ARGS`, SIGKILL its process group as soon as `ready()` holds (a known
    amount of work is on disk), and wait for it to die; fails if it ended first."""
    import os
    import signal
    import subprocess
    import time

    proc = subprocess.Popen([targi_sim(), *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True, cwd=cwd)
    deadline = time.time() + timeout
    while not ready():
        assert proc.poll() is None, "the command ended before it could be killed"
        assert time.time() < deadline, "the work to wait for never appeared"
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
