"""Column definitions for the report's header tooltips (data/report/columns.toml).

Why a data file: the sentences are documentation, edited with docs/report.md, not code.
"""

from __future__ import annotations

import tomllib
from functools import cache

from targi_sim._utils.paths import data_dir
from targi_sim.runner.reading import ReportError


@cache
def column_definitions() -> dict[str, str]:
    """Column name -> one sentence; ReportError naming the file and key when malformed."""
    path = data_dir() / "report" / "columns.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ReportError(f"{path}: cannot read the column definitions: {exc}") from None
    table = data.get("columns")
    if not isinstance(table, dict):
        raise ReportError(f"{path}: needs a [columns] table of column = \"definition\"")
    for key, value in table.items():
        if not isinstance(value, str) or not value.strip():
            raise ReportError(f"{path}: [columns] {key}: the definition must be a non-empty "
                              f"string; got {value!r}")
    return dict(table)
