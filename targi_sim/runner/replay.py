"""Replay one game of a run from its seed and check it against the logged rows.

A run's games are pure functions of (seed, first player, strategies, deck,
rules), so a game is replayed from the manifest's stored copies of the files
(not today's files, which may have been edited since) and its record must
equal what the run logged; `logged_differences` says where it does not.

A run directory is untrusted input (it may come from someone else): the manifest
is checked like a deck file before use (runner/manifest.py), the stored files are
written under fixed names (deck.toml, rules.toml, seat0.toml, seat1.toml) in a
temporary folder, never under a name the manifest gives, and the logged rows are
read only after the chunk's files match their completion marker.
"""

from __future__ import annotations

import contextlib
import dataclasses
import tempfile
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from targi_sim.errors import DataError, InputError, UsageError
from targi_sim.game.deck import load_deck
from targi_sim.game.record import GameRecord
from targi_sim.game.rules import load_rules
from targi_sim.play.games import play_game
from targi_sim.play.pairing import config_pairing, plan
from targi_sim.players.strategy import Strategy, list_strategies, load_strategy, with_budget
from targi_sim.runner.human import HUMAN_CONTENT, human_strategy, is_human_entry, recorded_answers
from targi_sim.runner.layout import RunDir
from targi_sim.runner.markers import ChunkMismatch, ChunkPlan, check_chunk
from targi_sim.runner.tables import TABLES


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
    manifest = rd.read_manifest()  # ManifestError (an InputError) if it cannot be used
    if manifest is None:
        raise InputError(f"{run} is not a targi-sim run directory (no manifest.json)")
    return manifest


def _plan(manifest: dict) -> ChunkPlan:
    cfg = manifest["config"]
    return ChunkPlan(manifest["config_hash"], cfg["games"], cfg["chunk_size"])


def game_ref(run: str | Path, game_id: int) -> GameRef:
    """Seed, first player and chunk of game `game_id` of a run (InputError if absent)."""
    manifest = _manifest(Path(run))
    cfg = manifest["config"]
    if not 0 <= game_id < cfg["games"]:
        raise InputError(f"`game` must be from 0 to {cfg['games'] - 1} for {run}; got {game_id}")
    chunk = game_id // cfg["chunk_size"]
    if not RunDir(Path(run)).marker_path(chunk).exists():
        raise InputError(f"game {game_id} of {run} was not played yet (its chunk {chunk} is "
                         "incomplete; rerun the run's command to finish it)")
    seed, first = _logged_seed(Path(run), manifest, chunk, game_id)
    if seed is None:  # no games row to read: recompute from the run's layout
        seeds, firsts, _ = plan(1, cfg["seed"], config_pairing(cfg), start=game_id)
        seed, first = int(seeds[0]), int(firsts[0])
    return GameRef(Path(run), game_id, seed, first, chunk)


def _logged_seed(run: Path, manifest: dict, chunk: int,
                 game_id: int) -> tuple[int | None, int]:
    """The seed and first player the run logged for a game (None if it has no row).

    Read rather than recomputed, so a run directory replays whatever layout of
    deals (targi_sim.play.pairing) the version that wrote it used; only from a chunk whose
    files match its marker (else None: `logged_rows` reports the mismatch)."""
    rd = RunDir(run)
    try:
        check_chunk(rd, _plan(manifest), chunk)
        with open(rd.table_path("games", chunk), "rb") as f:  # no character is a pattern
            games = pl.read_parquet(f, columns=["game_id", "seed", "first_player"])
    except (ChunkMismatch, OSError, pl.exceptions.PolarsError):
        return None, 0
    row = games.filter(pl.col("game_id") == game_id)
    if row.height != 1:
        return None, 0
    return int(row["seed"][0]), int(row["first_player"][0])


def _stored(folder: Path, text: str, stem: str) -> Path:
    """Write a stored file's text under a fixed name: names in a manifest are not paths."""
    path = folder / f"{stem}.toml"
    path.write_text(text, encoding="utf-8")
    return path


class CodeStrategyNeeded(InputError):
    """A seat of a stored run was played by a .py strategy whose file was not given (or
    not with the recorded code): the caller asks for the file in its own words."""


def _code_strategy(entry: dict, manifest_path: Path, files: tuple[Path, ...]) -> Strategy:
    """A seat played by a .py strategy: one of the files the user passed, with the code
    the run recorded. Never a path or code from the manifest: loading a .py file runs
    it, and a run directory may come from someone else."""
    for path in files:
        try:
            strategy = load_strategy(path)
        except (DataError, UsageError) as exc:
            raise InputError(str(exc)) from None
        if strategy.sha256 == entry["sha256"]:
            return dataclasses.replace(strategy, name=entry["name"])
    given = f" (none of the {len(files)} given matches its code)" if files else ""
    raise CodeStrategyNeeded(
        f"{manifest_path}: seat {entry['seat']} was played by the .py strategy "
        f"{entry['name']!r}{given}; pass that file as a `strategy_file` to replay it "
        "(loading a .py strategy runs its code)")


def _stored_strategy(folder: Path, entry: dict, manifest_path: Path,
                     files: tuple[Path, ...] = ()) -> Strategy | str:
    """A seat's strategy from its stored file, with the name the run used."""
    seat = entry["seat"]
    if is_human_entry(entry):  # a person: each game replays its own recorded answers
        strategy = human_strategy()
        if strategy.sha256 != entry["sha256"]:
            raise InputError(f"{manifest_path}: strategies[{seat}] is not the human seat its "
                             "sha256 records")
        return strategy
    if entry["kind"] in ("plugin", "python"):
        return _code_strategy(entry, manifest_path, files)
    if not entry["content"]:  # built in code (API runs): only a shipped name can be replayed
        if entry["name"] not in list_strategies():
            raise InputError(f"{manifest_path}: strategies[{seat}] stores no file content "
                             f"and {entry['name']!r} is not a shipped strategy")
        strategy = load_strategy(entry["name"])
    else:
        try:
            strategy = load_strategy(_stored(folder, entry["content"], f"seat{seat}"))
        except (DataError, UsageError) as exc:
            raise InputError(f"{manifest_path}: strategies[{seat}].content is not a valid "
                             f"strategy file: {exc}") from None
    _, at, budget = entry["name"].rpartition("@")
    if at and strategy.sha256 != entry["sha256"]:  # NAME@BUDGET: the file's, with the budget
        with contextlib.suppress(InputError):
            strategy = with_budget(strategy, budget, entry["name"])
    if strategy.sha256 != entry["sha256"]:
        raise InputError(f"{manifest_path}: strategies[{seat}].content does not give the "
                         "strategy its sha256 records")
    return dataclasses.replace(strategy, name=entry["name"])


def stored_inputs(run: str | Path, manifest: dict,
                  strategy_files: tuple[str | Path, ...] = ()) -> tuple:
    """(deck, rules, strategies) from the copies a run's manifest stores, never today's
    files or a path the manifest names; InputError (one line) if one does not load.
    A .py seat needs a file in `strategy_files` whose code matches the run's."""
    files = tuple(Path(f) for f in strategy_files)
    where = RunDir(Path(run)).manifest_path
    with tempfile.TemporaryDirectory(prefix="targi-replay-") as tmp:
        folder = Path(tmp)
        try:
            deck = load_deck(_stored(folder, manifest["deck"]["content"], "deck"))
            deck = dataclasses.replace(deck, name=manifest["deck"]["name"])  # as the run did
            rules = load_rules(_stored(folder, manifest["rules"]["content"], "rules"))
        except (DataError, UsageError) as exc:
            raise InputError(f"{where}: a stored deck or rules file does not load: "
                             f"{exc}") from None
        strategies = [_stored_strategy(folder, e, where, files)
                      for e in manifest["strategies"]]
    return deck, rules, strategies


class LoggedRun:
    """A run directory opened to replay its games: the deck, rules and strategies stored
    in its manifest are loaded once (the report replays several games of one run)."""

    def __init__(self, run: str | Path, strategy_files: tuple[str | Path, ...] = ()) -> None:
        self.run = Path(run)
        self.deck, self.rules, self.strategies = stored_inputs(
            self.run, _manifest(self.run), strategy_files)

    def play(self, game_id: int, seed: int, first_player: int) -> GameRecord:
        """Play game `game_id` of the run again from its seed and first player (a
        person's seat with the answers its journal records for the game)."""
        strategies = list(self.strategies)
        for seat, s in enumerate(strategies):
            if isinstance(s, Strategy) and s.content == HUMAN_CONTENT:
                strategies[seat] = human_strategy({seed: self._answers(game_id)})
        return play_game(seed, strategies, deck=self.deck, rules=self.rules,
                         first_player=first_player, game_id=game_id)

    def _answers(self, game_id: int) -> list[int]:
        """A human game's recorded answers, once its journal matches its chunk's marker."""
        manifest = _manifest(self.run)
        chunk = game_id // manifest["config"]["chunk_size"]
        try:
            marker = check_chunk(RunDir(self.run), _plan(manifest), chunk)
        except ChunkMismatch as exc:
            raise InputError(f"run {str(self.run)!r}: {exc}") from None
        return recorded_answers(self.run, game_id, marker).answers

    def replay(self, game_id: int) -> tuple[GameRecord, GameRef]:
        """Replay a logged game (InputError if the run has no such game yet)."""
        ref = game_ref(self.run, game_id)
        return self.play(game_id, ref.seed, ref.first_player), ref


def replay_logged_game(run: str | Path, game_id: int,
                       strategy_files: tuple[str | Path, ...] = ()) -> tuple[GameRecord, GameRef]:
    """Replay a run's game with the deck, rules and strategies stored in its manifest.

    A seat played by a .py strategy is replayed only with a file the caller passes in
    `strategy_files` whose code matches the one the run recorded."""
    ref = game_ref(run, game_id)
    record = LoggedRun(ref.run, strategy_files).play(game_id, ref.seed, ref.first_player)
    return record, ref


def logged_rows(ref: GameRef) -> dict[str, pl.DataFrame]:
    """The run's rows of one game, per table (read from its chunk's files only, once
    they match the chunk's completion marker; InputError if they do not)."""
    rd = RunDir(ref.run)
    try:
        check_chunk(rd, _plan(_manifest(ref.run)), ref.chunk)
    except ChunkMismatch as exc:
        raise InputError(f"run {str(ref.run)!r}: {exc}; rerun the run's command to replay "
                         "the chunk") from None
    out = {}
    for name in TABLES:
        path = rd.table_path(name, ref.chunk)
        try:
            with open(path, "rb") as f:  # opened by Python: no character is a pattern
                table = pl.read_parquet(f)
        except (OSError, pl.exceptions.PolarsError) as exc:
            raise InputError(f"{path} cannot be read: {exc}") from None
        out[name] = table.filter(pl.col("game_id") == ref.game_id)
    return out


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
