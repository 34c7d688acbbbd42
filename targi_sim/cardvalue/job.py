"""The whole card-value job on a run directory: prepare the forks, load the fork driver,
add the `forks` table (resumable) and compute every card's value. The CLI's
`card-value` and `run --card-value` only show progress and print the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from targi_sim.cardvalue.forkdir import ForkJob, ForkOutcome, add_forks, fork_job, must_replace
from targi_sim.cardvalue.forks import play_forks
from targi_sim.cardvalue.values import card_values
from targi_sim.play.pairing import game_plan


@dataclass(frozen=True)
class ForkRun:
    """What a card-value job did: its job, the forking outcome, each card's value and the
    seconds spent loading the fork driver."""

    job: ForkJob
    outcome: ForkOutcome
    values: pl.DataFrame
    setup_seconds: float


def prepare_forks(run_dir: str | Path, rate: float, *, force: bool,
                  strategy_files: tuple[str, ...] = ()) -> tuple[ForkJob, bool]:
    """The job for a complete run directory and whether to replace its forks; refuses
    (InputError) forks of another rate without `force`, before any work."""
    job = fork_job(run_dir, rate, strategy_files)
    return job, must_replace(job, force)


def load_fork_driver(job: ForkJob) -> None:
    """Compile (or load) the fork driver by forking one game."""
    play_forks(job.match, *game_plan(1, 0), 1.0)


def run_forks(job: ForkJob, *, jobs: int, force: bool,
              progress: Callable[[int], None] | None = None,
              load_driver: bool = True, backend: str = "loky",
              scheduler: str | None = None) -> ForkRun:
    """Fork the run's chunks that are not forked yet and value every card; first loads
    the fork driver unless the caller did (`load_fork_driver`, e.g. under a status line)."""
    t0 = time.perf_counter()
    if load_driver:
        load_fork_driver(job)
    setup = time.perf_counter() - t0
    outcome = add_forks(job, jobs=jobs, force=force, progress=progress, backend=backend,
                        scheduler=scheduler)
    return ForkRun(job, outcome, card_values(job.root), setup)


__all__ = ["ForkRun", "load_fork_driver", "prepare_forks", "run_forks"]
