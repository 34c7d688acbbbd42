"""Print one game round by round, the way a person follows it at the table.

Per round: the board (border cards with the robber and both players' Targis,
the centre with the tribe cards on offer and the tribe markers), every decision
in the order it was taken with what it means, the raid if one came, what each
player acquired, and their holdings at round end. Then the score breakdown.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict

import polars as pl
from rich.console import Console
from rich.markup import escape

from targi_sim.game.deck import Deck
from targi_sim.game.narration import RAID_DECISIONS, Narrator, action_slots
from targi_sim.game.record import GameRecord

# border position (1..16) -> (row, col) on the 5x5 board; the centre is rows/cols 1..3
BOARD_POS = {16: (0, 0), 1: (0, 1), 2: (0, 2), 3: (0, 3), 4: (0, 4), 5: (1, 4), 6: (2, 4),
             7: (3, 4), 8: (4, 4), 9: (4, 3), 10: (4, 2), 11: (4, 1), 12: (4, 0), 13: (3, 0),
             14: (2, 0), 15: (1, 0)}
CELL_W = 14  # 5 cells and their borders fit 80 columns; names wrap, never cut
SEAT_MARK = ("A", "B")  # Targis / markers of seat 0 and seat 1 on the board

__all__ = ["BOARD_POS", "CELL_W", "Narrator", "SEAT_MARK", "board_lines", "render_game"]


def _cell_lines(text: str, marks: str) -> list[str]:
    """A board cell: its whole name wrapped to the cell width, then its marks."""
    lines = textwrap.wrap(text, CELL_W, break_on_hyphens=False) or [""]
    if marks:
        if len(lines[-1]) + 1 + len(marks) <= CELL_W:
            lines[-1] = f"{lines[-1]} {marks}"
        else:
            lines.append(marks)
    return lines


def board_lines(deck: Deck, rows: list[dict], offers: pl.DataFrame) -> list[str]:
    """The board of one round as text: border cards (number and whole name, R for the
    robber, A/B for Targis) around the centre (tribe cards on offer, A/B markers)."""
    grid: list[list[list[str]]] = [[[] for _ in range(5)] for _ in range(5)]
    robber = rows[0]["robber_card"]
    for pos, (r, c) in BOARD_POS.items():
        marks = ("R " if pos == robber else "") + "".join(
            SEAT_MARK[row["player"]] for row in rows
            for k in (1, 2, 3) if row[f"targi_card_{k}"] == pos)
        grid[r][c] = _cell_lines(f"{pos} {deck.border_names[pos - 1]}", marks.strip())
    offered = {row["cell"]: row["card_id"] for row in offers.iter_rows(named=True)}
    for cell in range(9):
        r, c = cell // 3 + 1, cell % 3 + 1
        text = deck.tribe_names[offered[cell]] if cell in offered else "·"
        marks = "".join(SEAT_MARK[row["player"]] for row in rows
                        for k in (1, 2) if row[f"marker_cell_{k}"] == cell)
        grid[r][c] = _cell_lines(text, marks)
    line = "+" + "+".join("-" * CELL_W for _ in range(5)) + "+"
    out = [line]
    for r in range(5):
        height = max(len(grid[r][c]) for c in range(5))
        for i in range(height):
            out.append("|" + "|".join(
                f"{(grid[r][c][i] if i < len(grid[r][c]) else ''):<{CELL_W}}"
                for c in range(5)) + "|")
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
    raid_like = pl.col("decision").is_in(list(RAID_DECISIONS))
    trace = trace.with_columns(
        pl.when(raid_like).then(pl.col("round") + 1).otherwise(pl.col("round")).alias("at"))
    by_round: dict[int, list[dict]] = defaultdict(list)
    for row in trace.iter_rows(named=True):
        by_round[row["at"]].append(row)
    prev = {0: None, 1: None}
    for rnd in range(1, record.rounds + 1):
        rows = t["rounds"].filter(pl.col("round") == rnd).sort("player").to_dicts()
        if rows:
            _round(console, record, deck, narrator, seat, rnd, rows, by_round.get(rnd, []),
                   prev)
    final_raids = t["raids"].filter(pl.col("round") > record.rounds).iter_rows(named=True)
    lines = narrator.raid_lines(final_raids, by_round.get(record.rounds + 1, []))
    if lines:
        console.print("\nThe robber reaches the last raid, which ends the game:", highlight=False)
    for line in lines:
        console.print(f"  {line}", highlight=False)
    _final(console, record, seat)


def _round(console: Console, record: GameRecord, deck: Deck, narrator: Narrator,
           seat: list[str], rnd: int, rows: list[dict], decisions: list[dict],
           prev: dict) -> None:
    """One round: its first player and robber, raids, board, decisions, holdings."""
    t = record.tables
    first = next(r["player"] for r in rows if r["is_first"])
    console.print(f"\n[bold]Round {rnd}[/bold] — first player: {seat[first]}; robber on "
                  f"{narrator.border(rows[0]['robber_card'] - 1)}", highlight=False)
    raids = t["raids"].filter(pl.col("round") == rnd).iter_rows(named=True)
    for line in narrator.raid_lines(raids, decisions):
        console.print(f"  {line}", highlight=False)
    for line in board_lines(deck, rows, t["offers"].filter(pl.col("round") == rnd)):
        console.print("  " + line, highlight=False, soft_wrap=True)
    slots = {p: action_slots(narrator, rows[p]) for p in range(2)}
    for d in decisions:
        if d["decision"] in RAID_DECISIONS:
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


def _final(console: Console, record: GameRecord, seat: list[str]) -> None:
    """The final scores, how they are made up, and the result."""
    console.print(f"\n[bold]Final[/bold] after {record.rounds} rounds ({record.end_reason}):",
                  highlight=False)
    for p in range(2):
        b = record.breakdown[p]
        console.print(f"  {seat[p]}: {record.scores[p]} = {b['tokens']} VP tokens + "
                      f"{b['card_vp']} card VP + {b['ability_vp']} ability VP + "
                      f"{b['row_bonus']} row bonus  (gold {b['gold']}, goods {b['goods']})",
                      highlight=False)
    w = record.winner
    result = "draw" if w < 0 else f"seat {w} ({record.strategies[w]}) wins"
    tb = "" if record.tiebreak == "none" else f" on the tie-break ({record.tiebreak})"
    console.print(f"  Result: {result}{tb}", highlight=False)
