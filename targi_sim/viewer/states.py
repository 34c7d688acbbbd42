"""Every position of one game, from the engine itself: what the HTML viewer draws.

The engine logs rows per round, not positions, so the positions are recovered by
replaying the game in the engine once more: both seats are made external
(targi_sim.play.session) and answer each decision with the option the game's own decision
trace records. The engine pauses at every decision with a choice and hands over a
frozen copy of its state; a hook sees the state at each round end. Nothing here knows
a rule: every number on the page is read from an engine state, and the replayed game
must equal the original record table for table (else ViewerError), so the pictures
are of the game that was played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from targi_sim.engine.constants import DISPLAY_SLOTS, N_BORDER, N_CELLS
from targi_sim.game.deck import Deck
from targi_sim.game.record import GameRecord
from targi_sim.game.rules import Rules
from targi_sim.play.games import MAX_TRACE_ROWS
from targi_sim.play.match import Match, prepare_match
from targi_sim.play.session import Game, external_strategy
from targi_sim.players.strategy import Strategy, seat_policies

from ..engine import layout as lay
from ..engine.scoring import total_score


class ViewerError(RuntimeError):
    """The engine's replay of a game for the viewer does not give the recorded game."""


def _fields() -> tuple[dict[str, tuple[int, int]], np.ndarray]:
    """Name -> (offset, length) in a snapshot, and the state indices they are read from."""
    names: dict[str, tuple[int, int]] = {}
    index: list[int] = []

    def add(name: str, start: int, n: int = 1) -> None:
        names[name] = (len(index), n)
        index.extend(range(start, start + n))

    for name, at in (("round", lay.S_ROUND), ("robber", lay.S_ROBBER),
                     ("first", lay.S_FIRST), ("over", lay.S_OVER),
                     ("raids_done", lay.S_RAIDS_DONE), ("tribe_deck", lay.S_TRIBE_N),
                     ("goods_deck", lay.S_GOODS_N)):
        add(name, at)
    add("border_targi", lay.S_BORDER_TARGI, N_BORDER)
    add("cell_card", lay.S_CELL_CARD, N_CELLS)
    add("cell_type", lay.S_CELL_TYPE, N_CELLS)
    add("cell_up", lay.S_CELL_UP, N_CELLS)
    add("cell_marker", lay.S_CELL_MARKER, N_CELLS)
    for p in range(2):
        base = lay.S_PLAYER + p * lay.P_SIZE
        add(f"p{p}_res", base + lay.P_RES, 5)  # salt, pepper, dates, gold, vp
        add(f"p{p}_hand", base + lay.P_HAND)
        add(f"p{p}_hand_known", base + lay.P_HAND_KNOWN)
        add(f"p{p}_display", base + lay.P_DISPLAY, DISPLAY_SLOTS)
        add(f"p{p}_targi", base + lay.P_TARGI, 3)
        add(f"p{p}_marker", base + lay.P_MARKER, 2)
    for p in range(2):  # computed by the engine's scoring, not read from S
        names[f"p{p}_score"] = (len(index) + p, 1)
    return names, np.array(index, dtype=np.int64)


FIELDS, _INDEX = _fields()
SNAPSHOT_SIZE = len(_INDEX) + 2


@dataclass(frozen=True)
class Snapshot:
    """One position: `kind` 'decision' (a seat is about to decide: `player`, `decision`,
    `options`), 'round_end' (a round has just ended) or 'final_raid' (the last raid
    ended the game); `values` by FIELDS; `trace_at`: trace rows logged before it."""

    kind: str
    values: list[int]
    trace_at: int
    player: int = -1
    decision: str = ""
    options: int = 0

    def get(self, name: str) -> int | list[int]:
        at, n = FIELDS[name]
        return self.values[at] if n == 1 else self.values[at:at + n]


def snapshot_values(S: np.ndarray, match) -> list[int]:
    """A state's FIELDS values (the play page captions its positions with them too)."""
    out = S[_INDEX].tolist()
    out += [int(total_score(S, match.D, match.R, p)) for p in range(2)]
    return out


def _same(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    if a.columns != b.columns or a.height != b.height:
        return False
    return a.select(pl.all().cast(pl.Utf8)).equals(b.select(pl.all().cast(pl.Utf8)))


def _replay_match(deck: Deck, rules: Rules, played_by: Sequence[Strategy] | None) -> Match:
    """Both seats external, in the engine build the game's own strategies played with
    (engine/ask.py): after a run, the replay then reuses the code the run compiled."""
    match = prepare_match((external_strategy(), external_strategy()), deck, rules)
    if played_by is None:
        return match
    P, PB = seat_policies(tuple(played_by))
    if len(P) == len(match.P):
        return match
    return replace(match, P=type(match.P)((*match.P, *P[2:])),
                   PB=type(match.PB)((*match.PB, *PB[2:])))


def game_snapshots(record: GameRecord, deck: Deck, rules: Rules,
                   played_by: Sequence[Strategy] | None = None) -> list[Snapshot]:
    """Every position of a recorded game, in order (see the module docstring).

    `record` must carry its decision trace (play_game and the run replay give one);
    `played_by`, the strategies that played it, picks the engine build to replay in."""
    trace = record.trace
    game_id = int(record.tables["rounds"]["game_id"][0]) if record.tables["rounds"].height \
        else 0
    if trace.height >= MAX_TRACE_ROWS:
        raise ViewerError(f"game {game_id} made more decisions than its trace holds "
                          f"({MAX_TRACE_ROWS:,}); its positions cannot be recovered")
    answers = trace.filter(pl.col("n_options") > 1).select("player", "decision", "choice")
    answers_list = answers.rows()
    match = _replay_match(deck, rules, played_by)
    snaps: list[Snapshot] = []
    last_round = [-1]

    def round_end(S: np.ndarray, at: int) -> None:
        values = snapshot_values(S, match)
        rnd = values[FIELDS["round"][0]]
        kind = "final_raid" if rnd == last_round[0] else "round_end"
        last_round[0] = rnd
        snaps.append(Snapshot(kind, values, at))

    game = Game(match, record.seed, record.first_player, game_id, on_round_end=round_end)
    k = 0
    while not game.is_over:
        d = game.decision
        assert d is not None
        if k >= len(answers_list):
            raise ViewerError(f"game {game_id}: the engine asks a {d.type} decision after the "
                              "last one the trace records")
        player, dtype, choice = answers_list[k]
        if (player, dtype) != (d.player, d.type) or choice not in d.values:
            raise ViewerError(f"game {game_id}: decision {k} is seat {d.player}'s {d.type} "
                              f"in the replay, seat {player}'s {dtype} (option {choice}) in "
                              "the trace")
        snaps.append(Snapshot("decision", snapshot_values(game.frozen, match), game.trace_position,
                              d.player, d.type, len(d.values)))
        try:
            game.apply(d.index_of(choice))
        except RuntimeError as exc:  # e.g. more decisions in a round than a pause can replay
            raise ViewerError(f"game {game_id}: {exc}") from None
        k += 1
    _check_same_game(record, game.record(), game_id)
    return snaps


def _check_same_game(record: GameRecord, again: GameRecord, game_id: int) -> None:
    """The viewer's replay must be the recorded game: results and every table."""
    if (record.winner, record.scores, record.rounds) != (again.winner, again.scores,
                                                         again.rounds):
        raise ViewerError(f"game {game_id}: the viewer's replay ends {again.scores}, the "
                          f"record {record.scores}")
    for name, table in record.tables.items():
        if not _same(table, again.tables[name]):
            raise ViewerError(f"game {game_id}: the viewer's replay differs from the record "
                              f"in the {name} table")


__all__ = ["FIELDS", "SNAPSHOT_SIZE", "Snapshot", "ViewerError", "game_snapshots",
           "snapshot_values"]
