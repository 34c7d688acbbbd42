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
sums_sql.py keeps them. Values are counts, points (halves) and VP: their float sums are
exact, so the order of addition does not change a bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from targi_sim.engine import logs as rec
from targi_sim.engine.constants import END_REASON_NAMES, SYMBOL_NAMES
from targi_sim.game.classes import CardClasses
from targi_sim.play.pairing import pair_ids
from targi_sim.runner.sums import (
    LONG_SCHEMA,
    SPECS,
    Spec,
    canonical,
    key_text,
    lead_counts,
    long_of,
)
from targi_sim.runner.sums_kernels import (
    cards_pass,
    goods_pass,
    pair_sums,
    raids_pass,
    rounds_pass,
    settle,
)

ROUNDS = rec.MAX_ROUNDS + 1  # round numbers 0..MAX_ROUNDS (the engine's bound)
RAIDS = rec.MAX_RAID_ROWS + 1  # raid numbers: at most one row per player and raid
KINDS = len(rec.PAID_NAMES)
ENDS = len(END_REASON_NAMES)


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
    """One clustered table's running sums over a chunk's pairs, a batch at a time."""

    def __init__(self, spec: Spec, groups: int, first_pair: int) -> None:
        self.first_pair = first_pair
        at = {v: i for i, v in enumerate(spec.values)}
        self.a = np.array([at[a] for a, _ in spec.products], dtype=np.int64)
        self.b = np.array([at[b] for _, b in spec.products], dtype=np.int64)
        self.positive = np.array([at[n] for n in spec.positive], dtype=np.int64)
        self.sums = np.zeros((groups, len(spec.stats)))
        self.carry: tuple[int, np.ndarray] | None = None
        self.open: list[tuple[int, np.ndarray]] = []

    def add(self, pairs: np.ndarray, x: np.ndarray) -> None:
        """x: (pairs, groups, values) of one batch, `pairs` its ascending pair ids."""
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
        settle(x, self.a, self.b, self.positive, self.sums)


class ChunkSummer:
    """Add a chunk's batches (`add`), then read its summary in long form (`long`)."""

    def __init__(self, shape: RunShape, first_game: int) -> None:
        self.shape = shape
        first = int(pair_ids(np.array([first_game]), shape.pairing)[0])
        self.strategies = list(dict.fromkeys(shape.strategies))
        self.n_tribe = len(shape.tribe_symbol)
        groups = {"matchups": 1, "end_reason": ENDS, "score_gap": ROUNDS,
                  "shape": len(self.strategies), "tribe_pairs": shape.classes.size,
                  "symbol_pairs": len(SYMBOL_NAMES), "border": shape.n_border,
                  "goods_pairs": shape.n_goods, "raid_pairs": RAIDS, "swing": 1}
        self.clustered = {t: _Clustered(SPECS[t], k, first) for t, k in groups.items()}
        dims = {"game_length": (ROUNDS, ENDS), "tribe": (self.n_tribe,),
                "goods": (shape.n_goods,), "raids": (RAIDS, KINDS), "curves": (ROUNDS, 2, 2)}
        self.flat = {t: np.zeros((*d, len(SPECS[t].values))) for t, d in dims.items()}
        self.symbol_of = np.asarray(shape.tribe_symbol, np.int64)
        self.lead: list[np.ndarray] = []
        self._key_texts: dict[str, list[str]] = {}
        self.examples: dict[str, list[np.ndarray]] = {"cards": [], "raids": []}

    def add(self, G: np.ndarray, logs: dict[str, np.ndarray]) -> None:
        """A batch of games: the engine's result rows G (consecutive game ids) and its log
        tables by run table name (rounds, acquisitions, offers, raids, goods), rows in
        game order."""
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
        game0, n_pairs = int(ids[0]), len(pairs)

        diff, has = np.zeros((n, ROUNDS)), np.zeros((n, ROUNDS))
        last_display, lead = np.zeros((n, 2)), np.zeros((n, 2), np.int64)
        border, gap = np.zeros((n_pairs, self.shape.n_border, 4)), np.zeros((n_pairs, ROUNDS, 3))
        rounds_pass(logs["rounds"], game0, pair, first, points, diff, has, last_display,
                    self.flat["curves"], border, gap, lead)
        classes = np.zeros((n_pairs, self.shape.classes.size, 6))
        symbols = np.zeros((n_pairs, len(SYMBOL_NAMES), 6))
        plays = np.zeros(len(logs["acquisitions"]))
        m = cards_pass(logs["offers"], logs["acquisitions"], game0, pair, points, diff, has,
                       self.shape.classes.of_card, self.symbol_of, classes, symbols,
                       self.flat["tribe"], plays)
        raid_pairs, per_game = np.zeros((n_pairs, RAIDS, 1 + 2 * KINDS)), np.zeros((n, 2, 4))
        raids_pass(logs["raids"], game0, pair, points, self.shape.goods_vp,
                   self.shape.gold_vp, raid_pairs, self.flat["raids"], per_game)
        goods = np.zeros((n_pairs, self.shape.n_goods, 2))
        goods_pass(logs["goods"], game0, pair, points, goods, self.flat["goods"])

        def per_pair(x: np.ndarray) -> np.ndarray:  # per-game rows summed per pair
            if n_pairs == n:
                return x
            out = np.zeros((n_pairs, *x.shape[1:]))
            pair_sums(np.ascontiguousarray(x), pair, out)
            return out

        swing, eq_swing = self._swing(g, per_game)
        tables = {"matchups": per_pair(self._games(g, points)),
                  "end_reason": per_pair(self._end_reason(g, points)), "score_gap": gap,
                  "shape": per_pair(self._shape(g, last_display, per_game[:, :, 0])),
                  "border": border, "goods_pairs": goods, "raid_pairs": raid_pairs,
                  "swing": per_pair(swing), "tribe_pairs": classes, "symbol_pairs": symbols}
        for name, x in tables.items():
            self.clustered[name].add(pairs, x)
        self.flat["game_length"][:, :, 0] += np.bincount(
            g[:, rec.G_ROUNDS] * ENDS + g[:, rec.G_END], minlength=ROUNDS * ENDS
        ).reshape(ROUNDS, ENDS)
        ok = lead[:, 0] > 0  # a game without round rows has no leader codes
        self.lead.append(np.stack([lead[ok, 0], lead[ok, 1], w[ok]], axis=1))
        self.examples["cards"].append(plays[:m])
        raided = (per_game[:, :, 3].sum(1) > 0) & (w != -1)  # example_raids.sql
        self.examples["raids"].append(eq_swing[raided] + 0.0)

    @staticmethod
    def _games(g: np.ndarray, points: np.ndarray) -> np.ndarray:
        """sums_matchups.sql per game, one group."""
        w, f, tb = g[:, rec.G_WINNER], g[:, rec.G_FIRST], g[:, rec.G_TIEBREAK]
        rounds = g[:, rec.G_ROUNDS].astype(np.float64)
        first_points = np.where(w == f, 1.0, np.where(w == -1, 0.5, 0.0))
        cols = [np.ones(len(g)), w == f, w == -1, first_points, w == 0, w == 1, points[:, 0],
                rounds, rounds * rounds, (tb == 1) | (tb == 2), tb != 0,  # gold, goods; none
                g[:, rec.G_SCORE0] + g[:, rec.G_SCORE1]]
        return np.stack(cols, axis=1).astype(np.float64)[:, None, :]

    @staticmethod
    def _end_reason(g: np.ndarray, points: np.ndarray) -> np.ndarray:
        """sums_end_reason.sql per game and end reason."""
        w, f = g[:, rec.G_WINNER], g[:, rec.G_FIRST]
        first_points = np.where(w == f, 1.0, np.where(w == -1, 0.5, 0.0))
        x = np.zeros((len(g), ENDS, 4))
        x[np.arange(len(g)), g[:, rec.G_END]] = np.stack(
            [np.ones(len(g)), w == f, w == -1, first_points], axis=1)
        return x

    def _shape(self, g: np.ndarray, cards: np.ndarray, losses: np.ndarray) -> np.ndarray:
        """strategy_shape.sql per game and strategy (both seats' player-games)."""
        bd = [g[:, [rec.G_BREAKDOWN + p * rec.G_BD + j for p in (0, 1)]] for j in (0, 1, 3)]
        figures = [cards, *bd, losses]  # cards, token_vp, card_vp, row_bonus, raid_losses
        per_seat = np.stack([np.ones((len(g), 2)), *figures, *(f * f for f in figures)], axis=2)
        x = np.zeros((len(g), len(self.strategies), per_seat.shape[2]))
        for seat in (0, 1):
            x[:, self.strategies.index(self.shape.strategies[seat])] += per_seat[:, seat]
        return x

    @staticmethod
    def _swing(g: np.ndarray, per_game: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """raids_swing.sql per game (one group), and each game's swing_eq."""
        w = g[:, rec.G_WINNER]
        sign = np.where(np.arange(2)[None, :] == w[:, None], -1.0, 1.0)
        exact, eq = (per_game[:, :, 1] * sign).sum(1), (per_game[:, :, 2] * sign).sum(1)
        margin = np.abs(g[:, rec.G_SCORE0] - g[:, rec.G_SCORE1]).astype(np.float64)
        cols = [np.ones(len(g)), (exact > 0) & (margin <= exact), (eq > 0) & (margin <= eq),
                margin, exact, eq]
        decided = (w != -1)[:, None]
        return (np.stack(cols, axis=1) * decided).astype(np.float64)[:, None, :], eq

    # ---- the chunk's summary ----

    def long(self) -> pl.DataFrame:
        """The chunk's summary in long form (what runner/sums.long_of makes of the same
        tables, built from the dense arrays: only their nonzero numbers)."""
        rows: list[tuple[str, str, int | None, str, float]] = []
        for name, acc in self.clustered.items():
            acc.finish()
            stats, values = SPECS[name].stats, SPECS[name].values
            rows += self._rows(name, acc.sums, stats, None)
            for pid, x in acc.open:
                rows += self._rows(name, x, values, pid)
        for name, sums in self.flat.items():
            rows += self._rows(name, sums.reshape(-1, sums.shape[-1]), SPECS[name].values, None)
        table, key, pid, stat, value = zip(*rows, strict=True) if rows else ((),) * 5
        dense = pl.DataFrame({"table": table, "key": key, "pair_id": pid, "stat": stat,
                              "value": value}, schema=LONG_SCHEMA)
        codes = np.concatenate(self.lead)
        lead = lead_counts(pl.DataFrame(
            {"n_rounds": codes[:, 0], "code": codes[:, 1], "winner": codes[:, 2]},
            schema={"n_rounds": pl.Int64, "code": pl.Int64, "winner": pl.Int64}))
        examples = pl.concat([
            pl.DataFrame({"value": np.concatenate(v)}, schema={"value": pl.Float64})
            .group_by("value").agg(pl.len().cast(pl.Float64).alias("n"))
            .select(pl.lit(s).alias("section"), "value", "n")
            for s, v in self.examples.items()])
        return canonical([dense, long_of({"lead": lead, "examples": examples}, {})])

    def _rows(self, name: str, x: np.ndarray, stats: tuple[str, ...], pid: int | None
              ) -> list[tuple[str, str, int | None, str, float]]:
        """The nonzero numbers of x (groups x stats) as long rows."""
        keys = self._key_texts.get(name)
        if keys is None:
            keys = self._key_texts[name] = (key_text(SPECS[name], self._keys(name))
                                            if SPECS[name].keys else ["{}"])
        g, j = np.nonzero(x)
        return [(name, keys[a], pid, stats[b], float(v))
                for a, b, v in zip(g.tolist(), j.tolist(), x[g, j].tolist(), strict=True)]

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


__all__ = ["ChunkSummer", "RunShape"]
