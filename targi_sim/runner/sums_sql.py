"""The SQL reference of the summary tables (runner/sums.py): analyses/sums_*.sql over
written rows.

Why kept beside the worker's numpy path (sums_arrays.py): it reads rows any run has, so
it summarises a run written before summaries existed and recomputes a damaged summary,
and its queries state each table's definition plainly; the tests hold the worker's
summaries equal to it, byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from targi_sim.engine.logs import PAID_NAMES
from targi_sim.game.classes import CardClasses
from targi_sim.runner.queries import read_sql
from targi_sim.runner.sums import CARD_VALUES, SPECS, F, I, Spec, lead_counts

# the report's example games: section -> the query of its candidates (one row each, with a
# `value` the rules rank by; targi_sim/report/examples.py)
EXAMPLES = {"cards": "example_plays", "raids": "example_raids"}


def candidates_sql(section: str) -> str:
    """The candidates query of a section's example games, to nest in another query."""
    return read_sql(EXAMPLES[section]).strip().rstrip(";")


def _example_counts(a, goods_vp: float, gold_vp: float) -> pl.DataFrame:
    """Per section and value, the example candidates (a histogram: the rules pick by rank
    and value, then read the one chunk that holds the pick). Needs round_diff."""
    frames = []
    for section in EXAMPLES:
        sql = candidates_sql(section)
        params = {k: v for k, v in (("goods_vp", goods_vp), ("gold_vp", gold_vp))
                  if f"${k}" in sql}
        frames.append(a.con.sql(  # + 0.0: -0.0 and 0.0 are one value
            f"SELECT '{section}' AS section, value + 0.0 AS value, count(*)::DOUBLE AS n "
            f"FROM ({sql}) GROUP BY ALL", params=params or None).pl())
    return pl.concat(frames)


def summarise(a, open_pairs: Sequence[int], goods_vp: float, gold_vp: float,
              classes: CardClasses) -> tuple[dict[str, pl.DataFrame], dict[str, pl.DataFrame]]:
    """(sums per table, open pairs' linear rows per clustered table) of the rows an
    Analyses connection `a` sees (runner/queries.py): a chunk's, or a whole run's with
    no open pairs (the raw-row path). The per-pair rows stay in DuckDB (temporary
    tables): only their sums and the open pairs' rows come out. `classes`: the classes of
    identical tribe cards whose copies tribe_pairs adds per pair."""
    a.script("round_diff")
    rates = {"goods_vp": goods_vp, "gold_vp": gold_vp}
    a.con.register("class_of_card", pl.DataFrame(
        {"card_id": range(len(classes.of_card)),
         "class_id": classes.first()[classes.of_card]}).to_arrow())
    a.con.execute("CREATE OR REPLACE TEMP TABLE class_map AS SELECT card_id::INTEGER AS "
                  "card_id, class_id::INTEGER AS class_id FROM class_of_card")
    a.con.execute("CREATE OR REPLACE TEMP TABLE pairs_cards AS "
                  f"{read_sql('sums_tribe_pairs').strip().rstrip(';')}")
    wide, open_rows = {}, {}
    for name, spec in SPECS.items():
        if name == "lead":
            df = lead_counts(a.frame("sums_lead_codes"))
        elif name == "examples":
            df = _example_counts(a, goods_vp, gold_vp)
        elif not spec.clustered:
            df = a.frame(f"sums_{name}")
        else:
            a.con.execute(f"CREATE OR REPLACE TEMP TABLE pairs_{name} AS "
                          f"{_pair_rows(name)}", _used(_pair_rows(name), rates))
            df = a.con.sql(_reduce_sql(spec, f"pairs_{name}", open_pairs)).pl()
            if open_pairs:
                listed = ", ".join(str(int(p)) for p in open_pairs)
                open_rows[name] = _typed(spec, a.con.sql(
                    f"SELECT {', '.join([*spec.keys, 'pair_id', *spec.values])} FROM "
                    f"pairs_{name} WHERE pair_id IN ({listed})").pl())
        wide[name] = _typed(spec, df).select(*spec.keys, *spec.stats)
    return wide, open_rows


def _typed(spec: Spec, df: pl.DataFrame) -> pl.DataFrame:
    return df.with_columns(*(pl.col(k).cast(t) for k, t in spec.keys.items()),
                           *(pl.col(c).cast(F) for c in df.columns
                             if c not in spec.keys and c != "pair_id"),
                           *([pl.col("pair_id").cast(I)] if "pair_id" in df.columns else []))


def _used(sql: str, params: dict[str, float]) -> dict[str, float] | None:
    return {k: v for k, v in params.items() if f"${k}" in sql} or None


def _card_sums(key: str) -> str:
    return ", ".join(f"sum(t.{v}) AS {v}" for v in CARD_VALUES) + f" FROM pairs_cards t {key}"


def _pair_rows(name: str) -> str:
    """The query of a clustered table's per-group, per-pair linear rows."""
    if name == "tribe_pairs":  # each card's rows added up per class of copies
        return ("SELECT m.class_id AS card_id, t.pair_id, "
                + _card_sums("JOIN class_map m USING (card_id) GROUP BY ALL"))
    if name == "symbol_pairs":  # the tribe cards' rows added up per symbol
        return ("SELECT c.symbol, t.pair_id, " + _card_sums(
            "JOIN cards c ON c.card_type = 'tribe' AND c.card_id = t.card_id GROUP BY ALL"))
    if name == "raid_pairs":  # one column per payment kind beside the players facing it
        kinds = ", ".join(f"coalesce(sum({c}) FILTER (WHERE paid = '{k}'), 0) AS {c}_{k}"
                          for k in PAID_NAMES for c in ("n", "points"))
        return (f"SELECT raid, pair_id, sum(n) AS facing, {kinds} FROM "
                f"({read_sql('sums_raid_pairs').strip().rstrip(';')}) GROUP BY ALL")
    if name == "swing":
        return read_sql("raids_swing").strip().rstrip(";")
    if name == "shape":
        return read_sql("strategy_shape").strip().rstrip(";")
    return read_sql(f"sums_{name}").strip().rstrip(";")


def _reduce_sql(spec: Spec, table: str, open_pairs: Sequence[int]) -> str:
    """`reduce` in SQL over the pairs of `table` not in `open_pairs`."""
    cols = [*spec.keys,
            *(f"coalesce(sum({v}), 0)::DOUBLE AS \"{v}\"" for v in spec.values),
            *(f"coalesce(sum({x}::DOUBLE * {y}::DOUBLE), 0) AS \"{x}*{y}\""
              for x, y in spec.products),
            *(f"count(*) FILTER (WHERE {n} > 0)::DOUBLE AS \"{n}>0\"" for n in spec.positive)]
    where = (f" WHERE pair_id NOT IN ({', '.join(str(int(p)) for p in open_pairs)})"
             if open_pairs else "")
    group = " GROUP BY ALL" if spec.keys else ""
    return f"SELECT {', '.join(cols)} FROM {table}{where}{group}"


__all__ = ["EXAMPLES", "candidates_sql", "summarise"]
