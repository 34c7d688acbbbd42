"""Completion markers that vouch for their files: sizes and sha256 checksums.

Why: a marker used to say only "this chunk finished", so a deleted, truncated,
replaced or stray part file went unnoticed (a report counted 30,000 games of a
40,000-game run; a garbage part made it crash; resume called the run complete).
Now a chunk's marker records each of its six files' size and sha256, and a chunk
counts only while its files match: `run` replays a chunk that does not, and readers
read exactly the files the markers vouch for, never whatever a folder holds.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from targi_sim._utils.atomic import atomic_write
from targi_sim.runner.layout import RunDir

from ..errors import DataError, FieldReader
from .tables import TABLES


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes (hashlib reads it in blocks)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def parquet_bytes(table: pa.Table, **options: Any) -> bytes:
    """`table` as a Parquet file's bytes (pyarrow's write_table `options`)."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **options)
    return sink.getvalue().to_pybytes()


def vouch(data: bytes) -> dict[str, Any]:
    """The size and sha256 a marker or manifest records of a file's bytes."""
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def write_vouched_parquet(path: Path, table: pa.Table, **options: Any) -> dict[str, Any]:
    """Write `table` to `path` atomically; returns the size and sha256 a marker records.

    Why in memory first: a worker writes two such small files per chunk (its summary
    and game digest), and hashing the bytes it holds costs less than writing them to a
    file and reading that back."""
    data = parquet_bytes(table, **options)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda p: Path(p).write_bytes(data))
    return vouch(data)


def file_matches(path: Path, entry: dict[str, Any]) -> bool:
    """True when `entry` records a size and sha256 (a marker's summary or digest entry)
    and the file at `path` has both."""
    if not (type(entry.get("bytes")) is int and isinstance(entry.get("sha256"), str)):
        return False
    try:
        if path.stat().st_size != entry["bytes"]:
            return False
    except OSError:
        return False
    return file_sha256(path) == entry["sha256"]


class ChunkMismatch(ValueError):
    """A chunk whose marker is missing, malformed, or does not match its files."""

    def __init__(self, chunk: int, first_game: int, games: int, reason: str) -> None:
        self.chunk, self.first_game, self.games, self.reason = chunk, first_game, games, reason
        last = first_game + games - 1
        super().__init__(f"chunk {chunk} (games {first_game:,}..{last:,}): {reason}")

    def __reduce__(self):
        return (type(self), (self.chunk, self.first_game, self.games, self.reason))


@dataclass(frozen=True)
class ChunkPlan:
    """What a chunk's marker must say for a run: its games and the run's identity."""

    config_hash: str
    games: int
    chunk_size: int

    @property
    def n_chunks(self) -> int:
        return -(-self.games // self.chunk_size)

    def span(self, chunk: int) -> tuple[int, int]:
        start = chunk * self.chunk_size
        return start, min(self.chunk_size, self.games - start)


def _marker_fields(marker: Any, path: Path, plan: ChunkPlan, chunk: int) -> dict[str, Any]:
    """The marker if its fields have the right types and belong to this chunk of this run."""
    start, n = plan.span(chunk)
    r = FieldReader(path, "completion marker", marker)
    r.check_keys(("chunk", "first_game", "games", "config_hash", "rows", "bytes", "sha256",
                  "seconds", "cpu_seconds", "summary_cpu_seconds",  # timings: not checked
                  "summary", "digest",  # checked by summaries.py, digests.py
                  "answers"),  # a playtest game's journal: checked by human.py
                 required=("chunk", "first_game", "games", "config_hash", "rows", "bytes",
                           "sha256"))
    r.get_int("chunk", lo=chunk, hi=chunk)
    r.get_int("first_game", lo=start, hi=start)
    r.get_int("games", lo=n, hi=n)
    if r.get_str("config_hash") != plan.config_hash:
        raise r.error("config_hash", None, None, "belongs to another run")
    rows = r.get_table("rows", TABLES)
    sizes = r.get_table("bytes", TABLES)
    sums = r.get_table("sha256", TABLES)
    for table in TABLES:
        rows.get_int(table)
        sizes.get_int(table, lo=1)
        sums.get_str(table)
    return marker


def check_chunk(rd: RunDir, plan: ChunkPlan, chunk: int, *, content: bool = True
                ) -> dict[str, Any]:
    """The chunk's marker, if it is well formed and every listed file matches it
    (size, and the sha256 of the bytes when `content`); ChunkMismatch otherwise."""
    start, n = plan.span(chunk)

    def mismatch(reason: str) -> ChunkMismatch:
        return ChunkMismatch(chunk, start, n, reason)

    path = rd.marker_path(chunk)
    try:
        marker = rd.read_marker(chunk)
    except FileNotFoundError:
        raise mismatch(f"it has no completion marker ({path.name})") from None
    except (OSError, ValueError) as exc:
        raise mismatch(f"its marker {path.name} cannot be read ({exc})") from None
    try:
        _marker_fields(marker, path, plan, chunk)
    except DataError as exc:
        raise mismatch(f"its marker is not valid: {str(exc).rstrip('.')}") from None
    for table in TABLES:
        part = rd.table_path(table, chunk)
        name = f"{table}/{part.name}"
        try:
            size = part.stat().st_size
        except OSError:
            raise mismatch(f"{name} is missing") from None
        if size != marker["bytes"][table]:
            raise mismatch(f"{name} has {size:,} bytes, its marker says "
                           f"{marker['bytes'][table]:,}")
        if content and file_sha256(part) != marker["sha256"][table]:
            raise mismatch(f"{name} does not match its marker's sha256 (the file changed)")
    return marker


def check_chunks(rd: RunDir, plan: ChunkPlan, *, content: bool = True
                 ) -> tuple[dict[int, dict[str, Any]], list[ChunkMismatch]]:
    """(markers of the chunks whose files match, the others' mismatches), for every chunk."""
    good: dict[int, dict[str, Any]] = {}
    bad: list[ChunkMismatch] = []
    for chunk in range(plan.n_chunks):
        try:
            good[chunk] = check_chunk(rd, plan, chunk, content=content)
        except ChunkMismatch as exc:
            bad.append(exc)
    return good, bad


def listed_files(rd: RunDir, plan: ChunkPlan) -> dict[str, list[Path]]:
    """Every table's part files, one per chunk, by the fixed names the markers vouch for."""
    return {table: [rd.table_path(table, k) for k in range(plan.n_chunks)] for table in TABLES}
