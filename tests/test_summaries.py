"""Chunk summaries (runner/summaries.py): the worker's, summed from its arrays
(runner/sums_arrays.py), are byte for byte those the SQL reference (runner/sums_sql.py)
computes from the chunk's rows, on odd chunks, batches that split pairs, one game per
deal, a resumed and a Dask-made run; merged, they equal the sums of all the rows at once
for any chunking; a deleted, truncated, edited or missing summary is recomputed from its
chunk's rows and written back, never used; card rows are per class of copies, and other
classes are summed from the rows without being kept; the report from summaries equals
the raw-row one."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from targi_sim.report.build import analyse
from targi_sim.report.values import rates_from_manifest
from targi_sim.runner import RunConfig, RunDir, resolve_run
from targi_sim.runner import summaries as summ
from targi_sim.runner.classes import run_classes
from targi_sim.runner.dispatch import execute
from targi_sim.runner.markers import file_sha256
from targi_sim.runner.reading import read_run_info
from targi_sim.runner.sums import SPECS
from tests.damage import KINDS, damage


def run_to(out: Path, games: int = 31, chunk: int = 7, jobs: int = 1, **kw) -> Path:
    """balanced vs random: seat-swapped pairs, so an odd chunk size splits pairs."""
    cfg = RunConfig(games=games, seed=kw.pop("seed", 5), p0="balanced", p1="random",
                    chunk_size=chunk)
    execute(resolve_run(cfg), out, jobs=jobs, **kw)
    return out


def sums_of(out: Path, *, rows: bool = False, recomputed: list | None = None):
    run = read_run_info(out)
    r = rates_from_manifest(run.manifest)
    if rows:
        return summ.row_sums(run, r.goods_vp, r.gold_vp)
    if recomputed is not None:
        original = summ.compute

        def counting(root, chunk, *args, **kw):
            recomputed.append(chunk)
            return original(root, chunk, *args, **kw)

        summ.compute = counting
    try:
        return summ.run_sums(run, r.goods_vp, r.gold_vp)
    finally:
        if recomputed is not None:
            summ.compute = original


def assert_worker_sums_are_the_sql_ones(out: Path) -> None:
    """Every chunk's stored summary (the worker's) equals, exactly, the one the SQL
    reference computes from that chunk's rows (so their files are the same bytes)."""
    run = read_run_info(out)
    r = rates_from_manifest(run.manifest)
    classes = run_classes(run)
    rd = RunDir(out)
    chunks = sorted(int(p.stem.split("-")[1]) for p in run.files["games"])
    assert chunks
    for chunk in chunks:
        assert rd.read_marker(chunk)["summary"]["classes"] == [list(m) for m in
                                                               classes.members]
        stored = pl.read_parquet(rd.summary_path(chunk))
        assert_frame_equal(stored, summ.compute(out, chunk, r.goods_vp, r.gold_vp, classes),
                           check_exact=True)


def assert_same_sums(a, b) -> None:
    for name in SPECS:
        assert_frame_equal(a[name], b[name], check_exact=True)


def assert_same_report(out: Path) -> None:
    """Every table of the report from the summaries equals the raw-row report's."""
    run = read_run_info(out)
    fast, slow = analyse(run), analyse(run, from_rows=True)
    fast_tables = {t.key: t.df for s in fast.sections for t in s.tables}
    slow_tables = {t.key: t.df for s in slow.sections for t in s.tables}
    assert fast_tables.keys() == slow_tables.keys()
    for key, df in fast_tables.items():
        assert_frame_equal(df, slow_tables[key], check_exact=True)
    assert_frame_equal(fast.headline, slow.headline, check_exact=True)


@pytest.fixture(scope="module")
def odd_run(tmp_path_factory) -> Path:
    return run_to(tmp_path_factory.mktemp("odd") / "run")


def test_the_run_writes_a_summary_per_chunk_under_its_marker(odd_run):
    rd = RunDir(odd_run)
    for chunk in range(5):
        entry = rd.read_marker(chunk)["summary"]
        path = rd.summary_path(chunk)
        assert entry["bytes"] == path.stat().st_size
        assert entry["sha256"] == file_sha256(path)


def test_each_marker_records_the_chunks_cpu_and_its_summaries_share(odd_run):
    """The benchmark's in-run measure of the summaries' cost (benchmarks/report.py)."""
    rd = RunDir(odd_run)
    for chunk in range(5):
        marker = rd.read_marker(chunk)
        assert 0 < marker["summary_cpu_seconds"] < marker["cpu_seconds"]


def test_the_workers_summaries_are_the_sql_references(odd_run):
    assert_worker_sums_are_the_sql_ones(odd_run)


def test_batches_that_split_pairs_sum_as_the_sql_does(tmp_path, monkeypatch):
    """A worker sums its log buffer a batch at a time: tiny buffers make pairs straddle
    batches inside a chunk as well as chunks."""
    from targi_sim.runner import chunks

    monkeypatch.setattr(chunks, "LOG_GAMES", 3)
    out = run_to(tmp_path / "run", games=41, chunk=13)
    assert_worker_sums_are_the_sql_ones(out)
    assert_same_sums(sums_of(out), sums_of(out, rows=True))


_NOJIT_CHILD = """
import sys
from pathlib import Path
from targi_sim.runner import sums_kernels
from tests.test_summaries import run_to
assert type(sums_kernels.cards_pass).__name__ == "function", "numba must be off"
run_to(Path(sys.argv[1]), games=23, chunk=9, seed=6)
"""


def test_the_summary_kernels_write_the_same_files_without_numba(tmp_path):
    """NUMBA_DISABLE_JIT=1 (debugging) runs the same kernels as plain Python: their
    bit masks and unsigned indices give the same summaries and digests, byte for byte
    (warnings are errors in the child: numpy warns where integers would wrap)."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, "-W", "error", "-c", _NOJIT_CHILD,
                           str(tmp_path / "plain")], cwd=Path(__file__).parents[1], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run_to(tmp_path / "compiled", games=23, chunk=9, seed=6)
    plain, compiled = RunDir(tmp_path / "plain"), RunDir(tmp_path / "compiled")
    for chunk in range(3):
        for entry in ("summary", "digest"):
            assert plain.read_marker(chunk)[entry] == compiled.read_marker(chunk)[entry]


def test_card_play_swings_outside_the_kernels_histogram_sum_as_the_sql_does(tmp_path,
                                                                           monkeypatch):
    """cards_pass counts the card plays' swings within +-PLAY_SWINGS and lists the rest:
    with a histogram of -1..1, most swings take the listed path, and the two meet."""
    from targi_sim.runner import sums_arrays

    monkeypatch.setattr(sums_arrays, "PLAY_SWINGS", 1)
    out = run_to(tmp_path / "run", games=30, chunk=11)
    assert_worker_sums_are_the_sql_ones(out)
    keys = pl.read_parquet(RunDir(out).summary_path(0)).filter(
        pl.col("table") == "examples")["key"].to_list()
    swings = [k["value"] for k in map(json.loads, keys) if k["section"] == "cards"]
    assert any(abs(v) > 1 for v in swings) and any(abs(v) <= 1 for v in swings)


def test_one_game_per_deal_and_one_strategy_sum_as_the_sql_does(tmp_path):
    cfg = RunConfig(games=23, seed=3, p0="balanced", p1="balanced", chunk_size=9,
                    pairing="one_per_deal")
    out = tmp_path / "run"
    execute(resolve_run(cfg), out, jobs=1)
    assert_worker_sums_are_the_sql_ones(out)
    assert_same_report(out)


def test_card_rows_pool_the_decks_copies_and_other_classes_are_not_kept(tmp_path, odd_run):
    """The base deck prints some cards twice: the summaries' card rows are its classes;
    a report asking for every card alone sums the rows again and keeps nothing."""
    from targi_sim.game.classes import singletons

    run = read_run_info(odd_run)
    classes = run_classes(run)
    assert classes.size < len(classes.of_card)  # the base deck has copies
    ids = summ.run_sums(run, *_rates(run))["tribe_pairs"]["card_id"].to_list()
    assert set(ids) <= set(classes.first().tolist())
    out = tmp_path / "run"
    shutil.copytree(odd_run, out)
    before = [p.read_bytes() for p in sorted((out / "chunks").iterdir())]
    alone = singletons(len(classes.of_card), [str(c) for c in range(len(classes.of_card))])
    said: list[str] = []
    run = read_run_info(out)
    each = summ.run_sums(run, *_rates(run), alone, progress=said.append)
    assert len(said) == 5  # every chunk summed from its rows for these classes
    assert [p.read_bytes() for p in sorted((out / "chunks").iterdir())] == before
    assert_same_sums(each, summ.row_sums(run, *_rates(run), alone))
    assert each["tribe_pairs"].height > len(ids)


def test_a_run_without_summaries_when_turned_off(tmp_path, monkeypatch, odd_run):
    """TARGI_SIM_NO_SUMMARIES (benchmarks): the workers write none; the report sums the
    rows once, as for an old run."""
    monkeypatch.setenv(summ.OFF, "1")
    out = run_to(tmp_path / "run")
    assert not any((out / "summaries").iterdir())
    markers = [json.loads(p.read_text()) for p in (out / "chunks").iterdir()]
    assert all("summary" not in m and "summary_cpu_seconds" not in m for m in markers)
    assert all(m["cpu_seconds"] > 0 for m in markers)
    recomputed: list[int] = []
    assert_same_sums(sums_of(out, recomputed=recomputed), sums_of(odd_run))
    assert recomputed == [0, 1, 2, 3, 4]


def _rates(run) -> tuple[float, float]:
    r = rates_from_manifest(run.manifest)
    return r.goods_vp, r.gold_vp


def test_merged_summaries_equal_the_rows_with_pairs_across_chunks(odd_run):
    recomputed: list[int] = []
    fast = sums_of(odd_run, recomputed=recomputed)
    assert recomputed == []  # every stored summary was used
    assert fast["matchups"]["games"].sum() == 31
    assert_same_sums(fast, sums_of(odd_run, rows=True))


def test_the_report_from_summaries_equals_the_raw_row_report(odd_run):
    assert_same_report(odd_run)


def test_summaries_do_not_depend_on_the_chunking(tmp_path, odd_run):
    other = run_to(tmp_path / "even", chunk=10, jobs=2)
    assert_same_sums(sums_of(other), sums_of(odd_run))


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_summary_is_recomputed_never_used(tmp_path, odd_run, kind):
    out = tmp_path / "run"
    shutil.copytree(odd_run, out)
    rd = RunDir(out)
    path = rd.summary_path(2)
    good = damage(rd, 2, path, "summary", kind, lambda df: df.with_columns(pl.col("value") * 2))
    recomputed: list[int] = []
    assert_same_sums(sums_of(out, recomputed=recomputed), sums_of(odd_run))
    assert recomputed == [2]
    assert path.read_bytes() == good  # written back, and the marker vouches for it again
    assert rd.read_marker(2)["summary"] == RunDir(odd_run).read_marker(2)["summary"]
    recomputed.clear()
    sums_of(out, recomputed=recomputed)
    assert recomputed == []


def test_a_run_without_summaries_reports_and_gains_them(tmp_path, odd_run):
    """An older version's run directory: no summaries, markers without the entry."""
    out = tmp_path / "old"
    shutil.copytree(odd_run, out)
    shutil.rmtree(out / "summaries")
    rd = RunDir(out)
    for chunk in range(5):
        marker = rd.read_marker(chunk)
        del marker["summary"]
        rd.write_marker(chunk, marker)
    recomputed: list[int] = []
    assert_same_sums(sums_of(out, recomputed=recomputed), sums_of(odd_run))
    assert recomputed == [0, 1, 2, 3, 4]
    for chunk in range(5):  # kept under the same rules as the run wrote them
        assert rd.read_marker(chunk) == RunDir(odd_run).read_marker(chunk)
    recomputed.clear()
    assert_same_report(out)
    sums_of(out, recomputed=recomputed)
    assert recomputed == []


def test_a_resumed_run_has_the_same_summaries(tmp_path, odd_run):
    out = run_to(tmp_path / "run")
    rd = RunDir(out)
    rd.marker_path(3).unlink()  # as if killed before chunk 3 was marked complete
    rd.summary_path(3).unlink()
    rd.digest_path(3).unlink()
    run_to(out)
    assert_worker_sums_are_the_sql_ones(out)
    assert_same_sums(sums_of(out), sums_of(odd_run))
    for chunk in range(5):  # and the same game digests (runner/digests.py)
        assert rd.digest_path(chunk).read_bytes() == \
            RunDir(odd_run).digest_path(chunk).read_bytes()
    assert_same_report(out)


def test_a_dask_made_run_has_the_same_summaries(tmp_path, odd_run):
    from tests.dask_cluster import dask_cluster

    with dask_cluster(tmp_path) as address:
        out = run_to(tmp_path / "run", jobs=2, backend="dask", scheduler=address)
    # written by the Dask workers (before any reader could have computed them)
    assert all("summary" in json.loads(p.read_text()) for p in (out / "chunks").iterdir())
    recomputed: list[int] = []
    assert_same_sums(sums_of(out, recomputed=recomputed), sums_of(odd_run))
    assert recomputed == []
    assert_worker_sums_are_the_sql_ones(out)


def test_lead_metrics_from_counts_match_the_definition():
    from targi_sim.report.metrics import lead_metrics

    # game 1: leader p0 then p1, winner 1 -> 1 change, d = 2; game 2: p0 twice, winner 0
    lm = lead_metrics([1 | (2 << 2), 1 | (1 << 2)], [2, 2], [1, 0])
    assert lm["lead_change"] == 0.5 and lm["decisiveness"] == 0.25
    assert lm["decisive_round_mean"] == 1.5 and lm["decided_games"] == 2
    assert math.isnan(lead_metrics([], [], [])["lead_change"])


def test_example_games_picked_from_summaries_equal_a_ranking_of_all_rows(odd_run):
    """The rules (largest swing, largest setback, lower median) applied to every candidate
    row at once pick the same games as the histograms plus one chunk's rows."""
    from targi_sim.report.examples import RULES, choose_examples
    from targi_sim.runner.queries import Analyses
    from targi_sim.runner.sums_sql import candidates_sql

    run = read_run_info(odd_run)
    r = rates_from_manifest(run.manifest)
    expected = []
    with Analyses(run) as a:
        a.script("round_diff")
        for section, rules in RULES.items():
            sql = candidates_sql(section)
            params = {"goods_vp": r.goods_vp, "gold_vp": r.gold_vp} if "$" in sql else None
            rows = a.con.sql(sql, params=params).pl()
            keys = ["game_id", "round", "player", "subject"]
            low = rows.sort("value", *keys)
            high = rows.sort(["value", *keys], descending=[True, False, False, False, False])
            for _rule, end, rank in rules:
                at = rank if rank is not None else (rows.height + 1) // 2
                row = (low if end == "low" else high).row(at - 1, named=True)
                expected.append((section, row["game_id"], row["round"], row["subject"],
                                 row["value"]))
    got = [(e.section, e.game_id, e.round, e.subject, e.value)
           for e in choose_examples(run)]
    assert got == expected


def test_a_summary_valued_at_other_vp_rates_is_recomputed(tmp_path, odd_run):
    """The raid swings depend on the VP rates: a summary made with others is not used."""
    out = tmp_path / "run"
    shutil.copytree(odd_run, out)
    run = read_run_info(out)
    r = rates_from_manifest(run.manifest)
    said: list[str] = []
    summ.run_sums(run, r.goods_vp * 2, r.gold_vp, save=False, progress=said.append)
    assert len(said) == 5 and "chunk 1 of 5" in said[0]
    recomputed: list[int] = []
    sums_of(out, recomputed=recomputed)  # save=False left the stored ones alone
    assert recomputed == []
