"""The `targi-sim` command line: a thin layer over the targi_sim Python API.

This module only assembles: it creates the typer app, adds each command from its own
module (what they share is in cli/common.py) and holds the entry point `main`.
Commands: run, replay, report, compare, check, play, ladder, tune, card-value, sweep,
balance, tournament, strategies [show|check], decks, rules, version.
User mistakes (bad numbers, unknown names, malformed data files) print one
`Error: ...` line on stderr and exit with code 2; Ctrl-C exits with 130, SIGTERM
with 143 and SIGHUP with 129 (cli/signals.py).
"""

from __future__ import annotations

import typer

from targi_sim import StrategyError

from . import (
    balance,
    calibrate,
    card_value,
    check,
    ladder,
    listing,
    play,
    replay,
    report,
    run,
    signals,
    sweep,
    tournament,
    tune,
)
from .common import show_fits
from .helptext import CONTEXT

app = typer.Typer(
    name="targi-sim",
    help="Simulate the 2-player card game Targi with a compiled engine.",
    epilog="Start with: targi-sim run --help",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=CONTEXT,  # help wraps to the terminal (COLUMNS), not 80 columns
)
for command in (run, replay, report, check, play, ladder, tune, card_value, sweep, balance,
                calibrate):
    command.register(app)
app.command()(listing.decks)
app.command()(listing.rules)
app.add_typer(listing.strategies_app, name="strategies")
app.command(epilog=tournament.TOURNAMENT_EPILOG)(tournament.tournament)
app.command()(listing.version)


def main() -> None:
    """Console-script entry point (after cli/launch.py has imported this module)."""
    signals.install()
    show_fits()
    try:
        app()
    except KeyboardInterrupt as exc:  # e.g. a stop before a command took over
        typer.echo("\nInterrupted.", err=True)
        raise SystemExit(signals.exit_code(exc)) from None
    except StrategyError as exc:  # a strategy misbehaved in play: one line, exit code 1
        typer.echo(f"Error: {exc}", err=True)
        raise SystemExit(1) from None
    except Exception:
        if not signals.pending:
            raise
        # the stop was raised inside library code that turned it into another error
        # (an import inside numba, a class body): it is still a stop
        typer.echo("\nInterrupted.", err=True)
        raise SystemExit(128 + signals.pending[-1]) from None
    except SystemExit as exc:
        stop = _stray_stop(exc)
        if stop is not None:
            typer.echo("\nInterrupted.", err=True)
            raise SystemExit(signals.exit_code(stop)) from None
        if exc.code in (0, None) and signals.pending:
            # a stop that landed where Python drops exceptions (a destructor, a weakref
            # callback) and let the command finish: it still ends as a stop
            typer.echo("\nInterrupted.", err=True)
            raise SystemExit(128 + signals.pending[-1]) from None
        raise


def _stray_stop(exc: SystemExit) -> KeyboardInterrupt | None:
    """The stop behind a silent exit: typer turns a KeyboardInterrupt that no command
    handler caught into `Exit(130) from` it, printing nothing. A command's own
    `typer.Exit(...) from None`, after its own message, has no such cause."""
    exit_ = exc.__context__
    cause = getattr(exit_, "__cause__", None)
    return cause if isinstance(cause, KeyboardInterrupt) else None


if __name__ == "__main__":
    main()
