"""Add the `forks` table to a run directory: `targi-sim card-value RUN` and
`run --card-value` (docs/data-model.md#forks).

The run's own tables are never touched. Each chunk of the run gets
`forks/part-NNNNNN.parquet` and then its completion marker `forks/chunk-NNNNNN.json`
(size and sha256 of the part, the run's config hash, the fork rate and the engine), both
written atomically, so an interrupted pass resumes where it stopped and a changed or
missing part is forked again. Every chunk's games are replayed by the fork driver and
checked against the run's `games` rows: forking never changes the game it forks from.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow.parquet as pq

from targi_sim._utils.atomic import atomic_write, atomic_write_json, remove_temp_files
from targi_sim.cardvalue.forks import check_forkable, forks_table, play_forks, threshold
from targi_sim.engine import source_digest
from targi_sim.engine.logs import G_GAME, G_ROUNDS, G_SCORE0, G_SCORE1, G_WINNER
from targi_sim.errors import InputError
from targi_sim.play.match import Match, prepare_match
from targi_sim.play.pairing import config_pairing, plan
from targi_sim.runner.dispatch import collect_markers
from targi_sim.runner.layout import RunDir
from targi_sim.runner.markers import file_sha256
from targi_sim.runner.reading import ReportError, read_run_info

FOLDER = "forks"
DEFAULT_RATE = 0.25


@dataclass(frozen=True, eq=False)
class ForkJob:
    """What a worker needs to fork one chunk (picklable)."""

    root: Path
    match: Match
    seed: int
    pairing: str
    games: int
    chunk_size: int
    rate: float
    identity: dict[str, Any]

    def span(self, chunk: int) -> tuple[int, int]:
        start = chunk * self.chunk_size
        return start, min(self.chunk_size, self.games - start)

    @property
    def n_chunks(self) -> int:
        return -(-self.games // self.chunk_size)


def part_path(root: Path, chunk: int) -> Path:
    return root / FOLDER / f"part-{chunk:06d}.parquet"


def marker_path(root: Path, chunk: int) -> Path:
    return root / FOLDER / f"chunk-{chunk:06d}.json"


def stored_match(root: Path, manifest: dict[str, Any],
                 strategy_files: tuple[str | Path, ...] = ()) -> Match:
    """The run's match from the deck, rules and strategies its manifest stores (as
    `replay` does: never today's files, never a path the manifest names)."""
    from targi_sim.runner.replay import stored_inputs

    deck, rules, strategies = stored_inputs(root, manifest, strategy_files)
    return prepare_match(strategies, deck, rules)


def fork_job(run_dir: str | Path, rate: float = DEFAULT_RATE,
             strategy_files: tuple[str | Path, ...] = ()) -> ForkJob:
    """Check the run (complete, its files matching their markers) and the rate; InputError
    (one line) otherwise."""
    threshold(rate)
    try:
        info = read_run_info(run_dir)
    except ReportError as exc:
        raise InputError(str(exc)) from None
    manifest = info.manifest
    match = stored_match(info.path, manifest, strategy_files)
    check_forkable(match)
    cfg = manifest["config"]
    identity = {"run_config_hash": manifest["config_hash"], "fork_rate": rate,
                "engine": source_digest()}
    return ForkJob(info.path.resolve(), match, cfg["seed"], config_pairing(cfg), cfg["games"],
                   cfg["chunk_size"], rate, identity)


def valid_marker(root: Path, chunk: int, identity: dict[str, Any]) -> dict[str, Any] | None:
    """The chunk's marker if it was made with `identity` and its part matches it (size,
    sha256), else None."""
    try:
        marker = json.loads(marker_path(root, chunk).read_text(encoding="utf-8"))
        if not isinstance(marker, dict) or marker.get("identity") != identity:
            return None
        part = part_path(root, chunk)
        if part.stat().st_size != marker["bytes"] or file_sha256(part) != marker["sha256"]:
            return None
        return marker
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _check_games(job: ForkJob, chunk: int, G: np.ndarray) -> None:
    with open(RunDir(job.root).table_path("games", chunk), "rb") as f:
        games = pl.read_parquet(f, columns=["game_id", "winner", "score_p0", "score_p1",
                                            "rounds"])
    mine = np.stack([G[:, G_GAME], G[:, G_WINNER], G[:, G_SCORE0], G[:, G_SCORE1],
                     G[:, G_ROUNDS]], axis=1)
    if not np.array_equal(games.to_numpy().astype(np.int64), mine):
        raise InputError(f"{job.root}: chunk {chunk}'s games replay differently from its games "
                         "table (played by another engine version?); rerun the run with "
                         "`force` to play it with this one")


def fork_chunk(job: ForkJob, chunk: int) -> dict[str, Any]:
    """Fork one chunk's games, write its part and marker; returns the marker."""
    t0 = time.perf_counter()
    start, n = job.span(chunk)
    seeds, first, ids = plan(n, job.seed, job.pairing, start=start)
    G, F = play_forks(job.match, seeds, first, ids, job.rate)
    _check_games(job, chunk, G)
    table = forks_table(F, job.pairing, job.match.deck.tribe_symbol)
    final = part_path(job.root, chunk)
    atomic_write(final, lambda p: pq.write_table(table, p, compression="zstd"))
    size, digest = final.stat().st_size, file_sha256(final)
    marker = {"chunk": chunk, "first_game": start, "games": n, "identity": job.identity,
              "rows": table.num_rows, "bytes": size, "sha256": digest,
              "seconds": round(time.perf_counter() - t0, 3)}
    atomic_write_json(marker_path(job.root, chunk), marker)
    return marker


def _dispatch(job: ForkJob, todo: list[int], jobs: int, backend: str = "loky",
              scheduler: str | None = None) -> Iterator[dict[str, Any]]:
    """Markers of the forked chunks as they finish: in this process, on loky workers or
    on a Dask cluster (each chunk writes its own files, so where it ran does not show)."""
    if backend == "loky" and (jobs == 1 or len(todo) <= 1):
        for chunk in todo:
            yield fork_chunk(job, chunk)
        return
    from joblib import delayed

    from targi_sim.runner.dispatch import parallel_pool

    width = jobs if backend == "dask" else min(jobs, len(todo))
    with parallel_pool(width, backend, scheduler, return_as="generator_unordered") as parallel:
        yield from parallel(delayed(fork_chunk)(job, chunk) for chunk in todo)


@dataclass
class ForkOutcome:
    forks: int
    chunks_total: int
    chunks_skipped: int
    games_forked: int
    seconds: float


def must_replace(job: ForkJob, force: bool) -> bool:
    """Whether the forks already in the run must go first: with `force`, or when they were
    made for another run configuration or engine. InputError when they were made for
    this run with another --fork-rate and `force` is not given (call before playing)."""
    old = (_read_json(job.root / FOLDER / "forks.json") or {}).get("identity")
    if force or not isinstance(old, dict) or old == job.identity:
        return force
    same_run = old.get("run_config_hash") == job.identity["run_config_hash"]
    if same_run and old.get("fork_rate") != job.rate:
        raise InputError(
            f"{job.root} already holds forks made with `fork_rate` {old.get('fork_rate')}; "
            f"use the same rate to resume, or `force` to replace them with `fork_rate` "
            f"{job.rate}")
    return True


def add_forks(job: ForkJob, *, jobs: int = 1, force: bool = False,
              progress: Callable[[int], None] | None = None, backend: str = "loky",
              scheduler: str | None = None) -> ForkOutcome:
    """Fork every chunk not yet done (resumable); `progress(n)` gets each chunk's game
    count. Forks made with another rate or engine are refused unless `force`."""
    from targi_sim.runner.dispatch import cap_jobs

    jobs = cap_jobs(jobs)
    folder = job.root / FOLDER
    rd = RunDir(job.root)
    with rd.locked():
        folder.mkdir(exist_ok=True)
        summary_path = folder / "forks.json"
        force = must_replace(job, force)
        if force:
            for p in (*folder.glob("part-*.parquet"), *folder.glob("chunk-*.json"),
                      summary_path):
                p.unlink(missing_ok=True)
        remove_temp_files(folder)
        summary = {"identity": job.identity, "chunks": job.n_chunks, "status": "incomplete"}
        atomic_write_json(summary_path, summary)
        done = {k: m for k in range(job.n_chunks)
                if (m := valid_marker(job.root, k, job.identity)) is not None}
        todo = [k for k in range(job.n_chunks) if k not in done]
        if progress is not None and done:
            progress(sum(m["games"] for m in done.values()))
        t0 = time.perf_counter()
        played = collect_markers(_dispatch(job, todo, jobs, backend, scheduler), done,
                                 progress)
        seconds = time.perf_counter() - t0
        rows = sum(m["rows"] for m in done.values())
        summary.update({"status": "complete", "forks": rows,
                        "seconds": round(seconds, 3)})
        atomic_write_json(summary_path, summary)
    return ForkOutcome(rows, job.n_chunks, job.n_chunks - len(todo), played, seconds)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def fork_files(run_dir: str | Path) -> list[Path] | None:
    """The forks table's part files when every chunk's part matches its marker and they
    belong to the run as it is now; None when the run has no (complete) forks."""
    root = Path(run_dir)
    summary = _read_json(root / FOLDER / "forks.json")
    if summary is None or summary.get("status") != "complete":
        return None
    try:
        manifest = RunDir(root).read_manifest()
    except InputError:
        return None
    if manifest is None:
        return None
    identity = summary.get("identity")
    if not isinstance(identity, dict) or identity.get("run_config_hash") != manifest[
            "config_hash"]:
        return None
    cfg = manifest["config"]
    n_chunks = -(-cfg["games"] // cfg["chunk_size"])
    files = []
    for chunk in range(n_chunks):
        if valid_marker(root, chunk, identity) is None:
            return None
        files.append(part_path(root, chunk))
    return files
