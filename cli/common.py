"""What every command shares: the one-line `Error:` exit (the library's settings named
as the command's options), Ctrl-C's message, the progress bar, loading the compiled
engine with an honest compile estimate, the exit codes. Commands import this module;
cli/app.py only assembles them (so no command imports the app back).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

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


_FIELD = re.compile(r"`([a-z][a-z0-9_]*)`")


def command_flags(command: Callable | None) -> dict[str, str]:
    """A command function's long options, by parameter name and by the name they spell
    (`against_list` and `against` -> --against, `block_deals` -> --block-deals)."""
    import inspect
    import typing

    if command is None:
        return {}
    flags: dict[str, str] = {}
    hints = typing.get_type_hints(command, include_extras=True)
    for name, param in inspect.signature(command).parameters.items():
        infos = [*getattr(hints.get(name), "__metadata__", ()), param.default]
        decls = [d for i in infos if hasattr(i, "param_decls")  # an Annotated option's
                 for d in (i.default, *(i.param_decls or ()))]  # first name: `default`
        longs = [d for d in decls if isinstance(d, str) and d.startswith("--")]
        if longs:
            flags[name] = longs[0]
            flags[longs[0][2:].replace("-", "_")] = longs[0]
    return flags


def flag_text(message: str, command: Callable | None = None,
              flags: Mapping[str, str] | None = None) -> str:
    """A library message as the command line says it: each setting the library names in
    backquotes (`block_deals`) becomes the command's option (--block-deals); `flags`
    maps the settings whose option is named otherwise (`trials` -> --budget)."""
    names = {**command_flags(command), **(flags or {})}
    return _FIELD.sub(lambda m: names.get(m.group(1), m.group(0)), message)


def fail(message: str, code: int = EXIT_USAGE, command: Callable | None = None,
         flags: Mapping[str, str] | None = None) -> typer.Exit:
    """Print one `Error:` line on stderr (the settings it names as `command`'s options);
    the caller raises the returned Exit."""
    typer.echo(f"Error: {flag_text(str(message), command, flags)}", err=True)
    return typer.Exit(code)


@contextmanager
def usage_errors(command: Callable | None = None,
                 flags: Mapping[str, str] | None = None) -> Iterator[None]:
    """A bad option, name, file or request inside: one `Error:` line (naming `command`'s
    options) and exit code 2 (a strategy that misbehaves in play is not a usage error:
    cli/app.py, exit code 1)."""
    from targi_sim.errors import StrategyError, TargiSimError

    from .parse import ParseError

    try:
        yield
    except StrategyError:
        raise
    except (ParseError, TargiSimError, ValueError) as exc:
        raise fail(str(exc), command=command, flags=flags) from None


@contextmanager
def stops(message: str | Callable[[], str],
          cannot_write: str | Callable[[OSError], str] | None = None,
          command: Callable | None = None,
          flags: Mapping[str, str] | None = None) -> Iterator[None]:
    """Around a command's long work: Ctrl-C, SIGTERM or SIGHUP print `message` (what is
    kept and how to continue) and exit with the signal's code (cli/signals.py); a
    library error is one `Error:` line; an OSError is `cannot_write: why` (or the line
    `cannot_write(error)` gives), if given."""
    try:
        with usage_errors(command, flags):
            yield
    except KeyboardInterrupt as exc:
        text = message() if callable(message) else message
        typer.echo(f"\n{text}", err=True)
        raise typer.Exit(signals.exit_code(exc)) from None
    except OSError as exc:
        if cannot_write is None:
            raise
        raise fail(cannot_write(exc) if callable(cannot_write)
                   else f"{cannot_write}: {exc.strerror or exc}") from None


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
        t0 = time.perf_counter()
        with compiling(console, f"Compiling the engine ({build} build; once per machine "
                                "and version, then cached)", estimate_seconds(m)):
            load_build(m)
        console.print(f"Compiled the engine's {build} build in {time.perf_counter() - t0:.0f} s "
                      "(cached for next time).", highlight=False)
    signals.check()  # a stop swallowed while loading still stops the command here


@contextmanager
def compiling(console: Console, what: str, expect: float) -> Iterator[None]:
    """A status line while a compile runs: the seconds so far and about how many are
    left (`expect`: the expected total), updated every second on a terminal and every
    10 s in a log."""
    import threading

    t0 = time.perf_counter()

    def say(elapsed: float) -> str:
        if elapsed <= expect:
            left = f"about {expect - elapsed:.0f} s left"
        else:
            left = f"longer than the {expect:.0f} s expected"
        return f"{what}: {elapsed:.0f} s, {left}"

    with status(console, say(0.0), eager=True, describe=say) as shown:
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(1.0):
                shown.update(say(time.perf_counter() - t0))

        ticker = threading.Thread(target=tick, daemon=not isinstance(shown, LogStatus))
        if not isinstance(shown, LogStatus):  # a log line every 10 s is LogStatus's
            ticker.start()
        try:
            yield
        finally:
            stop.set()
            if ticker.is_alive():
                ticker.join()


def show_fits() -> None:
    """Show a status line while a search's playout evaluation is fitted for the first
    time on this machine (players/evaluation.py): that fit compiles its game recorder for
    tens of seconds, before any engine build's own progress. A warm fit (a fraction of a
    second) shows nothing; a command's --quiet silences it."""
    from targi_sim.players.evaluation import observe_fits

    observe_fits(_fit_status)


@contextmanager
def _fit_status() -> Iterator[None]:
    import click

    from targi_sim.play.builds import FIT_BUILD, estimate_build_seconds, is_built, remember_build

    ctx = click.get_current_context(silent=True)
    if is_built(FIT_BUILD) or (ctx is not None and ctx.params.get("quiet")):
        yield  # a warm fit takes a fraction of a second: nothing to show
        return
    console, t0 = Console(stderr=True), time.perf_counter()
    with compiling(console, "Fitting the search's playout evaluation on this deck (its "
                            "recorder compiles once per machine and version)",
                   estimate_build_seconds(FIT_BUILD)):
        yield
    remember_build(FIT_BUILD, time.perf_counter() - t0)


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


class NestedRetunes:
    """Each re-tune of a search (balance, calibrate) as a task of its generations nested
    in the task it serves, so it shows its own elapsed time and ETA beside the outer's;
    removed when it ends. `step` is the library's `on_retune` with that parent."""

    def __init__(self, bar) -> None:
        self.bar, self.task = bar, None

    def step(self, parent, level: str, gen: int, gens: int) -> None:
        if gen == 0:
            self.task = self.bar.add_task(f"re-tune {level}", total=max(gens, 1),
                                          unit="generations", parent=parent)
            return
        self.bar.update(self.task, completed=gen)
        if gen >= gens:
            self.bar.remove_task(self.task)

