"""The layout of a run directory, its completion markers and its manifest.

A chunk is complete exactly when its marker `chunks/chunk-NNNNNN.json` exists;
the marker is written after the chunk's six table files, all atomically, so a
run killed at any moment resumes by replaying the chunks without a marker.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic import atomic_write_json, remove_temp_files
from ..errors import InputError
from .tables import TABLES

MANIFEST = "manifest.json"
CARDS = "cards.parquet"
CHUNKS = "chunks"


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

    def marker_path(self, chunk: int) -> Path:
        return self.root / CHUNKS / f"chunk-{chunk:06d}.json"

    def make_folders(self) -> None:
        for sub in (*TABLES, CHUNKS):
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
        if not self.manifest_path.is_file():
            return None
        try:
            return json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"{self.manifest_path} is unreadable ({exc}); "
                             "use --force to start the run over") from None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        atomic_write_json(self.manifest_path, manifest)

    def clean_partial_writes(self) -> int:
        """Remove temporary files left by an interrupted run."""
        return remove_temp_files(self.root) if self.root.is_dir() else 0

    def clear(self) -> None:
        """Delete everything a run writes here (for --force); other files are left alone."""
        for sub in (*TABLES, CHUNKS):
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

    def bytes_written(self) -> int:
        total = 0
        for sub in TABLES:
            folder = self.root / sub
            if folder.is_dir():
                total += sum(p.stat().st_size for p in folder.glob("part-*.parquet"))
        if self.cards_path.exists():
            total += self.cards_path.stat().st_size
        return total


def check_writable(root: Path) -> None:
    """InputError unless `root` can be created and written to (checked before playing)."""
    if root.exists() and not root.is_dir():
        raise InputError(f"--out {str(root)!r} exists and is not a folder")
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
    return any(p.name not in (*TABLES, CHUNKS, CARDS) and not p.name.startswith(".")
               for p in root.iterdir())
