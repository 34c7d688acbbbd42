"""The run's Parquet tables, built straight from the engine's integer arrays.

Why not via polars frames: a chunk of 20,000 games is ~2 million log rows, and
turning numpy columns into Arrow arrays of the narrowest type, with names as
dictionary codes, is the cheapest path to a small zstd file. Column names and
meanings are documented in docs/data-model.md; `SCHEMAS` is the single source.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from targi_sim.engine import logs as rec
from targi_sim.engine.constants import END_REASON_NAMES, SYMBOL_NAMES, TIEBREAK_NAMES
from targi_sim.game.record import GAME_COLUMNS
from targi_sim.play.pairing import pair_ids

I8, I16, I64 = pa.int8(), pa.int16(), pa.int64()
NAME = pa.dictionary(pa.int8(), pa.string())
_NUMPY = {I8: np.int8, I16: np.int16, I64: np.int64}

TABLES = ("games", "rounds", "acquisitions", "offers", "raids", "goods")

# per engine log table: (run table name, engine table id, engine columns)
LOGS = (
    ("rounds", rec.T_ROUNDS, rec.ROUND_COLUMNS),
    ("acquisitions", rec.T_ACQ, rec.ACQ_COLUMNS),
    ("offers", rec.T_OFFERS, rec.OFFER_COLUMNS),
    ("raids", rec.T_RAIDS, rec.RAID_COLUMNS),
    ("goods", rec.T_GOODS, rec.GOODS_COLUMNS),
)

_BREAKDOWN = tuple(c for c in GAME_COLUMNS if c.endswith(("_p0", "_p1")) and
                   not c.startswith("score"))

SCHEMAS: dict[str, pa.Schema] = {
    "games": pa.schema(
        [("game_id", I64), ("pair_id", I64), ("seed", I64), ("p0_strategy", NAME),
         ("p1_strategy", NAME), ("first_player", I8), ("winner", I8), ("score_p0", I16),
         ("score_p1", I16), ("rounds", I8), ("end_reason", NAME), ("tiebreak", NAME)]
        + [(c, I16) for c in _BREAKDOWN]
    ),
    "rounds": pa.schema(
        [("game_id", I64), ("round", I8), ("player", I8), ("is_first", pa.bool_()),
         ("robber_card", I8), ("targi_card_1", I8), ("targi_card_2", I8),
         ("targi_card_3", I8), ("marker_cell_1", I8), ("marker_cell_2", I8),
         ("vp_tokens", I16), ("gold", I16), ("dates", I16), ("salt", I16), ("pepper", I16),
         ("display_count", I8), ("hand_card", I16), ("cards_acquired", I8),
         # int16, not int8: a generous trade (1 good -> 2) repeated 64 times in one
         # action can bring hundreds of goods to the round-end limit (targi_sim/engine/limits.py)
         ("goods_discarded", I16), ("gold_discarded", I16), ("score_now", I16),
         ("marker_moved_1", I8), ("marker_moved_2", I8)]
    ),
    "acquisitions": pa.schema(
        [("game_id", I64), ("round", I8), ("player", I8), ("card_id", I16), ("symbol", NAME),
         ("source", NAME), ("outcome", NAME), ("row", I8), ("col", I8)]
    ),
    "offers": pa.schema([("game_id", I64), ("round", I8), ("cell", I8), ("card_id", I16)]),
    "raids": pa.schema(
        [("game_id", I64), ("round", I8), ("raid", I8), ("player", I8), ("paid", NAME),
         ("amount", I16), ("opponent_bonus", I16), ("gold", I16)]
    ),
    "goods": pa.schema(
        [("game_id", I64), ("round", I8), ("player", I8), ("card_id", I16), ("source", NAME)]
    ),
}

# engine column -> names of its codes, for the dictionary-encoded columns
_CODES = {
    ("acquisitions", "source"): rec.SOURCE_NAMES,
    ("acquisitions", "outcome"): rec.OUTCOME_NAMES,
    ("raids", "paid"): rec.PAID_NAMES,
    ("goods", "source"): rec.GOODS_SOURCE_NAMES,
    ("games", "end_reason"): END_REASON_NAMES,
    ("games", "tiebreak"): TIEBREAK_NAMES,
}


def _names(codes: np.ndarray, names: Sequence[str]) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(
        pa.array(codes.astype(np.int8), type=pa.int8()), pa.array(list(names), pa.string())
    )


def _column(values: np.ndarray, field: pa.Field, check: bool = False) -> pa.Array:
    if pa.types.is_boolean(field.type):
        return pa.array(values != 0, type=pa.bool_())
    narrow = values.astype(_NUMPY[field.type])
    if check and not np.array_equal(narrow, values):  # deck bounds should make this impossible
        raise OverflowError(f"a value of column {field.name!r} does not fit {field.type}; "
                            "the deck and rules bounds (targi_sim/engine/limits.py) missed a case")
    return pa.array(narrow, type=field.type)


def games_table(G: np.ndarray, seeds: np.ndarray, pairing: str,
                strategies: tuple[str, str]) -> pa.Table:
    """The `games` table of a chunk from the engine's result rows."""
    schema = SCHEMAS["games"]
    ids = G[:, rec.G_GAME]
    n = len(ids)
    cols: dict[str, pa.Array] = {
        "game_id": pa.array(ids, I64),
        "pair_id": pa.array(pair_ids(ids, pairing), I64),
        "seed": pa.array(seeds, I64),
        "p0_strategy": _names(np.zeros(n, np.int8), [strategies[0]]),
        "p1_strategy": _names(np.zeros(n, np.int8), [strategies[1]]),
    }
    for i, name in enumerate(GAME_COLUMNS):
        if name in cols:
            continue
        codes = _CODES.get(("games", name))
        cols[name] = (_names(G[:, i], codes) if codes is not None  # one row per game:
                      else _column(G[:, i], schema.field(name), check=True))  # cheap to check
    return pa.Table.from_arrays([cols[f.name] for f in schema], schema=schema)


def log_table(name: str, rows: np.ndarray, columns: Sequence[str],
              tribe_symbol: np.ndarray) -> pa.Table:
    """One run table from the engine's rows of the matching log table."""
    schema = SCHEMAS[name]
    index = {c: i for i, c in enumerate(columns)}
    arrays = []
    for field in schema:
        if name == "acquisitions" and field.name == "symbol":
            cards = rows[:, index["card_id"]]
            arrays.append(_names(tribe_symbol[cards], SYMBOL_NAMES))
            continue
        values = rows[:, index[field.name]]
        codes = _CODES.get((name, field.name))
        arrays.append(_names(values, codes) if codes is not None else _column(values, field))
    return pa.Table.from_arrays(arrays, schema=schema)


CARDS_SCHEMA = pa.schema(
    [("card_type", pa.string()), ("card_id", I16), ("name", pa.string()), ("kind", pa.string()),
     ("symbol", pa.string()), ("vp", I16), ("cost_salt", I16), ("cost_pepper", I16),
     ("cost_dates", I16), ("cost_gold", I16), ("salt", I16), ("pepper", I16), ("dates", I16),
     ("gold", I16), ("choose_one", I16)]
)


def cards_table(deck) -> pa.Table:
    """One row per card of the deck: the dimension table reports join card ids with."""
    from targi_sim.engine.constants import ABILITY_NAMES, BORDER_KIND_NAMES

    rows: list[dict] = []
    for b, name in enumerate(deck.border_names):
        rows.append({"card_type": "border", "card_id": b + 1, "name": name,
                     "kind": BORDER_KIND_NAMES[int(deck.border_kind[b])]})
    for g, name in enumerate(deck.goods_names):
        salt, pepper, dates, gold, vp, choose = (int(x) for x in deck.goods[g])
        rows.append({"card_type": "goods", "card_id": g, "name": name, "kind": "goods",
                     "vp": vp, "salt": salt, "pepper": pepper, "dates": dates, "gold": gold,
                     "choose_one": choose})
    for c, name in enumerate(deck.tribe_names):
        cost = [int(x) for x in deck.tribe_cost[c]]
        rows.append({"card_type": "tribe", "card_id": c, "name": name,
                     "kind": ABILITY_NAMES[int(deck.tribe_ability[c])],
                     "symbol": SYMBOL_NAMES[int(deck.tribe_symbol[c])],
                     "vp": int(deck.tribe_vp[c]), "cost_salt": cost[0], "cost_pepper": cost[1],
                     "cost_dates": cost[2], "cost_gold": cost[3]})
    return pa.Table.from_pylist(rows, schema=CARDS_SCHEMA)

