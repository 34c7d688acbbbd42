"""Checks of a search config's numbers. Each config class lists its whole-number fields
and their ranges in BOUNDS (field -> (lowest, highest)); the library checks them here
and the command line parses its options against the same ranges, so a range is
written once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from targi_sim.errors import ConfigError


def check_whole(field: str, value: Any, lowest: int, highest: int) -> None:
    """ConfigError naming `field` unless value is a whole number in lowest..highest."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(field, f"must be a whole number; got {value!r}")
    if not lowest <= value <= highest:
        raise ConfigError(field, f"must be a whole number from {lowest:,} to {highest:,}; "
                                 f"got {value:,}")


def check_bounds(config: Any, bounds: Mapping[str, tuple[int, int]]) -> None:
    """check_whole for every field of `bounds` that `config` sets (None: its default)."""
    for field, (lowest, highest) in bounds.items():
        value = getattr(config, field)
        if value is not None:
            check_whole(field, value, lowest, highest)


__all__ = ["check_bounds", "check_whole"]
