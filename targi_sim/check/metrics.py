"""What the new expectation kinds measure, per batch of games, as additive per-unit sums.

Why sums: `targi-sim check` looks at its data after every batch, and the workers
play batches in parallel. Every metric here is reduced, per batch, to numbers
that simply add across batches of whole units (seat-swapped pairs, or single
games when a deal is played once; targi_sim.play.pairing): unit counts for the
pentanomial/trinomial test of a share of games, and the cluster sums of
targi_sim.stats.rates (clusters, sum x, sum n, sum x^2, sum x n, sum n^2) for a
ratio or a mean, whose estimate and cluster-robust variance feed the
paired-normal test (targi_sim.stats.sprt.llr_gaussian).

The definitions are the report's (docs/report.md), computed from the same log
columns: a card's acquire rate is taken-from-the-centre games over offered
games, its win rate when played the points of the players who played it over
their number; a raid's loss is the mean VP-equivalent a player facing it lost
(VP paid + goods x goods_vp + gold x gold_vp + VP given to the opponent, the
rates read from the deck's own trades: targi_sim/report/values.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from targi_sim.game.shape import game_flags
from targi_sim.play.games import run_batch
from targi_sim.play.pairing import games_per_deal, pair_ids, plan
from targi_sim.stats.rates import ClusterSums, cluster_index, per_cluster, ratio_variance
from targi_sim.stats.sprt import unit_counts

CARD_METRICS = ("acquire_rate", "played_wr")
SHAPE_METRICS = ("rounds_mean", "display_full_share", "score_mean", "tiebreak_share")
METRICS = {"card_rate": CARD_METRICS, "game_shape": SHAPE_METRICS,
           "raid_loss": ("vp_lost_mean",), "deck_drift": CARD_METRICS}
SHARES = ("display_full_share", "tiebreak_share")  # a 0/1 value per game: unit counts
PERCENT = (*CARD_METRICS, *SHARES)  # written in percent in a baseline file
UNITS = {"rounds_mean": "rounds", "score_mean": "VP", "vp_lost_mean": "VP-equivalent"}
DESCRIPTIONS = {
    "acquire_rate": "acquire rate (taken from the centre / offered games)",
    "played_wr": "win rate when played",
    "rounds_mean": "mean rounds a game",
    "display_full_share": "share of games ending by a full display",
    "score_mean": "mean final score a player",
    "tiebreak_share": "share of games decided by a tie-break (or drawn)",
    "vp_lost_mean": "mean VP-equivalent a player lost to the raid",
}
N_SUMS = 6  # ClusterSums fields, in targi_sim.stats.rates.SUM_FIELDS order


@dataclass(frozen=True)
class Target:
    """What one expectation measures: kind, metric and what it is about (picklable)."""

    kind: str
    metric: str
    cards: tuple[int, ...] = ()  # 0-based tribe card ids: one card, a symbol's, every card
    pooled: bool = False  # the cards' counts pooled (a symbol) rather than one per card
    raid: int = 0  # 1..4 for raid_loss
    goods_vp: float = 0.5
    gold_vp: float = 2.0

    @property
    def gsprt(self) -> bool:
        """True when the pentanomial/trinomial test on unit counts decides (a share)."""
        return self.metric in SHARES

    @property
    def needs_logs(self) -> bool:
        return self.kind in ("card_rate", "raid_loss", "deck_drift")


def _sums(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    c = ClusterSums.of(x, n)
    return np.array([c.clusters, c.x, c.n, c.xx, c.xn, c.nn])


def estimate(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(estimate, cluster-robust variance) from sums (..., 6); NaN where undefined."""
    s = np.asarray(sums, dtype=float)
    return ratio_variance(*(s[..., k] for k in range(N_SUMS)))


def _points(games: pl.DataFrame) -> np.ndarray:
    """Per game x player (row 2g + p), the player's points: 1 win, 0.5 draw, 0 loss."""
    w = games["winner"].to_numpy()
    return np.stack([(w == 0) + 0.5 * (w == -1), (w == 1) + 0.5 * (w == -1)], axis=1).ravel()


def _rows_of(game_ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The row in `game_ids` (distinct) of each id in `wanted`."""
    order = np.argsort(game_ids, kind="stable")
    return order[np.searchsorted(game_ids[order], wanted)]


def card_masks(games: pl.DataFrame, acquisitions: pl.DataFrame,
               offers: pl.DataFrame) -> pl.DataFrame:
    """Per game x player: pair_id, points and 64-bit card masks (offered in the game,
    acquired, played, taken from the centre): analyses/cards_tribe_masks.sql in numpy."""
    gid = games["game_id"].to_numpy()
    n = len(gid)
    masks = {name: np.zeros(2 * n, dtype=np.uint64)
             for name in ("offered", "acquired", "played", "centre")}
    if offers.height:
        g = _rows_of(gid, offers["game_id"].to_numpy())
        bit = np.left_shift(np.uint64(1), offers["card_id"].to_numpy().astype(np.uint64))
        per_game = np.zeros(n, dtype=np.uint64)
        np.bitwise_or.at(per_game, g, bit)
        masks["offered"] = np.repeat(per_game, 2)
    if acquisitions.height:
        g = _rows_of(gid, acquisitions["game_id"].to_numpy())
        row = 2 * g + acquisitions["player"].to_numpy()
        bit = np.left_shift(np.uint64(1), acquisitions["card_id"].to_numpy().astype(np.uint64))
        source = acquisitions["source"].to_numpy()
        for name, keep in (("acquired", source != "hand"),
                           ("played", acquisitions["outcome"].to_numpy() == "played"),
                           ("centre", source == "centre")):
            np.bitwise_or.at(masks[name], row[keep], bit[keep])
    return pl.DataFrame({"pair_id": np.repeat(games["pair_id"].to_numpy(), 2),
                         "points": _points(games), **masks})


# (x, n) columns of report.metrics.card_mask_counts for each card metric
_CARD_COLUMNS = {"acquire_rate": ("taken_games", "offered_games"),
                 "played_wr": ("played_points", "played_n")}


def card_sums(games: pl.DataFrame, tables: dict[str, pl.DataFrame], cards: tuple[int, ...],
              pooled: bool = False) -> np.ndarray:
    """Sums (len(cards), 2, 6) of each card's acquire rate and win rate when played
    (CARD_METRICS order); with `pooled`, one row (1, 2, 6) over all the cards, each
    unit's counts added before squaring (the report's per-symbol rates)."""
    from targi_sim.report.metrics import SUMS, card_mask_counts

    masks = card_masks(games, tables["acquisitions"], tables["offers"])
    per_card, grouped = card_mask_counts(masks, list(cards),
                                         {"pool": list(cards)} if pooled else None)
    frame = grouped if pooled else per_card
    out = np.zeros((frame.height, len(CARD_METRICS), N_SUMS))
    for j, metric in enumerate(CARD_METRICS):
        x, n = _CARD_COLUMNS[metric]
        for k, col in enumerate((f"{n}{SUMS}k", x, n, f"{x}{SUMS}xx", f"{x}{SUMS}xn",
                                 f"{n}{SUMS}nn")):
            out[:, j, k] = frame[col].cast(pl.Float64).to_numpy()
    return out


def _unit_index(games: pl.DataFrame) -> tuple[np.ndarray, int]:
    return cluster_index(games["pair_id"].to_numpy())


def shape_stats(games: pl.DataFrame, metric: str, pairing: str) -> np.ndarray:
    """Unit counts (a share) or sums (6,) (a mean) of a game-shape metric."""
    games = games.sort("game_id")
    if metric in SHARES:
        points = game_flags(games)[metric]  # the definition in targi_sim/game/shape.py
        return unit_counts(points.astype(float), games_per_deal(pairing))
    index, size = _unit_index(games)
    if metric == "rounds_mean":
        values, weight = games["rounds"].to_numpy(), 1.0
    else:  # score_mean: both players' scores, two values a game
        values = games["score_p0"].to_numpy() + games["score_p1"].to_numpy()
        weight = 2.0
    x, n = per_cluster(index, size, values, np.full(len(values), weight))
    return _sums(x, n)


def raid_sums(games: pl.DataFrame, raids: pl.DataFrame, raid: int, goods_vp: float,
              gold_vp: float) -> np.ndarray:
    """Sums (6,) of the VP-equivalent lost per player facing raid `raid` (docs/report.md)."""
    rows = raids.filter(pl.col("raid") == raid)
    if rows.height == 0:
        return np.zeros(N_SUMS)
    paid = rows["paid"].to_numpy()
    amount = rows["amount"].to_numpy().astype(float)
    gold = (rows["gold"].to_numpy().astype(float) if "gold" in rows.columns
            else np.where(paid == "gold", amount, 0.0))
    vp = np.select([paid == "vp", paid == "goods", paid == "gold", paid == "goods_and_gold"],
                   [amount, amount * goods_vp, amount * gold_vp,
                    amount * goods_vp + gold * gold_vp], 0.0)
    vp = vp + rows["opponent_bonus"].to_numpy()
    pairs = games["pair_id"].to_numpy()[_rows_of(games["game_id"].to_numpy(),
                                                 rows["game_id"].to_numpy())]
    index, size = cluster_index(pairs)
    x, n = per_cluster(index, size, vp, np.ones(len(vp)))
    return _sums(x, n)


def stats_of(target: Target, games: pl.DataFrame, tables: dict[str, pl.DataFrame],
             pairing: str) -> np.ndarray:
    """The batch's additive statistics for `target` (see the module docstring).

    `games` has the run directory's columns (game_id, pair_id, winner, rounds,
    end_reason, tiebreak, score_p0, score_p1); `tables` the logs (acquisitions,
    offers, raids) where the target needs them.
    """
    if target.kind in ("card_rate", "deck_drift"):
        sums = card_sums(games, tables, target.cards, target.pooled)
        if target.kind == "deck_drift":
            return sums
        return sums[0, CARD_METRICS.index(target.metric)]
    if target.kind == "game_shape":
        return shape_stats(games, target.metric, pairing)
    if target.kind == "raid_loss":
        return raid_sums(games, tables["raids"], target.raid, target.goods_vp, target.gold_vp)
    raise ValueError(f"no batch statistics for kind {target.kind!r}")


def batch_stats(match, target: Target, seed: int, start: int, n: int,
                pairing: str) -> np.ndarray:
    """Play games start..start+n-1 of run `seed` (whole units) and reduce them to the
    target's statistics: a pure function of its arguments."""
    from targi_sim.game.record import games_frame

    seeds, first, ids = plan(n, seed, pairing, start=start)
    G, frames = run_batch(match, seeds, first, ids, logs=target.needs_logs)
    games = games_frame(G).with_columns(pl.Series("game_id", ids),
                                        pl.Series("pair_id", pair_ids(ids, pairing)))
    tables = {k: pl.concat([f[k] for f in frames]) for k in frames[0]} if frames else {}
    return stats_of(target, games, tables, pairing)


__all__ = ["CARD_METRICS", "DESCRIPTIONS", "METRICS", "PERCENT", "SHAPE_METRICS", "SHARES",
           "Target", "UNITS", "batch_stats", "card_masks", "card_sums", "estimate",
           "raid_sums", "shape_stats", "stats_of"]
