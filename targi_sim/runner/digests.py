"""Game digests: one row per game of what a paired comparison needs that the games table
lacks (its card masks, display size and raid losses), written by the worker beside the
chunk's summary and vouched for by the chunk's marker like it.

Why per game: `compare`'s balance verdict (a bootstrap over deals) and a sweep's paired
tests (targi_sim.sweep.paired) compare runs deal by deal, and the cross-products of two
runs' per-deal values cannot be summed in advance by either run. So the per-deal values
themselves are the sufficient statistics; the digest holds them in 12 numbers a game
(about 58 bytes a game on disk), against the ~300 bytes a game of the six log tables
those would otherwise re-read. Every column means what the `game_digest` view of
analyses/views.sql says (game_digest.sql: the reference used for a chunk whose digest
is missing or does not match its marker, and by the tests).

Columns: game_id; `offered` (the tribe cards face up in the centre in any round, a bit
per card_id); per seat p, `acquired_p` (source centre or tribal expansion), `played_p`
(to the display, from any source), `centre_p` (taken from the centre); `cards_p` (the
display's size at the seat's last round) and `raid_losses_p` (goods, gold and VP paid
to raids).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from targi_sim.runner.layout import RunDir
from targi_sim.runner.markers import file_matches, write_vouched_parquet
from targi_sim.runner.reading import RunInfo, chunk_info
from targi_sim.runner.recompute import Recomputing, vouched_files

DIGEST = "digest"  # the marker's entry
VERSION = 1  # bump when a column or its meaning changes: older digests are recomputed
MASKS = ("offered", "acquired_p0", "acquired_p1", "played_p0", "played_p1", "centre_p0",
         "centre_p1")  # the order of the worker's mask columns (sums_kernels.cards_pass)
SCHEMA = {"game_id": pl.Int64, **dict.fromkeys(MASKS, pl.UInt64),
          "cards_p0": pl.Int16, "cards_p1": pl.Int16,
          "raid_losses_p0": pl.Int32, "raid_losses_p1": pl.Int32}
# How the worker writes a digest, for its CPU time (it is part of the run's): the masks
# are nearly unique, so a dictionary or statistics cost time and save nothing, and zstd
# would take two thirds of the write to halve them (a chunk's 2.2 instead of 6.1 ms, 58
# instead of 35 bytes a game); the consecutive ids and the small counts delta-encode to
# a few bits each, which compression would shrink by 0.4 bytes a game for 0.2 ms a chunk.
DELTA_ENCODED = {c: "DELTA_BINARY_PACKED" for c in ("game_id", "cards_p0", "cards_p1",
                                                   "raid_losses_p0", "raid_losses_p1")}


def frame(game_ids: np.ndarray, masks: np.ndarray, cards: np.ndarray,
          raid_losses: np.ndarray) -> pl.DataFrame:
    """The digest of games (in id order) from the worker's arrays: masks (games x 7, MASKS
    order), cards and raid losses (games x 2 seats)."""
    cols: dict[str, Any] = {"game_id": np.asarray(game_ids, np.int64)}
    cols |= {name: masks[:, k].astype(np.uint64) for k, name in enumerate(MASKS)}
    for p in (0, 1):
        cols[f"cards_p{p}"] = cards[:, p].astype(np.int16)
        cols[f"raid_losses_p{p}"] = raid_losses[:, p].astype(np.int32)
    return pl.DataFrame(cols, schema=SCHEMA)


def compute(root: Path, chunk: int) -> pl.DataFrame:
    """One chunk's digest from its part files (checked by the caller): the SQL reference."""
    from targi_sim.runner.queries import Analyses

    with Analyses(chunk_info(root, chunk)) as a:
        return a.frame("game_digest").select(*(pl.col(c).cast(t) for c, t in SCHEMA.items()))


def write(rd: RunDir, chunk: int, digest: pl.DataFrame) -> dict[str, Any]:
    """Write a chunk's digest atomically; returns the marker's `digest` entry."""
    written = write_vouched_parquet(rd.digest_path(chunk), digest.to_arrow(),
                                    compression="none", use_dictionary=False,
                                    write_statistics=False, column_encoding=DELTA_ENCODED)
    return {**written, "version": VERSION}


def entry_matches(rd: RunDir, chunk: int, entry: Any) -> bool:
    """True when the marker's digest entry is current and its file matches it."""
    return (isinstance(entry, dict) and entry.get("version") == VERSION
            and file_matches(rd.digest_path(chunk), entry))


def chunk_digests(run: RunInfo, *, save: bool = True,
                  progress: Callable[[str], None] | None = None) -> Iterator[pl.DataFrame]:
    """Every verified chunk's digest of `run`, in chunk order: the stored file when its
    marker vouches for it, else computed from the chunk's rows (`progress` says so, with
    elapsed time and ETA) and, when `save`, written back with the marker updated
    (runner/recompute.save_entry)."""
    rd = RunDir(run.path)
    note = Recomputing("digesting", "its game digest missing, changed or from an older "
                       "version", len(run.chunks), progress)
    yield from vouched_files(
        run, DIGEST, lambda chunk, entry: entry_matches(rd, chunk, entry), rd.digest_path,
        lambda chunk: compute(run.path, chunk), partial(write, rd), save, note)


def run_digest(run: RunInfo, progress: Callable[[str], None] | None = None) -> pl.DataFrame:
    """The run's game digests, every chunk's (chunk_digests), in game order."""
    return pl.concat(list(chunk_digests(run, progress=progress)))


__all__ = ["DIGEST", "MASKS", "SCHEMA", "chunk_digests", "compute", "entry_matches", "frame",
           "run_digest", "write"]
