"""A hand-built 4-game run directory (docs/data-model.md schema) for the report tests.

Games (pairs 0 and 1, two matchups A-vs-B and B-vs-A, two rounds each):
  g0: A vs B, first 0, winner 0, 10-7, display_full
  g1: A vs B, first 1, winner 0,  9-8, display_full
  g2: B vs A, first 0, draw,      5-5, display_full
  g3: B vs A, first 1, winner 1,  6-8, final_raid
Expected values are worked out by hand in tests/test_report.py.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import polars as pl

from targi_sim.runner import RunDir
from targi_sim.runner.config import config_digest
from targi_sim.runner.markers import file_sha256
from targi_sim.runner.tables import TABLES

I8, I16, I64, S = pl.Int8, pl.Int16, pl.Int64, pl.String

GAMES = [
    # game, pair, p0, p1, first, winner, s0, s1, rounds, end, tiebreak
    (0, 0, "A", "B", 0, 0, 10, 7, 2, "display_full", "none"),
    (1, 0, "A", "B", 1, 0, 9, 8, 2, "display_full", "none"),
    (2, 1, "B", "A", 0, -1, 5, 5, 2, "display_full", "draw"),
    (3, 1, "B", "A", 1, 1, 6, 8, 2, "final_raid", "none"),
]

# score_now after rounds 1 and 2: (game, round) -> (seat 0, seat 1)
SCORES = {(0, 1): (5, 4), (0, 2): (10, 7), (1, 1): (4, 4), (1, 2): (9, 8),
          (2, 1): (4, 5), (2, 2): (5, 5), (3, 1): (6, 4), (3, 2): (6, 8)}

# tribe acquisitions: game, round, player, card, source, outcome
ACQ = [
    (0, 1, 0, 0, "centre", "played"),
    (0, 2, 1, 2, "centre", "kept"),
    (1, 1, 1, 0, "tribal_expansion", "discarded"),
    (1, 2, 0, 1, "centre", "played"),
    (2, 1, 1, 0, "centre", "played"),
    (3, 1, 0, 2, "tribal_expansion", "kept"),
    (3, 2, 0, 2, "hand", "played"),
]

# offers: game, round, cell, card
OFFERS = [(0, 1, 1, 0), (0, 1, 3, 1), (0, 2, 3, 1), (0, 2, 5, 2),
          (1, 1, 3, 1), (1, 2, 3, 1),
          (2, 1, 1, 0), (2, 1, 5, 2), (2, 2, 5, 2)]

# raids: game, round, raid, player, paid, amount, opponent_bonus
RAIDS = [
    (0, 2, 1, 0, "vp", 1, 0), (0, 2, 1, 1, "goods", 1, 0),
    (1, 2, 1, 0, "goods", 1, 0), (1, 2, 1, 1, "vp", 1, 0),
    (2, 2, 1, 0, "vp", 1, 0), (2, 2, 1, 1, "vp", 1, 0),
    (3, 2, 1, 0, "goods", 1, 0), (3, 2, 1, 1, "goods", 1, 0),
    (3, 3, 4, 0, "none", 0, 3), (3, 3, 4, 1, "gold", 1, 0),
]

# goods cards taken: game, round, player, card, source
GOODS = [(0, 1, 0, 0, "centre"), (0, 2, 0, 0, "border"), (1, 1, 1, 1, "centre"),
         (3, 2, 1, 2, "border")]

TRIBE = [  # id, name, symbol, vp, salt, pepper, dates, gold
    (0, "Targia 3VP", "Targia", 3, 2, 2, 1, 0),
    (1, "Targia 1VP", "Targia", 1, 0, 0, 0, 1),
    (2, "Well 2VP", "Well", 2, 1, 1, 0, 1),
]
GOODS_CARDS = [  # id, name, salt, pepper, dates, gold, choose_one, vp
    (0, "1 salt", 1, 0, 0, 0, 0, 0),
    (1, "2 pepper", 0, 2, 0, 0, 0, 0),
    (2, "1 gold", 0, 0, 0, 1, 0, 0),
]


def _write(df: pl.DataFrame, folder: Path, name: str) -> None:
    (folder / name).mkdir(parents=True, exist_ok=True)
    df.write_parquet(folder / name / "part-000000.parquet", compression="zstd")


def _games() -> pl.DataFrame:
    rows = []
    for g, pair, p0, p1, first, winner, s0, s1, rounds, end, tb in GAMES:
        rows.append({
            "game_id": g, "pair_id": pair, "seed": pair, "p0_strategy": p0, "p1_strategy": p1,
            "first_player": first, "winner": winner, "score_p0": s0, "score_p1": s1,
            "rounds": rounds, "end_reason": end, "tiebreak": tb,
            "tokens_p0": s0, "tokens_p1": s1, "card_vp_p0": 0, "card_vp_p1": 0,
            "ability_vp_p0": 0, "ability_vp_p1": 0, "row_bonus_p0": 0, "row_bonus_p1": 0,
            "gold_p0": 1, "gold_p1": 1, "goods_p0": 3, "goods_p1": 3})
    schema = {"game_id": I64, "pair_id": I64, "seed": I64, "p0_strategy": S,
              "p1_strategy": S, "first_player": I8, "winner": I8, "score_p0": I16,
              "score_p1": I16, "rounds": I8, "end_reason": S, "tiebreak": S}
    schema |= {c: I16 for c in rows[0] if c not in schema}
    return pl.DataFrame(rows, schema=schema)


def _rounds() -> pl.DataFrame:
    rows = []
    for (g, r), scores in sorted(SCORES.items()):
        first = GAMES[g][4] if r % 2 == 1 else 1 - GAMES[g][4]
        for p in (0, 1):
            targis = (1, 2, 3) if p == 0 else ((7, 0, 0) if (g, r) == (3, 2) else (5, 6, 0))
            rows.append({
                "game_id": g, "round": r, "player": p, "is_first": p == first,
                "robber_card": 13 if r == 1 else 14,
                "targi_card_1": targis[0], "targi_card_2": targis[1],
                "targi_card_3": targis[2], "marker_cell_1": -1, "marker_cell_2": -1,
                # vp_tokens = score; gold 1 / 2 by seat; goods = 1 + round + seat
                "vp_tokens": scores[p], "gold": 1 + p, "dates": r, "salt": p, "pepper": 1,
                "display_count": r - 1 + p, "hand_card": -1, "cards_acquired": 0,
                "goods_discarded": 0, "gold_discarded": 0, "score_now": scores[p]})
    schema = {"game_id": I64, "round": I8, "player": I8, "is_first": pl.Boolean}
    schema |= {c: I8 for c in ("robber_card", "targi_card_1", "targi_card_2", "targi_card_3",
                               "marker_cell_1", "marker_cell_2")}
    schema |= {c: I16 for c in ("vp_tokens", "gold", "dates", "salt", "pepper")}
    schema |= {"display_count": I8, "hand_card": I16, "cards_acquired": I8,
               "goods_discarded": I16, "gold_discarded": I16, "score_now": I16}
    return pl.DataFrame(rows, schema=schema)


def _cards() -> pl.DataFrame:
    rows = []
    for pos in range(1, 17):
        kind = "raid" if pos % 4 == 0 else "gain"
        rows.append({"card_type": "border", "card_id": pos, "name": f"B{pos}", "kind": kind})
    for cid, name, salt, pepper, dates, gold, choose, vp in GOODS_CARDS:
        rows.append({"card_type": "goods", "card_id": cid, "name": name, "kind": "goods",
                     "vp": vp, "salt": salt, "pepper": pepper, "dates": dates, "gold": gold,
                     "choose_one": choose})
    for cid, name, sym, vp, s, p, d, g in TRIBE:
        rows.append({"card_type": "tribe", "card_id": cid, "name": name, "kind": "none",
                     "symbol": sym, "vp": vp, "cost_salt": s, "cost_pepper": p,
                     "cost_dates": d, "cost_gold": g})
    schema = {"card_type": S, "card_id": I16, "name": S, "kind": S, "symbol": S, "vp": I16,
              "cost_salt": I16, "cost_pepper": I16, "cost_dates": I16, "cost_gold": I16,
              "salt": I16, "pepper": I16, "dates": I16, "gold": I16, "choose_one": I16}
    return pl.DataFrame(rows, schema=schema)


def build_fixture(folder: Path, *, strategies: tuple[str, str] = ("A", "B"),
                  status: str = "complete") -> Path:
    """Write the fixture run directory into `folder` and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    _write(_games(), folder, "games")
    _write(_rounds(), folder, "rounds")
    sym = {t[0]: t[2] for t in TRIBE}
    _write(pl.DataFrame(
        [{"game_id": g, "round": r, "player": p, "card_id": c, "symbol": sym[c], "source": s,
          "outcome": o, "row": 0 if o == "played" else -1, "col": 0 if o == "played" else -1}
         for g, r, p, c, s, o in ACQ],
        schema={"game_id": I64, "round": I8, "player": I8, "card_id": I16, "symbol": S,
                "source": S, "outcome": S, "row": I8, "col": I8}), folder, "acquisitions")
    _write(pl.DataFrame(OFFERS, schema={"game_id": I64, "round": I8, "cell": I8,
                                        "card_id": I16}, orient="row"), folder, "offers")
    _write(pl.DataFrame(RAIDS, schema={"game_id": I64, "round": I8, "raid": I8, "player": I8,
                                       "paid": S, "amount": I16, "opponent_bonus": I16},
                        orient="row"), folder, "raids")
    _write(pl.DataFrame(GOODS, schema={"game_id": I64, "round": I8, "player": I8,
                                       "card_id": I16, "source": S}, orient="row"),
           folder, "goods")
    _cards().write_parquet(folder / "cards.parquet")
    seal(folder, strategies, status)
    return folder


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def seal(folder: Path, strategies: tuple[str, str] = ("A", "B"),
         status: str = "complete", games: int = 4, chunk_size: int = 4,
         pairing: str | None = None) -> None:
    """Write a manifest that passes runner/manifest.py and one completion marker per
    chunk of `games` games (`chunk_size` per chunk) vouching for the part files as they
    are now. `pairing` (targi_sim.play.pairing) replaces the older `paired: true`."""
    deck = "# the fixture's deck: not loadable, so the report uses its fallback rates\n"
    rules = "# the fixture's rules\n"
    layout = {"pairing": pairing} if pairing else {"paired": True}
    config = {
        "games": games, "seed": 0, **layout, "chunk_size": chunk_size,
        "strategies": [{"seat": k, "name": name, "sha256": _sha(name)}
                       for k, name in enumerate(strategies)],
        "deck": {"name": "fixture", "sha256": _sha(deck)},
        "rules": {"name": "default", "sha256": _sha(rules)},
        "engine": "fixture",
    }
    rd = RunDir(folder)
    chunks = -(-games // chunk_size)
    rows = dict.fromkeys(TABLES, 0)
    for k in range(chunks):
        marker = {"chunk": k, "first_game": chunk_size * k,
                  "games": min(chunk_size, games - chunk_size * k),
                  "config_hash": config_digest(config), "rows": {}, "bytes": {}, "sha256": {}}
        for table in TABLES:
            part = rd.table_path(table, k)
            marker["rows"][table] = pl.read_parquet(part).height
            marker["bytes"][table] = part.stat().st_size
            marker["sha256"][table] = file_sha256(part)
            rows[table] += marker["rows"][table]
        (folder / "chunks").mkdir(exist_ok=True)
        rd.marker_path(k).write_text(json.dumps(marker), encoding="utf-8")
    manifest = {
        "tool": "targi-sim", "version": "test", "engine_hash": "fixture",
        "command": ["fixture"], "config": config, "config_hash": config_digest(config),
        "deck": {"name": "fixture", "path": "fixture.toml", "sha256": _sha(deck),
                 "content": deck},
        "rules": {"name": "default", "path": None, "sha256": _sha(rules), "content": rules},
        "strategies": [{"seat": k, "name": name, "kind": "heuristic", "path": None,
                        "sha256": _sha(name), "content": f"kind = 'heuristic' # {name}"}
                       for k, name in enumerate(strategies)],
        "chunks": chunks, "status": status, "timings": {"first_started": "fixture"},
        "machine": {}, "counts": {"games": rows["games"], "rows": rows, "bytes": 0},
        "cards": {"bytes": rd.cards_path.stat().st_size,
                  "sha256": file_sha256(rd.cards_path)},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
