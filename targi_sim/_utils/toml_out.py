"""Write the TOML that decks are made of: top-level values, arrays of tables, inline values.

Why: a sweep edits a deck as parsed data (targi_sim.game.deck_edit) and must write the edited
deck back as a file the ordinary loader reads and the run manifest records; the standard
library reads TOML but cannot write it. Output is deterministic (same data, same bytes),
so a resumed sweep finds its variants' decks unchanged.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any


def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def value(v: Any) -> str:
    """One TOML value, tables and arrays inline."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        if not v:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)} = {value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def dumps(data: dict[str, Any]) -> str:
    """`data` as TOML: top-level arrays of tables as [[name]] blocks, the rest inline."""
    lines = [f"{_key(k)} = {value(v)}" for k, v in data.items() if not _is_table_array(v)]
    for k, v in data.items():
        if _is_table_array(v):
            for item in v:
                lines.append(f"\n[[{_key(k)}]]")
                lines.extend(f"{_key(kk)} = {value(vv)}" for kk, vv in item.items())
    return "\n".join(lines) + "\n"


__all__ = ["dumps", "value"]
