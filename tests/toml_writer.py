"""A tiny TOML writer for test fixtures: decks and rules built as dicts, written as files."""

from __future__ import annotations

import json
import re
from typing import Any


def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _val(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_val(x)}" for k, x in v.items()) + " }"
    return "[" + ", ".join(_val(x) for x in v) + "]"


def dumps(data: dict[str, Any]) -> str:
    """Tiny TOML writer for the test fixtures (arrays of tables + inline values)."""

    def is_aot(v: Any) -> bool:
        return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)

    lines = [f"{_key(k)} = {_val(v)}" for k, v in data.items() if not is_aot(v)]
    for k, v in data.items():
        if is_aot(v):
            for item in v:
                lines.append(f"\n[[{k}]]")
                lines.extend(f"{_key(kk)} = {_val(vv)}" for kk, vv in item.items())
    return "\n".join(lines) + "\n"
