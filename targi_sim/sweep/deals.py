"""One run's metrics as per-deal sums: the input of the paired tests across variants.

Why per deal: a paired test needs each deal's own numbers in both runs (the deal is the
independent unit; a seat-swapped pair's two games are one deal). The queries are the
report's own (analyses/pairs.sql, strategy_shape.sql, cards_tribe_masks.sql), read per
pair_id instead of summed, so a sweep's figures are the report's definitions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from targi_sim.game.shape import PLAYER_NAMES
from targi_sim.runner.queries import Analyses
from targi_sim.runner.reading import RunInfo

# headline metrics: key -> (label, kind); kind "rate" (x successes of n) or "mean"
HEADLINE = {
    "first_player_rate": ("round-1 first player's rate (draws half)", "rate"),
    "seat0_rate": ("seat 0's rate (draws half)", "rate"),
    "draw_rate": ("draw rate", "rate"),
    "rounds": ("rounds per game", "mean"),
    "cards": ("cards in the display at the end, per player", "mean"),
    "token_vp": ("VP from tokens, per player", "mean"),
    "card_vp": ("VP from cards, per player", "mean"),
    "row_bonus": ("VP from row bonuses, per player", "mean"),
    "raid_losses": ("goods, gold and VP paid to raids, per player", "mean"),
}
# per tribe card (the report's definitions, docs/report.md): key -> label
CARD_METRICS = {
    "acquire_rate": "acquire rate",
    "played_wr": "WR played",
    "not_taken_wr": "WR not taken",
}
SHAPE = PLAYER_NAMES  # targi_sim/game/shape.py


@dataclass
class DealData:
    """deal ids (sorted), and per metric the per-deal (x, n) arrays in that order."""

    deals: np.ndarray
    headline: dict[str, tuple[np.ndarray, np.ndarray]]
    cards: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]]
    card_names: dict[int, str]
    card_symbols: dict[int, str]


def _per_deal(ids: np.ndarray, index_of: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    return np.bincount(index_of, weights=np.asarray(values, dtype=float), minlength=size)


def _bit(mask: np.ndarray, k: int) -> np.ndarray:
    return ((mask >> np.uint64(k)) & np.uint64(1)).astype(float)


def deal_data(run: RunInfo) -> DealData:
    """Every headline and per-card metric of `run` as per-deal sums."""
    with Analyses(run) as a:
        pairs = a.frame("pairs")
        shape = a.frame("strategy_shape")
        masks = a.frame("cards_tribe_masks")
    with open(run.path / "cards.parquet", "rb") as f:  # a path, never a glob pattern
        cards = pl.read_parquet(f).filter(pl.col("card_type") == "tribe")
    deals = np.unique(pairs["pair_id"].to_numpy())
    size = len(deals)

    def index(frame: pl.DataFrame) -> np.ndarray:
        return np.searchsorted(deals, frame["pair_id"].to_numpy())

    ip = index(pairs)
    games = _per_deal(deals, ip, pairs["games"].to_numpy(), size)
    head = {"first_player_rate": pairs["first_points"], "seat0_rate": pairs["points_p0"],
            "draw_rate": pairs["draws"], "rounds": pairs["rounds"]}
    headline = {k: (_per_deal(deals, ip, v.to_numpy(), size), games) for k, v in head.items()}
    ish = index(shape)
    players = _per_deal(deals, ish, shape["n"].to_numpy(), size)
    for f in SHAPE:
        headline[f] = (_per_deal(deals, ish, shape[f].to_numpy(), size), players)

    im = index(masks)
    points = masks["points"].cast(pl.Float64).to_numpy()
    cols = {c: masks[c].cast(pl.UInt64).to_numpy() for c in ("offered", "acquired", "played",
                                                            "centre")}
    per_card: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}
    for k in cards["card_id"].to_list():
        o, acq, p, c = (_bit(cols[n], int(k)) for n in ("offered", "acquired", "played",
                                                         "centre"))
        nt = o * (1.0 - acq)
        per_card[int(k), "acquire_rate"] = (_per_deal(deals, im, o * c, size),
                                            _per_deal(deals, im, 0.5 * o, size))
        per_card[int(k), "played_wr"] = (_per_deal(deals, im, p * points, size),
                                         _per_deal(deals, im, p, size))
        per_card[int(k), "not_taken_wr"] = (_per_deal(deals, im, nt * points, size),
                                            _per_deal(deals, im, nt, size))
    names = dict(zip(cards["card_id"].to_list(), cards["name"].to_list(), strict=True))
    symbols = dict(zip(cards["card_id"].to_list(), cards["symbol"].to_list(), strict=True))
    return DealData(deals, headline, per_card, names, symbols)


__all__ = ["CARD_METRICS", "HEADLINE", "DealData", "deal_data"]
