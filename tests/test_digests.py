"""Game digests (runner/digests.py), what compare's balance verdict and a sweep's paired
tests read instead of the logs: the worker's equal the SQL reference over the chunk's
rows (odd chunks that split pairs, one game per deal; a resumed run's:
tests/test_summaries.py); a sweep's per-deal numbers and the verdict's per-deal sums
from them equal those from the rows; a deleted, truncated, edited or out-of-date digest
is recomputed from its rows and written back, never used; a run made before digests
gets them from its rows once."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from targi_sim.runner import RunConfig, RunDir, resolve_run
from targi_sim.runner import digests as dig
from targi_sim.runner.dispatch import execute
from targi_sim.runner.reading import read_run_info
from targi_sim.sweep.deals import HEADLINE, deal_data, deal_data_from_rows
from tests.damage import KINDS, damage


def run_to(out: Path, games: int = 31, chunk: int = 7, **kw) -> Path:
    cfg = RunConfig(games=games, seed=kw.pop("seed", 5), p0=kw.pop("p0", "balanced"),
                    p1=kw.pop("p1", "random"), chunk_size=chunk)
    execute(resolve_run(cfg), out, jobs=1, **kw)
    return out


@pytest.fixture(scope="module")
def odd_run(tmp_path_factory) -> Path:
    return run_to(tmp_path_factory.mktemp("digests") / "run")


def assert_worker_digests_are_the_sql_ones(out: Path, chunks: int) -> None:
    rd = RunDir(out)
    for chunk in range(chunks):
        assert dig.entry_matches(rd, chunk, rd.read_marker(chunk)[dig.DIGEST])
        assert_frame_equal(pl.read_parquet(rd.digest_path(chunk)), dig.compute(out, chunk),
                           check_exact=True)


def assert_deal_data_is_the_rows(out: Path) -> None:
    run = read_run_info(out)
    data, rows = deal_data(run), deal_data_from_rows(run)
    np.testing.assert_array_equal(data.deals, rows.deals)
    assert data.headline.keys() == rows.headline.keys() == set(HEADLINE)
    assert data.cards.keys() == rows.cards.keys()
    for got, want in ((data.headline, rows.headline), (data.cards, rows.cards)):
        for key, (x, n) in want.items():
            np.testing.assert_array_equal(got[key][0], x, err_msg=str(key))
            np.testing.assert_array_equal(got[key][1], n, err_msg=str(key))
    assert any(n.sum() > 0 for _, n in data.cards.values())


def test_each_chunk_keeps_a_digest_equal_to_the_sql_reference(odd_run):
    assert_worker_digests_are_the_sql_ones(odd_run, chunks=5)
    digest = pl.concat(pl.read_parquet(RunDir(odd_run).digest_path(c)) for c in range(5))
    assert digest["game_id"].to_list() == list(range(31))
    assert digest["offered"].min() > 0  # every game shows cards
    assert (digest["cards_p0"] + digest["cards_p1"]).max() > 0


def test_one_game_per_deal_digests_equal_the_sql(tmp_path):
    out = run_to(tmp_path / "run", games=12, chunk=5, p1="balanced")  # a mirror: own deals
    assert_worker_digests_are_the_sql_ones(out, chunks=3)
    assert_deal_data_is_the_rows(out)


def test_a_sweeps_deal_numbers_from_digests_equal_the_reports_queries(odd_run):
    assert_deal_data_is_the_rows(odd_run)


def test_a_run_made_before_digests_gets_them_from_its_rows_once(tmp_path, odd_run):
    out = tmp_path / "old"
    shutil.copytree(odd_run, out)
    rd = RunDir(out)
    for chunk in range(5):  # as an earlier version wrote it: no digest, no marker entry
        rd.digest_path(chunk).unlink()
        marker = rd.read_marker(chunk)
        del marker[dig.DIGEST]
        rd.write_marker(chunk, marker)
    assert_deal_data_is_the_rows(out)  # computed from the rows, then kept
    for chunk in range(5):
        assert rd.read_marker(chunk)[dig.DIGEST] == RunDir(odd_run).read_marker(chunk)[dig.DIGEST]


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_digest_is_recomputed_never_used(tmp_path, odd_run, kind, monkeypatch):
    out = tmp_path / "run"
    shutil.copytree(odd_run, out)
    rd = RunDir(out)
    path = rd.digest_path(2)
    good = damage(rd, 2, path, dig.DIGEST, kind,
                  lambda df: df.with_columns(pl.col("cards_p0") + 1))
    computed: list[int] = []
    original = dig.compute

    def counting(root, chunk):
        computed.append(chunk)
        return original(root, chunk)

    monkeypatch.setattr(dig, "compute", counting)
    assert_deal_data_is_the_rows(out)
    assert computed == [2]
    assert path.read_bytes() == good
    assert rd.read_marker(2)[dig.DIGEST] == RunDir(odd_run).read_marker(2)[dig.DIGEST]
    computed.clear()
    deal_data(read_run_info(out))
    assert computed == []


def test_compares_per_deal_sums_from_digests_equal_the_rows(odd_run):
    """The balance verdict's input (targi_sim.fairness.tables.measure_chunks) from each
    chunk's games and digest equals measure.reduce_games over the chunk's log rows."""
    from targi_sim.fairness.measure import reduce_games
    from targi_sim.fairness.tables import GAME_COLUMNS, measure_chunks
    from targi_sim.report.verdict import run_cards, run_chunks

    run = read_run_info(odd_run)
    cards = run_cards(run)

    def from_rows():
        for chunk in range(5):
            games, offers, acq = (pl.read_parquet(RunDir(odd_run).table_path(t, chunk))
                                  for t in ("games", "offers", "acquisitions"))
            yield reduce_games(games.select(GAME_COLUMNS), offers, acq, cards.n_tribe)

    for block in (1, 2):
        (s1, p1), (s2, p2) = (measure_chunks(parts, block, cards.classes) for parts in
                              (run_chunks(run, cards.n_tribe), from_rows()))
        np.testing.assert_array_equal(p1.deal_ids, p2.deal_ids)
        for k in p1.x:
            np.testing.assert_array_equal(p1.x[k], p2.x[k], err_msg=k)
            np.testing.assert_array_equal(p1.n[k], p2.n[k], err_msg=k)
        assert s1.games == s2.games == 31
        assert p1.n["acquire"].sum() > 0 and p1.n["play_win"].sum() > 0
