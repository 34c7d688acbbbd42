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


def main() -> None:
    """Import the command line (catching a stop meanwhile), then run it."""
    from targi_sim.cli import signals  # small: imports only `signal`

    signals.install()
    try:
        from targi_sim.cli.app import main as run

        signals.check()  # a stop swallowed during the import (e.g. in a destructor)
    except KeyboardInterrupt:
        sys.stderr.write("\nInterrupted while starting.\n")
        raise SystemExit(128 + (signals.pending[-1] if signals.pending else signal.SIGINT)
                         ) from None
    run()


if __name__ == "__main__":
    main()
