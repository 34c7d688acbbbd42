"""Matplotlib figures (Agg backend) returned as PNG bytes for embedding in report.html."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

_DRAW = [True]


@contextmanager
def skipped() -> Iterator[None]:
    """Within the block every plot is an empty PNG: for callers that analyse many runs
    for their numbers only (benchmarks/calibration.py); drawing is most of a small
    report's time."""
    _DRAW.append(False)
    try:
        yield
    finally:
        _DRAW.pop()


def _png(fig) -> bytes:
    if not _DRAW[-1]:
        plt.close(fig)
        return b""
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return buf.getvalue()


def game_length(df: pl.DataFrame) -> bytes:
    """Bar chart: games by rounds played, stacked by end reason."""
    fig, ax = plt.subplots(figsize=(6, 3))
    rounds = sorted(set(df["rounds"].to_list()))
    bottom = [0.0] * len(rounds)
    for reason in sorted(set(df["end_reason"].to_list())):
        sub = {r: g for r, e, g in df.select("rounds", "end_reason", "games").iter_rows()
               if e == reason}
        heights = [float(sub.get(r, 0)) for r in rounds]
        ax.bar([str(r) for r in rounds], heights, bottom=bottom, label=reason)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_xlabel("rounds played")
    ax.set_ylabel("games")
    ax.legend(fontsize=8)
    return _png(fig)


def score_gap(df: pl.DataFrame) -> bytes:
    """Mean score of the round-1 first player minus the second, per round, with 95% CI."""
    fig, ax = plt.subplots(figsize=(6, 3))
    x = df["round"].to_list()
    ax.plot(x, df["gap_mean"].to_list(), marker="o")
    ax.fill_between(x, df["gap_mean_lo"].to_list(), df["gap_mean_hi"].to_list(), alpha=0.25)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("after round")
    ax.set_ylabel("first - second (score)")
    return _png(fig)


def curves(df: pl.DataFrame, columns: list[tuple[str, str]],
           label: Callable[[str, int], str] | None = None) -> bytes:
    """Small multiples: one panel per quantity, one line per (strategy, seat); seat 1
    dashed with markers so that two nearly equal lines (a mirror run) stay visible;
    whole-round ticks."""
    name = label or (lambda strategy, seat: f"{strategy} (seat {seat})")
    fig, axes = plt.subplots(1, len(columns), figsize=(3.0 * len(columns), 3))
    groups = df.select("strategy", "seat").unique().sort("strategy", "seat").rows()
    styles = [{"ls": "-", "marker": None}, {"ls": "--", "marker": "o", "ms": 3}]
    for ax, (col, label) in zip(axes, columns, strict=True):
        for k, (strategy, seat) in enumerate(groups):
            sub = df.filter((pl.col("strategy") == strategy) & (pl.col("seat") == seat))
            ax.plot(sub["round"].to_list(), sub[col].to_list(), label=name(strategy, seat),
                    **styles[k % 2])
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("round", fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].legend(fontsize=7)
    return _png(fig)


SYMBOL_COLOURS = {"Targia": "#4477aa", "Camel Rider": "#ee6677", "Camp": "#228833",
                  "Well": "#ccbb44", "Oasis": "#66ccee"}


def forest(labels: list[str], panels: list[tuple[str, list[float], list[float], list[float],
                                                 float | None]],
           colours: list[str], greyed: list[bool], legend: dict[str, str] | None = None
           ) -> bytes:
    """Forest plot: one row per label, one panel per quantity (title, values, lo, hi,
    reference line), a point and its 95% interval; greyed rows hollow and grey."""
    height = max(2.2, 0.2 * len(labels) + 1.2)
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels) + 1.5, height),
                             sharey=True, squeeze=False)
    ys = list(range(len(labels)))
    shown = ["#bbbbbb" if g else c for c, g in zip(colours, greyed, strict=True)]
    faces = ["white" if g else c for c, g in zip(shown, greyed, strict=True)]
    for ax, (title, values, lo, hi, ref) in zip(axes[0], panels, strict=True):
        def ok(*xs: float | None) -> bool:
            return all(x is not None and x == x for x in xs)

        bars = [k for k in ys if ok(values[k], lo[k], hi[k])]
        ax.hlines([ys[k] for k in bars], [lo[k] for k in bars], [hi[k] for k in bars],
                  colors=[shown[k] for k in bars], lw=1.2)  # one collection, not a line each
        points = [k for k in ys if ok(values[k])]
        ax.scatter([values[k] for k in points], [ys[k] for k in points], s=16, zorder=3,
                   c=[faces[k] for k in points], edgecolors=[shown[k] for k in points])
        if ref is not None and ref == ref:
            ax.axvline(ref, color="grey", lw=0.8, ls="--")
        ax.set_title(title, fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(axis="x", color="#eeeeee")
    axes[0][0].set_yticks(ys, labels, fontsize=7)
    axes[0][0].invert_yaxis()
    if legend:
        handles = [Line2D([], [], color=c, marker="o", ls="-", label=k)
                   for k, c in legend.items()]
        axes[0][-1].legend(handles=handles, fontsize=7, loc="upper left",
                           bbox_to_anchor=(1.01, 1.0))  # outside: it hides no point
    return _png(fig)


def card_bars(names: list[str], values: list[float], lo: list[float], hi: list[float],
              greyed: list[bool], xlabel: str, ref: float | None = None) -> bytes:
    """Horizontal bars with 95% interval whiskers; low-n entries drawn grey."""
    height = max(3.0, 0.18 * len(names) + 1.0)
    fig, ax = plt.subplots(figsize=(6, height))
    ys = list(range(len(names)))
    colors = ["#bbbbbb" if g else "#4477aa" for g in greyed]
    err = [[max(v - a, 0) for v, a in zip(values, lo, strict=True)],
           [max(b - v, 0) for v, b in zip(values, hi, strict=True)]]
    ax.barh(ys, values, color=colors, xerr=err, error_kw={"lw": 0.8})
    ax.set_yticks(ys, names, fontsize=7)
    ax.invert_yaxis()
    if ref is not None:
        ax.axvline(ref, color="grey", lw=0.8)
    ax.set_xlabel(xlabel)
    return _png(fig)


def raid_mix(df: pl.DataFrame) -> bytes:
    """Stacked shares of payment kinds per raid."""
    fig, ax = plt.subplots(figsize=(6, 3))
    raids = sorted(set(df["raid"].to_list()))
    kinds = ["goods", "vp", "gold", "none", "immune"]
    bottom = [0.0] * len(raids)
    for kind in kinds:
        share = {r: s for r, p, s in df.select("raid", "paid", "share").iter_rows() if p == kind}
        if not share:
            continue
        h = [float(share.get(r, 0.0)) for r in raids]
        ax.bar([f"raid {r}" for r in raids], h, bottom=bottom, label=kind)
        bottom = [b + x for b, x in zip(bottom, h, strict=True)]
    ax.set_ylabel("share of players")
    ax.legend(fontsize=8)
    return _png(fig)


def scatter(x: list[float], y: list[float], labels: list[str], xlabel: str,
            ylabel: str) -> bytes:
    """Labelled points with the least-squares line (for observed vs causal values)."""
    import numpy as np

    fig, ax = plt.subplots(figsize=(6, 5))
    ax.scatter(x, y, s=14, color="#4477aa")
    for xi, yi, name in zip(x, y, labels, strict=True):
        ax.annotate(name, (xi, yi), fontsize=5, alpha=0.7)
    if len(set(x)) >= 2:
        slope, icpt = np.polyfit(x, y, 1)
        xs = [min(x), max(x)]
        ax.plot(xs, [icpt + slope * v for v in xs], color="grey", lw=0.8)
    ax.axhline(0.0, color="grey", lw=0.5, ls=":")
    ax.axvline(0.0, color="grey", lw=0.5, ls=":")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return _png(fig)
