"""What every command shares: the one-line `Error:` exit, the progress bar, loading the
compiled engine with an honest compile estimate, the exit codes. Commands import this
module; cli/app.py only assembles them (so no command imports the app back).
"""

from __future__ import annotations

import time

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column
from rich.text import Text

from . import signals
from .logprogress import LogProgress, LogStatus

EXIT_USAGE = 2


def backend_option(what: str = "the games"):
    """The `--backend` option every command that plays many games shares."""
    return typer.Option("loky", "--backend", metavar="loky|dask",
                        help=f"Where {what} run: local processes (loky) or a Dask cluster "
                             "(dask).")


def scheduler_option():
    """The `--scheduler` option that goes with `backend_option`."""
    return typer.Option(None, "--scheduler", metavar="tcp://HOST:PORT",
                        help="Dask scheduler address for --backend dask (default: a local "
                             "cluster).")


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print one `Error:` line on stderr; the caller raises the returned Exit."""
    typer.echo(f"Error: {message}", err=True)
    return typer.Exit(code)


class _GamesPerSecond(ProgressColumn):
    """Games per second since the task started: chunks land in bursts, so a rate over
    the recent past jumps (111,102 then 12,774); the mean since the start does not."""

    def render(self, task: Task) -> Text:
        from .logprogress import rate_text

        unit = str(task.fields.get("unit", "games"))
        rate = _mean_rate(task)
        return Text(rate_text(rate, unit) if rate else f"-- {unit}/s", style="cyan")


class _Eta(ProgressColumn):
    """Time left at the mean rate since the start (the same rate as _GamesPerSecond)."""

    def render(self, task: Task) -> Text:
        rate = _mean_rate(task)
        if task.finished:
            return Text("ETA 0:00:00", style="progress.remaining")
        if not rate or task.total is None:
            return Text("ETA -:--:--", style="progress.remaining")
        left = int((task.total - task.completed) / rate)
        return Text(f"ETA {left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}",
                    style="progress.remaining")


def _mean_rate(task: Task) -> float | None:
    elapsed = task.finished_time if task.finished else task.elapsed
    if not task.completed or not elapsed:
        return None
    return task.completed / elapsed


def load_engine(console: Console, quiet: bool, matches: list) -> None:
    """Load the compiled engine builds these matches need; a build not compiled yet on
    this machine is compiled, showing the time so far and the expected total (the last
    first compile here, or the documented figure: targi_sim.play.builds)."""
    import threading

    from targi_sim.play.builds import build_of, estimate_seconds, is_compiled, load_build

    builds: dict[str, object] = {}
    for m in matches:
        builds.setdefault(build_of(m), m)
    for build, m in builds.items():
        if quiet or is_compiled(m):
            if quiet:
                load_build(m)
            else:
                with status(console, "Loading the compiled engine..."):
                    load_build(m)
            continue
        expect = estimate_seconds(m)
        t0 = time.perf_counter()

        def say(elapsed: float, expect: float = expect, build: str = build) -> str:
            if elapsed <= expect:
                left = f"about {expect - elapsed:.0f} s left"
            else:
                left = f"longer than the {expect:.0f} s expected"
            return (f"Compiling the engine ({build} build; once per machine and version, "
                    f"then cached): {elapsed:.0f} s, {left}")

        with status(console, say(0.0), eager=True, describe=say) as shown:
            stop = threading.Event()

            def tick(shown=shown, stop=stop, t0=t0, say=say) -> None:
                while not stop.wait(1.0):
                    shown.update(say(time.perf_counter() - t0))

            ticker = threading.Thread(target=tick, daemon=not isinstance(shown, LogStatus))
            if not isinstance(shown, LogStatus):  # a log line every 10 s is LogStatus's
                ticker.start()
            try:
                load_build(m)
            finally:
                stop.set()
                if ticker.is_alive():
                    ticker.join()
        console.print(f"Compiled the engine's {build} build in {time.perf_counter() - t0:.0f} s "
                      "(cached for next time).", highlight=False)
    signals.check()  # a stop swallowed while loading still stops the command here


def status(console: Console, text: str, eager: bool = False, describe=None):
    """A status line while something runs: rich's spinner on a terminal, plain lines in a
    log (cli/logprogress.py; `eager`: print the first text at once there too;
    `describe(elapsed)`: the line printed every 10 s there)."""
    if console.is_terminal:
        return console.status(text)
    return LogStatus(console, text, eager=eager, describe=describe)


def progress_bar(console: Console, quiet: bool, get_time=None) -> Progress | LogProgress:
    """The progress bar: fits an 80-column terminal on one line (the description is
    cut with an ellipsis, the bar takes what is left); games/s and ETA from the mean
    rate since the start. Not on a terminal (a CI log, a file): plain lines at least
    every 10 s or 10% of the work instead (cli/logprogress.py). `get_time`: a clock
    for tests."""
    if not quiet and not console.is_terminal:
        return LogProgress(console, get_time)
    return Progress(
        TextColumn("[progress.description]{task.description}",
                   table_column=Column(max_width=22, no_wrap=True, overflow="ellipsis")),
        BarColumn(bar_width=None, table_column=Column(ratio=1, min_width=8)),
        MofNCompleteColumn(),
        _GamesPerSecond(),
        TimeElapsedColumn(),
        _Eta(),
        console=console,
        disable=quiet,
        expand=True,
        get_time=get_time,
    )
