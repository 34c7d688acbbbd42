"""One game as one self-contained HTML page (inline CSS, SVG and JS; nothing fetched).

The page holds the game's positions as JSON (the first in full, then each step's
changes) and a small script that draws them: the board as in the rulebook's picture,
both players' resources, hand and display, the narration of each step, and the
score-if-it-ended-now of both players by round. The script computes nothing about the
game; every number comes from the engine (targi_sim.viewer.states).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from html import escape
from pathlib import Path

from targi_sim._utils.atomic import atomic_write_text
from targi_sim.engine.constants import BORDER_KIND_NAMES, RESOURCE_NAMES, SYMBOL_NAMES
from targi_sim.game.deck import Deck
from targi_sim.game.record import GameRecord
from targi_sim.game.rules import Rules
from targi_sim.players.strategy import Strategy

from .states import FIELDS, Snapshot, game_snapshots
from .story import Step, result_line, round_table, story

KIND_CODE = {"decision": "d", "round_end": "e", "final_raid": "f"}
ROUND_COLUMNS = {"round": "round", "player": "seat", "vp_tokens": "VP tokens", "gold": "gold",
                 "salt": "salt", "pepper": "pepper", "dates": "dates",
                 "display_count": "cards in display", "cards_acquired": "cards acquired",
                 "score_now": "score now"}


@cache
def _asset(name: str) -> str:
    return (Path(__file__).parent / name).read_text(encoding="utf-8")


def _cost(deck: Deck, c: int) -> str:
    parts = [f"{int(n)} {name}" for name, n in zip(RESOURCE_NAMES[:4], deck.tribe_cost[c],
                                                   strict=True) if n]
    text = ", ".join(parts) or "free"
    if deck.tribe_has_alt[c]:
        alt = [f"{int(n)} {name}" for name, n in zip(RESOURCE_NAMES[:4], deck.tribe_alt_cost[c],
                                                     strict=True) if n]
        text += " or " + (", ".join(alt) or "free")
    return text


def deck_json(deck: Deck) -> dict:
    """The deck as the page scripts draw it (board.js): border, tribe and goods cards."""
    return {
        "border": [[name, BORDER_KIND_NAMES[int(k)]] for name, k in
                   zip(deck.border_names, deck.border_kind, strict=True)],
        "tribe": [[name, int(deck.tribe_symbol[c]), int(deck.tribe_vp[c]), _cost(deck, c)]
                  for c, name in enumerate(deck.tribe_names)],
        "goods": list(deck.goods_names),
    }


def _steps_json(steps: list[Step]) -> tuple[list[int], list[dict]]:
    base = steps[0].snap.values
    out, before = [], base
    for step in steps:
        now = step.snap.values
        delta = [x for i, (a, b) in enumerate(zip(before, now, strict=True)) if a != b
                 for x in (i, b)]
        item: dict = {"d": delta, "k": KIND_CODE[step.snap.kind], "l": step.lines}
        if step.raid:
            item["r"] = 1
        if step.next:
            item["n"] = step.next
        out.append(item)
        before = now
    return base, out


def page_data(record: GameRecord, deck: Deck, snaps: list[Snapshot], title: str) -> dict:
    """Everything the page's script draws, as JSON-ready values."""
    steps = story(record, deck, snaps)
    base, items = _steps_json(steps)
    raids = record.tables["raids"]
    raid_rounds = sorted({(int(r), int(n)) for r, n in
                          zip(raids["round"], raids["raid"], strict=True)})
    return {
        "title": title,
        "seats": [f"seat {p} ({record.strategies[p]})" for p in range(2)],
        "deck": deck_json(deck), "symbols": list(SYMBOL_NAMES),
        "resources": list(RESOURCE_NAMES),
        "fields": {k: list(v) for k, v in FIELDS.items()},
        "base": base, "steps": items, "rounds_played": record.rounds,
        "raid_rounds": [list(x) for x in raid_rounds],
        "result": result_line(record),
    }


def _players_html(record: GameRecord) -> str:
    out = []
    for p in range(2):
        res = "".join(f"<span>{escape(name if name != 'vp' else 'VP tokens')} "
                      f"<b data-res='{name}'>0</b></span>" for name in RESOURCE_NAMES)
        slots = "".join("<div class='slot'></div>" for _ in range(12))
        out.append(
            f"<div class='player seat{p}' data-seat='{p}'><h2>seat {p} "
            f"({escape(record.strategies[p])}), {'AB'[p]}<span class='amulet'>amulet: plays "
            f"first</span></h2><div class='res'>{res}<span>score now "
            f"<b data-res='score'>0</b></span></div><div class='hand'>hand: "
            f"<span class='hand-card'></span></div><div class='note'>display (3 rows of 4)"
            f"</div><div class='display'>{slots}</div></div>")
    return "".join(out)


def _rounds_html(record: GameRecord) -> str:
    df = round_table(record)
    head = "".join(f"<th>{escape(ROUND_COLUMNS[c])}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{v}</td>" for v in row) + "</tr>"
                   for row in df.iter_rows())
    return (f"<table class='sortable' id='rounds-table'><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


def render_page(record: GameRecord, deck: Deck, snaps: list[Snapshot], title: str,
                subtitle: str = "") -> str:
    """The HTML text of one game's page."""
    data = json.dumps(page_data(record, deck, snaps, title), separators=(",", ":"),
                      ensure_ascii=False).replace("</", "<\\/")
    sub = subtitle or (f"seed {record.seed}; seat {record.first_player} starts round 1; "
                       f"{result_line(record)}")
    return "".join([
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{escape(title)}</title><style>{_asset('viewer.css')}</style></head><body>",
        f"<h1>{escape(title)}</h1><p class='sub'>{escape(sub)}</p>",
        "<div class='controls'>",
        "<button id='btn-first' title='first step (Home)'>start</button>",
        "<button id='btn-prevRound' title='previous round end (Up / PageUp)'>&laquo; round"
        "</button>",
        "<button id='btn-prev' title='previous step (Left)'>&lsaquo; step</button>",
        "<button id='btn-next' title='next step (Right)'>step &rsaquo;</button>",
        "<button id='btn-nextRound' title='next round end (Down / PageDown)'>round &raquo;"
        "</button>",
        "<button id='btn-last' title='last step (End)'>end</button>",
        "<input type='range' id='slider' min='0' value='0' aria-label='step'>",
        "<span id='where'></span> <a id='permalink' href='#step=0'>link to this step</a>",
        "<label><input type='checkbox' id='reveal'> reveal hands the opponent has not seen"
        "</label></div>",
        "<p class='keys'>Keys: &larr; &rarr; one decision, &uarr; &darr; (PageUp, PageDown) "
        "one round, Home / End. A step shows the position after what its list says; "
        "\"Now\" is the decision waiting.</p>",
        "<div class='main'><div class='board' id='board'></div>",
        "<div><div class='story' id='story'><span class='badge'>raid</span>",
        "<ul id='lines'></ul><div class='next' id='next'></div></div>",
        "<div class='chart'><svg id='chart' viewBox='0 0 760 220' role='img' "
        "aria-label='score if the game ended now, by round'></svg></div></div></div>",
        f"<div class='players'>{_players_html(record)}</div>",
        "<h2>Rounds</h2><p class='note'>At each round's end, from the game's rounds table "
        "(click a column to sort).</p>", _rounds_html(record),
        "<p class='note'>Made by targi-sim from the engine's own replay of the game.</p>",
        f"<script type='application/json' id='game-data'>{data}</script>",
        f"<script>{_asset('board.js')}\n{_asset('viewer.js')}</script></body></html>\n",
    ])


def game_page(record: GameRecord, deck: Deck, rules: Rules, title: str, *,
              subtitle: str = "", played_by: Sequence[Strategy] | None = None) -> str:
    """The page of a recorded game (replayed in the engine for its positions; in the
    build of `played_by`, the strategies that played it, when given)."""
    snaps = game_snapshots(record, deck, rules, played_by)
    return render_page(record, deck, snaps, title, subtitle)


def write_game_page(record: GameRecord, deck: Deck, rules: Rules, path: str | Path,
                    title: str, *, subtitle: str = "",
                    played_by: Sequence[Strategy] | None = None) -> Path:
    """Write a game's page to `path` atomically; returns the path."""
    return atomic_write_text(Path(path), game_page(record, deck, rules, title,
                                                   subtitle=subtitle, played_by=played_by))


__all__ = ["deck_json", "game_page", "page_data", "render_page", "write_game_page"]
