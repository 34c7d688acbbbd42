"""Hand-built run directories whose design effects are known: exact duplicate pairs and
independent games holding the same 2K games.

K deals; in deal d seat 0 wins when WINS[d] (K_WINS of the K deals) and plays tribe card
0, and takes tribe card 1 from the centre (kept) when TAKES[d]; card 1 is offered in every
game. With `duplicate=True` games 2d and 2d+1 form pair d and game 2d+1 is game 2d with
the seats relabelled (the shape of a seat-swapped pair of a deterministic mirror): every
count appears twice. With `duplicate=False` the same 2K games are independent (pair_id =
game_id), so every rate is the same and only the clustering differs.

Known answers (targi_sim.stats.rates, k clusters, k/(k-1) small-sample factor): a rate p of
"two identical games per cluster" has variance p(1-p)/(K-1) and design effect
2K/(K-1); of 2K independent games p(1-p)/(2K-1) and 2K/(2K-1). The 95% interval is
Wilson's on n_eff = K - 1 and 2K - 1 trials respectively.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from report_fixture import I8, I16, I64, TRIBE, S, _cards, _write, seal

K = 200
K_WINS = 80  # deals seat 0 wins: first player's rate and card 0's WR played = 0.4
K_TAKES = 50  # deals in which card 1 is taken: its acquire rate = 0.25
WINS = [d % 5 in (0, 2) for d in range(K)]  # 2 of every 5 deals
TAKES = [d % 4 == 0 for d in range(K)]
assert sum(WINS) == K_WINS and sum(TAKES) == K_TAKES


def _game_rows(duplicate: bool) -> tuple[list, list, list, list]:
    games, rounds, acq, offers = [], [], [], []
    for d in range(K):
        for copy in (0, 1):
            g = 2 * d + copy
            swap = copy == 1  # the second game: seats relabelled, seat 1 starts
            winner = (0 if WINS[d] else 1) ^ int(swap)
            s_win, s_lose = 10, 8
            s0, s1 = (s_win, s_lose) if winner == 0 else (s_lose, s_win)
            games.append({
                "game_id": g, "pair_id": d if duplicate else g, "seed": d if duplicate else g,
                "p0_strategy": "M", "p1_strategy": "M", "first_player": int(swap),
                "winner": winner, "score_p0": s0, "score_p1": s1, "rounds": 1,
                "end_reason": "final_raid", "tiebreak": "none",
                **{f"{c}_p{p}": 0 for p in (0, 1) for c in ("card_vp", "ability_vp",
                                                          "row_bonus", "gold", "goods")},
                "tokens_p0": s0, "tokens_p1": s1})
            starter = int(swap)
            for p in (0, 1):
                rounds.append({
                    "game_id": g, "round": 1, "player": p, "is_first": p == starter,
                    "robber_card": 13, "targi_card_1": 1 + 4 * (p ^ int(swap)),
                    "targi_card_2": 0, "targi_card_3": 0, "marker_cell_1": -1,
                    "marker_cell_2": -1, "vp_tokens": (s0, s1)[p], "gold": 0, "dates": 0,
                    "salt": 0, "pepper": 0, "display_count": 1, "hand_card": -1,
                    "cards_acquired": 1, "goods_discarded": 0, "gold_discarded": 0,
                    "score_now": (s0, s1)[p]})
            player0 = int(swap)  # the seat that plays "seat 0's" part in this copy
            acq.append({"game_id": g, "round": 1, "player": player0, "card_id": 0,
                        "symbol": TRIBE[0][2], "source": "centre", "outcome": "played",
                        "row": 0, "col": 0})
            if TAKES[d]:
                acq.append({"game_id": g, "round": 1, "player": player0, "card_id": 1,
                            "symbol": TRIBE[1][2], "source": "centre", "outcome": "kept",
                            "row": -1, "col": -1})
            offers += [(g, 1, 1, 0), (g, 1, 3, 1)]
    return games, rounds, acq, offers


def build_cluster_fixture(folder: Path, *, duplicate: bool) -> Path:
    """Write the run directory (see the module docstring) into `folder`; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    games, rounds, acq, offers = _game_rows(duplicate)
    gschema = {"game_id": I64, "pair_id": I64, "seed": I64, "p0_strategy": S,
               "p1_strategy": S, "first_player": I8, "winner": I8, "score_p0": I16,
               "score_p1": I16, "rounds": I8, "end_reason": S, "tiebreak": S}
    gschema |= {c: I16 for c in games[0] if c not in gschema}
    _write(pl.DataFrame(games, schema=gschema), folder, "games")
    rschema = {"game_id": I64, "round": I8, "player": I8, "is_first": pl.Boolean}
    rschema |= {c: I8 for c in ("robber_card", "targi_card_1", "targi_card_2", "targi_card_3",
                                "marker_cell_1", "marker_cell_2")}
    rschema |= {c: I16 for c in ("vp_tokens", "gold", "dates", "salt", "pepper")}
    rschema |= {"display_count": I8, "hand_card": I16, "cards_acquired": I8,
                "goods_discarded": I16, "gold_discarded": I16, "score_now": I16}
    _write(pl.DataFrame(rounds, schema=rschema), folder, "rounds")
    _write(pl.DataFrame(acq, schema={"game_id": I64, "round": I8, "player": I8,
                                     "card_id": I16, "symbol": S, "source": S, "outcome": S,
                                     "row": I8, "col": I8}), folder, "acquisitions")
    _write(pl.DataFrame(offers, schema={"game_id": I64, "round": I8, "cell": I8,
                                        "card_id": I16}, orient="row"), folder, "offers")
    _write(pl.DataFrame([(0, 1, 1, 0, "vp", 1, 0)], schema={
        "game_id": I64, "round": I8, "raid": I8, "player": I8, "paid": S, "amount": I16,
        "opponent_bonus": I16}, orient="row"), folder, "raids")
    _write(pl.DataFrame([(0, 1, 0, 0, "centre")], schema={
        "game_id": I64, "round": I8, "player": I8, "card_id": I16, "source": S},
        orient="row"), folder, "goods")
    _cards().write_parquet(folder / "cards.parquet")
    seal(folder, ("M", "M"), games=2 * K, chunk_size=2 * K,
         pairing="seat_swapped" if duplicate else "one_per_deal")
    return folder
