"""Worker processes end with their parent (targi_sim._utils.workers): after `kill -9` of
a `targi-sim run` or `tournament`, its loky workers used to play on, re-parented to init,
for minutes. The tests run the real console script and look at its processes in /proc."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from targi_sim._utils.workers import _alive, loky_backend, watch_parent

posix_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="needs POSIX signals and /proc")


def _exe() -> str:
    found = shutil.which("targi-sim", path=str(Path(sys.executable).parent))
    assert found, "the targi-sim console script is not installed"
    return found


def _children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


@posix_only
@pytest.mark.parametrize("command", [
    ["run", "--games", "1e6", "--jobs", "2", "--out", "D", "--quiet"],
    ["tournament", "--strategies", "random,greedy", "--games", "1e6", "--jobs", "2",
     "--out", "T", "--quiet"],
], ids=["run", "tournament"])
def test_workers_end_within_seconds_of_a_kill_9_of_their_parent(tmp_path, command):
    log = (tmp_path / "stderr.txt").open("w")
    # its own session: every process it starts stays in process group proc.pid, so the
    # `finally` can kill leftovers even after they were re-parented
    proc = subprocess.Popen([_exe(), *command], cwd=tmp_path, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:  # until both workers play (past start-up: a task is running)
            kids = _children(proc.pid)
            workers = [k for k in kids if "LokyProcess" in _cmdline(k)]
            if len(workers) == 2 and min(_cpu_seconds(w) for w in workers) > 1.5:
                break
            assert proc.poll() is None, (tmp_path / "stderr.txt").read_text()
            assert time.monotonic() < deadline, f"no two busy workers: {kids}"
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while any(_alive(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = {k: _cmdline(k)[:90] for k in kids if _alive(k)}
        assert not left, f"still running 10 s after the parent was killed: {left}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        log.close()


def test_the_watchdog_stays_out_of_a_process_that_is_not_a_worker():
    """In a process whose parent is not the pool's owner but alive (not a worker of ours),
    watch_parent neither exits nor starts a thread."""
    threads = threading.active_count()
    watch_parent(os.getpid())  # our parent is not ourselves, and we are alive
    assert threading.active_count() == threads


def test_the_backend_passes_the_watchdog_to_loky():
    from joblib import Parallel, delayed

    assert Parallel(n_jobs=2, backend=loky_backend())(
        delayed(os.getppid)() for _ in range(2)) == [os.getpid()] * 2
