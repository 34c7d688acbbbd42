"""Progress for logs: when stderr is not a terminal (a CI log, `2> file`, a pipe), a
rich progress bar or status spinner prints nothing until the end, so a 30-second
report looked dead. These stand-ins print plain lines instead, nothing animated: a
line when a task starts, then at least every `EVERY_SECONDS` or each further tenth of
the work (done/total, rate, elapsed, ETA), and one when it ends.

They implement the part of rich's Progress and Status that the commands use
(`add_task`, `advance`, `update`, `remove_task`, `console.status(...).update`), so a
command does not know which one it got (cli/common.py chooses). A task added with
`parent=` (a re-tune inside a calibration's candidate) is nested: its lines give its
own elapsed time and ETA, then the parent's.

TARGI_SIM_PROGRESS_EVERY (seconds, default 10) sets how often a line is written while
nothing else happens; the tests shorten it to check every long command.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Console

EVERY_SECONDS = 10.0


def every_seconds() -> float:
    """The interval between lines while nothing else happens: TARGI_SIM_PROGRESS_EVERY
    if set to a positive number of seconds, else EVERY_SECONDS."""
    try:
        value = float(os.environ.get("TARGI_SIM_PROGRESS_EVERY", ""))
    except ValueError:
        return EVERY_SECONDS
    return value if value > 0 else EVERY_SECONDS
STEPS = 10  # a line each further 1/STEPS of a task's total


def _print_line(console: Console, text: str) -> None:
    """One plain line: no markup, no highlighting, never wrapped."""
    console.print(text, highlight=False, markup=False, soft_wrap=True)


def rate_text(rate: float, unit: str) -> str:
    """"1,234 games/s"; a slow unit (a calibration's candidates) per minute instead of
    "0 .../s"."""
    if 0 < rate < 1:
        return f"{rate * 60:,.1f} {unit}/min"
    return f"{rate:,.0f} {unit}/s"


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


@dataclass
class _Task:
    description: str
    total: float | None
    unit: str
    started: float
    completed: float = 0.0
    last_line: float = 0.0
    last_step: int = 0
    done: bool = field(default=False)
    parent: int | None = None
    base: float = 0.0  # work done before this run (a continued search): not in the rate


class LogProgress:
    """rich.progress.Progress's interface, printing plain lines to `console`."""

    def __init__(self, console: Console, get_time: Callable[[], float] | None = None,
                 every: float | None = None) -> None:
        self.console = console
        self._now = get_time or time.monotonic
        self._every = every if every is not None else every_seconds()
        self._tasks: list[_Task] = []
        self._started = self._said = self._now()
        self._lock = threading.RLock()
        self._stop = threading.Event()
        # a line every `every` seconds even while no work is reported (a slow chunk, a
        # generation of a search); not with a test's clock, which only moves when told
        self._ticker = (threading.Thread(target=self._tick, daemon=True)
                        if get_time is None else None)

    def __enter__(self) -> LogProgress:
        if self._ticker is not None:
            self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._ticker is not None and self._ticker.is_alive():
            self._ticker.join()
        if exc[0] is None:
            with self._lock:
                for i, t in enumerate(self._tasks):
                    if not t.done:
                        self._line(i, final=True)

    def _tick(self) -> None:
        while not self._stop.wait(min(1.0, self._every / 4)):
            self.tick()

    def tick(self) -> None:
        """A line for each running task quiet for `every` seconds; when none runs (the
        work between two tasks: a report being written), one line saying so."""
        with self._lock:
            now = self._now()
            running = [i for i, t in enumerate(self._tasks) if not t.done]
            for i in running:
                if now - self._tasks[i].last_line >= self._every:
                    self._line(i)
            if not running and now - self._said >= self._every:
                last = self._tasks[-1].description + ": done; " if self._tasks else ""
                self._say(f"{last}still working (elapsed {_clock(now - self._started)})")

    def add_task(self, description: str, total: float | None = None, **fields) -> int:
        with self._lock:
            return self._add_task(description, total, **fields)

    def _add_task(self, description: str, total: float | None = None, **fields) -> int:
        now = self._now()
        done = float(fields.get("completed") or 0)
        self._tasks.append(_Task(str(description), total, str(fields.get("unit", "games")),
                                 now, completed=done, last_line=now, parent=fields.get("parent"),
                                 base=done))
        i = len(self._tasks) - 1
        t = self._tasks[i]
        t.last_step = int(STEPS * done / t.total) if t.total else 0
        self._say(f"{t.description}: started" + (f", {t.total:,.0f} {t.unit}" if t.total else "")
                  + (f" ({done:,.0f} done before)" if done else ""))
        return i

    def advance(self, task: int, advance: float = 1) -> None:
        self.update(task, advance=advance)

    def remove_task(self, task: int) -> None:
        """A nested task that ended: its last line, then no more."""
        with self._lock:
            if not self._tasks[task].done:
                self._line(task, final=True)

    def update(self, task: int, *, completed: float | None = None, total: float | None = None,
               advance: float | None = None, description: str | None = None,
               **_fields) -> None:
        with self._lock:
            self._update(task, completed, total, advance, description)

    def _update(self, task: int, completed: float | None, total: float | None,
                advance: float | None, description: str | None) -> None:
        t = self._tasks[task]
        if description is not None:
            t.description = str(description)
        if total is not None:
            t.total = total
        if completed is not None:
            t.completed = completed
        if advance:
            t.completed += advance
        now = self._now()
        step = int(STEPS * t.completed / t.total) if t.total else 0
        finished = bool(t.total) and t.completed >= t.total
        if finished and not t.done:
            self._line(task, final=True)
        elif now - t.last_line >= self._every or step > t.last_step:
            self._line(task)

    def _line(self, task: int, final: bool = False) -> None:
        t = self._tasks[task]
        now = self._now()
        elapsed = now - t.started
        rate = (t.completed - t.base) / elapsed if elapsed > 0 else 0.0
        text = f"{t.description}: {t.completed:,.0f}"
        if t.total:
            text += f"/{t.total:,.0f} {t.unit} ({t.completed / t.total:.0%})"
        else:
            text += f" {t.unit}"
        text += f", {rate_text(rate, t.unit)}, elapsed {_clock(elapsed)}"
        if not t.total and not t.completed:  # a phase that counts nothing: its time only
            text = f"{t.description}: elapsed {_clock(elapsed)}"
        if final:
            text += ", done"
            t.done = True
        elif t.total and rate > 0:
            text += f", ETA {_clock((t.total - t.completed) / rate)}"
        if t.parent is not None and not self._tasks[t.parent].done:
            text += f" [{self._outer(self._tasks[t.parent], now)}]"
        self._say(text)
        t.last_line = now
        t.last_step = int(STEPS * t.completed / t.total) if t.total else 0

    @staticmethod
    def _outer(t: _Task, now: float) -> str:
        """The enclosing task in brief: its description, elapsed time and ETA."""
        elapsed = now - t.started
        text = f"{t.description}: elapsed {_clock(elapsed)}"
        rate = (t.completed - t.base) / elapsed if elapsed > 0 else 0.0
        if t.total and rate > 0:
            text += f", ETA {_clock((t.total - t.completed) / rate)}"
        return text

    def _say(self, text: str) -> None:
        self._said = self._now()
        _print_line(self.console, text)


class LogStatus:
    """rich's `console.status(...)` for logs: each new text from `update`, and `text (N s)`
    every `every` seconds while it lasts (a thread). The first text is printed at once
    only if `eager`; otherwise with the first update or tick, so that a command which
    fails at once (a missing run directory) prints its one `Error:` line and nothing
    else."""

    def __init__(self, console: Console, text: str, every: float | None = None,
                 eager: bool = False, describe: Callable[[float], str] | None = None) -> None:
        self.console = console
        self._text = text
        self._eager = eager
        self._describe = describe  # elapsed seconds -> the tick's line, if not text (N s)
        self._every = every if every is not None else every_seconds()
        self._stop = threading.Event()
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self) -> LogStatus:
        if self._eager:
            self._say(self._text)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def update(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self._say(text)

    def _tick(self) -> None:
        while not self._stop.wait(self._every):
            elapsed = time.monotonic() - self._t0
            self._say(self._describe(elapsed) if self._describe is not None
                      else f"{self._text} ({elapsed:.0f} s)")

    def _say(self, text: str) -> None:
        _print_line(self.console, text)


__all__ = ["EVERY_SECONDS", "LogProgress", "LogStatus", "every_seconds"]
