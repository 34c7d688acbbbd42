"""Where the shipped data and analyses live, installed or in a checkout."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent  # the targi_sim package


def _first_existing(*candidates: Path) -> Path:
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return candidates[-1]


def data_dir() -> Path:
    """The `data/` folder: inside the wheel (`targi_sim/_data`) or the checkout's root."""
    return _first_existing(_PKG / "_data", _PKG.parent / "data")


def analyses_dir() -> Path:
    """The `analyses/` folder with the report SQL, installed or in a checkout."""
    return _first_existing(_PKG / "_analyses", _PKG.parent / "analyses")
