"""compare's per-card rows named by card: card_id, name and the grade in each run.

Why: a designer edits a card by its card_id and reads its grade in each run's report;
compare's rows named a card only inside the metric ("Targia 1VP #1: acquire rate").
"""

from __future__ import annotations

import polars as pl

from .family import CARD_RATES
from .model import Report

CARD_COLUMNS = ("card_id", "name", "grade_a", "grade_b")
_SCHEMA = {"group": pl.String, "metric": pl.String, "card_id": pl.Int64, "name": pl.String,
           "grade_a": pl.String, "grade_b": pl.String}


def _grades(report: Report) -> dict[str, str | None]:
    df = report.table("cards_tribe").df
    if "grade" not in df.columns:
        return {}
    return dict(zip(df["name"].to_list(), df["grade"].cast(pl.String).to_list(), strict=True))


def with_card_columns(df: pl.DataFrame, ra: Report, rb: Report) -> pl.DataFrame:
    """`df` (compare_tables' rows) with CARD_COLUMNS after `group`: set on the tribe-card
    rows (matched by name, as compare_tables matches them; card_id is B's), null on the
    others."""
    ga, gb = _grades(ra), _grades(rb)
    tribe = rb.table("cards_tribe").df
    rows = [{"group": "cards_tribe", "metric": f"{name}: {label}", "card_id": cid,
             "name": name, "grade_a": ga.get(name), "grade_b": gb.get(name)}
            for cid, name in zip(tribe["card_id"].to_list(), tribe["name"].to_list(),
                                 strict=True)
            for label, *_ in CARD_RATES]
    keys = pl.DataFrame(rows, schema=_SCHEMA)
    out = df.join(keys, on=["group", "metric"], how="left", maintain_order="left")
    rest = [c for c in df.columns if c != "group"]
    return out.select("group", *CARD_COLUMNS, *rest)
