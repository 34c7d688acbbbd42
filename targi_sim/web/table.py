"""The game a person plays on the page: the engine's game, the positions after each move,
and the journal that keeps it.

Two engine games run side by side. The *game* (targi_sim.play.session) seats the bot
inside the engine and stops only at the person's decisions. The *shadow* plays the same
deal with both seats answered from the game's own decision trace, so it stops at every
decision with a choice: the position after each of the bot's moves, which the page shows
one by one. Games are deterministic (each seat draws from its own random stream), so the
shadow is the same game; it is checked against the game at every decision of the person
and at the end. Each position is captioned with the viewer's sentences
(targi_sim.viewer.story, the text replay's Narrator) and sent as the person's View only.

Every answer is written to the game's journal before the reply (runner/human.py), so a
game stopped at any moment is resumed where it was; a finished game goes into the run
directory (runner/playtest.py).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from targi_sim.engine.constants import RESOURCE_NAMES, SYMBOL_NAMES
from targi_sim.engine.costs import OPT_KEEP, OPT_LEAVE
from targi_sim.errors import InputError
from targi_sim.game.narration import action_slots
from targi_sim.game.record import log_frames
from targi_sim.game.view import UNKNOWN, View
from targi_sim.play.games import MAX_TRACE_ROWS
from targi_sim.play.match import prepare_match
from targi_sim.play.session import Game, external_strategy
from targi_sim.runner.human import Journal, journal_path
from targi_sim.runner.playtest import BOT_SEAT, HUMAN_SEAT, PlaytestDir
from targi_sim.viewer.page import deck_json
from targi_sim.viewer.states import Snapshot, snapshot_values
from targi_sim.viewer.story import Storyteller, result_line

from ..engine import layout as lay
from ..engine.buffers import make_logs
from .payload import decision_json, scores_of, view_json


class RequestError(Exception):
    """A request the game cannot take (HTTP `status`); the game is unchanged."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class ShadowError(RuntimeError):
    """The shadow game left the played game: a bug, never the person's doing."""


@dataclass
class Frame:
    """One position the page shows: `kind` 'decision' (someone is about to decide),
    'round_end' or 'final_raid'; `lines` say what happened since the frame before."""

    kind: str
    lines: list[str]
    raid: bool
    view: dict[str, Any]
    round: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "lines": self.lines, "raid": self.raid,
                "view": self.view, "round": self.round}


def _slots_of(S: np.ndarray, p: int) -> dict[str, int]:
    """A seat's Targis and markers as a `rounds` row names them (for action_slots)."""
    base = lay.S_PLAYER + p * lay.P_SIZE
    row: dict[str, int] = {}
    for k in range(3):
        b = int(S[base + lay.P_TARGI + k])
        row[f"targi_card_{k + 1}"] = b + 1 if b >= 0 else 0
    for k in range(2):
        row[f"marker_cell_{k + 1}"] = int(S[base + lay.P_MARKER + k])
        row[f"marker_moved_{k + 1}"] = -1
    return row


class Shadow:
    """The played game again, stopping at every decision (see the module docstring)."""

    def __init__(self, table: PlayTable, seed: int, first: int, game_id: int) -> None:
        setup = table.setup
        self.table = table
        self.L = make_logs(1, exact=True, trace_rows=MAX_TRACE_ROWS)
        self._ends: list[tuple[np.ndarray, int]] = []
        self.game = Game(table.shadow_match, seed, first, game_id, logs=self.L,
                         on_round_end=lambda S, at: self._ends.append((S, at)))
        self.teller = Storyteller(setup.deck, first, table.names, self._describe,
                                  ("you", setup.bot.name))
        self.raids: list[dict] = []
        self._visible: set[int] = set()
        self._last_round = -1
        self._slots: dict[int, dict[int, str]] = {0: {}, 1: {}}
        self._prev_S: np.ndarray | None = None

    # ------------------------------------------------------------ captions
    def _describe(self, row: dict) -> str | None:
        """The bot's decision about a tribe card the person has not seen (drawn face
        down and kept in hand) is told without the card."""
        if row["player"] != BOT_SEAT or row["decision"] != "tribe" or \
                row["context"] in self._visible:
            return None
        if row["choice"] == OPT_KEEP:
            return "keeps a tribe card you have not seen in hand"
        if row["choice"] == OPT_LEAVE:
            return "leaves a tribe card you have not seen"
        return None

    def _frame(self, kind: str, S: np.ndarray, at: int, trace: list[dict]) -> Frame:
        setup, table = self.table.setup, self.table
        view = View(S, setup.deck, HUMAN_SEAT)
        visible = {c.card.id for c in view.centre if c.kind == "tribe" and c.card is not None}
        for h in (view.me, view.opponent):
            visible |= {c for c in h.display_slots if c >= 0}
            if h.hand is not None and h.hand != UNKNOWN:
                visible.add(h.hand.id)
        self._visible = visible | {c.id for c in view.tribe_discard}
        d = self.game.decision if kind == "decision" else None
        snap = Snapshot(kind, snapshot_values(S, table.match), at,
                        d.player if d else -1, d.type if d else "", len(d.values) if d else 0)
        for p in range(2):  # the action slots before these moves, then any placed since
            now = action_slots(self.teller.narrator, _slots_of(S, p))
            before = (action_slots(self.teller.narrator, _slots_of(self._prev_S, p))
                      if self._prev_S is not None else {})
            self._slots[p] = {**now, **before}
        step = self.teller.caption(snap, trace, self.raids,
                                   lambda row: self._slots.get(row["player"], {}))
        self._prev_S = S.copy()
        return Frame(kind, step.lines, step.raid,
                     view_json(view, scores_of(S, table.match.D, table.match.R)), view.round)

    def _round_ends(self, trace: list[dict]) -> list[Frame]:
        out = []
        for S, at in self._ends:
            rnd = int(S[lay.S_ROUND])
            kind = "final_raid" if rnd == self._last_round else "round_end"
            self._last_round = rnd
            self.raids = log_frames(self.L)["raids"].to_dicts()
            out.append(self._frame(kind, S, at, trace))
        self._ends.clear()
        return out

    # ------------------------------------------------------------ following the game
    def start(self, trace: list[dict]) -> list[Frame]:
        """The first position, before the first decision with a choice."""
        frames = self._round_ends(trace)
        if not self.game.is_over:
            frames.append(self._frame("decision", self.game.frozen, self.game.trace_position,
                                      trace))
        return frames

    def follow(self, played: Game) -> list[Frame]:
        """Play on to where `played` stands, a frame after each decision on the way."""
        trace = played.history()
        frames: list[Frame] = []
        g = self.game
        while not g.is_over and (played.is_over or g.trace_position < played.trace_position):
            at = g.trace_position
            d = g.decision
            if at >= len(trace) or (trace[at]["player"], trace[at]["decision"]) != (
                    d.player, d.type) or trace[at]["choice"] not in d.values:
                raise ShadowError(f"the shadow game asks seat {d.player}'s {d.type} at trace "
                                  f"row {at}, which the game does not have")
            g.apply(d.index_of(trace[at]["choice"]))
            frames += self._round_ends(trace)
            if not g.is_over:
                frames.append(self._frame("decision", g.frozen, g.trace_position, trace))
        if played.is_over != g.is_over or (not g.is_over and g.decision != played.decision) \
                or (g.is_over and g.scores != played.scores):
            raise ShadowError("the shadow game does not stand where the game does")
        return frames


@dataclass
class Playing:
    """The game in progress and what the page has been told of it."""

    journal: Journal
    game: Game
    shadow: Shadow
    log: list[dict[str, Any]] = field(default_factory=list)  # every frame's round and lines
    resumed: bool = False
    saved: dict[str, Any] | None = None  # once over: what was written where

    def add(self, frames: list[Frame]) -> None:
        self.log += [{"round": f.round, "lines": f.lines, "raid": f.raid} for f in frames
                     if f.lines]


class PlayTable:
    """The playtest a page drives: one game at a time, in a playtest directory whose
    writer's lock the caller holds. Methods are safe to call from several threads: each
    request is taken whole, one at a time."""

    def __init__(self, pdir: PlaytestDir) -> None:
        self.pdir = pdir
        self.setup = pdir.setup
        self.match = pdir.setup.live_match
        self.shadow_match = prepare_match((external_strategy(), external_strategy()),
                                          self.setup.deck, self.setup.rules)
        self.names = ("seat 0 (you)", f"seat 1 ({self.setup.bot.name})")
        self.lock = threading.Lock()
        self.finished, unfinished = pdir.journals()
        self.playing: Playing | None = None
        if unfinished is not None:
            self._open(unfinished, resumed=True)

    # ------------------------------------------------------------ games
    def _open(self, journal: Journal, *, resumed: bool = False) -> None:
        game = Game(self.match, journal.seed, journal.first_player, journal.game_id,
                    trace_rows=MAX_TRACE_ROWS)
        for k, value in enumerate(journal.answers):
            d = game.decision
            if d is None or value not in d.values:
                raise InputError(f"{journal_path(self.pdir.root, journal.game_id)}: answer "
                                 f"{k} is no option of the game's decision there; the "
                                 "unfinished game cannot be resumed (move the file away to "
                                 "deal it again)")
            game.apply(d.index_of(value))
        shadow = Shadow(self, journal.seed, journal.first_player, journal.game_id)
        playing = Playing(journal, game, shadow, resumed=resumed)
        frames = shadow.start(game.history()) + shadow.follow(game)
        if game.is_over:  # stopped after the last answer, before it was written: finish
            self._finish(playing, frames)
        playing.add(frames)
        self.playing = playing

    def start(self) -> dict[str, Any]:
        """Deal the next game unless one is in progress; the page's state."""
        with self.lock:
            if self.playing is None or self.playing.game.is_over:
                game_id = self.finished
                seed, first = self.setup.deal(game_id)
                self._open(Journal(game_id, seed, first, self.setup.setup_hash))
            return self._state()

    def state(self) -> dict[str, Any]:
        with self.lock:
            return self._state()

    def answer(self, seq: Any, option: Any) -> dict[str, Any]:
        """Answer the pending decision `seq` with option `option`; the frames of what
        followed (the person's move, then the bot's, one by one) and the new state.
        RequestError, the game unchanged, for anything but a legal answer now."""
        if type(seq) is not int or type(option) is not int:
            raise RequestError(400, "an answer is {\"seq\": N, \"option\": I}, two integers")
        with self.lock:
            playing = self.playing
            if playing is None or playing.game.is_over:
                raise RequestError(409, "no game is waiting for an answer; start the next "
                                        "game first")
            d = playing.game.decision
            assert d is not None
            expected = len(playing.journal.answers)
            if seq != expected:
                raise RequestError(409, f"this answer is for decision {seq}, but the game waits "
                                        f"for decision {expected} (reload the page)")
            if not 0 <= option < len(d.values):
                raise RequestError(400, f"option must be 0..{len(d.values) - 1} for this "
                                        f"{d.type} decision; got {option}")
            value = d.values[option]
            playing.game.apply(option)
            playing.journal.answers.append(value)
            try:
                self.pdir.save(playing.journal)
            except OSError as exc:  # played, not yet kept: the next answer writes both
                raise RequestError(507, f"the answer was played but the game could not be "
                                        f"saved ({exc.strerror or exc}); free space and go on") \
                    from None
            frames = playing.shadow.follow(playing.game)
            if playing.game.is_over:
                self._finish(playing, frames)
            playing.add(frames)
            return {"frames": [f.to_json() for f in frames], "state": self._state()}

    def _finish(self, playing: Playing, frames: list[Frame]) -> None:
        """The game is over: its result ends the story; it goes into the run directory."""
        if frames:
            frames[-1].lines.append(result_line(playing.game.record()))
        manifest = self.pdir.finish(playing.journal)
        self.finished = manifest["counts"]["games"]
        playing.saved = {"games": self.finished, "out": str(self.pdir.root)}

    # ------------------------------------------------------------ what the page sees
    def _state(self) -> dict[str, Any]:
        setup = self.setup
        out: dict[str, Any] = {
            "setup": {"deck": deck_json(setup.deck), "deck_name": setup.deck.name,
                      "rules_name": setup.rules.name, "bot": setup.bot.name,
                      "seed": setup.seed, "out": str(self.pdir.root), "human": HUMAN_SEAT,
                      "seats": list(self.names), "symbols": list(SYMBOL_NAMES),
                      "resources": list(RESOURCE_NAMES)},
            "games_finished": self.finished, "game": None,
        }
        playing = self.playing
        if playing is None:
            return out
        g, j = playing.game, playing.journal
        S = g.frozen
        view = View(S, setup.deck, HUMAN_SEAT)
        game: dict[str, Any] = {
            "id": j.game_id, "first_player": j.first_player, "resumed": playing.resumed,
            "answers": len(j.answers), "log": playing.log,
            "view": view_json(view, scores_of(S, self.match.D, self.match.R)),
            "decision": None if g.decision is None else decision_json(
                setup.deck, g.decision, len(j.answers),
                view.me.hand.id if view.me.hand not in (None, UNKNOWN) else -1),
            "over": None,
        }
        if g.is_over:
            record = g.record()
            w = record.winner
            game["over"] = {
                "result": "draw" if w < 0 else ("won" if w == HUMAN_SEAT else "lost"),
                "scores": list(record.scores), "text": result_line(record),
                "breakdown": [dict(b) for b in record.breakdown],
                "rounds": record.rounds, "end_reason": record.end_reason,
                "saved": playing.saved,
            }
        out["game"] = game
        return out


__all__ = ["Frame", "PlayTable", "RequestError", "Shadow", "ShadowError"]
