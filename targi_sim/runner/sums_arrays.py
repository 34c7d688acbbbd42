"""A chunk's summary (runner/sums.py) from the arrays its worker holds: no SQL, no
re-reading of the files it has just written.

Why: running analyses/sums_*.sql over a chunk's Parquet files cost more CPU than playing
the chunk. The worker already holds every row, as the engine's integer logs, a batch of
games at a time; one compiled pass over each log table (sums_kernels.py) and a few numpy
operations per game cost a few percent of the play. Every table means what its query in
sums_sql.py says: the tests hold the two equal, byte for byte, on odd chunks, resumed
and Dask-made runs.

Per batch, each clustered table is a dense array (pairs, groups, values); a pair is
reduced to its sums and products once no later batch can add to it (a batch's last pair
waits for the next batch), and the chunk's first and last pairs stay open, as
sums_sql.py keeps them. Settling a pair vectorises over its groups, so two tables are
kept in a layout of more groups than their specs have, and read back in the specs'
(`ChunkSummer._spec_tables`): the card classes' and symbols' tables, which share their
values, side by side in one ("cards"), and the raids' by raid and kind (RAID_KINDS).
Values are counts, points (halves) and VP: their float sums are exact, so the order of
addition does not change a bit.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from targi_sim.engine import logs as rec
from targi_sim.engine.constants import END_REASON_NAMES, SYMBOL_NAMES
from targi_sim.game.classes import CardClasses
from targi_sim.play.pairing import pair_ids
from targi_sim.runner.sums import (
    LONG_SCHEMA,
    SPECS,
    I,
    S,
    Spec,
    key_text,
)
from targi_sim.runner.sums_kernels import (
    cards_pass,
    games_pass,
    goods_pass,
    raids_pass,
    rounds_pass,
    settle,
)

ROUNDS = rec.MAX_ROUNDS + 1  # round numbers 0..MAX_ROUNDS (the engine's bound)
RAIDS = rec.MAX_RAID_ROWS // 2 + 1  # raid numbers 0..4: a row per player and raid
PLAY_SWINGS = 256  # card-play swings -256..256 are counted in the kernel, others listed
_KEY_TEXTS: dict[tuple, np.ndarray] = {}  # a worker's chunks share their group keys' JSON
GAME_TABLES = ("matchups", "end_reason", "shape", "swing")  # summed per pair by games_pass
KINDS = len(rec.PAID_NAMES)
ENDS = len(END_REASON_NAMES)
# raid_pairs as the kernel keeps it: groups (raid, kind), the raid's facing repeated in
# every kind's column; each stat of SPECS["raid_pairs"] is one of these at one kind
RAID_KINDS = Spec("raid_pairs", {"raid": I, "paid": S}, ("n", "points", "facing"),
                  (("facing", "facing"), ("points", "points"), ("points", "n"), ("n", "n"),
                   ("n", "facing")), ("facing", "n"))


def _by_kind(stats: tuple[str, ...], kinds_stats: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """For each raid_pairs stat (`stats`), its index in RAID_KINDS' `kinds_stats` and its
    kind's column (facing's: kind 0)."""
    token = {"facing": ("facing", 0)} | {f"{v}_{name}": (v, k) for k, name in
                                         enumerate(rec.PAID_NAMES) for v in ("n", "points")}
    at, kind = [], []
    for stat in stats:
        base = stat.removesuffix(">0")
        parts = [token[t] for t in base.split("*")]
        at.append(kinds_stats.index("*".join(v for v, _ in parts) + stat[len(base):]))
        kind.append(max(k for _, k in parts))  # facing (kind 0) pairs with any kind
    return np.array(at), np.array(kind)


_RAID_STATS = _by_kind(tuple(SPECS["raid_pairs"].stats), RAID_KINDS.stats)
_RAID_VALUES = _by_kind(SPECS["raid_pairs"].values, list(RAID_KINDS.values))


@dataclass(frozen=True)
class RunShape:
    """What the summary needs of a run besides its rows."""

    strategies: tuple[str, str]
    pairing: str
    n_border: int
    n_goods: int
    tribe_symbol: np.ndarray
    classes: CardClasses
    goods_vp: float
    gold_vp: float


class _Clustered:
    """One clustered table's running sums over a chunk's pairs, a batch at a time. Arrays
    are (values or stats) x groups, the layout the kernels vectorise over."""

    def __init__(self, spec: Spec, groups: int, first_pair: int) -> None:
        self.first_pair = first_pair
        at = {v: i for i, v in enumerate(spec.values)}
        self.a = np.array([at[a] for a, _ in spec.products], dtype=np.int64)
        self.b = np.array([at[b] for _, b in spec.products], dtype=np.int64)
        self.positive = np.array([at[n] for n in spec.positive], dtype=np.int64)
        self.nv, self.groups = len(spec.values), groups
        self.sums = np.zeros((len(spec.stats), groups))
        self.edge = np.zeros((2, self.nv, groups))
        self.carry: tuple[int, np.ndarray] | None = None
        self.open: list[tuple[int, np.ndarray]] = []

    def kernel_arg(self) -> tuple:
        """The tuple a kernel settles this table's pairs into (sums_kernels' note); its
        edge rows go to `add_edges` after the kernel."""
        self.edge = np.zeros((2, self.nv, self.groups))
        return (np.zeros((self.nv, self.groups)), self.sums, self.edge, self.a, self.b,
                self.positive)

    def add_edges(self, pairs: np.ndarray) -> None:
        """After a kernel: the batch's first and last pairs (`pairs`: the batch's pair
        ids), which the next batch or chunk may add to."""
        if len(pairs) == 1:
            self.add(pairs, self.edge[:1])
        else:
            self.add(pairs[[0, -1]], self.edge)

    def add(self, pairs: np.ndarray, x: np.ndarray) -> None:
        """x: (pairs, values, groups) of one batch, `pairs` its ascending pair ids."""
        if self.carry is not None:
            pid, row = self.carry
            if pairs[0] != pid:
                self._settle(np.array([pid]), row[None])
            elif len(pairs) == 1:
                self.carry = (pid, row + x[0])
                return
            else:
                self._settle(pairs[:1], (row + x[0])[None])
                pairs, x = pairs[1:], x[1:]
        self.carry = (int(pairs[-1]), x[-1].copy())
        self._settle(pairs[:-1], x[:-1])

    def finish(self) -> None:
        if self.carry is not None:  # the chunk's last pair
            self.open.append(self.carry)
            self.carry = None

    def _settle(self, pairs: np.ndarray, x: np.ndarray) -> None:
        if len(pairs) and pairs[0] == self.first_pair:  # the chunk's first pair
            self.open.append((int(pairs[0]), x[0].copy()))
            x = x[1:]
        settle(np.ascontiguousarray(x), self.a, self.b, self.positive, self.sums)


class ChunkSummer:
    """Add a chunk's batches (`add`), then read its summary in long form (`long`)."""

    def __init__(self, shape: RunShape, first_game: int) -> None:
        self.shape = shape
        self.digest_parts: list[tuple[np.ndarray, ...]] = []
        first = int(pair_ids(np.array([first_game]), shape.pairing)[0])
        self.strategies = list(dict.fromkeys(shape.strategies))
        self.strategy_of_seat = np.array([self.strategies.index(s) for s in shape.strategies])
        self.n_tribe = len(shape.tribe_symbol)
        # what the group keys' texts depend on besides the table (_KEY_TEXTS' key)
        self._layout = (shape.strategies, shape.n_border, shape.n_goods, self.n_tribe,
                        tuple(shape.classes.first().tolist()))
        groups = {"matchups": 1, "end_reason": ENDS, "score_gap": ROUNDS,
                  "shape": len(self.strategies), "border": shape.n_border,
                  "goods_pairs": shape.n_goods, "swing": 1}
        self.clustered = {t: _Clustered(SPECS[t], k, first) for t, k in groups.items()}
        self.clustered["cards"] = _Clustered(SPECS["tribe_pairs"],  # then symbol_pairs'
                                             shape.classes.size + len(SYMBOL_NAMES), first)
        self.clustered["raid_pairs"] = _Clustered(RAID_KINDS, RAIDS * KINDS, first)
        dims = {"game_length": (ROUNDS, ENDS), "tribe": (self.n_tribe,),
                "goods": (shape.n_goods,), "raids": (RAIDS, KINDS), "curves": (ROUNDS, 2, 2)}
        self.flat = {t: np.zeros((*d, len(SPECS[t].values))) for t, d in dims.items()}
        # each card's symbol's group in the cards table
        self.symbol_of = np.asarray(shape.tribe_symbol, np.int64) + shape.classes.size
        self.lead = np.zeros((ROUNDS, ROUNDS, ROUNDS + 1, 2))  # games per lead_counts key
        self.play_hist = np.zeros(2 * PLAY_SWINGS + 2, np.int64)  # cards_pass's counts
        self.examples: dict[str, list[np.ndarray]] = {"cards": [], "raids": []}
        self.cpu_seconds = 0.0  # process CPU spent in add (the marker records it)

    def add(self, G: np.ndarray, logs: dict[str, np.ndarray]) -> None:
        """A batch of games: the engine's result rows G (consecutive game ids) and its log
        tables by run table name (rounds, acquisitions, offers, raids, goods), rows in
        game order."""
        t0 = time.process_time()
        g = G.astype(np.int64)
        n, ids = len(g), g[:, rec.G_GAME]
        if ids[-1] - ids[0] != n - 1:
            raise ValueError("a batch's game ids must be consecutive")
        pid = pair_ids(ids, self.shape.pairing)
        new = np.r_[True, pid[1:] != pid[:-1]]
        pairs, pair = pid[new], np.cumsum(new) - 1
        w, first = g[:, rec.G_WINNER], g[:, rec.G_FIRST]
        points = np.stack([np.where(w == p, 1.0, np.where(w == -1, 0.5, 0.0)) for p in (0, 1)],
                          axis=1)
        game0 = int(ids[0])

        diff, has = np.zeros((n, ROUNDS), np.int32), np.zeros((n, ROUNDS), np.uint8)
        last_display = np.zeros((n, 2))
        c = self.clustered
        arg = {name: table.kernel_arg() for name, table in c.items() if name not in GAME_TABLES}
        rounds_pass(logs["rounds"], game0, pair, first, w, points, diff, has, last_display,
                    self.flat["curves"], arg["border"], arg["score_gap"], self.lead)
        plays = np.empty(len(logs["acquisitions"]), np.int64)  # the first m are set
        masks = np.zeros((n, 7), np.uint64)
        m = cards_pass(logs["offers"], logs["acquisitions"], game0, pair, points, diff, has,
                       self.shape.classes.of_card, self.symbol_of, arg["cards"],
                       self.flat["tribe"], self.play_hist, plays, masks)
        per_game = np.zeros((n, 2, 4))
        if len(logs["raids"]) and logs["raids"][:, rec.RD_RAID].max() >= RAIDS:
            raise ValueError(f"raid numbers must be below {RAIDS}")
        raids_pass(logs["raids"], game0, pair, points, self.shape.goods_vp,
                   self.shape.gold_vp, arg["raid_pairs"], self.flat["raids"], per_game)
        goods_pass(logs["goods"], game0, pair, points, arg["goods_pairs"], self.flat["goods"])
        raids_eq = np.empty(n)  # the first k are set
        per_pair = {t: np.zeros((len(pairs), c[t].nv, c[t].groups)) for t in GAME_TABLES}
        k = games_pass(g, pair, points, last_display, per_game, self.strategy_of_seat,
                       *per_pair.values(), self.flat["game_length"], raids_eq)
        for name, table in c.items():
            if name in per_pair:
                table.add(pairs, per_pair[name])
            else:
                table.add_edges(pairs)
        self.examples["cards"].append(plays[:m])
        self.examples["raids"].append(raids_eq[:k])
        self.digest_parts.append((ids, masks, last_display, per_game[:, :, 0]))
        self.cpu_seconds += time.process_time() - t0

    def digest(self) -> pl.DataFrame:
        """The chunk's game digest (runner/digests.py)."""
        from targi_sim.runner.digests import frame

        parts = self.digest_parts or [(np.zeros(0, np.int64), np.zeros((0, 7), np.uint64),
                                       np.zeros((0, 2)), np.zeros((0, 2)))]
        return frame(*(np.concatenate(column) for column in zip(*parts, strict=True)))

    # ---- the chunk's summary ----

    def long(self) -> pl.DataFrame:
        """The chunk's summary in long form: what runner/sums.long_of makes of the same
        tables (only their nonzero numbers, in its canonical order), built from the
        dense arrays. Rows are ordered by integer ranks of their texts (_Rows), as
        sorting the texts themselves took most of a chunk's summary write."""
        rows = _Rows()
        for acc in self.clustered.values():
            acc.finish()
        for name, sums, open_rows in self._spec_tables():
            self._dense(rows, name, sums.T, SPECS[name].stats, -1)
            for pid, x in open_rows:
                self._dense(rows, name, x.T, SPECS[name].values, pid)
        for name, sums in self.flat.items():
            self._dense(rows, name, sums.reshape(-1, sums.shape[-1]), SPECS[name].values, -1)
        at = np.nonzero(self.lead)
        rows.keyed("lead", list(zip(*(a.tolist() for a in at), strict=True)), "games",
                   self.lead[at])
        at = np.flatnonzero(self.play_hist[:-1])
        examples = {
            "cards": _histogram(np.concatenate(self.examples["cards"]), at - PLAY_SWINGS,
                                self.play_hist[at]),
            "raids": _histogram(np.concatenate(self.examples["raids"]))}
        rows.keyed("examples", [(section, v) for section, (value, _) in examples.items()
                                for v in value.tolist()],
                   "n", np.concatenate([n for _, n in examples.values()]))
        return rows.frame()

    def _dense(self, rows: _Rows, name: str, x: np.ndarray, stats: tuple[str, ...] | list[str],
               pid: int) -> None:
        """The nonzero numbers of x (groups x stats) as long rows; pid -1: none."""
        at = (name, *self._layout)
        keys = _KEY_TEXTS.get(at)
        if keys is None:
            text = key_text(SPECS[name], self._keys(name)) if SPECS[name].keys else ["{}"]
            keys = _KEY_TEXTS[at] = (np.array(text, dtype=object), _ranks(text))
        g, j = np.nonzero(x)
        rows.add(name, keys[0][g], keys[1][g], pid, tuple(stats), j, x[g, j])

    def _spec_tables(self) -> Iterator[tuple[str, np.ndarray, list[tuple[int, np.ndarray]]]]:
        """Each clustered table of SPECS as (name, sums (stats x groups), open pairs'
        (pair_id, values x groups)), read from the kernels' layout (module note)."""
        for name, acc in self.clustered.items():
            if name not in ("cards", "raid_pairs"):
                yield name, acc.sums, acc.open
        cards, k = self.clustered["cards"], self.shape.classes.size
        for name, part in (("tribe_pairs", slice(None, k)), ("symbol_pairs", slice(k, None))):
            yield name, cards.sums[:, part], [(pid, x[:, part]) for pid, x in cards.open]
        raids = self.clustered["raid_pairs"]

        def spec_layout(x: np.ndarray, at: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
            return x.reshape(len(x), RAIDS, KINDS)[at[0], :, at[1]]

        yield ("raid_pairs", spec_layout(raids.sums, _RAID_STATS),
               [(pid, spec_layout(x, _RAID_VALUES)) for pid, x in raids.open])

    def _keys(self, name: str) -> pl.DataFrame:
        """The group keys of a table's dense groups, in their order."""
        s, rounds = self.shape, np.arange(ROUNDS)
        seats = np.tile(np.repeat([0, 1], 2), ROUNDS)  # curves: (round, seat, role)
        cols = {
            "matchups": lambda: {"p0_strategy": [s.strategies[0]],
                                 "p1_strategy": [s.strategies[1]]},
            "end_reason": lambda: {"end_reason": list(END_REASON_NAMES)},
            "score_gap": lambda: {"round": rounds},
            "shape": lambda: {"strategy": self.strategies},
            "tribe_pairs": lambda: {"card_id": s.classes.first()},
            "symbol_pairs": lambda: {"symbol": list(SYMBOL_NAMES)},
            "border": lambda: {"position": np.arange(1, s.n_border + 1)},
            "goods_pairs": lambda: {"card_id": np.arange(s.n_goods)},
            "goods": lambda: {"card_id": np.arange(s.n_goods)},
            "tribe": lambda: {"card_id": np.arange(self.n_tribe)},
            "raid_pairs": lambda: {"raid": np.arange(RAIDS)},
            "swing": lambda: {},
            "game_length": lambda: {"rounds": np.repeat(rounds, ENDS),
                                    "end_reason": list(END_REASON_NAMES) * ROUNDS},
            "raids": lambda: {"raid": np.repeat(np.arange(RAIDS), KINDS),
                              "paid": list(rec.PAID_NAMES) * RAIDS},
            "curves": lambda: {"round": np.repeat(rounds, 4), "seat": seats,
                               "strategy": [s.strategies[seat] for seat in seats],
                               "role": ["first", "second"] * (2 * ROUNDS)},
        }[name]()
        return pl.DataFrame({k: cols[k] for k in SPECS[name].keys}, schema=SPECS[name].keys)


def _ranks(texts: list[str]) -> np.ndarray:
    """Each text's rank in sorted order (Python compares str as polars sorts String:
    by code point)."""
    order = sorted(range(len(texts)), key=texts.__getitem__)
    rank = np.empty(len(texts), np.int64)
    rank[order] = np.arange(len(texts))
    return rank


_STAT_RANKS: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}
_TABLE_RANK = {name: k for k, name in enumerate(sorted([*SPECS, "lead", "examples"]))}
_KEYED_TEXTS: dict[tuple[str, tuple], str] = {}  # lead's and examples' keys, as JSON


class _Rows:
    """Long rows (LONG_SCHEMA) gathered table by table, each with the integer ranks of
    its table, key and stat texts, then put in sums.canonical's order by one integer
    sort (a stat's rank is over its table's names; a key's over its table's keys)."""

    def __init__(self) -> None:
        self.cols: dict[str, list[np.ndarray]] = {c: [] for c in
                                                  (*LONG_SCHEMA, "t", "k", "s")}

    def add(self, table: str, keys: np.ndarray, key_ranks: np.ndarray, pair_id: int,
            stats: tuple[str, ...], stat_at: np.ndarray, values: np.ndarray) -> None:
        ranked = _STAT_RANKS.get(stats)
        if ranked is None:
            ranked = _STAT_RANKS[stats] = (np.array(stats, dtype=object),
                                           _ranks(list(stats)))
        n = len(values)
        for c, v in (("table", np.full(n, table, dtype=object)), ("key", keys),
                     ("pair_id", np.full(n, pair_id, np.int64)),
                     ("stat", ranked[0][stat_at]),
                     ("value", np.asarray(values, np.float64)),
                     ("t", np.full(n, _TABLE_RANK[table], np.int64)), ("k", key_ranks),
                     ("s", ranked[1][stat_at])):
            self.cols[c].append(v)

    def keyed(self, table: str, keys: list[tuple], stat: str, values: np.ndarray) -> None:
        """Rows of one stat for the groups `keys` (tuples of key values in the order of
        the table's keys): their JSON texts are cached, as the same groups recur."""
        spec = SPECS[table]
        missing = list(dict.fromkeys(k for k in keys if (table, k) not in _KEYED_TEXTS))
        if missing:
            if len(_KEYED_TEXTS) > 100_000:  # a bound for long-lived workers
                _KEYED_TEXTS.clear()
            frame = pl.DataFrame(missing, schema=spec.keys, orient="row")
            _KEYED_TEXTS.update(zip(((table, k) for k in missing), key_text(spec, frame),
                                    strict=True))
        texts = [_KEYED_TEXTS[table, k] for k in keys]
        self.add(table, np.array(texts, dtype=object), _ranks(texts), -1, (stat,),
                 np.zeros(len(texts), np.int64), values)

    def frame(self) -> pl.DataFrame:
        cols = {c: np.concatenate(v) for c, v in self.cols.items()}
        keep = cols["value"] != 0
        order = np.lexsort((cols["s"][keep], cols["pair_id"][keep], cols["k"][keep],
                            cols["t"][keep]))
        out = {c: cols[c][keep][order] for c in LONG_SCHEMA}
        pair_id = out["pair_id"]
        out["pair_id"] = pa.array(pair_id, mask=pair_id < 0)  # -1: none, sorted first
        return pl.DataFrame({c: v.tolist() if isinstance(v, np.ndarray) and v.dtype == object
                             else v for c, v in out.items()}, schema=LONG_SCHEMA)


def _histogram(values: np.ndarray, counted: np.ndarray | None = None,
               counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(value, n): how many candidates have each value: `values` counted here (sorted),
    plus the whole numbers `counted` already counted `counts` times (the card plays'
    swings, counted by cards_pass; the values it passes on lie outside them)."""
    value, n = np.unique(values, return_counts=True)
    if counted is not None:
        value = np.concatenate([counted.astype(np.float64), value])
        n = np.concatenate([counts, n])
    return value + 0.0, n.astype(np.float64)
