"""The `targi-sim` command's entry point: a stop during start-up is one line, not a traceback.

Why a module of its own: importing the command line (numba, polars, DuckDB, the engine)
takes about half a second. A stop raised inside that import does not come out as a
KeyboardInterrupt (numba turns it into an ImportError, a class body into a RuntimeError),
so while it runs the handlers only record the stop (cli/signals.py), and it is acted on
once the import is done; the command then installs handlers that raise.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Import the command line (recording a stop meanwhile), then run it."""
    from targi_sim.cli import signals  # small: imports only `signal`

    signals.install(raise_now=False)
    try:
        from targi_sim.cli.app import main as run
    except BaseException:
        if not signals.pending:
            raise
    if signals.pending:  # stopped while starting: act on it now the import is done
        sys.stderr.write("\nInterrupted while starting.\n")
        raise SystemExit(128 + signals.pending[-1])
    run()


if __name__ == "__main__":
    main()
