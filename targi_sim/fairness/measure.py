"""What a candidate deck's games say: cluster sums of every balance metric.

A worker plays one block of deals and reduces it to sufficient statistics (per
metric, per card class: clusters, sum x, sum n, sum x^2, sum x n, sum n^2 over deals;
targi_sim.stats.rates), so blocks merge by addition and every rate keeps a
cluster-robust interval whose unit is the deal, never the game. Identical printed cards
are pooled per deal into their class (targi_sim.game.classes) before the sums, so a
class's interval sees its copies' correlation within a deal.

The causal card value (`causal`: the win effect of taking a card at a forked decision
minus the player's best alternative, targi_sim.cardvalue) is measured on the same deals
when asked for: the fork driver replays each sampled take-or-not decision both ways.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import polars as pl

from targi_sim.game.classes import CardClasses
from targi_sim.game.deck import Deck
from targi_sim.game.record import games_frame
from targi_sim.play.games import run_batch
from targi_sim.play.match import Match
from targi_sim.play.pairing import pair_ids
from targi_sim.stats.rates import ratio_variance

from ..engine import layout as lay

SUMS = ("clusters", "x", "n", "xx", "xn", "nn")
CARD_METRICS = ("play_win", "acquire", "causal")  # per card class
GAME_METRICS = ("first", "tiebreak", "rounds")  # per game


@dataclass
class Sums:
    """Cluster sums of ratio metrics: one array of length `size` per field of SUMS."""

    values: dict[str, np.ndarray]

    @classmethod
    def zeros(cls, size: int) -> Sums:
        return cls({f: np.zeros(size) for f in SUMS})

    @classmethod
    def of(cls, x: np.ndarray, n: np.ndarray) -> Sums:
        """From per-deal matrices x, n of shape (deals, metrics)."""
        x = np.asarray(x, dtype=float)
        n = np.asarray(n, dtype=float)
        return cls({"clusters": (n > 0).sum(axis=0).astype(float), "x": x.sum(axis=0),
                    "n": n.sum(axis=0), "xx": (x * x).sum(axis=0),
                    "xn": (x * n).sum(axis=0), "nn": (n * n).sum(axis=0)})

    def __add__(self, other: Sums) -> Sums:
        return Sums({f: self.values[f] + other.values[f] for f in SUMS})

    def rate(self) -> tuple[np.ndarray, np.ndarray]:
        """(ratio, its standard error) per metric; NaN where undefined."""
        v = self.values
        r, var = ratio_variance(v["clusters"], v["x"], v["n"], v["xx"], v["xn"], v["nn"])
        return r, np.sqrt(var)


@dataclass
class DeckStats:
    """Sums of every metric for one deck over the deals played so far."""

    cards: dict[str, Sums]  # CARD_METRICS -> sums over tribe cards
    game: Sums  # GAME_METRICS, in that order
    deals: int = 0
    games: int = 0
    extra: dict = field(default_factory=dict)

    def __add__(self, other: DeckStats) -> DeckStats:
        return DeckStats({k: self.cards[k] + other.cards[k] for k in self.cards},
                         self.game + other.game, self.deals + other.deals,
                         self.games + other.games)


def with_deck(match: Match, deck: Deck) -> Match:
    """The same match on another (already validated) deck."""
    return replace(match, deck=deck, D=lay.pack_deck(deck))


def _masks(frame: pl.DataFrame, rows: np.ndarray, game_ids: np.ndarray,
           by_player: bool) -> np.ndarray:
    """64-bit card masks per game (or per game and seat) from rows with card_id."""
    n = len(game_ids)
    out = np.zeros((n, 2) if by_player else (n,), dtype=np.uint64)
    if frame.height == 0:
        return out
    g = rows[np.searchsorted(game_ids[rows], frame["game_id"].to_numpy().astype(np.int64))]
    bits = np.left_shift(np.uint64(1), frame["card_id"].to_numpy().astype(np.uint64))
    if by_player:
        np.bitwise_or.at(out, (g, frame["player"].to_numpy().astype(np.int64)), bits)
    else:
        np.bitwise_or.at(out, g, bits)
    return out


def _bits(masks: np.ndarray, n_cards: int) -> np.ndarray:
    """Boolean matrix (..., n_cards) of the bits of each mask."""
    k = np.arange(n_cards, dtype=np.uint64)
    return ((masks[..., None] >> k) & np.uint64(1)).astype(bool)


def sum_by(values: np.ndarray, index: np.ndarray, size: int) -> np.ndarray:
    """out[i] = the sum of values[j] over j with index[j] == i (out: size x values' other
    axes), as a sparse (size x rows) 0/1 matrix times the values: many times faster than
    np.add.at. The values here are counts, points and halves of points, whose float sums
    are exact in any order, so the result is the same numbers."""
    from scipy.sparse import csr_matrix

    values = np.asarray(values, dtype=float)
    index = np.asarray(index, dtype=np.int64)
    flat = values.reshape(len(index), -1)
    group = csr_matrix((np.ones(len(index)), (index, np.arange(len(index)))),
                       shape=(size, len(index)))
    return np.asarray(group @ flat).reshape((size,) + values.shape[1:])


def _per_deal(values: np.ndarray, deal: np.ndarray, deals: int) -> np.ndarray:
    return sum_by(values, deal, deals)


@dataclass
class PerDeal:
    """Per-deal matrices (deals x metrics) behind a DeckStats: what a paired bootstrap
    over deals resamples. `deal_ids` identify the deals (the same in two decks'
    validation runs on common seeds)."""

    deal_ids: np.ndarray
    x: dict[str, np.ndarray]
    n: dict[str, np.ndarray]

    def pooled(self, classes: CardClasses | None) -> PerDeal:
        """The card metrics' columns summed into card classes (per deal: a class's
        copies share its clusters)."""
        if classes is None:
            return self
        x = {k: classes.pool(v) if k in CARD_METRICS else v for k, v in self.x.items()}
        n = {k: classes.pool(v) if k in CARD_METRICS else v for k, v in self.n.items()}
        return PerDeal(self.deal_ids, x, n)

    def stats(self) -> DeckStats:
        """DeckStats of these deals."""
        cards = {k: Sums.of(self.x[k], self.n[k]) for k in CARD_METRICS}
        return DeckStats(cards, Sums.of(self.x["game"], self.n["game"]), len(self.deal_ids),
                         int(self.n["game"][:, 0].sum()))

    def resampled(self, weights: np.ndarray) -> list[DeckStats]:
        """DeckStats of one bootstrap resample per row of `weights` (deal i counted
        weights[r, i] times in resample r): matrix products, one per sum."""
        w = np.asarray(weights, dtype=float)
        sums = {}
        for k in (*CARD_METRICS, "game"):
            x, n = self.x[k], self.n[k]
            sums[k] = {"clusters": w @ (n > 0), "x": w @ x, "n": w @ n, "xx": w @ (x * x),
                       "xn": w @ (x * n), "nn": w @ (n * n)}
        out = []
        for r in range(w.shape[0]):
            row = {k: Sums({f: v[r] for f, v in sums[k].items()}) for k in sums}
            out.append(DeckStats({k: row[k] for k in CARD_METRICS}, row["game"],
                                 len(self.deal_ids), int(sums["game"]["n"][r, 0])))
        return out


def reduce_games(games: pl.DataFrame, offers: pl.DataFrame, acquisitions: pl.DataFrame,
                 n_cards: int) -> PerDeal:
    """Per-deal sums of every metric from a games table (game_id, winner, first_player,
    rounds, tiebreak, pair_id) and its offers and acquisitions rows."""
    game_ids = games["game_id"].to_numpy().astype(np.int64)
    rows = np.argsort(game_ids, kind="stable")
    taken = acquisitions.filter(pl.col("source") != "hand")
    played = acquisitions.filter(pl.col("outcome") == "played")
    return reduce_masks(games, _masks(offers, rows, game_ids, False),
                        _masks(taken, rows, game_ids, True),
                        _masks(played, rows, game_ids, True), n_cards)


def reduce_masks(games: pl.DataFrame, offered: np.ndarray, acquired: np.ndarray,
                 played: np.ndarray, n_cards: int) -> PerDeal:
    """Per-deal sums of every metric from a games table and its games' 64-bit card masks
    (a bit per card_id): offered in the game (games,), acquired from the centre or by
    expansion and played, per seat (games, 2); the masks of a run's game digests
    (targi_sim.runner.digests) or of the rows (reduce_games)."""
    offered = _bits(np.asarray(offered, np.uint64), n_cards)  # (games, cards)
    acquired = _bits(np.asarray(acquired, np.uint64), n_cards)  # (games, 2, cards)
    played = _bits(np.asarray(played, np.uint64), n_cards)
    winner = games["winner"].to_numpy().astype(np.int64)
    first = games["first_player"].to_numpy().astype(np.int64)
    n = len(winner)
    points = np.stack([(winner == s) + 0.5 * (winner == -1) for s in (0, 1)], axis=1)
    deal_ids, deal = np.unique(games["pair_id"].to_numpy().astype(np.int64),
                               return_inverse=True)
    deals = len(deal_ids)
    game_x = np.stack([points[np.arange(n), first],
                       (games["tiebreak"] != "none").to_numpy().astype(float),
                       games["rounds"].to_numpy().astype(float)], axis=1)
    x = {"play_win": _per_deal((played * points[:, :, None]).sum(axis=1), deal, deals),
         "causal": np.zeros((deals, n_cards)),
         "acquire": _per_deal((offered & acquired.any(axis=1)).astype(float), deal, deals),
         "game": _per_deal(game_x, deal, deals)}
    nn = {"play_win": _per_deal(played.sum(axis=1).astype(float), deal, deals),
          "causal": np.zeros((deals, n_cards)),
          "acquire": _per_deal(offered.astype(float), deal, deals),
          "game": _per_deal(np.ones((n, 3)), deal, deals)}
    return PerDeal(deal_ids, x, nn)


def add_forks(per_deal: PerDeal, F: np.ndarray, pairing: str) -> PerDeal:
    """`per_deal` with its causal metric from the fork driver's rows F: per deal and
    card, x = the summed win effects (result taking it - best alternative) and n = the
    forks."""
    from targi_sim.engine import forks as drv

    if not F.shape[0]:
        return per_deal
    units = pair_ids(F[:, drv.F_GAME], pairing)
    row = np.searchsorted(per_deal.deal_ids, units)
    if not np.array_equal(per_deal.deal_ids[row], units):
        raise RuntimeError("a fork's deal is not among the block's deals")
    effect = (F[:, drv.F_POINTS_TAKE] - F[:, drv.F_POINTS_ALT]) / 2.0
    x, n = per_deal.x["causal"].copy(), per_deal.n["causal"].copy()
    card = F[:, drv.F_CARD].astype(np.int64)
    np.add.at(x, (row, card), effect)
    np.add.at(n, (row, card), 1.0)
    return PerDeal(per_deal.deal_ids, per_deal.x | {"causal": x}, per_deal.n | {"causal": n})


def play_deals(match: Match, plan: tuple, pairing: str,
               classes: CardClasses | None = None, fork_rate: float = 0.0) -> PerDeal:
    """Play one block of games (a plan from targi_sim.play.pairing.plan) and reduce it,
    pooled into `classes`; with `fork_rate` > 0 the same games are replayed with forks
    for the causal card value."""
    seeds, first, ids = plan
    G, frames = run_batch(match, seeds, first, ids, logs=True)
    games = games_frame(G).with_columns(pl.Series("pair_id", pair_ids(ids, pairing)))
    offers = pl.concat([f["offers"] for f in frames])
    acq = pl.concat([f["acquisitions"] for f in frames])
    out = reduce_games(games, offers, acq, match.deck.n_tribe)
    if fork_rate > 0:
        from targi_sim.cardvalue.forks import play_forks

        G2, F = play_forks(match, seeds, first, ids, fork_rate)
        if not np.array_equal(G2, G):
            raise RuntimeError("the fork driver's games differ from the run's")
        out = add_forks(out, F, pairing)
    return out.pooled(classes)


def measure(match: Match, plan: tuple, pairing: str, classes: CardClasses | None = None,
            fork_rate: float = 0.0) -> DeckStats:
    """A block's DeckStats: a pure function of its arguments (what a worker computes)."""
    return play_deals(match, plan, pairing, classes, fork_rate).stats()
