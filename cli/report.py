"""`targi-sim report` and `targi-sim compare` (placeholder until implemented)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the `report` and `compare` commands to the app."""
