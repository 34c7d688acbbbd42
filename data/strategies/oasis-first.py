"""Example Python strategy: "oasis first".

Buys every Oasis card it can afford (and any other card it can pay for), heads its
Targis for the Oasis cards on offer, takes every goods card, trades for VP, and
otherwise takes the first option -- a few lines of plain Python, no numba, no compile
step:

    targi-sim run --games 2000 --p0 data/strategies/oasis-first.py --p1 balanced
    targi-sim strategies check data/strategies/oasis-first.py

`choose(view, decision)` returns the index of an option in `decision.options`. `view`
is what this player may know (targi_sim.game.view.View); the options are named objects
(targi_sim.game.decisions). See docs/strategies.md, "Strategies in Python".
"""

from targi_sim import DrawTribe, Keep, Place, Play, PythonStrategy, Resolve, TakeGoods, Trade


class OasisFirst(PythonStrategy):
    name = "oasis-first"
    description = "buys Oasis cards first, then any card it can pay for (Python example)"
    deterministic = True

    def choose(self, view, decision):
        options = decision.options
        plays = [i for i, o in enumerate(options) if isinstance(o, Play)]
        for i in plays:
            if options[i].name.startswith("Oasis"):
                return i
        if plays:
            return plays[0]
        for i, option in enumerate(options):
            if isinstance(option, Keep):
                return i
        if decision.type == "place":
            # head for the Oasis cards on offer: a Targi on the border card of their line
            wanted = [c.index for c in view.centre if c.face_up and c.card is not None
                      and c.kind == "tribe" and c.card.symbol == "Oasis"]
            for i, option in enumerate(options):
                if isinstance(option, Place) and _points_at(option.position, wanted):
                    return i
        for i, option in enumerate(options):
            if isinstance(option, TakeGoods | DrawTribe) and option.value == 1:
                return i  # take the goods card, draw the tribe card
            if isinstance(option, Trade) and option.get == "vp":
                return i  # goods or gold into VP at the Silversmith
        if decision.type == "action":
            # resolve tribe markers (slots 3, 4) after the Targis, which bring goods
            targis = [i for i, o in enumerate(options) if isinstance(o, Resolve) and o.slot < 3]
            if targis:
                return targis[0]
        return 0


def _points_at(position: int, cells: list[int]) -> bool:
    """True if border position `position` points along the row or column of a cell."""
    columns = {0: 0, 1: 1, 2: 2, 10: 0, 9: 1, 8: 2}
    rows = {14: 0, 13: 1, 12: 2, 4: 0, 5: 1, 6: 2}
    return any((position in columns and cell % 3 == columns[position]) or
               (position in rows and cell // 3 == rows[position]) for cell in cells)
