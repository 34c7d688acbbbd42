"""A chunk file computed again from the chunk's rows (a summary or game digest that is
missing, changed or from an older version): saying so, with its elapsed time and ETA,
and keeping the result under the chunk's marker.

Why one place: both kinds are vouched for by the marker the same way, and an older run
recomputes every chunk once, which takes minutes on a large run: the caller's status
line should say how far it is.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl

from targi_sim.errors import InputError
from targi_sim.runner.layout import RunDir
from targi_sim.runner.reading import RunInfo, read_parquet_file


class Recomputing:
    """Progress messages for chunks computed from their rows: `start(k)` before chunk
    number k (position `at` of `total` chunks) is computed, `done()` after."""

    def __init__(self, what: str, why: str, total: int,
                 say: Callable[[str], None] | None) -> None:
        self.what, self.why, self.total, self.say = what, why, total, say
        self.t0: float | None = None
        self.finished = 0

    def start(self, chunk: int, at: int) -> None:
        if self.say is None:
            return
        now = time.perf_counter()
        self.t0 = now if self.t0 is None else self.t0
        text = (f"{self.what} chunk {chunk + 1} of {self.total} from its rows ({self.why})")
        if self.finished:
            elapsed = now - self.t0
            left = elapsed / self.finished * (self.total - at)
            text += f"; {elapsed:.0f} s so far, ETA at most {left:.0f} s"
        self.say(text)

    def done(self) -> None:
        self.finished += 1


def vouched_files(run: RunInfo, key: str, matches: Callable[[int, Any], bool],
                  path_of: Callable[[int], Path], compute: Callable[[int], pl.DataFrame],
                  write: Callable[[int, pl.DataFrame], dict[str, Any]], save: bool,
                  note: Recomputing) -> Iterator[pl.DataFrame]:
    """Every verified chunk's file of one kind (the marker's entry `key`), in chunk order:
    read when `matches(chunk, entry)`, else `compute(chunk)` from its rows (`note` says so)
    and, when `save`, kept with `write(chunk, table)` (save_entry)."""
    rd = RunDir(run.path)
    for at, chunk in enumerate(run.chunks):
        marker = rd.read_marker(chunk)
        if matches(chunk, marker.get(key)):
            yield read_parquet_file(path_of(chunk))
            continue
        note.start(chunk, at)
        table = compute(chunk)
        if save:
            save_entry(rd, chunk, marker, key, partial(write, chunk, table))
        note.done()
        yield table


def save_entry(rd: RunDir, chunk: int, marker: dict[str, Any], key: str,
               write: Callable[[], dict[str, Any]]) -> None:
    """Keep a recomputed chunk file: `write()` writes it and returns the marker's entry
    `key`, stored in the marker as it was read (`marker`). Nothing is saved when a run
    holds the directory's lock, the folder is read-only, or the chunk was replayed since:
    the caller then uses what it computed, unsaved."""
    with contextlib.suppress(InputError, OSError), rd.locked():
        if rd.read_marker(chunk) != marker:
            return
        marker[key] = write()
        rd.write_marker(chunk, marker)


__all__ = ["Recomputing", "save_entry", "vouched_files"]
