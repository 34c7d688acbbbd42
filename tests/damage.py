"""Damaging a file a completion marker vouches for (a chunk summary or game digest), the
ways the integrity tests try: deleted, truncated, edited into a valid file that lies, or
its marker entry made out of date."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl

from targi_sim.runner import RunDir

KINDS = ("delete", "truncate", "edit", "marker")


def damage(rd: RunDir, chunk: int, path: Path, entry: str, kind: str,
           lie: Callable[[pl.DataFrame], pl.DataFrame]) -> bytes:
    """Damage `path` (chunk `chunk`'s file under the marker's `entry`) the `kind` way; `lie`
    edits its table for "edit". Returns the good bytes."""
    good = path.read_bytes()
    if kind == "delete":
        path.unlink()
    elif kind == "truncate":
        path.write_bytes(good[: len(good) // 2])
    elif kind == "edit":  # same file type, other numbers
        lie(pl.read_parquet(path)).write_parquet(path)
    else:  # the marker's entry no longer matches (e.g. another version's file)
        marker = rd.read_marker(chunk)
        marker[entry]["version"] = -1
        rd.write_marker(chunk, marker)
    return good
