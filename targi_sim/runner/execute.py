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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from .. import __version__
from ..atomic import atomic_write
from ..errors import InputError
from .chunks import run_chunk
from .config import ResolvedRun, RunSpec, describe_inputs, differences
from .rundir import RunDir, check_writable, looks_like_other_data
from .tables import TABLES, cards_table

BACKENDS = ("loky", "dask")


@dataclass
class RunOutcome:
    """What a call to `execute` did."""

    out: Path
    manifest: dict[str, Any]
    chunks_total: int
    chunks_skipped: int
    games_played: int
    seconds: float


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def check_options(jobs: int, backend: str, scheduler: str | None) -> None:
    """InputError for a bad combination of --jobs, --backend and --scheduler."""
    if backend not in BACKENDS:
        raise InputError(f"--backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    if scheduler and backend != "dask":
        raise InputError("--scheduler needs --backend dask")
    if jobs < 1:
        raise InputError(f"--jobs must be at least 1; got {jobs}")


def prepare_out(run: ResolvedRun, out: Path, *, force: bool) -> tuple[RunDir, dict | None]:
    """Check the output folder and decide: fresh run, resume, or refuse."""
    rd = RunDir(out)
    if looks_like_other_data(out):
        raise InputError(f"--out {str(out)!r} holds other files and is not a targi-sim run; "
                         "choose an empty or new folder")
    check_writable(out)
    old = rd.read_manifest()
    if old is not None and old.get("config_hash") != run.config_hash:
        if not force:
            what = ", ".join(differences(old.get("config", {}), run.identity)) or "configuration"
            raise InputError(
                f"{out} already holds a different run ({what} differ); "
                "use --force to replace it, or choose another --out")
        rd.clear()
        old = None
    elif old is None and force:
        rd.clear()
    return rd, old


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


@contextmanager
def _dask_client(scheduler: str | None, jobs: int) -> Iterator[None]:
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--backend dask needs Dask: pip install 'targi-sim[dask]'") from None
    try:
        client = (Client(scheduler, timeout="10s") if scheduler
                  else Client(n_workers=jobs, threads_per_worker=1, dashboard_address=None))
    except (OSError, TimeoutError) as exc:
        raise InputError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    try:
        yield
    finally:
        client.close()


def _dispatch(spec: RunSpec, todo: list[int], jobs: int, backend: str,
              scheduler: str | None) -> Iterator[dict[str, Any]]:
    """Markers of the chunks in `todo`, as they complete (in any order)."""
    if backend == "loky" and (jobs == 1 or len(todo) <= 1):
        for chunk in todo:
            yield run_chunk(spec, chunk)
        return
    from joblib import Parallel, delayed, parallel_config

    tasks = (delayed(run_chunk)(spec, chunk) for chunk in todo)
    if backend == "dask":
        with _dask_client(scheduler, jobs), parallel_config(backend="dask"):
            yield from Parallel(n_jobs=-1, return_as="generator_unordered")(tasks)
        return
    yield from Parallel(n_jobs=min(jobs, len(todo)), backend="loky",
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
) -> RunOutcome:
    """Play every chunk not yet complete in `out`, then mark the run complete.

    Rerunning with the same configuration resumes; a different configuration is
    refused (InputError) unless `force`, which deletes the old run's files.
    `progress(n)` is called with the game count of each finished chunk,
    including chunks skipped because they were already complete.
    """
    check_options(jobs, backend, scheduler)
    out = Path(out)
    rd, old = prepare_out(run, out, force=force)
    spec = run.spec(out)
    rd.clean_partial_writes()
    rd.make_folders()
    manifest = _manifest(run, spec, command or sys.argv, old, jobs, backend)
    rd.write_manifest(manifest)
    if not rd.cards_path.exists():
        atomic_write(rd.cards_path, lambda p: pq.write_table(cards_table(run.match.deck), p))

    done = {k for k in rd.done_chunks() if k < spec.n_chunks}
    todo = [k for k in range(spec.n_chunks) if k not in done]
    if progress is not None:
        skipped = sum(spec.chunk_games(k)[1] for k in done)
        if skipped:
            progress(skipped)
    t0 = time.perf_counter()
    played = 0
    for marker in _dispatch(spec, todo, jobs, backend, scheduler):
        played += marker["games"]
        if progress is not None:
            progress(marker["games"])
    seconds = time.perf_counter() - t0

    return RunOutcome(out, _finish(rd, manifest, spec, played, seconds), spec.n_chunks,
                      len(done), played, seconds)


def _finish(rd: RunDir, manifest: dict[str, Any], spec: RunSpec, played: int,
            seconds: float) -> dict[str, Any]:
    rows = dict.fromkeys(TABLES, 0)
    missing = []
    for k in range(spec.n_chunks):
        try:
            marker = rd.read_marker(k)
        except FileNotFoundError:
            missing.append(k)
            continue
        for name in TABLES:
            rows[name] += marker["rows"][name]
    manifest["status"] = "complete" if not missing else "incomplete"
    manifest["timings"].update({
        "finished": _now(), "seconds": round(seconds, 3), "games_played": played,
        "games_per_second": round(played / seconds, 1) if seconds > 0 else None,
    })
    manifest["counts"] = {"games": rows["games"], "rows": rows, "bytes": rd.bytes_written()}
    rd.write_manifest(manifest)
    return manifest
