"""`targi-sim check`: the win-rate regression guard (placeholder until implemented)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the `check` command to the app."""
