"""One run's metrics as per-deal sums: the input of the paired tests across variants.

Why per deal: a paired test needs each deal's own numbers in both runs (the deal is the
independent unit; a seat-swapped pair's two games are one deal), and the cross-products
of two runs cannot be summed by either run alone. Every run keeps, per chunk, a game
digest (targi_sim.runner.digests: card masks, display size, raid losses) beside the
games table, so a sweep reads two small tables, never the logs; a chunk without a valid
digest has it computed from its rows once. The definitions are the report's
(analyses/pairs.sql, strategy_shape.sql, cards_tribe_masks.sql, docs/report.md); the
tests hold the digest path equal to those queries over the rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from targi_sim.game.shape import GAMES_COLUMNS, PLAYER_NAMES
from targi_sim.runner.digests import run_digest
from targi_sim.runner.reading import RunInfo, read_parquet_file

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


_GAMES = ("game_id", "pair_id", "winner", "first_player", "rounds", "tokens_p0", "tokens_p1",
          "card_vp_p0", "card_vp_p1", "row_bonus_p0", "row_bonus_p1")


def game_columns(run: RunInfo, progress: Callable[[str], None] | None = None
                 ) -> pl.DataFrame:
    """The games table's columns a sweep needs, joined with the game digest, in game order
    (`progress` hears of digests computed from a chunk's rows)."""
    table = pl.concat([read_parquet_file(p, _GAMES) for p in run.files.get("games", [])])
    digest = run_digest(run, progress)
    if not table["game_id"].equals(digest["game_id"]):
        raise RuntimeError(f"the game digests of {run.path} do not list its games")
    return pl.concat([table, digest.drop("game_id")], how="horizontal")


def _tribe_cards(run: RunInfo) -> pl.DataFrame:
    return read_parquet_file(run.path / "cards.parquet").filter(pl.col("card_type") == "tribe")


def _seats(games: pl.DataFrame, column: str) -> np.ndarray:
    """Per game x seat (row 2g + p) the value of `column`_p0 / `column`_p1."""
    return np.stack([games[f"{column}_p{p}"].to_numpy() for p in (0, 1)], axis=1).ravel()


def deal_data(run: RunInfo, progress: Callable[[str], None] | None = None) -> DealData:
    """Every headline and per-card metric of `run` as per-deal sums."""
    games = game_columns(run, progress)
    cards = _tribe_cards(run)
    pair = games["pair_id"].to_numpy()
    deals, ig = np.unique(pair, return_inverse=True)
    size = len(deals)
    winner, first = games["winner"].to_numpy(), games["first_player"].to_numpy()
    n_games = np.bincount(ig, minlength=size).astype(float)
    head = {"first_player_rate": (winner == first) + 0.5 * (winner == -1),
            "seat0_rate": (winner == 0) + 0.5 * (winner == -1),
            "draw_rate": winner == -1, "rounds": games["rounds"].to_numpy()}
    headline = {k: (_per_deal(deals, ig, v, size), n_games) for k, v in head.items()}
    im = np.repeat(ig, 2)  # per game x seat
    players = 2.0 * n_games
    for f in SHAPE:  # the games table's columns, else the digest's (cards, raid_losses)
        column = GAMES_COLUMNS.get(f, f)
        headline[f] = (_per_deal(deals, im, _seats(games, column), size), players)

    points = np.stack([(winner == p) + 0.5 * (winner == -1) for p in (0, 1)], axis=1).ravel()
    offered = np.repeat(games["offered"].to_numpy(), 2)
    cols = {"offered": offered, **{m: _seats(games, m) for m in ("acquired", "played",
                                                                  "centre")}}
    return _with_cards(deals, headline, cards, im, points, cols)


def deal_data_from_rows(run: RunInfo) -> DealData:
    """The same numbers from the report's queries over all the run's rows (analyses/
    pairs.sql, strategy_shape.sql, cards_tribe_masks.sql): the reference the tests and
    benchmarks/sweep_read.py hold `deal_data` to."""
    from targi_sim.runner.queries import Analyses

    with Analyses(run) as a:
        pairs, shape = a.frame("pairs"), a.frame("strategy_shape")
        masks = a.frame("cards_tribe_masks")
    cards = _tribe_cards(run)
    deals = np.unique(pairs["pair_id"].to_numpy())
    size = len(deals)

    def index(frame: pl.DataFrame) -> np.ndarray:
        return np.searchsorted(deals, frame["pair_id"].to_numpy())

    ip, ish = index(pairs), index(shape)
    games = _per_deal(deals, ip, pairs["games"].to_numpy(), size)
    head = {"first_player_rate": pairs["first_points"], "seat0_rate": pairs["points_p0"],
            "draw_rate": pairs["draws"], "rounds": pairs["rounds"]}
    headline = {k: (_per_deal(deals, ip, v.to_numpy(), size), games) for k, v in head.items()}
    players = _per_deal(deals, ish, shape["n"].to_numpy(), size)
    for f in SHAPE:
        headline[f] = (_per_deal(deals, ish, shape[f].to_numpy(), size), players)
    cols = {c: masks[c].cast(pl.UInt64).to_numpy() for c in ("offered", "acquired", "played",
                                                            "centre")}
    return _with_cards(deals, headline, cards, index(masks),
                       masks["points"].cast(pl.Float64).to_numpy(), cols)


def _with_cards(deals: np.ndarray, headline: dict, cards: pl.DataFrame, im: np.ndarray,
                points: np.ndarray, cols: dict[str, np.ndarray]) -> DealData:
    """DealData from the headline sums and per game x seat rows (deal index `im`, points,
    card masks `cols`: offered, acquired, played, centre)."""
    size = len(deals)
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


__all__ = ["CARD_METRICS", "HEADLINE", "DealData", "deal_data", "deal_data_from_rows",
           "game_columns"]
