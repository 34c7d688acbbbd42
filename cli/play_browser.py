"""`targi-sim play --browser`: play against a bot in a local web page; the games are kept
as a run directory (targi_sim.web, targi_sim.runner.playtest).

Prints the page's URL (token included) as one line on stdout, opens it unless --no-open,
and serves until Ctrl-C or SIGTERM; everything else goes to stderr.
"""

from __future__ import annotations

import contextlib
import errno
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape


def default_out(deck: str | None) -> Path:
    """runs/playtest-<deck> as typed: a shipped deck's name, a deck file's stem (a copy
    of base.toml edited as my-deck.toml plays into runs/playtest-my-deck)."""
    return Path("runs") / f"playtest-{Path(deck or 'base').stem}"


def play_in_browser(*, vs: str | None, deck: str | None, rules: str | None,
                    seed: str | None, out: str | None, port: str, no_open: bool,
                    command=None) -> None:
    """The command's body (options as typed; see cli/play.py); `command`, the play
    command, names the settings a library message quotes as its options."""
    from targi_sim import DataError, InputError, UsageError
    from targi_sim.runner.playtest import open_playtest
    from targi_sim.web.server import bind

    from .common import fail
    from .parse import ParseError, parse_seed, parse_whole_number
    from .signals import exit_code

    try:
        run_seed = parse_seed(seed) if seed is not None else None
        port_number = parse_whole_number(port, "--port", 0, 65535)
        out_dir = Path(out) if out else default_out(deck)
        pdir = open_playtest(out_dir, vs=vs, deck=deck, rules=rules, seed=run_seed,
                             command=["targi-sim", *sys.argv[1:]])
    except (ParseError, InputError, UsageError, DataError, ValueError) as exc:
        raise fail(str(exc), command=command) from None
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    setup = pdir.setup
    try:
        sock = bind(port_number)  # at once: a port in use is said before the engine loads
    except OSError as exc:
        raise fail(f"cannot serve on 127.0.0.1:{port_number}: {exc.strerror or exc}"
                   + (" (the port is in use: give another --port, or 0 for a free one)"
                      if exc.errno == errno.EADDRINUSE else "")) from None
    try:
        with pdir.rd.locked():
            with _loading(err, "Loading the engine (a machine's first start compiles it: "
                               "minutes)..."):
                table, server = _prepare(pdir, sock)
            typer.echo(server.url)  # the one line on stdout: what a script or person opens
            sys.stdout.flush()
            opened = not no_open and _open_browser(server.url)
            err.print(f"Playing against {escape(setup.bot.name)} (deck {escape(setup.deck.name)}"
                      f", rules {escape(setup.rules.name)}, seed {setup.seed}); games are "
                      f"saved in {escape(str(out_dir))} ({table.finished} finished so far). "
                      + ("The page is opening in your browser" if opened else
                         "Open the address above in a browser on this machine")
                      + ". Ctrl-C stops; an unfinished game goes on where it was next time.")
            server.serve()
    except (InputError, UsageError, DataError) as exc:
        raise fail(str(exc), command=command) from None
    except OSError as exc:
        raise fail(f"cannot write the games to {out_dir}: {exc.strerror or exc}") from None
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM or SIGHUP (cli/signals.py)
        typer.echo(f"\nStopped. Finished games are in {out_dir}; an unfinished game is kept "
                   "and goes on where it was next time.", err=True)
        raise typer.Exit(exit_code(exc)) from None


@contextlib.contextmanager
def _loading(console: Console, text: str) -> Iterator[None]:
    """A status line with the seconds so far (on a terminal every second, in a log every
    10 s): the first start compiles for minutes and must not look stuck."""
    from .common import status
    from .logprogress import LogStatus

    def say(elapsed: float) -> str:
        return f"{text} {elapsed:.0f} s"

    with status(console, text, eager=True, describe=say) as shown:
        if isinstance(shown, LogStatus):
            yield
            return
        stop, t0 = threading.Event(), time.perf_counter()

        def tick() -> None:
            while not stop.wait(1.0):
                shown.update(say(time.perf_counter() - t0))

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()


def _prepare(pdir, sock):
    """Write what is owed to the run directory, deal or resume the game; the server."""
    from targi_sim.runner.chunks import warm_summaries
    from targi_sim.runner.config import RunConfig, resolve_run
    from targi_sim.web import PlayServer, PlayTable

    from . import signals

    setup = pdir.setup
    # the chunk-summary code, compiled once per machine, on one random game of the deck
    warm = resolve_run(RunConfig(games=1, p0="random", p1="random", deck=setup.deck,
                                 rules=setup.rules, chunk_size=1))
    warm_summaries(warm.spec(pdir.root / ".warm"))
    signals.check()
    pdir.create()
    pdir.sync()
    table = PlayTable(pdir)
    table.start()
    signals.check()
    return table, PlayServer(table, sock=sock)


def _open_browser(url: str) -> bool:
    """Open the page in the default browser; False where there is none to open. On Linux
    without a display no browser is started: Python's choice would then be a text
    browser (lynx, w3m) taking over the terminal the server prints to."""
    import os
    import webbrowser

    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY")
                                                 or os.environ.get("WAYLAND_DISPLAY")):
        return False
    with contextlib.suppress(Exception):  # no browser here is no error: the URL is printed
        return bool(webbrowser.open(url))
    return False


__all__ = ["default_out", "play_in_browser"]
