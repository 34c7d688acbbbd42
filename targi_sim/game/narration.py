"""Decisions and raids in words: the sentences `targi-sim replay` prints and the HTML
game viewer shows, from one place so the two never tell a game differently.

Decision codes are the engine's (docs/engine.md, Decisions); amounts come from the deck
(a trade gives and gets what the exchange card's table says) and from the `raids` rows
(what a seat actually paid), never from a second reading of the rules.
"""

from __future__ import annotations

from collections.abc import Iterable

from targi_sim.engine.codes import (
    NO_SWAP,
    OPT_DISCARD,
    OPT_KEEP,
    OPT_LEAVE,
    marker_of,
    plain,
    play_of,
    swap_of,
    trade_of,
)
from targi_sim.engine.constants import RESOURCE_NAMES
from targi_sim.game.deck import Deck

RAID_DECISIONS = ("raid_mode", "raid_good")


def cell_name(cell: int) -> str:
    """A centre cell 0..8 as (row, column), both counted from 1."""
    return f"centre ({cell // 3 + 1},{cell % 3 + 1})"


def resource(k: int) -> str:
    return RESOURCE_NAMES[k] if 0 <= k < len(RESOURCE_NAMES) else f"resource {k}"


def _amount(n: int, k: int) -> str:
    name = resource(k)
    return f"{n} VP" if name == "vp" else f"{n} {name}"


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

    def trade(self, choice: int) -> str:
        """'2 salt for 1 gold': a trade option's amounts from the deck's trade table."""
        t, given, received = plain(trade_of)(choice)
        give_n = int(self.deck.trade_give_amount[t]) if t < len(self.deck.trade_give_amount) \
            else 1
        get_n = int(self.deck.trade_get_amount[t]) if t < len(self.deck.trade_get_amount) else 1
        return f"gives {_amount(give_n, given)}, gets {_amount(get_n, received)}"

    def decision(self, d: str, choice: int, ctx: int, slots: dict[int, str]) -> str:
        if d == "place":
            return f"places Targi {ctx + 1} on border card {self.border(choice)}"
        if d == "action":
            return f"resolves {slots.get(choice, f'action slot {choice}')}"
        if d == "central_goods":
            return ("takes " if choice else "leaves ") + self.goods(ctx)
        if d == "choose_good":
            return f"chooses 1 {resource(choice)} from {self.goods(ctx)}"
        if d == "tribe":
            if choice == OPT_LEAVE:
                return f"leaves {self.tribe(ctx)}"
            if choice == OPT_DISCARD:
                return f"discards {self.tribe(ctx)}"
            if choice == OPT_KEEP:
                return f"keeps {self.tribe(ctx)} in hand"
            alt, row = plain(play_of)(choice)
            cost = "alternative" if alt else "printed"
            return f"plays {self.tribe(ctx)} to display row {row + 1} (pays its {cost} cost)"
        if d == "trade":
            if choice < 0:
                return f"stops trading at {self.border(ctx)}"
            return f"trades at {self.border(ctx)}: {self.trade(choice)}"
        if d == "fata_morgana":
            if choice < 0:
                return "moves no tribe marker (Fata Morgana)"
            marker, cell = plain(marker_of)(choice)
            return f"moves tribe marker {marker + 1} to {cell_name(cell)} (Fata Morgana)"
        if d == "raid_mode":
            return (f"chooses to pay raid {ctx} with VP" if choice else
                    f"chooses to pay raid {ctx} with goods or gold, not VP")
        if d == "raid_good":
            return f"gives up 1 {resource(choice)} to raid {ctx}"
        if d == "discard_good":
            return f"discards 1 {resource(choice)} (goods limit)"
        if d == "tribal_expansion":
            return ("draws the top tribe card" if choice else "skips drawing a tribe card") + \
                f" ({self.border(ctx)})"
        if d == "ability":
            if choice == NO_SWAP:
                return f"does not use {self.tribe(ctx)}'s ability"
            a, b = plain(swap_of)(choice)
            return f"swaps display slots {a + 1} and {b + 1} ({self.tribe(ctx)})"
        return f"{d}: option {choice} (context {ctx})"

    def raid_card(self, number: int) -> str:
        """'Raid 2', or 'Raid 2 (Sandstorm)' where the deck names its raid card otherwise."""
        for b, n in enumerate(self.deck.raid_number):
            if int(n) == number and self.deck.border_kind[b] == _raid_kind():
                name = self.deck.border_names[b]
                return f"Raid {number}" if name == f"Raid {number}" else f"Raid {number} ({name})"
        return f"Raid {number}"

    def raid_payment(self, row: dict, decisions: Iterable[dict] = ()) -> str:
        """What one seat paid to one raid (a `raids` row), with the goods it chose.

        `decisions` are that seat's trace rows for that raid (raid_mode, raid_good): they
        say which goods went; the row says how much of what kind was paid."""
        paid, amount = row["paid"], row["amount"]
        gave = [resource(d["choice"]) for d in decisions if d["decision"] == "raid_good"]
        chose = [d["choice"] for d in decisions if d["decision"] == "raid_mode"]
        if paid == "vp":
            what = f"pays {amount} VP"
        elif paid == "gold":
            what = f"pays {amount} gold"
        elif paid == "goods":
            what = f"pays {amount} goods"
        elif paid == "goods_and_gold":
            what = f"pays {amount} goods and {row.get('gold', 0)} gold"
        elif paid == "immune":
            what = "is immune (a tribe card protects it)"
        elif paid == "none":
            what = "has nothing to pay"
        else:
            what = f"pays {amount} {paid}"
        if gave:
            what += ": " + ", ".join(f"{gave.count(g)} {g}" for g in dict.fromkeys(gave))
        if chose:
            kind = {"goods_and_gold": "goods and gold"}.get(paid, paid)
            what += " (chose VP)" if chose[0] else f" (chose {kind} over VP)"
        if row.get("opponent_bonus"):
            what += f"; the opponent gains {row['opponent_bonus']} VP"
        return f"seat {row['player']} {what}"

    def raid_lines(self, raids: Iterable[dict], trace: Iterable[dict]) -> list[str]:
        """One line per raid and seat: 'Raid 1: seat 0 pays 2 goods (1 salt, 1 dates)'.

        Each raid is told once, its payment and the choices behind it together."""
        trace = [d for d in trace if d["decision"] in RAID_DECISIONS]
        out = []
        for row in raids:
            mine = [d for d in trace if d["player"] == row["player"]
                    and d["context"] == row["raid"]]
            out.append(f"{self.raid_card(row['raid'])}: {self.raid_payment(row, mine)}")
        return out


def _raid_kind() -> int:
    from targi_sim.engine.constants import BORDER_KIND_NAMES

    return BORDER_KIND_NAMES.index("raid")


def action_slots(narrator: Narrator, row: dict) -> dict[int, str]:
    """Action slot -> what it is this round (Targis 0..2, tribe markers 3..4), from a
    `rounds` row of the seat."""
    out = {}
    for k in range(3):
        pos = row[f"targi_card_{k + 1}"]
        if pos > 0:
            out[k] = f"its Targi on {narrator.border(pos - 1)}"
    for k in range(2):
        cell = row[f"marker_cell_{k + 1}"]
        moved = row.get(f"marker_moved_{k + 1}", -1)
        if cell >= 0:
            where = (f"{cell_name(moved)} (moved there from {cell_name(cell)})"
                     if moved is not None and moved >= 0 else cell_name(cell))
            out[3 + k] = f"its tribe marker on {where}"
    return out


__all__ = ["Narrator", "RAID_DECISIONS", "action_slots", "cell_name", "resource"]
