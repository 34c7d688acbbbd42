"""The layout of a run directory, its completion markers, manifest and writer's lock.

A chunk is complete when its marker `chunks/chunk-NNNNNN.json` exists and its six
table files match the sizes and checksums the marker records (markers.py); its
summary `summaries/part-NNNNNN.parquet` is vouched for the same way (summaries.py), as
is its game digest `summaries/games-NNNNNN.parquet` (digests.py). The
marker is written after the files, all atomically, so a run killed at any moment
resumes by replaying the chunks without a matching marker. One writer at a time:
`locked()` holds an exclusive lock on the directory for a whole run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from targi_sim._utils.atomic import atomic_write_json, remove_temp_files
from targi_sim.errors import InputError
from targi_sim.runner.manifest import read_manifest
from targi_sim.runner.tables import TABLES

MANIFEST = "manifest.json"
CARDS = "cards.parquet"
CHUNKS = "chunks"
SUMMARIES = "summaries"  # per-chunk sufficient statistics (runner/summaries.py)
LOCK = ".targi-sim.lock"  # hidden: never taken for other data, kept by clear()


@dataclass(frozen=True)
class RunDir:
    """Paths inside one run directory."""

    root: Path

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    @property
    def cards_path(self) -> Path:
        return self.root / CARDS

    def table_path(self, table: str, chunk: int) -> Path:
        return self.root / table / f"part-{chunk:06d}.parquet"

    def summary_path(self, chunk: int) -> Path:
        return self.root / SUMMARIES / f"part-{chunk:06d}.parquet"

    def digest_path(self, chunk: int) -> Path:
        """The chunk's game digest (runner/digests.py), beside its summary."""
        return self.root / SUMMARIES / f"games-{chunk:06d}.parquet"

    def marker_path(self, chunk: int) -> Path:
        return self.root / CHUNKS / f"chunk-{chunk:06d}.json"

    def make_folders(self) -> None:
        for sub in (*TABLES, CHUNKS, SUMMARIES):
            (self.root / sub).mkdir(parents=True, exist_ok=True)

    def done_chunks(self) -> set[int]:
        """Chunk numbers whose marker exists."""
        folder = self.root / CHUNKS
        if not folder.is_dir():
            return set()
        done = set()
        for p in folder.glob("chunk-*.json"):
            try:
                done.add(int(p.stem.split("-")[1]))
            except (IndexError, ValueError):
                continue
        return done

    def read_marker(self, chunk: int) -> dict[str, Any]:
        return json.loads(self.marker_path(chunk).read_text(encoding="utf-8"))

    def write_marker(self, chunk: int, info: dict[str, Any]) -> None:
        atomic_write_json(self.marker_path(chunk), info)

    def read_manifest(self) -> dict[str, Any] | None:
        """The checked manifest (runner/manifest.py), None if there is none;
        ManifestError (one line naming the file and field) if it cannot be used."""
        if not self.manifest_path.is_file():
            return None
        return read_manifest(self.manifest_path)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the directory's writer lock; InputError at once if another run holds it.

        The lock is an OS file lock (filelock), released when the process ends, so a
        killed run never leaves the directory locked.
        """
        lock = FileLock(self.root / LOCK, timeout=0)
        try:
            lock.acquire()
        except Timeout:
            raise InputError(
                f"another targi-sim run is writing to {str(self.root)!r}; wait for it to "
                "finish (or stop it) before running into the same `out`, or choose another"
            ) from None
        try:
            yield
        finally:
            lock.release()

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        atomic_write_json(self.manifest_path, manifest)

    def clean_partial_writes(self) -> int:
        """Remove temporary files left by an interrupted run."""
        return remove_temp_files(self.root) if self.root.is_dir() else 0

    def clear(self) -> None:
        """Delete everything a run writes here (for --force); other files are left alone."""
        for sub in (*TABLES, CHUNKS, SUMMARIES):
            folder = self.root / sub
            if folder.is_dir():
                for p in folder.iterdir():
                    if p.is_file() and (p.suffix in (".parquet", ".json") or
                                        p.name.endswith(".tmp")):
                        p.unlink()
        for p in (self.manifest_path, self.cards_path):
            if p.exists():
                p.unlink()
        self.clean_partial_writes()

    def bytes_written(self, markers: list[dict[str, Any]] | None = None) -> int:
        """Bytes of the run's files: the chunks' parts, summaries and game digests (as
        their markers record them, when given; else every such file) plus cards.parquet."""
        if markers is not None:
            total = sum(sum(m["bytes"].values())
                        + sum(m[k]["bytes"] for k in ("summary", "digest")
                              if isinstance(m.get(k), dict)) for m in markers)
        else:
            total = sum(p.stat().st_size for sub in (*TABLES, SUMMARIES)
                        if (self.root / sub).is_dir()
                        for p in (self.root / sub).glob("*-*.parquet"))
        if self.cards_path.exists():
            total += self.cards_path.stat().st_size
        return total


def check_writable(root: Path) -> None:
    """InputError unless `root` can be created and written to (checked before playing)."""
    if root.exists() and not root.is_dir():
        raise InputError(f"`out` {str(root)!r} exists and is not a folder")
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / f".write-test.{os.getpid()}.tmp"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise InputError(f"cannot write to output folder {str(root)!r}: {reason}") from None


def looks_like_other_data(root: Path) -> bool:
    """True if `root` holds files but is not a run directory (never overwritten)."""
    if not root.is_dir() or (root / MANIFEST).exists():
        return False
    return any(p.name not in (*TABLES, CHUNKS, SUMMARIES, CARDS) and not p.name.startswith(".")
               for p in root.iterdir())
