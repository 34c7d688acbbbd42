"""Sufficient statistics of a run's rows, computed per chunk and merged by addition.

Why: a report, compare or check needs, per card class, symbol, strategy, seat, round or
raid, only counts, sums, sums of squares and cross-products over the independent units
(the pair_id: games that share a deal, targi_sim.stats.rates). Computed once per chunk,
they are a few thousand numbers, and the run's statistics are their sum, so reading a
report no longer grows with the games.

SPECS names each table: one row per group (and per pair_id for a clustered table) of
linear values; `reduce` sums them per group and, per pair, the products the intervals
need (`a*b`) and the pairs with `n > 0` (`n>0`). A pair can straddle two chunks (a
seat-swapped pair with an odd chunk size), so a chunk keeps the linear rows of its first
and last game's pairs ("open" rows) instead of their products; `merge` adds the pairs'
rows across chunks before squaring. Two computations fill the tables: the worker's, from
the arrays it holds (sums_arrays.py), and the SQL reference over written rows
(sums_sql.py: old runs, damaged summaries, the tests' yardstick). Both end in
`long_of`, whose canonical form (no zeros, sorted) makes their files byte-identical.

The card statistics per pair are per class of identical printed cards
(targi_sim.game.classes), keyed by the class's first card: a class's copies are added
per pair before squaring, which per-card sums could not undo.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from targi_sim.engine.logs import PAID_NAMES

VERSION = 3  # bump when a table or its meaning changes: older summaries are recomputed

F = pl.Float64
S = pl.String
I = pl.Int64


@dataclass(frozen=True)
class Spec:
    """One summary table: its group keys (name -> dtype), linear values, and for a table
    clustered by pair_id the per-pair products and positive counts to sum."""

    name: str
    keys: dict[str, pl.DataType]
    values: tuple[str, ...]
    products: tuple[tuple[str, str], ...] = ()
    positive: tuple[str, ...] = ()

    @property
    def clustered(self) -> bool:
        return bool(self.products or self.positive)

    @property
    def stats(self) -> list[str]:
        return [*self.values, *(f"{a}*{b}" for a, b in self.products),
                *(f"{n}>0" for n in self.positive)]


def _rate(x: str, n: str) -> tuple[tuple[str, str], ...]:
    return ((x, x), (x, n), (n, n))


def _products(*pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    return tuple(dict.fromkeys(p for ps in pairs for p in ps))


CARD_VALUES = ("offered_games", "taken_games", "played_n", "played_points", "not_taken_n",
         "not_taken_points")
_CARD_PRODUCTS = _products(_rate("taken_games", "offered_games"),
                           _rate("played_points", "played_n"),
                           _rate("not_taken_points", "not_taken_n"))
_FIGURES = ("cards", "token_vp", "card_vp", "row_bonus", "raid_losses")
_SWING = ("decided", "flipped_exact", "flipped_eq", "margin", "swing_exact", "swing_eq")

SPECS: dict[str, Spec] = {s.name: s for s in (
    Spec("matchups", {"p0_strategy": S, "p1_strategy": S},
         ("games", "first_wins", "draws", "first_points", "wins_p0", "wins_p1", "points_p0",
          "rounds", "rounds_sq", "tiebreak_decided", "tiebreaks", "score"),
         _products(_rate("first_points", "games"), _rate("draws", "games"),
                   _rate("tiebreak_decided", "games"), _rate("points_p0", "games"),
                   _rate("rounds", "games")), ("games",)),
    Spec("end_reason", {"end_reason": S}, ("n", "first_wins", "draws", "first_points"),
         _rate("first_points", "n"), ("n",)),
    Spec("game_length", {"rounds": I, "end_reason": S}, ("games",)),
    Spec("lead", {"n_rounds": I, "changes": I, "decisive": I, "decided": I}, ("games",)),
    Spec("score_gap", {"round": I}, ("n", "gap", "gap_sq"), _rate("gap", "n"), ("n",)),
    Spec("shape", {"strategy": S}, ("n", *_FIGURES, *(f"{f}_sq" for f in _FIGURES)),
         _products(*(_rate(f, "n") for f in _FIGURES)), ("n",)),
    Spec("tribe", {"card_id": I},
         ("offered_rounds", "acquired", "acquired_centre", "acquired_expansion", "played",
          "kept", "discarded", "acquisition_rows", "round_sum")),
    Spec("tribe_pairs", {"card_id": I}, CARD_VALUES, _CARD_PRODUCTS,  # card_id: a class's first
         ("offered_games", "played_n", "not_taken_n")),
    Spec("symbol_pairs", {"symbol": S}, CARD_VALUES, _CARD_PRODUCTS,
         ("offered_games", "played_n", "not_taken_n")),
    Spec("border", {"position": I}, ("placements", "open_rounds", "used_points", "used_n"),
         _products(_rate("placements", "open_rounds"), _rate("used_points", "used_n")),
         ("open_rounds", "used_n")),
    Spec("goods", {"card_id": I}, ("taken", "taken_centre", "taken_border")),
    Spec("goods_pairs", {"card_id": I}, ("taker_n", "taker_points"),
         _rate("taker_points", "taker_n"), ("taker_n",)),
    Spec("raids", {"raid": I, "paid": S}, ("n", "amount", "gold", "opponent_bonus", "points")),
    Spec("raid_pairs", {"raid": I},
         ("facing", *(f"{c}_{k}" for k in PAID_NAMES for c in ("n", "points"))),
         _products((("facing", "facing"),),
                   *(_rate(f"points_{k}", f"n_{k}") + ((f"n_{k}", "facing"),)
                     for k in PAID_NAMES)),
         ("facing", *(f"n_{k}" for k in PAID_NAMES))),
    Spec("swing", {}, _SWING,
         _products(_rate("flipped_exact", "decided"), _rate("flipped_eq", "decided")),
         ("decided",)),
    Spec("curves", {"round": I, "seat": I, "strategy": S, "role": S},
         ("n", "score", "vp_tokens", "gold", "goods", "display")),
    Spec("examples", {"section": S, "value": F}, ("n",)),
)}

def reduce(spec: Spec, rows: pl.DataFrame) -> pl.DataFrame:
    """Per group of `spec.keys`: the sums of the values, and for a clustered table the
    sums of the per-pair products and the count of pairs with a positive value (`rows`:
    one row per group and pair_id)."""
    keys = list(spec.keys)
    if spec.clustered:  # one row per group and pair (the query groups so; merge may not)
        rows = rows.group_by([*keys, "pair_id"]).agg(pl.col(v).sum() for v in spec.values)
    aggs = [pl.col(v).cast(F).sum() for v in spec.values]
    aggs += [(pl.col(a).cast(F) * pl.col(b).cast(F)).sum().alias(f"{a}*{b}")
             for a, b in spec.products]
    aggs += [(pl.col(n) > 0).sum().cast(F).alias(f"{n}>0") for n in spec.positive]
    if not keys:
        return rows.select(aggs) if rows.height else pl.DataFrame(
            {s: [0.0] for s in spec.stats})
    return rows.group_by(keys).agg(aggs)


# ---- the long form stored in a summary file: one number per row ----

LONG_SCHEMA = {"table": S, "key": S, "pair_id": I, "stat": S, "value": F}


def to_long(spec: Spec, wide: pl.DataFrame, stats: Sequence[str], pair: bool) -> pl.DataFrame:
    """`wide` (keys [+ pair_id] + stats) as rows of (table, key, pair_id, stat, value)."""
    if wide.height == 0:
        return pl.DataFrame(schema=LONG_SCHEMA)
    keys = list(spec.keys)
    key = (pl.struct(keys).struct.json_encode() if keys else pl.lit("{}")).alias("key")
    # (key_text encodes alike)
    pid = pl.col("pair_id").cast(I) if pair else pl.lit(None, I).alias("pair_id")
    return (wide.select(pl.lit(spec.name).alias("table"), key, pid,
                        *(pl.col(s).cast(F) for s in stats))
            .unpivot(index=["table", "key", "pair_id"], variable_name="stat", value_name="value")
            .select(*(pl.col(c).cast(t) for c, t in LONG_SCHEMA.items())))


def from_long(spec: Spec, long: pl.DataFrame, stats: Sequence[str], pair: bool) -> pl.DataFrame:
    """The wide table of one spec back from its long rows (missing stats are 0)."""
    keys = list(spec.keys)
    index = ["key", "pair_id"] if pair else ["key"]
    if long.height == 0:
        wide = pl.DataFrame(schema={**{c: LONG_SCHEMA[c] for c in index},
                                    **dict.fromkeys(stats, F)})
    else:
        wide = long.pivot(on="stat", index=index, values="value", aggregate_function="sum")
    wide = wide.with_columns(pl.lit(0.0).alias(s) for s in stats if s not in wide.columns)
    if keys:
        decoded = pl.col("key").str.json_decode(pl.Struct(spec.keys))
        wide = wide.with_columns(decoded.alias("_k")).unnest("_k")
    elif not pair and wide.height == 0:  # a table without keys has its one row, if all 0
        wide = pl.DataFrame({s: [0.0] for s in stats})
    return wide.select(*keys, *(["pair_id"] if pair else []),
                       *(pl.col(s).fill_null(0.0).cast(F) for s in stats))


def long_of(wide: dict[str, pl.DataFrame], open_rows: dict[str, pl.DataFrame]
            ) -> pl.DataFrame:
    """A chunk's summary in long form: each table's sums and its open pairs' rows, in a
    canonical form (zeros left out: a missing stat is 0; sorted), so that the same
    numbers, however computed, are the same bytes."""
    parts = [to_long(SPECS[t], df, SPECS[t].stats, pair=False) for t, df in wide.items()]
    parts += [to_long(SPECS[t], df, SPECS[t].values, pair=True) for t, df in open_rows.items()]
    return canonical(parts)


def canonical(parts: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Long rows as a summary stores them: zeros left out, sorted."""
    long = pl.concat([*parts, pl.DataFrame(schema=LONG_SCHEMA)], how="vertical")
    return (long.filter(pl.col("value") != 0)
            .sort("table", "key", "pair_id", "stat", nulls_last=False))


def key_text(spec: Spec, keys: pl.DataFrame) -> list[str]:
    """Each row's `key` in the long form (its group keys as JSON, as to_long writes it)."""
    return keys.select(pl.struct(list(spec.keys)).struct.json_encode())[:, 0].to_list()


@dataclass
class Sums:
    """The merged sums of a run: one wide frame per table of SPECS."""

    tables: dict[str, pl.DataFrame]

    def __getitem__(self, name: str) -> pl.DataFrame:
        return self.tables[name]


def merge(summaries: Iterable[pl.DataFrame], batch: int = 64) -> Sums:
    """Add up chunk summaries (long form): the sums by addition, the open pairs' rows per
    pair first, then reduced. Folds `batch` chunks at a time, so memory stays flat."""
    closed: list[pl.DataFrame] = []
    opened: list[pl.DataFrame] = []

    def fold(frames: list[pl.DataFrame], by: list[str]) -> list[pl.DataFrame]:
        if len(frames) < 2:
            return frames
        return [pl.concat(frames).group_by(by).agg(pl.col("value").sum())
                .select(*LONG_SCHEMA)]

    for long in summaries:
        closed.append(long.filter(pl.col("pair_id").is_null()))
        opened.append(long.filter(pl.col("pair_id").is_not_null()))
        if len(closed) >= batch:
            closed = fold(closed, ["table", "key", "pair_id", "stat"])
            opened = fold(opened, ["table", "key", "pair_id", "stat"])
    total = pl.concat([*closed, pl.DataFrame(schema=LONG_SCHEMA)])
    open_all = pl.concat([*opened, pl.DataFrame(schema=LONG_SCHEMA)])
    for name, spec in SPECS.items():
        rows = open_all.filter(pl.col("table") == name)
        if rows.height:
            pairs = from_long(spec, rows, spec.values, pair=True)
            total = pl.concat([total, to_long(spec, reduce(spec, pairs), spec.stats, False)])
    total = total.group_by("table", "key", "stat").agg(pl.col("value").sum())
    return Sums({name: _sorted(spec, from_long(spec, total.filter(pl.col("table") == name),
                                               spec.stats, pair=False))
                 for name, spec in SPECS.items()})


def _sorted(spec: Spec, df: pl.DataFrame) -> pl.DataFrame:
    return df.sort(list(spec.keys)) if spec.keys else df


def lead_counts(games: pl.DataFrame) -> pl.DataFrame:
    """Games per (rounds R, lead changes, decisive round d, decided) from per-game leader
    codes (analyses/sums_lead_codes.sql); targi_sim/report/metrics.lead_metrics reads them.

    Lead changes: rounds r in 2..R whose leader (seat 0, seat 1, or level) differs from
    round r-1's. d: 1 + the last round in which the final winner was not strictly ahead
    (0 for a game without a winner)."""
    code = games["code"].cast(I).to_numpy()
    R = games["n_rounds"].cast(I).to_numpy()
    winner = games["winner"].cast(I).to_numpy()
    if len(code) == 0:
        return pl.DataFrame(schema={"n_rounds": I, "changes": I, "decisive": I,
                                    "decided": I, "games": F})
    width = int(R.max())
    lead = (code[:, None] >> (2 * np.arange(width, dtype=np.int64))[None, :]) & 3
    valid = np.arange(width)[None, :] < R[:, None]
    changes = ((lead[:, 1:] != lead[:, :-1]) & valid[:, 1:]).sum(axis=1)
    decided = winner >= 0
    not_ahead = (lead != np.where(winner == 0, 1, 2)[:, None]) & valid
    last = np.where(not_ahead.any(axis=1), width - np.argmax(not_ahead[:, ::-1], axis=1), 0)
    d = np.where(decided, last + 1, 0)
    return (pl.DataFrame({"n_rounds": R, "changes": changes.astype(np.int64), "decisive": d,
                          "decided": decided.astype(np.int64)})
            .group_by("n_rounds", "changes", "decisive", "decided")
            .agg(pl.len().cast(F).alias("games")))
