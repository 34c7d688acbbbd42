"""Playing `targi-sim play --browser` games from tests: a fixed way to choose options, and
a playtest table or server set up in a folder.

`choose` sees only what the page shows (the decision type and the options' texts) and
the game id and decision number, so the same choices are made through the Python API,
over HTTP or by clicking in a browser. It prefers what leads to the rarer decisions
(Fata Morgana, the Noble, Tribal Expansion, keeping cards, taking goods)."""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from targi_sim.runner.playtest import PlaytestDir, open_playtest
from targi_sim.web import PlayServer, PlayTable

RARE_PLACES = ("Fata Morgana", "Noble", "Tribal Expansion")
DECISION_TYPES = ("place", "action", "central_goods", "choose_good", "tribe", "trade",
                  "fata_morgana", "raid_mode", "raid_good", "discard_good",
                  "tribal_expansion", "ability")


def choose(kind: str, texts: list[str], game_id: int, seq: int) -> int:
    """The option to take (its index), a pure function of what the page shows."""
    rng = random.Random(game_id * 1_000_003 + seq)

    def one_of(pred) -> int | None:
        hits = [i for i, t in enumerate(texts) if pred(t)]
        return rng.choice(hits) if hits else None

    pick = None
    if kind == "place" and rng.random() < 0.7:
        pick = one_of(lambda t: any(t.endswith(n) for n in RARE_PLACES))
    elif kind == "tribe" and rng.random() < 0.5:
        pick = one_of(lambda t: t.startswith("keep "))
    elif kind == "central_goods":
        pick = one_of(lambda t: t.startswith("take "))
    elif kind == "ability":
        pick = one_of(lambda t: t.startswith("swap "))
    return rng.randrange(len(texts)) if pick is None else pick


def answer_with_policy(table: PlayTable, state: dict) -> dict:
    """Answer the pending decision of `state` as `choose` says; the reply."""
    game = state["game"]
    d = game["decision"]
    i = choose(d["type"], [o["text"] for o in d["options"]], game["id"], d["seq"])
    return table.answer(d["seq"], i)


def play_out(table: PlayTable, *, stop_after: int | None = None) -> dict:
    """Play the game in progress to its end (or `stop_after` answers); the last state."""
    state = table.start()
    n = 0
    while state["game"]["over"] is None and (stop_after is None or n < stop_after):
        state = answer_with_policy(table, state)["state"]
        n += 1
    return state


@contextlib.contextmanager
def playtest(out: Path, **options) -> Iterator[tuple[PlaytestDir, PlayTable]]:
    """A playtest directory opened for writing (its lock held) and its table."""
    pdir = open_playtest(out, command=["targi-sim", "play", "--browser"], **options)
    with pdir.rd.locked():
        pdir.create()
        pdir.sync()
        yield pdir, PlayTable(pdir)


@contextlib.contextmanager
def serving(table: PlayTable) -> Iterator[PlayServer]:
    """The page's server for `table`, in a thread of this process, until the block ends."""
    server = PlayServer(table)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.server.started:
        assert time.time() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield server
    finally:
        server.stop()
        thread.join(30)
