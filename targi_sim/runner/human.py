"""A person's seat in a run directory: the `human` strategy and the answers it recorded.

Why: a game a person plays (`targi-sim play --browser`) is kept as a run directory like
`run` writes, so `report`, `compare` and `replay` read it. A run's games must replay from
what the directory stores, and a person is no strategy file: so each game's answers
(the option codes the person chose, in decision order) are kept in a journal file,
`playtest/game-NNNNNN.json`, and the `human` seat replays them. The chunk's completion
marker vouches for the journal (`answers`: its size and sha256) as for the chunk's
tables, so an edited journal is refused, never replayed into another game.

The seat's identity (its sha256 in the manifest) is the same for every game: it says
"answers recorded per game", not which answers.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from targi_sim._utils.atomic import atomic_write
from targi_sim.errors import DataError, FieldReader, InputError
from targi_sim.game.decisions import Decision
from targi_sim.game.view import View
from targi_sim.players.python_strategy import PythonStrategy
from targi_sim.players.strategy import Strategy, python_seat

HUMAN = "human"
# the stored "file" of the human seat: its identity, and what `strategies show` would say
HUMAN_CONTENT = ("# targi-sim human seat: a person's answers, recorded per game in "
                 "playtest/game-NNNNNN.json\n")
PLAYTEST = "playtest"  # the folder of the journals and the setup, inside the run directory
UNFINISHED, FINISHED = "unfinished", "finished"
JOURNAL_FORMAT = 1
MAX_ANSWERS = 100_000  # far above any game's decisions; a bound for untrusted files


class RecordedAnswers(PythonStrategy):
    """Answers each decision with the next recorded option code of the game's seed."""

    name = HUMAN
    description = "a person's recorded answers (targi-sim play --browser)"
    deterministic = True

    def __init__(self, answers: dict[int, list[int]] | None = None) -> None:
        self.answers = answers or {}
        self._left: list[int] = []
        self._at = 0

    def new_game(self, seat: int, seed: int) -> None:
        super().new_game(seat, seed)
        if seed not in self.answers:
            raise InputError(f"no recorded answers for the game with seed {seed}")
        self._left, self._at = self.answers[seed], 0

    def choose(self, view: View, decision: Decision) -> int:
        if self._at >= len(self._left):
            raise ValueError(f"the recording ends after {self._at} answers")
        value = self._left[self._at]
        self._at += 1
        return decision.index_of(value)  # ValueError if the recording does not fit


def human_strategy(answers: dict[int, list[int]] | None = None) -> Strategy:
    """The `human` seat; `answers` (seed -> option codes) for the games it replays."""
    seat = python_seat(RecordedAnswers(answers), None, HUMAN_CONTENT)
    return seat


def is_human_entry(entry: dict[str, Any]) -> bool:
    """Is this manifest `strategies` entry the human seat (not a .py strategy)?"""
    return (entry.get("kind") == "python" and entry.get("name") == HUMAN
            and entry.get("content") == HUMAN_CONTENT)


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


@dataclass
class Journal:
    """One game a person plays: its deal, the answers so far, and whether it ended.

    `setup` is the playtest setup's hash (runner/playtest.py): a journal belongs to one
    directory's deck, rules, opponent and seed."""

    game_id: int
    seed: int
    first_player: int
    setup: str
    answers: list[int] = field(default_factory=list)
    status: str = UNFINISHED
    started: str = field(default_factory=now)
    updated: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"format": JOURNAL_FORMAT, "game_id": self.game_id, "seed": self.seed,
                "first_player": self.first_player, "setup": self.setup,
                "status": self.status, "started": self.started,
                "updated": self.updated or self.started, "answers": list(self.answers)}


def journal_path(root: Path, game_id: int) -> Path:
    return Path(root) / PLAYTEST / f"game-{game_id:06d}.json"


def journal_bytes(journal: Journal) -> bytes:
    return (json.dumps(journal.to_json(), separators=(",", ":")) + "\n").encode("utf-8")


def write_journal(root: Path, journal: Journal) -> bytes:
    """Write the journal atomically; returns the bytes written (for a marker)."""
    journal.updated = now()
    data = journal_bytes(journal)
    path = journal_path(root, journal.game_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda p: Path(p).write_bytes(data))
    return data


def parse_journal(data: bytes, path: Path) -> Journal:
    """A journal from its file's bytes, checked like a deck file (DataError, one line)."""
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(path, None, None, problem=f"cannot be read: {exc}") from None
    r = FieldReader(path, "playtest journal", raw)
    r.check_keys(("format", "game_id", "seed", "first_player", "setup", "status", "started",
                  "updated", "answers"),
                 required=("format", "game_id", "seed", "first_player", "setup", "status",
                           "answers"))
    r.get_int("format", lo=JOURNAL_FORMAT, hi=JOURNAL_FORMAT)
    answers = raw["answers"]
    if not isinstance(answers, list) or len(answers) > MAX_ANSWERS or not all(
            type(a) is int and -(2**31) <= a < 2**31 for a in answers):
        raise r.error("answers", None, "a list of integer option codes", "has the wrong type")
    return Journal(r.get_int("game_id", hi=2**32), r.get_int("seed", hi=2**63 - 1),
                   r.get_int("first_player", hi=1), r.get_str("setup"), list(answers),
                   r.get_choice("status", (UNFINISHED, FINISHED)),
                   r.get_str("started", ""), r.get_str("updated", ""))


def read_journal(root: Path, game_id: int) -> tuple[Journal, bytes]:
    """Game `game_id`'s journal and its bytes; InputError if it is missing or unreadable."""
    path = journal_path(root, game_id)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path} cannot be read: {exc.strerror or exc}") from None
    journal = parse_journal(data, path)
    if journal.game_id != game_id:
        raise DataError(path, "playtest journal", "game_id", journal.game_id, str(game_id),
                        "does not match the file name")
    return journal, data


def vouch_answers(data: bytes) -> dict[str, Any]:
    """What a chunk's marker records of its journal (`answers`)."""
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def recorded_answers(root: Path, game_id: int, marker: dict[str, Any]) -> Journal:
    """The finished journal of game `game_id`, once it matches what the chunk's marker
    vouches for; InputError (one line) otherwise."""
    journal, data = read_journal(root, game_id)
    if marker.get("answers") != vouch_answers(data):
        raise InputError(f"{journal_path(root, game_id)} does not match the size and sha256 "
                         f"its chunk's marker records (the file changed); game {game_id}'s "
                         "answers cannot be replayed")
    if journal.status != FINISHED:
        raise InputError(f"{journal_path(root, game_id)} is not a finished game")
    return journal


__all__ = ["FINISHED", "HUMAN", "HUMAN_CONTENT", "Journal", "PLAYTEST", "RecordedAnswers",
           "UNFINISHED", "human_strategy", "is_human_entry", "journal_path", "parse_journal",
           "read_journal", "recorded_answers", "vouch_answers", "write_journal"]
