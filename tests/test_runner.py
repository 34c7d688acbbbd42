"""Run directories: tables equal the API's games, determinism over jobs and chunking,
resume, refusal, the manifest, and the data-model documentation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from cli_helpers import parquet_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from targi_sim import play_games
from targi_sim.runner import RunConfig, RunDir, resolve_run
from targi_sim.runner.dispatch import execute
from targi_sim.runner.tables import SCHEMAS, TABLES

ROOT = Path(__file__).resolve().parent.parent


def run_to(out: Path, games: int = 30, chunk: int = 7, jobs: int = 1, **kw):
    cfg = RunConfig(games=games, seed=kw.pop("seed", 11), p0=kw.pop("p0", "balanced"),
                    p1=kw.pop("p1", "random"), chunk_size=chunk, **kw)
    return execute(resolve_run(cfg), out, jobs=jobs)


def read(out: Path, table: str) -> pl.DataFrame:
    return pl.read_parquet(out / table / "*.parquet")


def test_tables_hold_exactly_the_api_games(tmp_path):
    out = tmp_path / "run"
    outcome = run_to(out, games=30, chunk=7)
    assert outcome.chunks_total == 5 and outcome.games_played == 30
    assert outcome.manifest["status"] == "complete"
    assert sorted(p.name for p in (out / "games").iterdir()) == \
        [f"part-{k:06d}.parquet" for k in range(5)]

    api = play_games(30, seed=11, strategies=("balanced", "random"))
    games = read(out, "games")
    assert games["game_id"].to_list() == list(range(30))
    assert games["pair_id"].to_list() == [g // 2 for g in range(30)]
    assert games["first_player"].to_list() == [g % 2 for g in range(30)]
    assert games["seed"].to_list() == api.games["seed"].to_list()
    assert set(games["p0_strategy"]) == {"balanced"} and set(games["p1_strategy"]) == {"random"}
    for col in ("winner", "score_p0", "score_p1", "rounds", "end_reason", "tiebreak",
                "tokens_p0", "row_bonus_p1", "gold_p0", "goods_p1"):
        assert games[col].cast(api.games[col].dtype).to_list() == api.games[col].to_list(), col
    for name in TABLES[1:]:
        mine = read(out, name)
        ref = api.tables[name]
        assert mine.height == ref.height, name
        for col in ref.columns:
            assert mine[col].cast(ref[col].dtype).to_list() == ref[col].to_list(), (name, col)


def test_acquisition_symbols_and_cards_table(tmp_path):
    out = tmp_path / "run"
    run_to(out, games=20, chunk=20)
    cards = pl.read_parquet(out / "cards.parquet")
    assert cards.filter(pl.col("card_type") == "border").height == 16
    assert cards.filter(pl.col("card_type") == "tribe").height == 45
    assert cards.filter(pl.col("card_type") == "goods").height == 19
    tribe = cards.filter(pl.col("card_type") == "tribe").select("card_id", "symbol")
    acq = read(out, "acquisitions").join(tribe, on="card_id", suffix="_card")
    assert acq.height > 0
    assert (acq["symbol"] == acq["symbol_card"]).all()
    goods = read(out, "goods")
    assert goods.height > 0 and set(goods["source"]) <= {"centre", "border"}


def test_results_do_not_depend_on_jobs_or_chunk_size(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    run_to(a, games=40, chunk=10, jobs=1)
    run_to(b, games=40, chunk=10, jobs=2)
    run_to(c, games=40, chunk=7, jobs=2)
    assert parquet_files(a) == parquet_files(b)  # same chunking: byte-identical files
    for name in TABLES:
        left = read(a, name)
        right = read(c, name)
        assert left.equals(right), name  # other chunking: the same rows in the same order


def test_rerun_resumes_only_missing_chunks(tmp_path):
    out = tmp_path / "run"
    run_to(out, games=30, chunk=7)
    before = parquet_files(out)
    rd = RunDir(out)
    rd.marker_path(2).unlink()  # as if killed before chunk 2 was marked complete
    rd.table_path("raids", 2).unlink()
    (out / "rounds" / ".part-000002.parquet.999.tmp").write_bytes(b"half a file")
    done: list[int] = []
    cfg = RunConfig(games=30, seed=11, p0="balanced", p1="random", chunk_size=7)
    outcome = execute(resolve_run(cfg), out, progress=done.append)
    assert outcome.chunks_skipped == 4 and outcome.games_played == 7
    assert sum(done) == 30
    assert parquet_files(out) == before
    assert not list(out.rglob("*.tmp"))


def test_a_different_configuration_is_refused_unless_forced(tmp_path):
    from targi_sim import InputError

    out = tmp_path / "run"
    run_to(out, games=20, chunk=10)
    with pytest.raises(InputError, match="different run.*games 20 -> 30.*`force`"):
        run_to(out, games=30, chunk=10)
    with pytest.raises(InputError, match="seed"):
        run_to(out, games=20, chunk=10, seed=12)
    cfg = RunConfig(games=30, seed=11, p0="balanced", p1="random", chunk_size=10)
    outcome = execute(resolve_run(cfg), out, force=True)
    assert outcome.manifest["config"]["games"] == 30
    assert read(out, "games").height == 30


def test_a_run_grows_into_the_run_of_more_games(tmp_path):
    """execute(grow=True): the same run with more games keeps the complete chunks (a
    partial last chunk is played again) and ends byte-identical to a fresh run; fewer
    games, or any other difference, is still refused."""
    from targi_sim import InputError

    def cfg(games: int, seed: int = 11):
        return resolve_run(RunConfig(games=games, seed=seed, p0="balanced", p1="random",
                                     chunk_size=10))

    grown = tmp_path / "grown"
    execute(cfg(25), grown)
    outcome = execute(cfg(42), grown, grow=True)
    assert outcome.chunks_skipped == 2 and outcome.games_played == 22  # 0-9, 10-19 kept
    assert outcome.manifest["config"]["games"] == 42
    execute(cfg(42), tmp_path / "fresh")
    assert parquet_files(grown) == parquet_files(tmp_path / "fresh")
    assert read(grown, "games").height == 42
    with pytest.raises(InputError, match="games 42 -> 30"):
        execute(cfg(30), grown, grow=True)
    with pytest.raises(InputError, match="seed"):
        execute(cfg(50, seed=12), grown, grow=True)


def test_a_folder_with_other_files_is_never_overwritten(tmp_path):
    from targi_sim import InputError

    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    cfg = RunConfig(games=4, seed=1, p0="random", p1="random")
    with pytest.raises(InputError, match="not a targi-sim run"):
        execute(resolve_run(cfg), out, force=True)
    assert (out / "thesis.tex").read_text() == "precious"


def test_manifest_describes_the_run(tmp_path):
    out = tmp_path / "run"
    outcome = run_to(out, games=30, chunk=7)
    m = json.loads((out / "manifest.json").read_text())
    assert m == outcome.manifest
    assert m["tool"] == "targi-sim" and m["version"]
    assert m["status"] == "complete" and m["chunks"] == 5
    assert m["config"]["games"] == 30 and m["config"]["seed"] == 11
    assert m["config"]["chunk_size"] == 7
    assert m["config"]["pairing"] == "seat_swapped"  # balanced vs random: pairs can differ
    base = (ROOT / "data" / "decks" / "base.toml").read_text(encoding="utf-8")
    assert m["deck"]["content"] == base and len(m["deck"]["sha256"]) == 64
    assert m["rules"]["content"] and m["rules"]["name"] == "default"
    assert [s["name"] for s in m["strategies"]] == ["balanced", "random"]
    assert 'kind = "heuristic"' in m["strategies"][0]["content"]
    rows = {name: read(out, name).height for name in TABLES}
    assert m["counts"]["rows"] == rows and m["counts"]["games"] == 30
    assert m["counts"]["bytes"] == RunDir(out).bytes_written() > 0
    assert m["timings"]["games_played"] == 30 and m["timings"]["finished"]
    markers = [RunDir(out).read_marker(k) for k in range(5)]
    assert [mk["games"] for mk in markers] == [7, 7, 7, 7, 2]
    assert all(mk["config_hash"] == m["config_hash"] for mk in markers)


def test_unpaired_runs(tmp_path):
    out = tmp_path / "run"
    """--unpaired: one game per deal, the round-1 first player alternating."""
    run_to(out, games=6, chunk=6, paired=False, p0="random")
    games = read(out, "games")
    assert games["pair_id"].to_list() == list(range(6))
    assert games["first_player"].to_list() == [0, 1] * 3
    assert games["seed"].n_unique() == 6
    assert json.loads((out / "manifest.json").read_text())["config"]["pairing"] == \
        "one_per_deal"


def test_every_column_is_documented():
    doc = (ROOT / "docs" / "data-model.md").read_text(encoding="utf-8")
    for name, schema in SCHEMAS.items():
        section = doc.split(f"## `{name}`", 1)[1].split("\n## ", 1)[0]
        for field in schema.names:
            base = re.sub(r"_(p[01]|[123])$", "", field)
            assert re.search(rf"\b{re.escape(field)}\b|\b{re.escape(base)}", section), \
                (name, field)


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(games=st.integers(1, 24), chunk=st.integers(1, 30), seed=st.integers(0, 2**31 - 1))
def test_any_chunking_gives_the_same_rows(tmp_path, games, chunk, seed):
    """Property: for any game count, chunk size and seed, the run's tables hold the
    same rows as one chunk holding every game."""
    import shutil

    a, b = tmp_path / f"a{games}-{chunk}-{seed}", tmp_path / f"b{games}-{chunk}-{seed}"
    run_to(a, games=games, chunk=chunk, seed=seed, p0="random")
    run_to(b, games=games, chunk=games, seed=seed, p0="random")
    for name in TABLES:
        assert read(a, name).equals(read(b, name)), name
    assert read(a, "games")["game_id"].to_list() == list(range(games))
    shutil.rmtree(a)
    shutil.rmtree(b)
