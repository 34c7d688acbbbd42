"""Heat maps of one metric's change over the sweep's grid (PNG bytes, Agg backend)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from ..report.plots import _png, plt
from .plan import Axis, Variant


def grid_cells(axes: Sequence[Axis], variants: Sequence[Variant], one_at_a_time: bool
               ) -> tuple[list[str], list[str], dict[tuple[int, int], Variant]]:
    """(row labels, column labels, (row, column) -> variant) of the heat-map layout.

    One axis: one row, its levels as columns. A grid: the first axis's levels as rows, the
    combinations of the others as columns. One at a time: one row per axis, its levels
    as columns (level 0, the baseline, in the first)."""
    by_coords = {v.coords: v for v in variants}
    cells: dict[tuple[int, int], Variant] = {}
    if one_at_a_time or len(axes) == 1:
        rows = [a.name for a in axes]
        width = max(len(a.levels) for a in axes)
        cols = ["baseline"] + [f"level {i}" for i in range(1, width)]
        for i, a in enumerate(axes):
            for level in range(len(a.levels)):
                c = tuple(level if j == i else 0 for j in range(len(axes)))
                if c in by_coords:
                    cells[i, level] = by_coords[c]
        if len(axes) == 1:
            cols = list(axes[0].labels)
        return rows, cols, cells
    first, rest = axes[0], axes[1:]
    rows = [f"{first.name} = {label}" for label in first.labels]
    combos = list(itertools.product(*(range(len(a.levels)) for a in rest)))
    cols = ["; ".join(f"{a.name} = {a.labels[lv]}" for a, lv in zip(rest, c, strict=True))
            for c in combos]
    for i in range(len(first.levels)):
        for j, c in enumerate(combos):
            v = by_coords.get((i, *c))
            if v is not None:
                cells[i, j] = v
    return rows, cols, cells


def heatmap(title: str, rows: list[str], cols: list[str],
            values: dict[tuple[int, int], tuple[float, bool, str]]) -> bytes:
    """One metric's change per cell (blue down, red up, white no change); a cell's text
    is its change, '*' when significant after Holm, and its level label if given."""
    grid = np.full((len(rows), len(cols)), np.nan)
    for (i, j), (v, _sig, _label) in values.items():
        grid[i, j] = v
    finite = np.abs(grid[np.isfinite(grid)])
    top = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    fig, ax = plt.subplots(figsize=(min(5.0 + 1.6 * len(cols), 16),
                                    min(2.0 + 0.55 * len(rows), 12)))
    im = ax.imshow(grid, cmap="RdBu_r", vmin=-top, vmax=top, aspect="auto")
    for (i, j), (v, sig, label) in values.items():
        if math.isnan(v):
            continue
        text = f"{v:+.3g}" + ("*" if sig else "")
        if label:
            text = f"{label}\n{text}"
        ax.text(j, i, text, ha="center", va="center", fontsize=7,
                color="white" if abs(v) > 0.6 * top else "black")
    ax.set_xticks(range(len(cols)), [c if len(c) <= 40 else c[:37] + "..." for c in cols],
                  fontsize=7, rotation=20, ha="right")
    ax.set_yticks(range(len(rows)), [r if len(r) <= 50 else r[:47] + "..." for r in rows],
                  fontsize=7)
    ax.set_title(title, fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.8, label="change vs baseline")
    return _png(fig)


__all__ = ["grid_cells", "heatmap"]
