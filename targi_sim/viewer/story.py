"""What the viewer says at each step: the text replay's sentences, split by position.

A step is one Snapshot (targi_sim.viewer.states); its caption tells what happened since
the step before: the decision trace rows in between (the Narrator's sentences, the same
as `targi-sim replay` prints), a round beginning (robber and amulet), raids when they
are resolved (from the `raids` rows: what each seat paid), and a round's end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from targi_sim.engine.constants import BORDER_KIND_NAMES
from targi_sim.game.deck import Deck
from targi_sim.game.narration import RAID_DECISIONS, Narrator, action_slots
from targi_sim.game.record import GameRecord

from .states import Snapshot

WAITING = {  # a pending decision, in words
    "place": "places a Targi", "action": "resolves an action", "central_goods":
    "takes or leaves a goods card", "choose_good": "chooses a good", "tribe":
    "decides on a tribe card", "trade": "trades or stops trading", "fata_morgana":
    "may move a tribe marker (Fata Morgana)", "raid_mode": "chooses how to pay the raid",
    "raid_good": "chooses a good to give up to the raid", "discard_good":
    "discards a good (goods limit)", "tribal_expansion": "may draw a tribe card",
    "ability": "may use a card's ability",
}
RAID_KIND = BORDER_KIND_NAMES.index("raid")


@dataclass
class Step:
    """A snapshot with its caption: `lines` (what happened), `raid` (a raid is part of
    it), `next` (the decision now waiting, if any)."""

    snap: Snapshot
    lines: list[str] = field(default_factory=list)
    raid: bool = False
    next: str = ""


class Storyteller:
    """Captions positions one at a time, each with what happened since the one before:
    the viewer captions a whole recorded game, the play page (targi_sim.web) a game as
    it is played. `names`: what each seat is called (`short`: in the score line);
    `describe(row)`, if given, may replace a trace row's sentence (the play page words a
    card the person has not seen without naming it)."""

    def __init__(self, deck: Deck, first_player: int,
                 names: tuple[str, str] = ("seat 0", "seat 1"),
                 describe: Callable[[dict], str | None] | None = None,
                 short: tuple[str, str] | None = None) -> None:
        self.deck = deck
        self.narrator = Narrator(deck)
        self.first_player = first_player
        self.names = names
        self.short = short or names
        self.describe = describe
        self.prev: Snapshot | None = None
        self.done_at = 0

    def caption(self, snap: Snapshot, trace: list[dict], raids: list[dict],
                slots: Callable[[dict], dict[int, str]]) -> Step:
        """The Step of `snap`: `trace` holds the decision trace rows up to it at least,
        `raids` the `raids` rows of every raid resolved by then, `slots(row)` the
        action slots of a trace row's seat and round (Narrator.decision)."""
        narrator, deck, prev, names = self.narrator, self.deck, self.prev, self.names
        step = Step(snap)
        rnd = snap.get("round")
        robber = snap.get("robber")
        if prev is None:
            step.lines.append(f"The game begins: {names[self.first_player]} starts round 1; "
                              f"the robber is on {narrator.border(robber)}.")
        elif robber != prev.get("robber") and deck.border_kind[robber] == RAID_KIND:
            number = int(deck.raid_number[robber])
            step.lines.append(f"The robber moves onto {narrator.border(robber)}: raid "
                              f"{number}, both seats pay.")
            step.raid = True
        rows = trace[self.done_at:snap.trace_at]
        self.done_at = snap.trace_at
        if prev is not None and rnd > prev.get("round") and snap.kind == "decision":
            step.lines.append(f"Round {rnd} begins: {names[snap.get('first')]} has the amulet "
                              f"(plays first); the robber is on {narrator.border(robber)}.")
        resolved = []
        if prev is not None and snap.get("raids_done") > prev.get("raids_done"):
            numbers = range(prev.get("raids_done") + 1, snap.get("raids_done") + 1)
            resolved = [r for r in raids if r["raid"] in numbers]
        for d in rows:
            raid_row = d["decision"] in RAID_DECISIONS
            step.raid |= raid_row
            if raid_row and resolved:
                continue  # told by the raid's own line below, with what it paid
            text = self.describe(d) if self.describe is not None else None
            if text is None:
                text = narrator.decision(d["decision"], d["choice"], d["context"], slots(d))
            step.lines.append(f"{names[d['player']]} {text}")
        if resolved:
            step.lines += narrator.raid_lines(resolved, trace[:self.done_at])
            step.raid = True
        if snap.kind == "round_end":
            step.lines.append(f"Round {rnd} ends: score if the game ended now "
                              f"{snap.get('p0_score')} ({self.short[0]}) to "
                              f"{snap.get('p1_score')} ({self.short[1]}).")
        if snap.kind == "decision":
            step.next = f"{names[snap.player]} {WAITING.get(snap.decision, snap.decision)}"
            if snap.options:
                step.next += f" ({snap.options} options)"
            step.raid |= snap.decision in RAID_DECISIONS
        self.prev = snap
        return step


def story(record: GameRecord, deck: Deck, snaps: list[Snapshot]) -> list[Step]:
    """One Step per snapshot, captioned (see the module docstring)."""
    teller = Storyteller(deck, record.first_player)
    trace = record.trace.to_dicts()
    rounds = {(r["round"], r["player"]): r for r in record.tables["rounds"].to_dicts()}
    raids = record.tables["raids"].to_dicts()
    slots = {key: action_slots(teller.narrator, row) for key, row in rounds.items()}
    steps = [teller.caption(snap, trace, raids,
                            lambda d: slots.get((d["round"], d["player"]), {}))
             for snap in snaps]
    if steps:
        steps[-1].lines.append(result_line(record))
    return steps


def result_line(record: GameRecord) -> str:
    """'Game over after 12 rounds (final_raid): seat 0 (balanced) wins 21 to 17.'"""
    w = record.winner
    s0, s1 = record.scores
    who = "a draw" if w < 0 else f"seat {w} ({record.strategies[w]}) wins"
    tb = "" if record.tiebreak == "none" else f" on the tie-break ({record.tiebreak})"
    return (f"Game over after {record.rounds} rounds ({record.end_reason}): {who}{tb}, "
            f"{s0} to {s1}.")


def round_table(record: GameRecord) -> pl.DataFrame:
    """The rounds rows the viewer's sortable table shows (one per round and seat)."""
    return record.tables["rounds"].select(
        "round", "player", "vp_tokens", "gold", "salt", "pepper", "dates", "display_count",
        "cards_acquired", "score_now").sort("round", "player")


__all__ = ["Step", "Storyteller", "WAITING", "result_line", "round_table", "story"]
