"""TOML for test fixtures (decks and rules built as dicts, written as files): the
library's own writer, which sweeps use to write edited decks."""

from __future__ import annotations

from targi_sim._utils.toml_out import dumps

__all__ = ["dumps"]
