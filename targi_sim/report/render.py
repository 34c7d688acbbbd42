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


def columns(table: Table, compact: bool = False) -> list[str]:
    """Columns shown: not hidden, not an interval bound or standard error, not the low_n
    flag, and a
    design-effect column only where some value is not 1 (CSV/Parquet keep them all).
    A card's `name` comes first, beside its number. `compact`: only the table's compact
    columns (in their order)."""
    cols = table.df.columns
    out = []
    for c in cols:
        if c in table.hidden or c == "low_n" or c == table.pct_flag:
            continue
        if _is_deff(c) and _all_one(table.df[c]):
            continue
        if (c.endswith("_lo") and c[:-3] in cols) or (c.endswith("_hi") and c[:-3] in cols):
            continue
        if c.endswith("_se") and c[:-3] in cols:  # the interval shows it
            continue
        out.append(c)
    if compact and table.compact:
        return [c for c in table.compact if c in out]
    if "name" in out:
        out.remove("name")
        out.insert(0, "name")
    return out


_POINTS = ("change", "mde")  # a difference of two rates: percentage points
_FLAGGED = ("a", "b", "value")  # the value columns a `pct_flag` row shows in %


def _cell(r: dict, c: str, pct: bool, points: bool) -> str:
    if points and isinstance(r[c], float) and math.isfinite(r[c]):
        return f"{100 * r[c]:+.2f} pts" if c == "change" else f"{100 * r[c]:.2f} pts"
    return fmt(r[c], pct)


def _excess(r: dict, c: str) -> str:
    """A grade's excess over the model, in percentage points with its interval."""
    v, lo, hi = r[c], r.get(f"{c}_lo"), r.get(f"{c}_hi")
    if v is None or not math.isfinite(v):
        return "–"
    text = f"{100 * v:+.1f} pts"
    if lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi):
        text += f" ({100 * lo:+.1f} to {100 * hi:+.1f})"
    return text


def rows(table: Table, compact: bool = False) -> Iterator[tuple[list[str], bool]]:
    """(formatted cells, greyed) per row; a rate with an interval shows 'x (lo–hi)'.
    A row whose `pct_flag` column is true shows its values as percentages (and their
    differences in percentage points)."""
    df: pl.DataFrame = table.df
    cols = columns(table, compact)
    for r in df.iter_rows(named=True):
        cells = []
        flagged = bool(table.pct_flag and r.get(table.pct_flag))
        for c in cols:
            numeric = df.schema[c].is_float()
            if c.endswith("_excess") and numeric:  # a difference of rates: points
                cells.append(_excess(r, c))
                continue
            pct = numeric and (_is_pct(c) or (flagged and c in _FLAGGED))
            text = _cell(r, c, pct, flagged and numeric and c in _POINTS)
            if f"{c}_lo" in r and f"{c}_hi" in r and r[f"{c}_lo"] is not None \
                    and r[c] is not None and not (isinstance(r[c], float) and math.isnan(r[c])):
                text += f" ({fmt(r[c + '_lo'], pct)}–{fmt(r[c + '_hi'], pct)})"
            cells.append(text)
        yield cells, bool(r.get("low_n", False))


def sort_keys(table: Table, compact: bool = False) -> Iterator[list[str]]:
    """Per row, the raw value of each shown column for sorting in the browser (numbers
    as numbers, missing as empty)."""
    cols = columns(table, compact)
    for r in table.df.iter_rows(named=True):
        out = []
        for c in cols:
            v = r[c]
            if isinstance(v, bool):
                out.append("1" if v else "0")
            elif isinstance(v, (int, float)):
                out.append("" if isinstance(v, float) and not math.isfinite(v) else repr(v))
            else:
                out.append("" if v is None else str(v))
        yield out
