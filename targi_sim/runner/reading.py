"""Opening a run directory (docs/data-model.md) and refusing what a report cannot use.

A run directory is untrusted input: its manifest is checked like a deck file
(runner/manifest.py) and every chunk's files against their completion markers
(runner/markers.py, sizes and sha256). The report then reads exactly those files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from targi_sim.errors import InputError, TargiSimError
from targi_sim.runner.layout import RunDir
from targi_sim.runner.manifest import read_manifest
from targi_sim.runner.markers import (
    ChunkMismatch,
    ChunkPlan,
    check_chunks,
    file_sha256,
    listed_files,
)

TABLES = ("games", "rounds", "acquisitions", "offers", "raids", "goods")


class ReportError(TargiSimError, ValueError):
    """A run directory (or option) a report cannot use; the message is one line."""


class IncompleteRunError(ReportError):
    """A run whose games are not all there: stopped early, or a chunk's files missing
    or changed (targi_sim.open_run can still read the rest: allow_incomplete)."""


def read_parquet_file(path: Path, columns: Sequence[str] | None = None) -> pl.DataFrame:
    """One Parquet file (`columns` of it), opened by Python: no character of the path
    acts as a pattern."""
    with open(path, "rb") as f:
        return pl.read_parquet(f, columns=list(columns) if columns is not None else None)


@dataclass(frozen=True)
class RunInfo:
    """A complete run directory and its manifest."""

    path: Path
    manifest: dict[str, Any]
    files: dict[str, list[Path]] = field(default_factory=dict)  # table -> checked part files

    @property
    def chunks(self) -> list[int]:
        """The numbers of the chunks whose files were checked, in order."""
        return [int(p.stem.split("-")[1]) for p in self.files.get("games", [])]

    @property
    def name(self) -> str:
        return self.path.resolve().name

    def _named(self, key: str) -> str:
        value = self.manifest.get(key)
        if isinstance(value, dict):
            return str(value.get("name") or value.get("path") or "?")
        config = self.manifest.get("config", {})
        value = config.get(key) if isinstance(config, dict) else None
        if isinstance(value, dict):
            return str(value.get("name") or value.get("path") or "?")
        return str(value) if value is not None else "?"

    @property
    def pairing(self) -> str:
        """How the run's games share deals, in words (targi_sim.play.pairing)."""
        from targi_sim.play.pairing import DESCRIPTIONS, config_pairing

        config = self.manifest.get("config")
        layout = config_pairing(config if isinstance(config, dict) else {})
        return DESCRIPTIONS.get(layout, layout)

    @property
    def deck(self) -> str:
        return self._named("deck")

    @property
    def rules(self) -> str:
        return self._named("rules")

    def read_table(self, table: str) -> pl.DataFrame:
        """One of the run's tables from the part files its markers vouch for (opened by
        Python, so no character of a folder name acts as a pattern)."""
        frames = [read_parquet_file(path) for path in self.files.get(table, [])]
        return pl.concat(frames) if frames else pl.DataFrame()

    def strategy_fingerprint(self) -> list[tuple[str, str | None]]:
        """(name, sha256) of each seat's strategy as the manifest records it."""
        out = []
        for s in self.manifest.get("strategies") or []:
            if isinstance(s, dict):
                out.append((str(s.get("name")), s.get("sha256")))
            else:
                out.append((str(s), None))
        return out


def chunk_info(root: Path, chunk: int) -> RunInfo:
    """One chunk of a run directory as a RunInfo of its six part files (checked by the
    caller): what a chunk file is recomputed from (runner/summaries.py, digests.py)."""
    rd = RunDir(root)
    return RunInfo(root, {}, {t: [rd.table_path(t, chunk)] for t in TABLES})


def read_run_info(path: str | Path) -> RunInfo:
    """Check that `path` is a complete run directory; ReportError (one line) if not."""
    p = Path(path)
    manifest = _run_manifest(p)
    status = manifest["status"]
    if status != "complete":
        raise IncompleteRunError(
            f"run {str(p)!r} is {status}, not complete; "
            "rerun the same `targi-sim run` command to finish it"
        )
    return RunInfo(p, manifest, _checked_files(p, manifest))


@dataclass(frozen=True)
class VerifiedChunks:
    """A run directory whatever its status (stopped early, a chunk's files missing or
    changed): the chunks whose files match their markers.

    `info.files` lists only those chunks' part files, so a reader of a stopped run
    gets exactly the games that are there, and knows how many are missing."""

    info: RunInfo
    games: int                        # games in the verified chunks
    games_planned: int                # games the run asked for
    missing: list[ChunkMismatch]      # the other chunks, each with its reason



def read_verified_chunks(path: str | Path) -> VerifiedChunks:
    """The verified chunks of a run directory, complete or not; ReportError (one line)
    if it is not a run directory, its manifest or cards.parquet cannot be trusted, or
    no chunk at all is complete."""
    p = Path(path)
    manifest = _run_manifest(p)
    rd = RunDir(p)
    plan = _plan(manifest)
    good, bad = check_chunks(rd, plan)
    if not good:
        raise ReportError(f"run {str(p)!r} has none of its {plan.games:,} games yet "
                          f"(no chunk of {plan.n_chunks} is complete); {_RERUN}")
    _check_cards(p, rd, manifest.get("cards"))
    files = {table: [rd.table_path(table, k) for k in sorted(good)] for table in TABLES}
    games = sum(int(marker["games"]) for marker in good.values())
    return VerifiedChunks(RunInfo(p, manifest, files), games, plan.games, bad)


_RERUN = "rerun the same `targi-sim run` command to replay it"


def _run_manifest(p: Path) -> dict[str, Any]:
    """The checked manifest of the run directory `p`; ReportError (one line) if none."""
    if not p.exists():
        raise ReportError(f"run directory {str(p)!r} does not exist")
    if not p.is_dir():
        raise ReportError(f"{str(p)!r} is a file; this wants a run directory (the folder "
                          "`targi-sim run` writes)")
    mpath = p / "manifest.json"
    if not mpath.is_file():
        raise ReportError(
            f"{str(p)!r} is not a run directory (no manifest.json); "
            "make one with `targi-sim run` (targi_sim.run)"
        )
    try:
        return read_manifest(mpath)
    except InputError as exc:
        raise ReportError(str(exc)) from None


def _plan(manifest: dict[str, Any]) -> ChunkPlan:
    config = manifest["config"]
    return ChunkPlan(manifest["config_hash"], config["games"], config["chunk_size"])


def _checked_files(p: Path, manifest: dict[str, Any]) -> dict[str, list[Path]]:
    """Every table's part files, once each chunk's files match its marker."""
    rd = RunDir(p)
    plan = _plan(manifest)
    _, bad = check_chunks(rd, plan)
    if bad:
        more = f" (and {len(bad) - 1} more chunks)" if len(bad) > 1 else ""
        raise IncompleteRunError(f"run {str(p)!r}: {bad[0]}{more}; {_RERUN}")
    _check_cards(p, rd, manifest["cards"])
    return listed_files(rd, plan)


def _check_cards(p: Path, rd: RunDir, cards: Any) -> None:
    """ReportError unless cards.parquet has the size and sha256 the manifest records
    (a complete manifest's `cards` is schema-checked; an incomplete one's is not)."""
    if not (isinstance(cards, dict) and type(cards.get("bytes")) is int
            and isinstance(cards.get("sha256"), str)):
        raise ReportError(f"run {str(p)!r}: its manifest.json records no size and sha256 "
                          f"for cards.parquet; {_RERUN}")
    try:
        size = rd.cards_path.stat().st_size
    except OSError:
        raise ReportError(f"run {str(p)!r} lacks cards.parquet; {_RERUN}") from None
    if size != cards["bytes"] or file_sha256(rd.cards_path) != cards["sha256"]:
        raise ReportError(f"run {str(p)!r}: cards.parquet does not match the size and sha256 "
                          f"its manifest records; {_RERUN}")
