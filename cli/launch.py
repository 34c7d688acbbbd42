"""The `targi-sim` command's entry point: a stop during start-up is one line, not a traceback.

Why a module of its own: importing the command line (numba, polars, DuckDB, the engine)
takes about half a second, and a Ctrl-C, SIGTERM or SIGHUP in that time used to end in
a KeyboardInterrupt traceback, before any of the CLI's handlers existed. This module
imports nothing heavy (`targi_sim` itself loads its names lazily), so it can catch the
stop around that import; the command then installs its own handlers (cli/signals.py).
"""

from __future__ import annotations

import signal
import sys

_stopped_by: list[int] = []


def _stop(signum: int, _frame: object) -> None:
    _stopped_by.append(signum)
    raise KeyboardInterrupt


def main() -> None:
    """Import the command line (catching a stop meanwhile), then run it."""
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _stop)
    try:
        from targi_sim.cli.app import main as run
    except KeyboardInterrupt:
        sys.stderr.write("\nInterrupted while starting.\n")
        raise SystemExit(128 + (_stopped_by[-1] if _stopped_by else signal.SIGINT)) from None
    run()


if __name__ == "__main__":
    main()
