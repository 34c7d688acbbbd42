"""A playtest directory: the games a person plays, kept as a run directory.

Why: a designer's games against a bot are data like a simulated run, so they are
written in the same layout (docs/data-model.md) and `report`, `compare`, `replay`
and `calibrate --playtest` read them. The person is seat 0, the strategy `human`;
the bot is seat 1. Game k is the game `run` plays as game k with `--seed S --pairing
one_per_deal --chunk-size 1`: seed (S << 32) | k, seat k % 2 starting round 1.

What is kept, and why it is safe to stop at any moment:

* `playtest/setup.json`: the deck, rules and bot (full text, as a manifest stores
  them), the seed and the engine build, written when the directory is made;
* `playtest/game-NNNNNN.json`: each game's journal, rewritten (atomically) after every
  answer. A finished game is the source of its chunk; an unfinished one (at most one,
  the next game id) is resumed where it stopped and counts nowhere;
* the run directory itself: chunk k (one game) is written from journal k by the
  runner's own chunk writer, the human seat replaying the recorded answers, so its
  tables are what `run` would write. The run's identity (`config_hash`) includes its
  game count, so when a game is added the markers of the earlier chunks, whose files
  still match, are stamped with the new identity; the manifest comes last.

`sync` derives all of this from the journals again, so a directory interrupted
between two of these writes is repaired when it is next opened.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from targi_sim._utils.atomic import atomic_write, atomic_write_json
from targi_sim._version import __version__
from targi_sim.engine import source_digest
from targi_sim.errors import DataError, InputError
from targi_sim.game.deck import Deck, load_deck
from targi_sim.game.rules import Rules, load_rules
from targi_sim.play.match import Match, prepare_match
from targi_sim.play.pairing import ONE_PER_DEAL, plan
from targi_sim.play.session import external_strategy
from targi_sim.players.strategy import Strategy, resolve_strategy

from .chunks import run_chunk
from .config import RunSpec, config_digest
from .human import (
    FINISHED,
    HUMAN,
    HUMAN_CONTENT,
    PLAYTEST,
    UNFINISHED,
    Journal,
    human_strategy,
    is_human_entry,
    now,
    read_journal,
    vouch_answers,
    write_journal,
)
from .layout import MANIFEST, RunDir, check_writable
from .manifest import ManifestError, check_manifest
from .markers import ChunkMismatch, ChunkPlan, check_chunk, parquet_bytes, vouch
from .tables import TABLES, cards_table

SETUP = "setup.json"
HUMAN_SEAT, BOT_SEAT = 0, 1
MAX_SEED = 2**31 - 1


@dataclass(frozen=True, eq=False)
class PlaytestSetup:
    """What every game of a playtest directory shares: deck, rules, the bot, the seed.

    `stored`: the setup file's entries (deck, rules and strategies as a manifest records
    them, with the paths they were first loaded from) when the directory exists."""

    deck: Deck
    rules: Rules
    bot: Strategy
    seed: int
    stored: dict[str, Any] | None = field(default=None, repr=False)

    @cached_property
    def base(self) -> dict[str, Any]:
        """The run identity without its game count (runner/config.py's fields): the
        stored one of an existing directory (its names as first given)."""
        if self.stored is not None:
            return dict(self.stored["config"])
        human = human_strategy()
        return {
            "seed": self.seed, "pairing": ONE_PER_DEAL, "chunk_size": 1,
            "strategies": [{"seat": HUMAN_SEAT, "name": HUMAN, "sha256": human.sha256},
                           {"seat": BOT_SEAT, "name": self.bot.name, "sha256": self.bot.sha256}],
            "deck": {"name": self.deck.name, "sha256": self.deck.sha256},
            "rules": {"name": self.rules.name, "sha256": self.rules.sha256},
            "engine": source_digest(),
        }

    def identity(self, games: int) -> dict[str, Any]:
        return {"games": games, **self.base}

    @cached_property
    def setup_hash(self) -> str:
        return config_digest(self.base)

    @cached_property
    def live_match(self) -> Match:
        """The match a person plays: seat 0 decided from outside the engine."""
        return prepare_match((external_strategy(HUMAN), self.bot), self.deck, self.rules)

    def chunk_match(self, answers: dict[int, list[int]]) -> Match:
        """The match that writes a game's chunk: seat 0 replays the recorded answers."""
        return prepare_match((human_strategy(answers), self.bot), self.deck, self.rules)

    def deal(self, game_id: int) -> tuple[int, int]:
        """(seed, first player) of game `game_id`: the run's plan, one game per deal."""
        seeds, first, _ = plan(1, self.seed, ONE_PER_DEAL, start=game_id)
        return int(seeds[0]), int(first[0])

    def entries(self) -> dict[str, Any]:
        """The deck, rules and strategies as the manifest records them."""
        if self.stored is not None:
            return {k: self.stored[k] for k in ("deck", "rules", "strategies")}
        d, r, b = self.deck, self.rules, self.bot
        return {
            "deck": {"name": d.name, "path": str(d.path), "sha256": d.sha256,
                     "content": d.content},
            "rules": {"name": r.name, "path": str(r.path) if r.path else None,
                      "sha256": r.sha256, "content": r.content},
            "strategies": [
                {"seat": HUMAN_SEAT, "name": HUMAN, "kind": "python", "path": None,
                 "sha256": human_strategy().sha256, "content": HUMAN_CONTENT},
                {"seat": BOT_SEAT, "name": b.name, "kind": b.kind_name,
                 "path": str(b.path) if b.path else None, "sha256": b.sha256,
                 "content": b.content},
            ],
        }

    def describe(self) -> str:
        return (f"{self.bot.name} on deck {self.deck.name}, rules {self.rules.name}, "
                f"seed {self.seed}")


def setup_path(root: Path) -> Path:
    return Path(root) / PLAYTEST / SETUP


def _as_manifest(data: dict[str, Any]) -> dict[str, Any]:
    """A setup file in the shape of a one-game manifest, to check it with the
    manifest's own checks (types, hashes of the stored files, the configuration)."""
    config = {**data.get("config", {}), "games": 1} if isinstance(data.get("config"),
                                                                 dict) else None
    return {"tool": data.get("tool"), "version": data.get("version"), "config": config,
            "config_hash": config_digest(config) if config else "", "deck": data.get("deck"),
            "rules": data.get("rules"), "strategies": data.get("strategies"), "chunks": 1,
            "status": "incomplete", "timings": {"first_started": data.get("created", "")}}


def read_setup(root: Path) -> dict[str, Any] | None:
    """The checked setup file of a playtest directory (None when there is none);
    DataError (one line naming the file and field) if it cannot be used."""
    path = setup_path(root)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(path, None, None, problem=f"cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise DataError(path, None, None, data, "a JSON object")
    extra = set(data) - {"tool", "version", "created", "config", "deck", "rules", "strategies"}
    if extra:
        raise DataError(path, None, sorted(extra)[0], None, None, "is not a known field")
    try:
        check_manifest(_as_manifest(data), path)
    except ManifestError as exc:
        raise DataError(path, None, None, problem=str(exc).removeprefix(f"{path}: ")
                        .rstrip(".")) from None
    cfg = data["config"]
    if (cfg.get("pairing"), cfg.get("chunk_size")) != (ONE_PER_DEAL, 1) or \
            not is_human_entry(data["strategies"][HUMAN_SEAT]):
        raise DataError(path, None, "config", None, None,
                        "is not a playtest's (one game per deal and chunk, seat 0 human)")
    return data


def resolve_setup(root: str | Path, *, vs: str | None = None, deck: str | None = None,
                  rules: str | None = None, seed: int | None = None) -> PlaytestSetup:
    """The setup of the playtest directory `root`: from the options for a new directory
    (defaults: balanced, base, default, 0); for an existing one, its stored setup, each
    option given having to agree with it (InputError naming what differs)."""
    root = Path(root)
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise InputError(f"`seed` must be from 0 to {MAX_SEED}; got {seed}")
    stored = read_setup(root)
    if stored is None:
        if (root / MANIFEST).exists():
            raise InputError(f"`out` {str(root)!r} holds a run written by `targi-sim run`, "
                             "not playtest games; choose another folder")
        return PlaytestSetup(load_deck(deck or "base"), load_rules(rules or "default"),
                             resolve_strategy(vs or "balanced"), seed or 0)
    from .replay import CodeStrategyNeeded, stored_inputs

    files = (vs,) if vs and vs.endswith(".py") else ()
    try:
        s_deck, s_rules, strategies = stored_inputs(root, _as_manifest(stored), files)
    except CodeStrategyNeeded:
        raise InputError(f"{setup_path(root)}: its bot is a .py strategy; give it again "
                         "as `vs` (FILE.py; loading a .py strategy runs its code)") from None
    given = PlaytestSetup(load_deck(deck) if deck else s_deck,
                          load_rules(rules) if rules else s_rules,
                          resolve_strategy(vs) if vs else strategies[BOT_SEAT],
                          seed if seed is not None else stored["config"]["seed"])
    have = PlaytestSetup(s_deck, s_rules, strategies[BOT_SEAT], stored["config"]["seed"],
                         stored)
    differ = [what for what, a, b in (
        ("`vs`", given.bot.sha256, have.bot.sha256),
        ("`deck`", given.deck.sha256, have.deck.sha256),
        ("`rules`", given.rules.sha256, have.rules.sha256),
        ("`seed`", given.seed, have.seed)) if a != b]
    if differ:
        what = " and ".join(differ)
        other = (f"{root}-vs-{given.bot.name.replace('@', '-')}" if "`vs`" in differ else
                 f"{root}-{given.deck.sha256[:8]}" if "`deck`" in differ else f"{root}-2")
        raise InputError(
            f"{root} is the playtest directory of games against {have.describe()}; the "
            f"{what} given {'differs' if len(differ) == 1 else 'differ'} from it. Leave "
            f"{'it' if len(differ) == 1 else 'them'} out to go on with its games, or choose "
            f"another `out` (e.g. {other})")
    if stored["config"]["engine"] != source_digest():
        raise InputError(f"{root}'s games were played with another engine build (an older "
                         "targi-sim); they still report and replay, but new games go in "
                         "another `out`")
    return have


def check_folder(root: Path) -> None:
    """InputError unless `root` is new, empty or a playtest directory, and writable."""
    if root.is_dir() and not setup_path(root).exists() and any(
            not p.name.startswith(".") for p in root.iterdir()):
        raise InputError(f"`out` {str(root)!r} holds other files and is no playtest "
                         "directory; choose an empty or new folder")
    check_writable(root)


class PlaytestDir:
    """A playtest directory opened for writing (hold `RunDir(root).locked()` while
    using it): its journals, and the run directory derived from them."""

    def __init__(self, root: str | Path, setup: PlaytestSetup,
                 command: list[str] | None = None) -> None:
        self.root = Path(root)
        self.rd = RunDir(self.root)
        self.setup = setup
        self.command = command or ["targi-sim", *sys.argv[1:]]
        self.started = now()

    # ------------------------------------------------------------ the setup
    def create(self) -> None:
        """Write the setup file of a new directory (an existing one is left as it is)."""
        path = setup_path(self.root)
        if path.exists():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"tool": "targi-sim", "version": __version__, "created": self.started,
                "config": self.setup.base, **self.setup.entries()}
        atomic_write_json(path, data)
        self.setup = PlaytestSetup(self.setup.deck, self.setup.rules, self.setup.bot,
                                   self.setup.seed, data)

    # ------------------------------------------------------------ the journals
    def journals(self) -> tuple[int, Journal | None]:
        """(finished games, the unfinished game or None); InputError for a gap, a
        journal of another setup, or an unfinished game that is not the last."""
        folder = self.root / PLAYTEST
        ids = sorted(int(p.stem[5:]) for p in folder.glob("game-*.json")
                     if p.stem[5:].isdigit()) if folder.is_dir() else []
        finished, unfinished = 0, None
        for k, game_id in enumerate(ids):
            if game_id != k:
                raise InputError(f"{folder}: game {k}'s journal is missing (game-{k:06d}.json)")
            journal, _ = read_journal(self.root, game_id)
            where = f"{folder / f'game-{game_id:06d}.json'}"
            if journal.setup != self.setup.setup_hash:
                raise InputError(f"{where} belongs to another playtest setup")
            if (journal.seed, journal.first_player) != self.setup.deal(game_id):
                raise InputError(f"{where}: its seed or first player is not game "
                                 f"{game_id}'s deal")
            if journal.status == FINISHED:
                if unfinished is not None:
                    raise InputError(f"{where}: a finished game after the unfinished game "
                                     f"{unfinished.game_id}")
                finished += 1
            elif unfinished is None:
                unfinished = journal
            else:
                raise InputError(f"{where}: a second unfinished game")
        return finished, unfinished

    def new_journal(self, game_id: int) -> Journal:
        seed, first = self.setup.deal(game_id)
        journal = Journal(game_id, seed, first, self.setup.setup_hash)
        write_journal(self.root, journal)
        return journal

    def save(self, journal: Journal) -> None:
        write_journal(self.root, journal)

    def finish(self, journal: Journal) -> dict[str, Any]:
        """Record a game as finished and write it into the run directory; the manifest."""
        journal.status = FINISHED
        write_journal(self.root, journal)
        manifest = self.sync()
        assert manifest is not None
        return manifest

    # ------------------------------------------------------------ the run directory
    def sync(self) -> dict[str, Any] | None:
        """Bring the run directory up to the finished journals (see the module
        docstring); returns its manifest (None before the first finished game)."""
        finished, _ = self.journals()
        if finished == 0:
            return None
        self.rd.clean_partial_writes()
        self.rd.make_folders()
        config = self.setup.identity(finished)
        config_hash = config_digest(config)
        known = {config_digest(self.setup.identity(m)): m for m in range(1, finished + 1)}
        markers = []
        for k in range(finished):
            journal, data = read_journal(self.root, k)
            marker = self._valid_marker(k, known, data)
            if marker is None:
                marker = self._write_chunk(k, journal, config_hash, finished)
                marker["answers"] = vouch_answers(data)
                self.rd.write_marker(k, marker)
            elif marker["config_hash"] != config_hash:
                marker["config_hash"] = config_hash
                self.rd.write_marker(k, marker)
            markers.append(marker)
        return self._write_manifest(config, config_hash, markers)

    def _valid_marker(self, k: int, known: dict[str, int], data: bytes) -> dict | None:
        """Chunk k's marker if it is this setup's (for some game count), vouches for the
        journal's bytes and its files match it; None if the chunk is to be written (again):
        no marker, or one left by an interrupted write. A journal edited after its game
        was written is refused (InputError): the chunk is the game that was played."""
        try:
            marker = self.rd.read_marker(k)
        except (OSError, ValueError):
            return None
        games = known.get(marker.get("config_hash")) if isinstance(marker, dict) else None
        if games is None or "answers" not in marker:
            return None
        try:
            check_chunk(self.rd, ChunkPlan(marker["config_hash"], games, 1), k)
        except ChunkMismatch:
            return None
        if marker["answers"] != vouch_answers(data):
            raise InputError(f"{self.root / PLAYTEST / f'game-{k:06d}.json'} changed after "
                             f"game {k} was written (it no longer matches chunk {k}'s "
                             "marker); put the file back as it was")
        return marker

    def _write_chunk(self, k: int, journal: Journal, config_hash: str,
                     games: int) -> dict[str, Any]:
        match = self.setup.chunk_match({journal.seed: journal.answers})
        spec = RunSpec(out=self.root.resolve(), games=games, seed=self.setup.seed,
                       pairing=ONE_PER_DEAL, chunk_size=1, match=match,
                       config_hash=config_hash, tribe_symbol=match.deck.tribe_symbol.copy())
        return run_chunk(spec, k)

    def _write_manifest(self, config: dict, config_hash: str,
                        markers: list[dict[str, Any]]) -> dict[str, Any]:
        cards = parquet_bytes(cards_table(self.setup.deck))
        if not (self.rd.cards_path.is_file() and self.rd.cards_path.read_bytes() == cards):
            atomic_write(self.rd.cards_path, lambda p: Path(p).write_bytes(cards))
        rows = {t: sum(int(m["rows"][t]) for m in markers) for t in TABLES}
        stored = self.setup.stored or {}
        manifest = {
            "tool": "targi-sim", "version": __version__, "engine_hash": config["engine"],
            "command": self.command, "config": config, "config_hash": config_hash,
            **self.setup.entries(), "chunks": len(markers), "status": "complete",
            "timings": {"first_started": stored.get("created", self.started),
                        "started": self.started, "finished": now()},
            "machine": {"python": platform.python_version(), "platform": platform.platform(),
                        "cpus": os.cpu_count(), "jobs": 1, "backend": "playtest"},
            "counts": {"games": len(markers), "rows": rows,
                       "bytes": self.rd.bytes_written(markers)},
            "cards": vouch(cards),
        }
        self.rd.write_manifest(manifest)
        return manifest


def open_playtest(root: str | Path, *, vs: str | None = None, deck: str | None = None,
                  rules: str | None = None, seed: int | None = None,
                  command: list[str] | None = None) -> PlaytestDir:
    """Resolve and check a playtest directory for writing (made if new); InputError,
    UsageError or DataError (one line) if it cannot be used. The caller holds the
    directory's lock while writing."""
    root = Path(root)
    setup = resolve_setup(root, vs=vs, deck=deck, rules=rules, seed=seed)
    check_folder(root)
    return PlaytestDir(root, setup, command)


__all__ = ["BOT_SEAT", "HUMAN_SEAT", "PlaytestDir", "PlaytestSetup", "SETUP", "UNFINISHED",
           "check_folder", "open_playtest", "read_setup", "resolve_setup",
           "setup_path"]
