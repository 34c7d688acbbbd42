"""SIGTERM and SIGHUP stop a command the way Ctrl-C does.

Why: Ctrl-C raises KeyboardInterrupt, which every command turns into a clean stop:
joblib kills its worker processes, completed chunks are kept, one line says how to
resume. SIGTERM (`kill`, a job scheduler, a closing container) and SIGHUP (a closed
terminal) used to end only the main process, leaving its workers playing for a
minute. Their handler raises `Terminated`, a KeyboardInterrupt, so the same clean-up
runs; the exit code is then 128 + the signal number (143, 129), as a shell expects.

A stop is also *recorded* (`pending`): Python drops an exception raised while a
destructor or a weakref callback runs ("Exception ignored in ..."), so a signal that
lands there would be lost and the command would carry on. `check()` at the command's
checkpoints (engine loaded, each progress step) and at the very end of `main()` raises
a recorded stop again, so no stop after the handlers are installed is ever lost.
"""

from __future__ import annotations

import signal
import sys

EXIT_INTERRUPTED = 130  # 128 + SIGINT
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


class Terminated(KeyboardInterrupt):
    """The process was asked to stop by a signal other than SIGINT."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


pending: list[int] = []  # signals received, in order (shared with cli/launch.py)


def stop_exception(signum: int) -> KeyboardInterrupt:
    """The exception a stop by `signum` raises: KeyboardInterrupt for Ctrl-C."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _stop(signum: int, _frame: object) -> None:
    pending.append(signum)
    raise stop_exception(signum)


def _quiet_unraisable(unraisable) -> None:
    """Python's hook for exceptions it cannot raise (in a destructor, a ctypes callback
    such as llvmlite's object cache): a stop of ours landing there is recorded in
    `pending` already and acted on at the next checkpoint, so it prints no traceback;
    anything else goes to the default hook."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and pending:
        return
    sys.__unraisablehook__(unraisable)


def _record(signum: int, _frame: object) -> None:
    pending.append(signum)


def install(*, raise_now: bool = True) -> None:
    """Make SIGINT, SIGTERM and SIGHUP record the stop and (`raise_now`) raise in the
    main thread. While the command line imports, only record: an exception raised inside
    an import comes out as something else (numba turns it into an ImportError, a class
    body into a RuntimeError), so the stop is acted on once the import is done."""
    for sig in (signal.SIGINT, *STOP_SIGNALS):
        signal.signal(sig, _stop if raise_now else _record)
    sys.unraisablehook = _quiet_unraisable


def check() -> None:
    """Raise a recorded stop again (one that was swallowed where it first landed)."""
    if pending:
        raise stop_exception(pending[-1])


def exit_code(exc: BaseException) -> int:
    """The exit code for a stop: 130 for Ctrl-C, 128 + N for signal N."""
    if isinstance(exc, Terminated):
        return 128 + exc.signum
    return 128 + pending[-1] if pending else EXIT_INTERRUPTED
