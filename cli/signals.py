"""SIGTERM and SIGHUP stop a command the way Ctrl-C does.

Why: Ctrl-C raises KeyboardInterrupt, which every command turns into a clean stop:
joblib kills its worker processes, completed chunks are kept, one line says how to
resume. SIGTERM (`kill`, a job scheduler, a closing container) and SIGHUP (a closed
terminal) used to end only the main process, leaving its workers playing for a
minute. Their handler raises `Terminated`, a KeyboardInterrupt, so the same clean-up
runs; the exit code is then 128 + the signal number (143, 129), as a shell expects.
"""

from __future__ import annotations

import signal

EXIT_INTERRUPTED = 130  # 128 + SIGINT
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


class Terminated(KeyboardInterrupt):
    """The process was asked to stop by a signal other than SIGINT."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, _frame: object) -> None:
    raise Terminated(signum)


def install() -> None:
    """Make SIGTERM and SIGHUP raise Terminated in the main thread."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, _stop)


def exit_code(exc: BaseException) -> int:
    """The exit code for a stop: 130 for Ctrl-C, 128 + N for signal N."""
    return 128 + exc.signum if isinstance(exc, Terminated) else EXIT_INTERRUPTED
