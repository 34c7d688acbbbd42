"""Replay one game of a run from its seed and check it against the logged rows.

A run's games are pure functions of (seed, first player, strategies, deck,
rules), so a game is replayed from the manifest's stored copies of the files
(not today's files, which may have been edited since) and its record must
equal what the run logged; `logged_differences` says where it does not.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from .api import game_plan, play_game
from .deck import load_deck
from .errors import InputError
from .record import GameRecord
from .rules import load_rules
from .runner.rundir import RunDir
from .runner.tables import TABLES
from .strategy import Strategy, load_strategy


@dataclass(frozen=True)
class GameRef:
    """Where a logged game comes from: enough to replay it."""

    run: Path
    game_id: int
    seed: int
    first_player: int
    chunk: int


def _manifest(run: Path) -> dict:
    rd = RunDir(Path(run))
    manifest = rd.read_manifest()
    if manifest is None:
        raise InputError(f"{run} is not a targi-sim run directory (no manifest.json)")
    return manifest


def game_ref(run: str | Path, game_id: int) -> GameRef:
    """Seed, first player and chunk of game `game_id` of a run (InputError if absent)."""
    manifest = _manifest(Path(run))
    cfg = manifest["config"]
    if not 0 <= game_id < cfg["games"]:
        raise InputError(f"--game must be from 0 to {cfg['games'] - 1} for {run}; got {game_id}")
    chunk = game_id // cfg["chunk_size"]
    if not RunDir(Path(run)).marker_path(chunk).exists():
        raise InputError(f"game {game_id} of {run} was not played yet (its chunk {chunk} is "
                         "incomplete; rerun the run's command to finish it)")
    seeds, first, _ = game_plan(1, cfg["seed"], cfg["paired"], start=game_id)
    return GameRef(Path(run), game_id, int(seeds[0]), int(first[0]), chunk)


def _stored(folder: Path, entry: dict, stem: str) -> Path:
    path = folder / f"{stem}.toml"
    path.write_text(entry["content"], encoding="utf-8")
    return path


def replay_logged_game(run: str | Path, game_id: int) -> tuple[GameRecord, GameRef]:
    """Replay a run's game with the deck, rules and strategies stored in its manifest."""
    ref = game_ref(run, game_id)
    manifest = _manifest(ref.run)
    with tempfile.TemporaryDirectory(prefix="targi-replay-") as tmp:
        folder = Path(tmp)
        deck = load_deck(_stored(folder, manifest["deck"], "deck"))
        rules = load_rules(_stored(folder, manifest["rules"], "rules"))
        strategies: list[Strategy | str] = []
        for entry in manifest["strategies"]:
            if entry["kind"] == "plugin" or not entry["content"]:
                strategies.append(entry["path"] or entry["name"])
            else:
                sub = folder / f"seat{entry['seat']}"
                sub.mkdir()
                strategies.append(load_strategy(_stored(sub, entry, entry["name"])))
        record = play_game(ref.seed, strategies, deck=deck, rules=rules,
                           first_player=ref.first_player, game_id=game_id)
    return record, ref


def logged_rows(ref: GameRef) -> dict[str, pl.DataFrame]:
    """The run's rows of one game, per table (read from its chunk's files only)."""
    rd = RunDir(ref.run)
    return {name: pl.read_parquet(rd.table_path(name, ref.chunk))
            .filter(pl.col("game_id") == ref.game_id) for name in TABLES}


def _comparable(df: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """Names as strings, everything else as int64: the record and the Parquet rows
    differ only in types (dictionary vs plain strings, int8 vs int64)."""
    return df.select(
        pl.col(c).cast(pl.Int64 if df.schema[c].is_numeric() or df.schema[c] == pl.Boolean
                       else pl.Utf8)
        for c in columns
    )


def logged_differences(record: GameRecord, logged: dict[str, pl.DataFrame]) -> list[str]:
    """Tables (and game fields) where the replayed record differs from the log; [] if none."""
    out = []
    game = logged["games"]
    if game.height != 1:
        return [f"games: {game.height} rows for the game"]
    row = game.row(0, named=True)
    expected = {
        "seed": record.seed, "first_player": record.first_player, "winner": record.winner,
        "score_p0": record.scores[0], "score_p1": record.scores[1], "rounds": record.rounds,
        "end_reason": record.end_reason, "tiebreak": record.tiebreak,
        "p0_strategy": record.strategies[0], "p1_strategy": record.strategies[1],
        **{f"{k}_p{p}": v for p in range(2) for k, v in record.breakdown[p].items()},
    }
    out += [f"games.{k}: logged {row[k]!r}, replayed {v!r}" for k, v in expected.items()
            if row[k] != v]
    for name in TABLES[1:]:
        mine = record.tables[name]
        theirs = logged[name]
        cols = [c for c in mine.columns if c in theirs.columns]
        if not _comparable(mine, cols).equals(_comparable(theirs, cols)):
            out.append(f"{name}: {theirs.height} logged rows differ from {mine.height} replayed")
    return out
