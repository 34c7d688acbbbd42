"""targi_sim.open_run / targi_sim.run: a run directory read as the report reads it.

Why: an analyst who globs a run's Parquet gets a stopped run's 200,000 games as if
they were the 400,000 asked for, reads truncated or stray files, and reads a folder
named `runs/q?` as a pattern. open_run reads exactly the files the completion markers
vouch for, refuses an incomplete run in one line (unless allow_incomplete, which
says how many games are there), and its SQL and Polars views agree.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

import targi_sim
from targi_sim import IncompleteRunWarning, ReportError, Run, open_run
from targi_sim.runner import RunDir
from targi_sim.runner.markers import file_sha256
from targi_sim.runner.tables import TABLES

GAMES, CHUNK = 40, 10  # four chunks: games 0..9, 10..19, 20..29, 30..39


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("made") / "run"
    r = targi_sim.run(games=GAMES, seed=3, out=out, jobs=1, chunk_size=CHUNK)
    r.close()
    return out


@pytest.fixture
def copy(made, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def copy(to: str = "r") -> Path:
        shutil.copytree(made, to)
        return Path(to)
    return copy


def count(run: Run, table: str) -> tuple[int, int]:
    """(rows by SQL, rows by Polars) of a table."""
    by_sql = run.sql(f"SELECT count(*) FROM {table}").fetchall()[0][0]
    by_polars = run.table(table).select(pl.len()).collect().item()
    return by_sql, by_polars


def game_ids(run: Run) -> set[int]:
    return set(run.table("games").select("game_id").collect()["game_id"].to_list())


def one_line_refusal(path, *needles: str) -> str:
    with pytest.raises(ReportError) as info:
        open_run(path)
    message = str(info.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message, (needle, message)
    return message


def test_a_complete_run_opens_and_sql_and_polars_agree(copy):
    path = copy()
    manifest = json.loads((path / "manifest.json").read_text())
    with open_run(path) as run:
        assert isinstance(run, Run)
        assert run.complete and run.games == GAMES
        assert run.path == path and run.manifest == manifest
        for table in TABLES:
            assert count(run, table) == (manifest["counts"]["rows"][table],) * 2, table
        assert count(run, "cards")[0] == count(run, "cards")[1] > 0
        # the analyses/views.sql views are there: one player_games row per game and seat
        assert run.sql("SELECT count(*) FROM player_games").fetchall()[0][0] == 2 * GAMES
        assert game_ids(run) == set(range(GAMES))
        # the same answer to a real question both ways
        sql_wins = run.sql("SELECT winner, count(*) AS n FROM games GROUP BY winner "
                           "ORDER BY winner").pl()
        pl_wins = (run.table("games").group_by("winner").agg(n=pl.len()).sort("winner")
                   .collect())
        assert sql_wins["n"].to_list() == pl_wins["n"].to_list()


def test_the_run_reads_the_same_files_after_a_chdir(copy, tmp_path, monkeypatch):
    path = copy()
    run = open_run(path)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert count(run, "games") == (GAMES, GAMES)
    run.close()


@pytest.mark.parametrize("damage", ["marker", "part", "truncated"])
def test_an_incomplete_run_is_refused_then_read_with_allow_incomplete(copy, damage):
    path = copy()
    rd = RunDir(path)
    part = rd.table_path("rounds", 2)
    if damage == "marker":
        rd.marker_path(2).unlink()
        why = "no completion marker"
    elif damage == "part":
        part.unlink()
        why = "rounds/part-000002.parquet is missing"
    else:
        part.write_bytes(part.read_bytes()[:-100])
        why = "rounds/part-000002.parquet has"
    message = one_line_refusal(path, "chunk 2 (games 20..29)", why, "allow_incomplete=True")
    # the same words as the report (the report stops before reading anything)
    with pytest.raises(ReportError) as report:
        targi_sim.build_report(path)
    assert message.startswith(str(report.value))

    with pytest.warns(IncompleteRunWarning, match=r"reading the 30 of 40 games") as caught:
        run = open_run(path, allow_incomplete=True)
    assert "chunk 2" in str(caught[0].message)
    with run:
        assert not run.complete and run.games == 30
        assert game_ids(run) == set(range(GAMES)) - set(range(20, 30))
        assert count(run, "games") == (30, 30)
        # the damaged chunk's other tables are left out too: every table, the same games
        for table in TABLES:
            ids = run.sql(f"SELECT DISTINCT game_id FROM {table}").pl()["game_id"]
            assert not ids.is_between(20, 29).any(), table
            assert (run.table(table).filter(pl.col("game_id").is_between(20, 29))
                    .select(pl.len()).collect().item() == 0), table


def test_a_run_stopped_early_is_refused_as_the_report_refuses_it(copy):
    """What SIGTERM leaves: status incomplete, the last chunks without markers."""
    path = copy()
    rd = RunDir(path)
    manifest = json.loads(rd.manifest_path.read_text())
    manifest["status"] = "incomplete"
    rd.manifest_path.write_text(json.dumps(manifest))
    for chunk in (2, 3):
        rd.marker_path(chunk).unlink()
    one_line_refusal(path, "is incomplete, not complete", "rerun the same `targi-sim run`")
    with pytest.warns(IncompleteRunWarning, match=r"reading the 20 of 40 games"):
        run = open_run(path, allow_incomplete=True)
    assert (run.games, run.complete, count(run, "games")) == (20, False, (20, 20))
    run.close()


def test_a_run_with_no_complete_chunk_is_refused_even_with_allow_incomplete(copy):
    path = copy()
    for chunk in range(GAMES // CHUNK):
        RunDir(path).marker_path(chunk).unlink()
    with pytest.raises(ReportError, match="none of its 40 games"):
        open_run(path, allow_incomplete=True)


def test_a_tampered_cards_file_is_refused_even_with_allow_incomplete(copy):
    path = copy()
    cards = path / "cards.parquet"
    cards.write_bytes(cards.read_bytes()[:-10])
    RunDir(path).marker_path(0).unlink()
    with pytest.raises(ReportError, match="cards.parquet does not match"):
        open_run(path, allow_incomplete=True)


def test_a_stray_part_file_is_never_read(copy):
    path = copy()
    shutil.copy(path / "games" / "part-000000.parquet", path / "games" / "part-000099.parquet")
    with open_run(path) as run:
        assert count(run, "games") == (GAMES, GAMES)


@pytest.mark.parametrize("folder", ["q?", "seed=7", "deck[v2]", "a*b", "it's"])
def test_a_run_path_is_data_never_a_pattern(copy, folder):
    """`runs/q?` must not also read `runs/qx`; `seed=7` must not replace the seed column."""
    path = copy(f"runs/{folder}")
    decoy = Path("runs") / "qx"
    shutil.copytree(path, decoy)  # another run that a pattern would also match
    shutil.copytree(path, Path("runs") / "seed=7x")
    with open(path / "games" / "part-000000.parquet", "rb") as f:  # a path would be a glob
        seeds = pl.read_parquet(f)["seed"].to_list()
    with open_run(path) as run:
        assert count(run, "games") == (GAMES, GAMES)
        first = run.sql("SELECT seed FROM games WHERE game_id < 10 ORDER BY game_id").pl()
        assert first["seed"].to_list() == seeds
        polars_first = (run.table("games").filter(pl.col("game_id") < 10).sort("game_id")
                        .collect())
        assert polars_first["seed"].to_list() == seeds
        assert "seed" in polars_first.columns and polars_first["seed"].dtype == pl.Int64


def test_an_older_run_without_added_columns_reads_them_as_the_report_does(copy):
    """raids.gold was added later: both readers derive it from `paid` and `amount`."""
    path = copy()
    rd = RunDir(path)
    for chunk in range(GAMES // CHUNK):  # rewrite the raids parts as an older run had them
        part = rd.table_path("raids", chunk)
        pq.write_table(pq.read_table(part).drop_columns(["gold"]), part)
        marker = rd.read_marker(chunk)
        marker["bytes"]["raids"] = part.stat().st_size
        marker["sha256"]["raids"] = file_sha256(part)
        rd.write_marker(chunk, marker)
    with open_run(path) as run:
        by_sql = run.sql("SELECT sum(gold) FROM raids").fetchall()[0][0]
        by_polars = run.table("raids").select(pl.col("gold").sum()).collect().item()
        expected = run.sql("SELECT sum(CASE WHEN paid = 'gold' THEN amount ELSE 0 END) "
                           "FROM raids").fetchall()[0][0]
        assert by_sql == by_polars == expected


def test_misuse_is_one_line(copy, tmp_path):
    path = copy()
    run = open_run(path)
    with pytest.raises(ReportError, match="no table 'game'; its tables are games"):
        run.table("game")
    run.close()
    with pytest.raises(ReportError, match="is closed"):
        run.sql("SELECT 1")
    with pytest.raises(ReportError, match="does not exist"):
        open_run(tmp_path / "nowhere")
    with pytest.raises(ReportError, match="no manifest.json"):
        open_run(tmp_path)


def test_run_resumes_and_checks_its_options(made, tmp_path):
    out = tmp_path / "again"
    shutil.copytree(made, out)
    before = {p: p.stat().st_mtime_ns for p in out.glob("*/part-*.parquet")}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = targi_sim.run(games=GAMES, seed=3, out=out, jobs=1, chunk_size=CHUNK)
    assert run.games == GAMES and run.complete
    assert {p: p.stat().st_mtime_ns for p in out.glob("*/part-*.parquet")} == before
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["command"] == [f"targi_sim.run(games=40, p0='balanced', p1='balanced', "
                                   f"deck='base', rules='default', seed=3, out={str(out)!r}, "
                                   "chunk_size=10)"]
    run.close()
    with pytest.raises(TypeError, match="unknown option.*chunksize"):
        targi_sim.run(games=GAMES, out=out, chunksize=10)
    with pytest.raises(TypeError):
        targi_sim.run(games=1e3, out=out)


def test_the_api_is_exported_in_the_analysis_group():
    from targi_sim import _GROUPS
    from targi_sim.runner import run as module

    for name in ("open_run", "run", "Run", "IncompleteRunWarning"):
        assert _GROUPS["analysis"][name] == "targi_sim.runner.run"
        assert getattr(targi_sim, name) is getattr(module, name)
