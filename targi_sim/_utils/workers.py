"""Worker processes end when the process that started them dies.

joblib's loky workers outlive a parent killed with SIGKILL (no atexit, no shutdown
message): re-parented to init, a busy one finishes its chunk -- minutes of CPU in a large
run or sweep -- and an idle one waits out loky's idle timeout (5 minutes), keeping loky's
resource tracker alive too. So every process pool of the toolkit is opened as
`Parallel(..., backend=loky_backend())`: loky's backend with an initializer, which every
worker runs when it starts (respawned ones too), before its first task. It starts a daemon
watchdog thread that polls `os.getppid()` every `POLL_SECONDS` and calls `os._exit` as
soon as it changes: the kernel re-parents an orphan at once, so the change is the
parent's death, whatever killed it.

Why a thread polling the parent pid, not prctl(PR_SET_PDEATHSIG): that signal is tied to
the parent *thread* that forked the worker, and loky spawns replacement workers from its
executor-manager thread, so a worker would be killed when that thread ends while the
parent lives on; it is also Linux-only. Polling works on every POSIX system and is only
as late as one poll. The engine releases the GIL in compiled code (nogil), so the thread
runs while a worker plays games; Python code holding the GIL only delays it.

The initializer knows the pid of the process that opened the pool (loky starts workers
by fork+exec from it, so it is their parent). A worker whose parent already differs at
start exits at once if that process is dead (it died while the worker started) and is
otherwise left alone (some other start method: its own parent owns it). Dask workers are
the cluster's and get none of this.
"""

from __future__ import annotations

import os
import threading
import time
from functools import cache
from typing import Any

POLL_SECONDS = 0.5
ORPHAN_EXIT_CODE = 70  # what an orphaned worker exits with (EX_SOFTWARE)


def loky_backend() -> Any:
    """A joblib loky backend whose workers end within a poll of this process's death."""
    return _backend_class()()


@cache
def _backend_class() -> type:
    from joblib._parallel_backends import LokyBackend

    class OrphanSafeLokyBackend(LokyBackend):
        def configure(self, n_jobs: int = 1, parallel: Any = None, **kwargs: Any) -> int:
            kwargs.setdefault("initializer", watch_parent)
            kwargs.setdefault("initargs", (os.getpid(),))
            return super().configure(n_jobs, parallel, **kwargs)

    return OrphanSafeLokyBackend


def watch_parent(parent: int) -> None:
    """In a worker: exit when `parent` (the process that started it) is gone."""
    if os.getppid() == parent:
        threading.Thread(target=_watch, args=(parent,), name="targi-sim-orphan-watch",
                         daemon=True).start()
    elif not _alive(parent):
        os._exit(ORPHAN_EXIT_CODE)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    os._exit(ORPHAN_EXIT_CODE)


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped, does not)."""
    if os.path.isdir("/proc/self"):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(") ", 1)[1][:1] != "Z"
        except OSError:
            return False
    try:  # no /proc (macOS): ask the kernel
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


__all__ = ["ORPHAN_EXIT_CODE", "POLL_SECONDS", "loky_backend", "watch_parent"]
