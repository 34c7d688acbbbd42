"""Opening a run directory (docs/data-model.md) and refusing what a report cannot use.

A run directory is untrusted input: its manifest is checked like a deck file
(runner/manifest.py) and every chunk's files against their completion markers
(runner/markers.py, sizes and sha256). The report then reads exactly those files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from targi_sim.errors import InputError, TargiSimError
from targi_sim.runner.layout import RunDir
from targi_sim.runner.manifest import read_manifest
from targi_sim.runner.markers import ChunkPlan, check_chunks, file_sha256, listed_files

TABLES = ("games", "rounds", "acquisitions", "offers", "raids", "goods")


class ReportError(TargiSimError, ValueError):
    """A run directory (or option) a report cannot use; the message is one line."""


@dataclass(frozen=True)
class RunInfo:
    """A complete run directory and its manifest."""

    path: Path
    manifest: dict[str, Any]
    files: dict[str, list[Path]] = field(default_factory=dict)  # table -> checked part files

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
        frames = []
        for path in self.files.get(table, []):
            with open(path, "rb") as f:
                frames.append(pl.read_parquet(f))
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


def open_run(path: str | Path) -> RunInfo:
    """Check that `path` is a complete run directory; ReportError (one line) if not."""
    p = Path(path)
    if not p.exists():
        raise ReportError(f"run directory {str(p)!r} does not exist")
    if not p.is_dir():
        raise ReportError(f"{str(p)!r} is not a directory")
    mpath = p / "manifest.json"
    if not mpath.is_file():
        raise ReportError(
            f"{str(p)!r} is not a run directory (no manifest.json); "
            "make one with `targi-sim run --out DIR`"
        )
    try:
        manifest = read_manifest(mpath)
    except InputError as exc:
        raise ReportError(str(exc)) from None
    status = manifest["status"]
    if status != "complete":
        raise ReportError(
            f"run {str(p)!r} is {status}, not complete; "
            "rerun the same `targi-sim run` command to finish it"
        )
    return RunInfo(p, manifest, _checked_files(p, manifest))


def _checked_files(p: Path, manifest: dict[str, Any]) -> dict[str, list[Path]]:
    """Every table's part files, once each chunk's files match its marker."""
    rd = RunDir(p)
    config = manifest["config"]
    plan = ChunkPlan(manifest["config_hash"], config["games"], config["chunk_size"])
    rerun = "rerun the same `targi-sim run` command to replay it"
    _, bad = check_chunks(rd, plan)
    if bad:
        more = f" (and {len(bad) - 1} more chunks)" if len(bad) > 1 else ""
        raise ReportError(f"run {str(p)!r}: {bad[0]}{more}; {rerun}")
    cards = manifest["cards"]
    try:
        size = rd.cards_path.stat().st_size
    except OSError:
        raise ReportError(f"run {str(p)!r} lacks cards.parquet; {rerun}") from None
    if size != cards["bytes"] or file_sha256(rd.cards_path) != cards["sha256"]:
        raise ReportError(f"run {str(p)!r}: cards.parquet does not match the size and sha256 "
                          f"its manifest records; {rerun}")
    return listed_files(rd, plan)


