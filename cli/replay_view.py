"""Print one game round by round, the way a person follows it at the table.

Per round: the board (border cards with the robber and both players' Targis,
the centre with the tribe cards on offer and the tribe markers), every decision
in the order it was taken with what it means, the raid if one came, what each
player acquired, and their holdings at round end. Then the score breakdown.
"""

from __future__ import annotations

from collections import defaultdict

import polars as pl
from rich.console import Console
from rich.markup import escape

from targi_sim.constants import RESOURCE_NAMES
from targi_sim.deck import Deck
from targi_sim.record import GameRecord

# border position (1..16) -> (row, col) on the 5x5 board; the centre is rows/cols 1..3
BOARD_POS = {16: (0, 0), 1: (0, 1), 2: (0, 2), 3: (0, 3), 4: (0, 4), 5: (1, 4), 6: (2, 4),
             7: (3, 4), 8: (4, 4), 9: (4, 3), 10: (4, 2), 11: (4, 1), 12: (4, 0), 13: (3, 0),
             14: (2, 0), 15: (1, 0)}
CELL_W = 16
SEAT_MARK = ("A", "B")  # Targis / markers of seat 0 and seat 1 on the board


def _cell_name(cell: int) -> str:
    return f"centre ({cell // 3 + 1},{cell % 3 + 1})"


def _res(k: int) -> str:
    return RESOURCE_NAMES[k] if 0 <= k < len(RESOURCE_NAMES) else f"resource {k}"


class Narrator:
    """Turns decision codes into sentences (docs/engine.md, Decisions)."""

    def __init__(self, deck: Deck) -> None:
        self.deck = deck

    def border(self, b: int) -> str:  # b: position 0..15
        return f"{b + 1} {self.deck.border_names[b]}"

    def tribe(self, c: int) -> str:
        return f"'{self.deck.tribe_names[c]}'"

    def goods(self, g: int) -> str:
        return f"goods card '{self.deck.goods_names[g]}'"

    def decision(self, d: str, choice: int, ctx: int, slots: dict[int, str]) -> str:
        if d == "place":
            return f"places Targi {ctx + 1} on border card {self.border(choice)}"
        if d == "action":
            return f"resolves {slots.get(choice, f'action slot {choice}')}"
        if d == "central_goods":
            return ("takes " if choice else "leaves ") + self.goods(ctx)
        if d == "choose_good":
            return f"chooses 1 {_res(choice)} from {self.goods(ctx)}"
        if d == "tribe":
            if choice == 0:
                return f"leaves {self.tribe(ctx)}"
            if choice == 1:
                return f"discards {self.tribe(ctx)}"
            if choice == 2:
                return f"keeps {self.tribe(ctx)} in hand"
            alt, row = divmod(choice - 3, 3)
            cost = "alternative" if alt else "printed"
            return f"plays {self.tribe(ctx)} to display row {row + 1} (pays its {cost} cost)"
        if d == "trade":
            if choice < 0:
                return f"stops trading at {self.border(ctx)}"
            t, rest = divmod(choice, 64)
            given, received = divmod(rest, 8)
            return (f"trades at {self.border(ctx)}: gives {_res(given)}, gets {_res(received)}"
                    f" (trade {t + 1})")
        if d == "fata_morgana":
            if choice < 0:
                return "moves no tribe marker (Fata Morgana)"
            marker, cell = divmod(choice, 16)
            return f"moves tribe marker {marker + 1} to {_cell_name(cell)} (Fata Morgana)"
        if d == "raid_mode":
            return f"pays raid {ctx} with " + ("VP" if choice else "goods/gold")
        if d == "raid_good":
            return f"gives up 1 {_res(choice)} to raid {ctx}"
        if d == "discard_good":
            return f"discards 1 {_res(choice)} (goods limit)"
        if d == "tribal_expansion":
            return ("draws the top tribe card" if choice else "skips drawing a tribe card") + \
                f" ({self.border(ctx)})"
        if d == "ability":
            if choice == 0:
                return f"does not use {self.tribe(ctx)}'s ability"
            a, b = divmod(choice - 1, 12)
            return f"swaps display slots {a + 1} and {b + 1} ({self.tribe(ctx)})"
        return f"{d}: option {choice} (context {ctx})"


def _board(deck: Deck, rows: list[dict], offers: pl.DataFrame) -> list[str]:
    grid = [["" for _ in range(5)] for _ in range(5)]
    robber = rows[0]["robber_card"]
    for pos, (r, c) in BOARD_POS.items():
        name = deck.border_names[pos - 1][: CELL_W - 6]
        marks = "".join(SEAT_MARK[row["player"]] for row in rows
                        for k in (1, 2, 3) if row[f"targi_card_{k}"] == pos)
        grid[r][c] = f"{pos:>2} {name}" + (" R" if pos == robber else "") + \
            (f" {marks}" if marks else "")
    offered = {row["cell"]: row["card_id"] for row in offers.iter_rows(named=True)}
    for cell in range(9):
        r, c = cell // 3 + 1, cell % 3 + 1
        text = deck.tribe_names[offered[cell]][: CELL_W - 4] if cell in offered else "·"
        marks = "".join(SEAT_MARK[row["player"]] for row in rows
                        for k in (1, 2) if row[f"marker_cell_{k}"] == cell)
        grid[r][c] = text + (f" {marks}" if marks else "")
    line = "+" + "+".join("-" * CELL_W for _ in range(5)) + "+"
    out = [line]
    for r in range(5):
        out.append("|" + "|".join(f"{grid[r][c][:CELL_W]:<{CELL_W}}" for c in range(5)) + "|")
        out.append(line)
    return out


def render_game(console: Console, record: GameRecord, deck: Deck, title: str) -> None:
    """Print a whole game: header, each round, final score."""
    t = record.tables
    names = record.strategies
    seat = [f"seat {p} ({escape(names[p])}, {SEAT_MARK[p]})" for p in range(2)]
    narrator = Narrator(deck)
    console.print(f"[bold]{escape(title)}[/bold]", highlight=False)
    console.print(f"seed {record.seed}; {seat[0]} vs {seat[1]}; seat {record.first_player} "
                  "starts round 1. Board: R robber, A/B Targis and tribe markers, centre "
                  "shows tribe cards on offer (· = goods card or face down).", highlight=False)
    trace = t["trace"]
    # raid decisions happen before the round counter moves on: file them under the raid's round
    raid_like = pl.col("decision").is_in(["raid_mode", "raid_good"])
    trace = trace.with_columns(
        pl.when(raid_like).then(pl.col("round") + 1).otherwise(pl.col("round")).alias("at"))
    by_round: dict[int, list[dict]] = defaultdict(list)
    for row in trace.iter_rows(named=True):
        by_round[row["at"]].append(row)
    prev = {0: None, 1: None}
    for rnd in range(1, record.rounds + 1):
        rows = t["rounds"].filter(pl.col("round") == rnd).sort("player").to_dicts()
        if not rows:
            continue
        first = next(r["player"] for r in rows if r["is_first"])
        console.print(f"\n[bold]Round {rnd}[/bold] — first player: {seat[first]}; robber on "
                      f"{narrator.border(rows[0]['robber_card'] - 1)}", highlight=False)
        for row in t["raids"].filter(pl.col("round") == rnd).iter_rows(named=True):
            paid = row["paid"]
            what = {"vp": f"{row['amount']} VP", "goods": f"{row['amount']} goods",
                    "gold": f"{row['amount']} gold"}.get(paid, paid)
            bonus = f"; opponent gains {row['opponent_bonus']} VP" if row["opponent_bonus"] else ""
            console.print(f"  Raid {row['raid']}: seat {row['player']} pays {what}{bonus}",
                          highlight=False)
        _raid_decisions(console, narrator, by_round.get(rnd, []))
        for line in _board(deck, rows, t["offers"].filter(pl.col("round") == rnd)):
            console.print("  " + line, highlight=False, soft_wrap=True)
        slots = {p: _slots(narrator, rows[p]) for p in range(2)}
        for d in by_round.get(rnd, []):
            if d["decision"] in ("raid_mode", "raid_good"):
                continue
            text = narrator.decision(d["decision"], d["choice"], d["context"], slots[d["player"]])
            console.print(f"  seat {d['player']} {text}", highlight=False)
        for row in rows:
            p = row["player"]
            before = prev[p]
            delta = ""
            if before is not None:
                changes = [f"{k} {row[k] - before[k]:+d}" for k in
                           ("vp_tokens", "gold", "salt", "pepper", "dates")
                           if row[k] != before[k]]
                delta = f"  (change: {', '.join(changes) or 'none'})"
            hand = deck.tribe_names[row["hand_card"]] if row["hand_card"] >= 0 else "-"
            console.print(
                f"  seat {p}: {row['vp_tokens']} VP, {row['gold']} gold, {row['salt']} salt, "
                f"{row['pepper']} pepper, {row['dates']} dates; display {row['display_count']} "
                f"cards, hand {hand}; score now {row['score_now']}{delta}", highlight=False)
            prev[p] = row
    final_raids = t["raids"].filter(pl.col("round") > record.rounds)
    for row in final_raids.iter_rows(named=True):
        console.print(f"\nRaid {row['raid']} (ends the game): seat {row['player']} pays "
                      f"{row['amount']} {row['paid']}", highlight=False)
    if final_raids.height:
        _raid_decisions(console, narrator, by_round.get(record.rounds + 1, []))
    console.print(f"\n[bold]Final[/bold] after {record.rounds} rounds ({record.end_reason}):",
                  highlight=False)
    for p in range(2):
        b = record.breakdown[p]
        console.print(f"  {seat[p]}: {record.scores[p]} = {b['tokens']} VP tokens + "
                      f"{b['card_vp']} card VP + {b['ability_vp']} ability VP + "
                      f"{b['row_bonus']} row bonus  (gold {b['gold']}, goods {b['goods']})",
                      highlight=False)
    w = record.winner
    result = "draw" if w < 0 else f"seat {w} ({names[w]}) wins"
    tb = "" if record.tiebreak == "none" else f" on the tie-break ({record.tiebreak})"
    console.print(f"  Result: {result}{tb}", highlight=False)


def _raid_decisions(console: Console, narrator: Narrator, decisions: list[dict]) -> None:
    for d in decisions:
        if d["decision"] in ("raid_mode", "raid_good"):
            text = narrator.decision(d["decision"], d["choice"], d["context"], {})
            console.print(f"    seat {d['player']} {text}", highlight=False)


def _slots(narrator: Narrator, row: dict) -> dict[int, str]:
    """Action slot -> what it is this round (Targis 0..2, tribe markers 3..4)."""
    out = {}
    for k in range(3):
        pos = row[f"targi_card_{k + 1}"]
        if pos > 0:
            out[k] = f"its Targi on {narrator.border(pos - 1)}"
    for k in range(2):
        cell = row[f"marker_cell_{k + 1}"]
        moved = row.get(f"marker_moved_{k + 1}", -1)
        if cell >= 0:
            where = (f"{_cell_name(moved)} (moved there from {_cell_name(cell)})"
                     if moved is not None and moved >= 0 else _cell_name(cell))
            out[3 + k] = f"its tribe marker on {where}"
    return out
