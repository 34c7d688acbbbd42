"""Cell formatting shared by the HTML and Markdown renderers."""

from __future__ import annotations

import math
from collections.abc import Iterator

import polars as pl

from .model import Table

_PCT_HINTS = ("rate", "_wr", "share", "wr_")


def _is_pct(col: str) -> bool:
    if col.endswith("_deff") or col == "design_effect":
        return False
    return any(h in col for h in _PCT_HINTS)


def _is_deff(col: str) -> bool:
    return col.endswith("_deff") or col == "design_effect"


def _all_one(s: pl.Series, tolerance: float = 0.05) -> bool:
    """A design-effect column with nothing to say: every known value within 1 +- 5%."""
    values = s.cast(pl.Float64).drop_nulls().drop_nans()
    return values.len() == 0 or bool(((values - 1.0).abs() <= tolerance).all())


def fmt(value: object, pct: bool = False) -> str:
    """One cell: percentages with one decimal, other floats to 4 significant digits."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if pct:
            return f"{value:.1%}"
        if value == int(value) and abs(value) < 1e15:
            return f"{int(value):,}"
        if abs(value) >= 1000:
            return f"{value:,.1f}"
        return f"{value:.4g}"
    return str(value)


def columns(table: Table) -> list[str]:
    """Columns shown: not hidden, not an interval bound or standard error, not the low_n
    flag, and a
    design-effect column only where some value is not 1 (CSV/Parquet keep them all)."""
    cols = table.df.columns
    out = []
    for c in cols:
        if c in table.hidden or c == "low_n":
            continue
        if _is_deff(c) and _all_one(table.df[c]):
            continue
        if (c.endswith("_lo") and c[:-3] in cols) or (c.endswith("_hi") and c[:-3] in cols):
            continue
        if c.endswith("_se") and c[:-3] in cols:  # the interval shows it
            continue
        out.append(c)
    return out


def rows(table: Table) -> Iterator[tuple[list[str], bool]]:
    """(formatted cells, greyed) per row; a rate with an interval shows 'x (lo–hi)'."""
    df: pl.DataFrame = table.df
    cols = columns(table)
    for r in df.iter_rows(named=True):
        cells = []
        for c in cols:
            pct = _is_pct(c) and df.schema[c].is_float()
            text = fmt(r[c], pct)
            if f"{c}_lo" in r and f"{c}_hi" in r and r[f"{c}_lo"] is not None \
                    and r[c] is not None and not (isinstance(r[c], float) and math.isnan(r[c])):
                text += f" ({fmt(r[c + '_lo'], pct)}–{fmt(r[c + '_hi'], pct)})"
            cells.append(text)
        yield cells, bool(r.get("low_n", False))
