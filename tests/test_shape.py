"""The game shape has one definition (targi_sim/game/shape.py) and one SQL twin (the
player_shape view of analyses/views.sql): both give the same rows on a real run, and
every table that reports shape figures names them from the one list; the game digests
give the same shape as the rows."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import targi_sim
from targi_sim.game.shape import PLAYER_NAMES, digest_shape, game_shape, player_rows


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("shape") / "run"
    targi_sim.run(games=300, p0="balanced", p1="random", seed=11, out=out, jobs=1).close()
    return out


def test_python_rows_equal_the_player_shape_view(small_run):
    with targi_sim.open_run(small_run) as run:
        sql = run.sql("SELECT game_id, player, " + ", ".join(PLAYER_NAMES)
                      + " FROM player_shape ORDER BY game_id, player").pl()
        games = run.table("games").collect()
        rounds = run.table("rounds").collect()
        raids = run.table("raids").collect()
    py = player_rows(games, rounds, raids)
    assert py.height == sql.height == 2 * games.height
    assert py["game_id"].to_list() == sql["game_id"].to_list()
    for f in PLAYER_NAMES:
        assert np.allclose(py[f].to_numpy(), sql[f].cast(pl.Float64).to_numpy()), f
    # not vacuous: the figures vary between players
    assert py["cards"].n_unique() > 1 and py["token_vp"].n_unique() > 1


def test_game_shape_means_come_from_the_rows(small_run):
    with targi_sim.open_run(small_run) as run:
        games = run.table("games").collect()
        rounds = run.table("rounds").collect()
        raids = run.table("raids").collect()
    shape = game_shape(games, rounds, raids)
    rows = player_rows(games, rounds, raids)
    assert shape["cards_per_player"] == pytest.approx(rows["cards"].mean())
    assert shape["token_vp"] == pytest.approx(rows["token_vp"].mean())
    assert shape["rounds"] == pytest.approx(games["rounds"].mean())


def test_the_shape_from_game_digests_is_the_shape_from_the_rows(small_run):
    """ladder reads a mirror's shape from its games table and game digests."""
    from targi_sim.runner.digests import chunk_digests
    from targi_sim.runner.reading import read_run_info

    with targi_sim.open_run(small_run) as run:
        games = run.table("games").collect()
        rounds = run.table("rounds").collect()
        raids = run.table("raids").collect()
    digest = pl.concat(list(chunk_digests(read_run_info(small_run))))
    from_rows, from_digest = game_shape(games, rounds, raids), digest_shape(games, digest)
    assert from_rows.keys() == from_digest.keys()
    for key, value in from_rows.items():
        assert from_digest[key] == pytest.approx(value, rel=1e-12, nan_ok=True), key
    assert from_rows["raid_losses"] > 0 and from_rows["cards_per_player"] > 0


def test_report_and_sweep_name_the_same_figures():
    from targi_sim.report.sections import SHAPE_FIGURES
    from targi_sim.sweep.deals import SHAPE

    assert tuple(SHAPE_FIGURES) == tuple(SHAPE) == PLAYER_NAMES
