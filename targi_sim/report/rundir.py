"""Opening a run directory (docs/data-model.md) and refusing what a report cannot use."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TABLES = ("games", "rounds", "acquisitions", "offers", "raids", "goods")


class ReportError(ValueError):
    """A run directory (or option) a report cannot use; the message is one line."""


@dataclass(frozen=True)
class RunInfo:
    """A complete run directory and its manifest."""

    path: Path
    manifest: dict[str, Any]

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
    def deck(self) -> str:
        return self._named("deck")

    @property
    def rules(self) -> str:
        return self._named("rules")

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
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"{mpath} cannot be read: {exc}") from None
    if not isinstance(manifest, dict):
        raise ReportError(f"{mpath} is not a JSON object")
    status = manifest.get("status")
    if status != "complete":
        raise ReportError(
            f"run {str(p)!r} is {status or 'of unknown status'}, not complete; "
            "rerun the same `targi-sim run` command to finish it"
        )
    missing = [t for t in TABLES if not any((p / t).glob("*.parquet"))]
    if not (p / "cards.parquet").is_file():
        missing.insert(0, "cards.parquet")
    if missing:
        raise ReportError(f"run {str(p)!r} lacks {', '.join(missing)}")
    return RunInfo(p, manifest)
