"""Turn the engine's integer logs into named tables (polars DataFrames)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from targi_sim.engine import layout as lay
from targi_sim.engine import logs as rec
from targi_sim.engine.buffers import table
from targi_sim.engine.constants import DECISION_NAMES, END_REASON_NAMES, TIEBREAK_NAMES
from targi_sim.game.state import GameState

GAME_COLUMNS = (
    "game_id", "first_player", "winner", "score_p0", "score_p1", "rounds",
    "end_reason", "tiebreak",
    *(f"{part}_p{p}" for p in range(2)
      for part in ("tokens", "card_vp", "ability_vp", "row_bonus", "gold", "goods")),
)


def _frame(arr: np.ndarray, columns: tuple[str, ...]) -> pl.DataFrame:
    return pl.DataFrame({name: arr[:, i] for i, name in enumerate(columns)})


def _decode(df: pl.DataFrame, column: str, names: tuple[str, ...]) -> pl.DataFrame:
    mapping = dict(enumerate(names))
    return df.with_columns(
        pl.col(column).replace_strict(mapping, return_dtype=pl.Utf8).alias(column)
    )


def games_frame(G: np.ndarray) -> pl.DataFrame:
    df = _frame(G, GAME_COLUMNS).with_columns(pl.all().cast(pl.Int32))
    df = _decode(df, "end_reason", END_REASON_NAMES)
    return _decode(df, "tiebreak", TIEBREAK_NAMES)


def log_frames(L: np.ndarray) -> dict[str, pl.DataFrame]:
    """The filled part of each log as a DataFrame, enum codes decoded to names."""
    rounds = _frame(table(L, rec.T_ROUNDS), rec.ROUND_COLUMNS)
    rounds = rounds.with_columns(pl.col("is_first").cast(pl.Boolean))
    acq = _frame(table(L, rec.T_ACQ), rec.ACQ_COLUMNS)
    acq = _decode(_decode(acq, "source", rec.SOURCE_NAMES), "outcome", rec.OUTCOME_NAMES)
    offers = _frame(table(L, rec.T_OFFERS), rec.OFFER_COLUMNS)
    raids = _decode(_frame(table(L, rec.T_RAIDS), rec.RAID_COLUMNS), "paid", rec.PAID_NAMES)
    goods = _decode(_frame(table(L, rec.T_GOODS), rec.GOODS_COLUMNS), "source",
                    rec.GOODS_SOURCE_NAMES)
    frames = {"rounds": rounds, "acquisitions": acq, "offers": offers, "raids": raids,
              "goods": goods}
    if L[rec.H_CAP + rec.T_TRACE] > 0:
        trace = _frame(table(L, rec.T_TRACE), rec.TRACE_COLUMNS)
        frames["trace"] = _decode(trace, "decision", DECISION_NAMES)
    return frames


@dataclass
class GameRecord:
    """Everything about one game: result, score breakdown, per-round logs, final state."""

    seed: int
    strategies: tuple[str, str]
    first_player: int
    winner: int
    scores: tuple[int, int]
    rounds: int
    end_reason: str
    tiebreak: str
    breakdown: tuple[dict[str, int], dict[str, int]]
    tables: dict[str, pl.DataFrame] = field(repr=False)
    final_state: GameState = field(repr=False)
    # per seat: decisions answered with an option not offered (the engine played option 0)
    illegal_answers: tuple[int, int] = (0, 0)

    @property
    def trace(self) -> pl.DataFrame:
        return self.tables["trace"]

    def to_dict(self) -> dict:
        """A JSON-ready form (golden files compare this)."""
        return {
            "seed": self.seed,
            "strategies": list(self.strategies),
            "first_player": self.first_player,
            "winner": self.winner,
            "scores": list(self.scores),
            "rounds": self.rounds,
            "end_reason": self.end_reason,
            "tiebreak": self.tiebreak,
            "breakdown": [dict(b) for b in self.breakdown],
            "tables": {name: df.to_dict(as_series=False) for name, df in self.tables.items()},
            # the game itself; the rest of S only drives paused play (engine/layout.py)
            "final_state": [int(x) for x in self.final_state.S[:lay.S_CORE]],
        }


def game_record(seed, names, G_row, L, state: GameState) -> GameRecord:
    games = games_frame(G_row[None, :]).row(0, named=True)
    parts = ("tokens", "card_vp", "ability_vp", "row_bonus", "gold", "goods")
    breakdown = tuple({k: int(games[f"{k}_p{p}"]) for k in parts} for p in range(2))
    return GameRecord(
        seed=int(seed),
        strategies=names,
        first_player=int(games["first_player"]),
        winner=int(games["winner"]),
        scores=(int(games["score_p0"]), int(games["score_p1"])),
        rounds=int(games["rounds"]),
        end_reason=games["end_reason"],
        tiebreak=games["tiebreak"],
        breakdown=breakdown,  # type: ignore[arg-type]
        tables=log_frames(L),
        final_state=state,
        illegal_answers=(int(G_row[rec.G_BAD]), int(G_row[rec.G_BAD + 2])),
    )
