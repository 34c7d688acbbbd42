"""Shared assertions for command-line tests."""

from __future__ import annotations

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
