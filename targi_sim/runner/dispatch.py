"""Run a configuration into a run directory: resume, dispatch chunks, finish the manifest.

Backends: `--jobs 1` plays in this process; `loky` (joblib's process pool) uses
local worker processes; `dask` sends chunks through joblib to a Dask distributed
scheduler (`--scheduler tcp://host:port`, or a local cluster when none is given).
The backend only decides where chunks run; the files are the same.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from targi_sim._utils.atomic import atomic_write
from targi_sim._version import __version__
from targi_sim.errors import ConfigError, InputError
from targi_sim.runner.chunks import run_chunk
from targi_sim.runner.config import ResolvedRun, RunSpec, describe_inputs, differences
from targi_sim.runner.layout import RunDir, check_writable, looks_like_other_data
from targi_sim.runner.manifest import ManifestError
from targi_sim.runner.markers import ChunkMismatch, ChunkPlan, check_chunks, parquet_bytes, vouch
from targi_sim.runner.tables import TABLES, cards_table

BACKENDS = ("loky", "dask")


@dataclass
class RunOutcome:
    """What a call to `execute` did. `replayed`: chunks that had a completion marker
    but files that did not match it (missing, truncated, changed), played again."""

    out: Path
    manifest: dict[str, Any]
    chunks_total: int
    chunks_skipped: int
    games_played: int
    seconds: float
    replayed: list[ChunkMismatch] = field(default_factory=list)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def check_options(jobs: int, backend: str, scheduler: str | None) -> None:
    """ConfigError for a bad combination of `jobs`, `backend` and `scheduler`."""
    if backend not in BACKENDS:
        raise ConfigError("backend", f"must be one of {', '.join(BACKENDS)}; got {backend!r}")
    if scheduler and backend != "dask":
        raise ConfigError("scheduler", "needs `backend` dask")
    if jobs < 1:
        raise ConfigError("jobs", f"must be at least 1; got {jobs}")


def _check_folder(out: Path) -> None:
    """InputError unless `out` is new, empty or a run directory, and writable (created)."""
    if looks_like_other_data(out):
        raise InputError(f"`out` {str(out)!r} holds other files and is not a targi-sim run; "
                         "choose an empty or new folder")
    check_writable(out)


def _decide(run: ResolvedRun, out: Path, force: bool, grow: bool = False
            ) -> tuple[RunDir, dict | None, bool]:
    """(run directory, manifest to resume from, whether to clear it first), or InputError.

    With `grow`, a run that differs only in having fewer games is resumed: its chunks
    are the first chunks of the longer run (`grown`)."""
    rd = RunDir(out)
    _check_folder(out)
    try:
        old = rd.read_manifest()
    except ManifestError as exc:
        if not force:
            raise InputError(f"{exc} Use `force` to start the run over, or choose another "
                             "`out`") from None
        return rd, None, True
    if old is not None and old["config_hash"] != run.config_hash:
        if grow and grown(old["config"], run.identity):
            return rd, old, False
        if not force:
            found = differences(old["config"], run.identity)
            what = (f"its {', '.join(found)} {'differs' if len(found) == 1 else 'differ'}"
                    if found else "its configuration differs")
            raise InputError(
                f"{out} already holds a different run ({what}); "
                "use `force` to replace it, or choose another `out`")
        return rd, None, True
    return rd, old, old is None and force


def grown(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """True if run identity `new` is `old` with at least as many games: every game of
    the old run is the game of the same number in the new one (a game is a function of
    the seed, its number and the match, not of the run's length)."""
    if not (isinstance(old.get("games"), int) and old["games"] <= new["games"]):
        return False
    return {k: v for k, v in old.items() if k != "games"} == \
        {k: v for k, v in new.items() if k != "games"}


def _restamp(rd: RunDir, old: dict[str, Any], plan: ChunkPlan) -> None:
    """Vouch for the old run's complete chunks as chunks of the grown run (`plan`): a
    chunk that spans the same games is the same chunk. The new manifest is written
    first, so a stop between two markers only costs replaying the rest."""
    before = ChunkPlan(old["config_hash"], int(old["config"]["games"]), plan.chunk_size)
    done, _bad = check_chunks(rd, before)
    for chunk, marker in done.items():
        if chunk < plan.n_chunks and before.span(chunk) == plan.span(chunk):
            rd.write_marker(chunk, {**marker, "config_hash": plan.config_hash})


def check_out(run: ResolvedRun, out: Path, *, force: bool) -> None:
    """InputError now (before the engine loads) if `execute` would refuse `out`:
    other data, not writable, another run's files without --force, or another writer."""
    rd, _, _ = _decide(run, Path(out), force)
    with rd.locked():
        pass


def prepare_out(run: ResolvedRun, out: Path, *, force: bool, grow: bool = False
                ) -> tuple[RunDir, dict | None]:
    """Check the output folder and decide: fresh run, resume, grow, or refuse (clears
    for --force). Call with the directory's lock held."""
    rd, old, clear = _decide(run, out, force, grow)
    if clear:
        rd.clear()
    return rd, old


def cap_jobs(jobs: int) -> int:
    """Worker processes actually started: at most one per CPU (each holds an engine and
    a chunk's logs, ~100-300 MB; more than the CPUs only adds memory, results are equal)."""
    return max(1, min(jobs, os.cpu_count() or 1))


def _manifest(run: ResolvedRun, spec: RunSpec, command: list[str], old: dict | None,
              jobs: int, backend: str) -> dict[str, Any]:
    started = old["timings"]["first_started"] if old else _now()
    return {
        "tool": "targi-sim",
        "version": __version__,
        "engine_hash": run.identity["engine"],
        "command": command,
        "config": run.identity,
        "config_hash": run.config_hash,
        **describe_inputs(run),
        "chunks": spec.n_chunks,
        "status": "incomplete",
        "timings": {"first_started": started, "started": _now()},
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "cpus": os.cpu_count(), "jobs": jobs, "backend": backend},
    }


# How long to keep trying a --scheduler address before the one-line error (Dask retries
# a refused connection until then).
SCHEDULER_CONNECT_TIMEOUT = "10s"


@contextmanager
def _dask_client(scheduler: str | None, jobs: int) -> Iterator[None]:
    try:
        from distributed import Client
    except ImportError:
        raise InputError("`backend` dask needs Dask: pip install 'targi-sim[dask]'") from None
    try:
        client = (Client(scheduler, timeout=SCHEDULER_CONNECT_TIMEOUT) if scheduler
                  else Client(n_workers=jobs, threads_per_worker=1, dashboard_address=None))
    except (OSError, TimeoutError) as exc:
        raise InputError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    try:
        yield
    finally:
        client.close()


@contextmanager
def parallel_pool(jobs: int, backend: str = "loky", scheduler: str | None = None, *,
                  return_as: str = "list") -> Iterator[Any]:
    """An open joblib.Parallel over `jobs` loky workers (that die with this process) or a
    Dask cluster, for work that calls it many times (calibration, balance, tune): one
    pool of workers for the whole job. Results come back in task order, so they do not
    depend on the backend or the number of workers; `return_as` is joblib's: "generator"
    (in order, as they come) or "generator_unordered" (as they finish: for callers whose
    sums do not depend on the order, e.g. the tournament)."""
    from joblib import Parallel, parallel_config

    from targi_sim._utils.workers import loky_backend

    check_options(jobs, backend, scheduler)
    order = {"return_as": return_as}
    if backend == "dask":
        with _dask_client(scheduler, jobs), parallel_config(backend="dask"), \
                Parallel(n_jobs=-1, **order) as parallel:
            yield parallel
        return
    with Parallel(n_jobs=jobs, backend=loky_backend(), **order) as parallel:
        yield parallel


def collect_markers(markers, done: dict[int, dict], progress=None) -> int:
    """Record each finished chunk's marker in `done` as it arrives (reporting its games
    to `progress`); returns the games played. The generator is closed however the loop
    ends: on Ctrl-C or SIGTERM joblib stops and kills its workers there."""
    played = 0
    try:
        for marker in markers:
            done[marker["chunk"]] = marker
            played += marker["games"]
            if progress is not None:
                progress(marker["games"])
    finally:
        markers.close()
    return played


def _dispatch(spec: RunSpec, todo: list[int], jobs: int, backend: str,
              scheduler: str | None) -> Iterator[dict[str, Any]]:
    """Markers of the chunks in `todo`, as they complete (in any order)."""
    if backend == "loky" and (jobs == 1 or len(todo) <= 1):
        for chunk in todo:
            yield run_chunk(spec, chunk)
        return
    from joblib import Parallel, delayed, parallel_config

    from targi_sim._utils.workers import loky_backend

    tasks = (delayed(run_chunk)(spec, chunk) for chunk in todo)
    if backend == "dask":
        with _dask_client(scheduler, jobs), parallel_config(backend="dask"):
            yield from Parallel(n_jobs=-1, return_as="generator_unordered")(tasks)
        return
    yield from Parallel(n_jobs=min(jobs, len(todo)), backend=loky_backend(),
                        return_as="generator_unordered")(tasks)


def execute(
    run: ResolvedRun,
    out: str | Path,
    *,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    force: bool = False,
    command: list[str] | None = None,
    progress: Callable[[int], None] | None = None,
    grow: bool = False,
) -> RunOutcome:
    """Play every chunk not yet complete in `out`, then mark the run complete.

    Rerunning with the same configuration resumes; a chunk counts as complete only
    if its files match its marker (sizes and sha256), else it is played again. A
    different configuration is refused (InputError) unless `force`, which deletes
    the old run's files. One writer at a time: a second `execute` into the same
    directory gets InputError. `jobs` above the CPU count is capped (`cap_jobs`).
    `progress(n)` is called with the game count of each finished chunk, including
    chunks skipped because they were already complete. `grow`: `out` may hold the same
    run with fewer games, which is continued (its complete chunks kept) to `run`'s
    games -- how the ladder plays a comparison until it is decided.
    """
    check_options(jobs, backend, scheduler)
    if backend == "loky" or scheduler is None:
        jobs = cap_jobs(jobs)
    out = Path(out)
    _check_folder(out)  # before the lock file is made in it
    with RunDir(out).locked():
        return _execute(run, out, jobs, backend, scheduler, force, command, progress, grow)


def _execute(run: ResolvedRun, out: Path, jobs: int, backend: str, scheduler: str | None,
             force: bool, command: list[str] | None,
             progress: Callable[[int], None] | None, grow: bool = False) -> RunOutcome:
    rd, old = prepare_out(run, out, force=force, grow=grow)
    growing = old is not None and old["config_hash"] != run.config_hash
    spec = run.spec(out)
    rd.clean_partial_writes()
    rd.make_folders()
    manifest = _manifest(run, spec, command or sys.argv, old, jobs, backend)
    manifest["cards"] = _write_cards(rd, run)
    rd.write_manifest(manifest)

    plan = ChunkPlan(run.config_hash, spec.games, spec.chunk_size)
    if growing:
        _restamp(rd, old, plan)
    done, bad = check_chunks(rd, plan)
    replayed = [m for m in bad if rd.marker_path(m.chunk).exists()]
    for m in replayed:  # a marker that no longer vouches for its files goes first
        rd.marker_path(m.chunk).unlink()
    todo = [m.chunk for m in bad]
    if progress is not None:
        skipped = sum(spec.chunk_games(k)[1] for k in done)
        if skipped:
            progress(skipped)
    t0 = time.perf_counter()
    played = collect_markers(_dispatch(spec, todo, jobs, backend, scheduler), done, progress)
    seconds = time.perf_counter() - t0
    skipped = spec.n_chunks - len(todo)
    return RunOutcome(out, _finish(rd, manifest, spec, done, played, seconds), spec.n_chunks,
                      skipped, played, seconds, replayed)


def _write_cards(rd: RunDir, run: ResolvedRun) -> dict[str, Any]:
    """cards.parquet (rewritten unless it already holds exactly the deck's table);
    its size and sha256 for the manifest."""
    data = parquet_bytes(cards_table(run.match.deck))
    if not (rd.cards_path.is_file() and rd.cards_path.read_bytes() == data):
        atomic_write(rd.cards_path, lambda p: Path(p).write_bytes(data))
    return vouch(data)


def _finish(rd: RunDir, manifest: dict[str, Any], spec: RunSpec, done: dict[int, dict],
            played: int, seconds: float) -> dict[str, Any]:
    rows = dict.fromkeys(TABLES, 0)
    for marker in done.values():
        for name in TABLES:
            rows[name] += marker["rows"][name]
    manifest["status"] = "complete" if len(done) == spec.n_chunks else "incomplete"
    manifest["timings"].update({
        "finished": _now(), "seconds": round(seconds, 3), "games_played": played,
        "games_per_second": round(played / seconds, 1) if seconds > 0 else None,
    })
    manifest["counts"] = {"games": rows["games"], "rows": rows,
                          "bytes": rd.bytes_written(list(done.values()))}
    rd.write_manifest(manifest)
    return manifest
