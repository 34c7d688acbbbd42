"""Tree reuse between a seat's placement searches of a round (engine/ismcts.py,
`reuse_tree`).

The next search starts from the node the placements made since lead to, with that
node's visits, and runs only what the budget still lacks; the moved subtree is the old
one, statistic for statistic; a new round or game starts afresh; the setting off is the
search as before; and a reusing seat is still a pure function of the game's seed (batch
and session play one game) that never peeks (the audit re-asks a decision with the
trees it started from).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from targi_sim import check_no_peeking, new_game, play_game
from targi_sim.engine import layout as lay
from targi_sim.engine.access import pbase
from targi_sim.engine.buffers import make_logs
from targi_sim.engine.constants import MC_PENDING, MC_REUSE_TREE
from targi_sim.engine.ismcts import (
    H_REUSED,
    H_RUN,
    H_SEARCHES,
    H_VALID,
    ROOT,
    T_CHILD,
    T_MOVER,
    T_SIZE,
    T_VALUE,
    T_VISITS,
    _compact,
    new_game_trees,
)
from targi_sim.engine.montecarlo import choose_placement, search_scratch
from targi_sim.engine.rounds import play_to_end, reseed_policies, setup_game
from targi_sim.errors import DataError
from targi_sim.play.match import prepare_match
from targi_sim.players.strategy import load_strategy

ITERATIONS = 64


def _searcher(tmp_path: Path, reuse: bool = True, iterations: int = ITERATIONS) -> Path:
    path = tmp_path / f"reuser-{int(reuse)}-{iterations}.toml"
    path.write_text(f'name = "reuser"\nkind = "montecarlo"\nbase = "tuned"\n'
                    f'search = "ismcts"\niterations = {iterations}\n'
                    f'reuse_tree = {"true" if reuse else "false"}\n')
    return path


class Driver:
    """play_batch_mc's loop, stopped at each of the searcher's (seat 0's) placements."""

    def __init__(self, strategy: Path, seed: int = 5) -> None:
        self.m = prepare_match((strategy, "balanced"))
        self.S = np.zeros(lay.S_SIZE, dtype=np.int64)
        setup_game(self.S, self.m.D, self.m.R, seed, 0)
        reseed_policies(self.S, self.m.SP, seed)
        self.S[lay.S_PAUSE_MC] = 1
        self.SP = self.m.SP.copy()
        self.SP[:, MC_PENDING] = np.nan
        self.O = np.zeros(256, dtype=np.int64)
        self.scratch = search_scratch(self.SP, lay.S_SIZE)
        self.logs = make_logs(0)
        assert not self._on()  # paused at seat 0's first placement

    def _on(self) -> bool:
        return play_to_end(self.S, self.m.D, self.m.R, self.SP, self.logs, self.m.P, self.O)

    @property
    def tree(self) -> np.ndarray:
        return self.scratch[5][0]

    def search(self) -> int:
        return int(choose_placement(self.S, self.m.D, self.m.R, self.SP, self.m.PB, 0, self.O,
                                    *self.scratch))

    def place(self, b: int) -> None:
        """Place b and play on to the searcher's next placement (False: game over)."""
        self.SP[0, MC_PENDING] = b
        assert not self._on()


def _targi(S: np.ndarray, p: int, k: int) -> int:
    return int(S[pbase(p) + lay.P_TARGI + k])


def test_the_next_search_starts_from_the_node_the_placements_since_lead_to(tmp_path):
    d = Driver(_searcher(tmp_path))
    b1 = d.search()
    old = d.tree.copy()
    assert old[0, H_SEARCHES] == 1 and old[0, H_REUSED] == 0
    assert old[0, H_RUN] == ITERATIONS
    d.place(b1)
    reply = _targi(d.S, 1, 0)  # the opponent's first Targi, placed since
    node = int(old[int(old[ROOT, T_CHILD + b1]), T_CHILD + reply])
    assert node > 0 and old[node, T_VISITS] > 0  # the old search looked there
    d.search()
    reused = int(old[node, T_VISITS])
    assert d.tree[0, H_REUSED] == reused
    assert d.tree[0, H_RUN] == ITERATIONS + (ITERATIONS - reused)
    assert d.tree[ROOT, T_VISITS] == ITERATIONS  # the budget counts the reused visits


def _same_subtree(a: np.ndarray, i: int, b: np.ndarray, j: int) -> int:
    """Asserts the subtrees at a[i] and b[j] hold the same statistics; their size."""
    assert a[i, T_VISITS] == b[j, T_VISITS] and a[i, T_VALUE] == b[j, T_VALUE]
    assert a[i, T_MOVER] == b[j, T_MOVER]
    size = 1
    for c in range(T_SIZE - T_CHILD):
        ka, kb = int(a[i, T_CHILD + c]), int(b[j, T_CHILD + c])
        assert (ka < 0) == (kb < 0)
        if ka >= 0:
            size += _same_subtree(a, ka, b, kb)
    return size


def test_the_moved_subtree_is_the_old_one_statistic_for_statistic(tmp_path):
    d = Driver(_searcher(tmp_path, iterations=200))
    b1 = d.search()
    old = d.tree.copy()
    node = int(old[ROOT, T_CHILD + b1])
    T = np.zeros((3, *old.shape))
    T[0] = old
    used = _compact(T, 0, node)
    assert used == ROOT + _same_subtree(old, node, T[0], ROOT)
    assert used - ROOT <= old[node, T_VISITS]  # it fits where a fresh tree would


def test_a_new_round_and_a_new_game_start_afresh(tmp_path):
    d = Driver(_searcher(tmp_path))
    while d.S[lay.S_ROUND] == 1:
        d.place(d.search())
    before = d.tree[0].copy()
    assert before[0 + H_REUSED] > 0  # some search of round 1 reused its tree
    d.search()  # the first of round 2: nothing of round 1's tree applies
    assert d.tree[0, H_REUSED] == before[H_REUSED]
    assert d.tree[0, H_RUN] == before[H_RUN] + ITERATIONS
    new_game_trees(d.scratch[5])
    assert not d.scratch[5][:, 0].any() and d.tree[0, H_VALID] == 0


def test_off_the_search_is_the_fresh_tree_search(tmp_path):
    on, off = Driver(_searcher(tmp_path)), Driver(_searcher(tmp_path, reuse=False))
    assert on.SP[0, MC_REUSE_TREE] == 1 and off.SP[0, MC_REUSE_TREE] == 0
    assert on.search() == off.search()  # a round's first search: nothing to reuse
    for _ in range(2):
        off.place(off.search())
    assert off.tree[0, H_REUSED] == 0 and off.tree[0, H_RUN] == 3 * ITERATIONS


@pytest.mark.parametrize("seed", [3, 8])
def test_a_reusing_seat_plays_the_batch_game_in_a_session(tmp_path, seed):
    path = _searcher(tmp_path, iterations=24)
    batch = play_game(seed, (path, "tuned"))
    game = new_game(seed, p0=path, p1="tuned")
    assert game.record().trace.equals(batch.trace)
    assert game.record().scores == batch.scores


def test_a_reusing_seat_does_not_peek(tmp_path):
    report = check_no_peeking(_searcher(tmp_path, iterations=16), games=2, redeals=2, seed=4)
    assert report.decisions > 50
    assert report.passed, report.differences[:3]


def test_the_setting_is_a_tree_searchs_and_shows(tmp_path):
    assert load_strategy(_searcher(tmp_path)).settings()["reuse_tree"] is True
    assert load_strategy("expert").settings()["reuse_tree"] is True
    assert load_strategy("expert-placements").settings()["reuse_tree"] is False
    path = tmp_path / "flat.toml"
    path.write_text('kind = "montecarlo"\nbase = "tuned"\nsearch = "flat"\nreuse_tree = true\n')
    with pytest.raises(DataError, match="field 'reuse_tree'"):
        load_strategy(path)
    path.write_text('kind = "montecarlo"\nbase = "tuned"\nsearch = "ismcts"\n'
                    'reuse_tree = "yes"\n')
    with pytest.raises(DataError, match="field 'reuse_tree'"):
        load_strategy(path)
