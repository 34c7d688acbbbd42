"""Argument parsing helpers: friendly whole numbers such as `1e6` or `1_000_000`."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

# Pair ids must fit in 32 bits (see targi_sim.play.games.pair_seed); 2**32 games is far
# beyond anything one machine plays anyway.
MAX_GAMES = 2**32
MAX_SEED = 2**31 - 1

_NUMBER = re.compile(r"[+-]?(\d[\d_]*)?(\.\d+)?([eE][+-]?\d+)?")


class ParseError(ValueError):
    """A command-line value that is not acceptable; the message is one line for the user."""


def split_names(values: Sequence[str] | None) -> list[str]:
    """The names of a list option given comma-separated (`-s a,b`), repeated (`-s a -s b`)
    or both. Why: with a plain string option typer keeps only the last of repeated flags,
    so `-s balanced -s random` silently became `random`."""
    return [part.strip() for value in values or () for part in value.split(",") if part.strip()]


def parse_whole_number(text: str, option: str, minimum: int, maximum: int) -> int:
    """A whole number written as `100000`, `1_000_000`, `1e6` or `2.5e5`.

    Raises ParseError (one line, names the option and the value) for anything
    else: fractions, words, or values outside minimum..maximum.
    """
    raw = str(text).strip()
    if minimum == 1:
        bad = f"{option} must be a positive whole number (e.g. 100000, 1_000_000 or 1e6)"
    else:
        bad = f"{option} must be a whole number from {minimum:,} to {maximum:,}"
    bad += f"; got {text!r}"
    if not raw or not _NUMBER.fullmatch(raw) or not any(ch.isdigit() for ch in raw):
        raise ParseError(bad)
    if re.search(r"(^|\D)_|_(\D|$)", raw):
        raise ParseError(bad)  # underscores only between digits, as in Python
    try:
        value = Decimal(raw.replace("_", ""))
    except InvalidOperation:
        raise ParseError(bad) from None
    if value != value.to_integral_value() or value < minimum:
        raise ParseError(bad)
    if value > maximum:
        raise ParseError(f"{option} must be at most {maximum:,}; got {text!r}")
    return int(value)


def parse_games(text: str) -> int:
    """The --games value: a positive whole number (`1e6`, `1_000_000`, `100000`)."""
    return parse_whole_number(text, "--games", 1, MAX_GAMES)


def parse_seed(text: str) -> int:
    """The --seed value: a whole number 0..2**31-1."""
    return parse_whole_number(text, "--seed", 0, MAX_SEED)


def cap_jobs(jobs: int, option: str = "--jobs") -> int:
    """At most one worker process per CPU, with a one-line note on stderr when capped.

    Each worker holds a compiled engine and a chunk's logs (about 100-300 MB), so more
    workers than CPUs only cost memory; results do not depend on the number of jobs.
    """
    import os
    import sys

    cpus = os.cpu_count() or 1
    if jobs <= cpus:
        return jobs
    print(f"Note: {option} {jobs} is more than the {cpus} CPUs of this machine; using {cpus} "
          "(results do not depend on it).", file=sys.stderr)
    return cpus


def parse_jobs(text: str) -> int:
    """The --jobs value: worker processes, 1..1024, capped at the CPU count (with a note)."""
    raw = str(text).strip()
    if not raw.isdigit() or not 1 <= int(raw) <= 1024:
        raise ParseError(f"--jobs must be a whole number from 1 to 1024; got {text!r}")
    return cap_jobs(int(raw))


def parse_run_jobs(text: str, chunks: int) -> int:
    """--jobs: a whole number 1..1024, or `auto` (every CPU, at most one per chunk)."""
    raw = str(text).strip().lower()
    if raw == "auto":
        return max(1, min(os.cpu_count() or 1, chunks))
    if not raw.isdigit() or not 1 <= int(raw) <= 1024:
        raise ParseError(f"--jobs must be `auto` or a whole number from 1 to 1024; got {text!r}")
    return int(raw)


def parse_check_jobs(text: str) -> int:
    """--jobs: a whole number 1..1024 (capped at the CPUs) or "auto" (every CPU)."""
    if str(text).strip().lower() == "auto":
        return os.cpu_count() or 1
    return parse_jobs(text)


def parse_rate(text: str) -> float:
    """--fork-rate: a number in (0, 1]."""
    try:
        rate = float(text)
    except ValueError:
        raise ParseError(f"--fork-rate must be a number in (0, 1]; got {text!r}") from None
    if not 0 < rate <= 1:
        raise ParseError(f"--fork-rate must be in (0, 1]; got {text!r}")
    return rate


def parse_fraction(text: str, option: str, minimum: float, maximum: float) -> float:
    """A finite number in minimum..maximum (one ParseError line otherwise)."""
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not minimum <= value <= maximum:
        raise ParseError(f"{option} must be a number in {minimum}..{maximum}; got {text!r}")
    return value


def parse_search_budget(budget: str, seed: str, jobs: str) -> tuple[int, int, int]:
    """The options every search command shares (`tune`, `balance`): --budget in games,
    --seed, --jobs; ParseError on a bad one."""
    return (parse_whole_number(budget, "--budget", 1, MAX_GAMES), parse_seed(seed),
            parse_jobs(jobs))


def parse_bounded(text: str, option: str, bounds: tuple[int, int]) -> int:
    """A whole-number option whose range the library's config declares (its BOUNDS), so
    the range is written once."""
    return parse_whole_number(text, option, *bounds)


def names_or_none(values: Sequence[str] | None, option: str) -> tuple[str, ...] | None:
    """A list option's names (None when it was not given); ParseError when it was given
    with no name in it (`--against ,`)."""
    if not values:
        return None
    names = split_names(values)
    if not names:
        raise ParseError(f"{option} needs comma-separated strategies; got {','.join(values)!r}")
    return tuple(names)


def sweep_jobs(text: str, backend: str, scheduler: str | None, cap: bool = True) -> int:
    """--jobs of sweep and ladder: 0..4096, 0 meaning every CPU; capped at the CPUs (if
    `cap`) unless a remote Dask cluster (which has its own workers) plays; checked with
    the backend."""
    from targi_sim.runner.dispatch import check_options

    n_jobs = parse_whole_number(text, "--jobs", 0, 4096) or (os.cpu_count() or 1)
    if cap and not (backend == "dask" and scheduler):
        n_jobs = cap_jobs(n_jobs)
    check_options(n_jobs, backend, scheduler)
    return n_jobs
