"""Run directories are untrusted input, and paths are data (issue 13, items 1, 2, 4, 8).

A run directory may come from someone else or be damaged: its manifest is checked
like a deck file, names in it are never paths, readers read only the files the
completion markers vouch for (sizes and sha256), and a folder name is never read as
a glob pattern, a hive partition or rich markup. Each test reproduces one finding.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

import polars as pl
import pytest
from cli_helpers import one_error_line, parquet_files
from typer.testing import CliRunner

from targi_sim.cli.app import app
from targi_sim.report import read_run_info
from targi_sim.runner import RunDir
from targi_sim.runner.config import config_digest
from targi_sim.runner.queries import Analyses

runner = CliRunner()


@pytest.fixture(autouse=True)
def _in_tmp_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def invoke(*args: str):
    return runner.invoke(app, list(args))


def run(out: str, games: int = 20, *extra: str) -> None:
    result = invoke("run", "-n", str(games), "--out", out, "--jobs", "1", "--quiet", *extra)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def made_runs(tmp_path_factory) -> dict[str, Path]:
    """Runs made once per module and copied by each test (`copy_run`)."""
    folder = tmp_path_factory.mktemp("made")
    out = {}
    for name, args in (("small", ("-n", "10")), ("chunked", ("-n", "40", "--chunk-size", "10"))):
        result = invoke("run", *args, "--out", str(folder / name), "--jobs", "1", "--quiet")
        assert result.exit_code == 0, result.output
        out[name] = folder / name
    return out


@pytest.fixture
def copy_run(made_runs):
    def copy(name: str, to: str = "r") -> dict[str, bytes]:
        shutil.copytree(made_runs[name], to)
        return parquet_files(Path(to))
    return copy


def manifest_of(out: str) -> dict:
    return json.loads(Path(out, "manifest.json").read_text(encoding="utf-8"))


def save(out: str, manifest: dict) -> None:
    Path(out, "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def games_in_report(out: str) -> int:
    with open(Path(out, "report", "tables", "viability.parquet"), "rb") as f:
        overview = pl.read_parquet(f)
    return int(overview.filter(pl.col("metric") == "Completion")["n"][0])


# ------------------------------------------------------------------ item 1


@pytest.mark.parametrize("name", ["../../PWNED", "ABSOLUTE"])
def test_replay_never_writes_a_file_named_by_the_manifest(tmp_path, monkeypatch, name,
                                                         copy_run):
    """strategies[0].name used to be the file name replay wrote the stored strategy
    under, so `../../PWNED` or an absolute path wrote outside its temporary folder."""
    scratch = tmp_path / "scratch" / "deeper"
    scratch.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    if name == "ABSOLUTE":
        name = str(tmp_path / "PWNED")
    copy_run("small")
    m = manifest_of("r")
    m["strategies"][0]["name"] = name
    m["strategies"][0]["content"] = "x"
    save("r", m)
    one_error_line(invoke("replay", "r", "--game", "0"), "manifest.json", "strategies[0]")
    # the same edit made consistently (config and its hash too): the name is displayed only
    m["config"]["strategies"][0]["name"] = name
    m["config_hash"] = config_digest(m["config"])
    save("r", m)
    one_error_line(invoke("replay", "r", "--game", "0"), "manifest.json", "strategies[0]")
    assert not list(tmp_path.rglob("PWNED*")), list(tmp_path.rglob("PWNED*"))


def test_a_consistently_renamed_strategy_is_only_displayed(tmp_path, monkeypatch, copy_run):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "scratch"))
    (tmp_path / "scratch").mkdir()
    copy_run("small")
    m = manifest_of("r")
    m["strategies"][0]["name"] = m["config"]["strategies"][0]["name"] = "../../PWNED"
    m["config_hash"] = config_digest(m["config"])
    save("r", m)
    marker_path = RunDir(Path("r")).marker_path(0)
    marker = json.loads(marker_path.read_text())
    marker["config_hash"] = m["config_hash"]  # a thorough edit: the markers follow
    marker_path.write_text(json.dumps(marker))
    result = invoke("replay", "r", "--game", "0")
    assert "Traceback" not in result.output
    assert result.exit_code == 1, result.output  # the logged name differs: not a match
    assert "games.p0_strategy" in result.output
    assert not list(tmp_path.rglob("PWNED*"))


def _drop(key):
    def edit(m):
        del m[key]
    return edit


def _set(path, value):
    def edit(m):
        target = m
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


MANIFEST_FAULTS = {
    "no config": (_drop("config"), "'config'"),
    "chunk size 0": (_set(("config", "chunk_size"), 0), "'config.chunk_size'"),
    "games as text": (_set(("config", "games"), "many"), "'config.games'"),
    "games as a bool": (_set(("config", "games"), True), "'config.games'"),
    "a third seat": (_set(("strategies",), [{}, {}, {}]), "'strategies'"),
    "edited deck text": (_set(("deck", "content"), "name = 'x'\n"), "'deck.content'"),
    "edited config": (_set(("config", "seed"), 5), "'config_hash'"),
    "unknown status": (_set(("status",), "finished"), "'status'"),
    "not an object": (lambda m: m.clear() or m.update({"x": 1}), "manifest.json"),
}


@pytest.mark.parametrize("fault", list(MANIFEST_FAULTS))
@pytest.mark.parametrize("command", ["replay", "report", "compare", "run"])
def test_a_bad_manifest_is_one_error_line(fault, command, copy_run):
    """`replay` on a manifest with chunk_size 0 or without config used to end in a
    ZeroDivisionError or KeyError traceback; every reader now checks the manifest."""
    copy_run("small")
    edit, field = MANIFEST_FAULTS[fault]
    m = manifest_of("r")
    edit(m)
    save("r", m)
    args = {"replay": ("replay", "r", "--game", "0"), "report": ("report", "r", "--quiet"),
            "compare": ("compare", "r", "r", "--quiet"),
            "run": ("run", "-n", "10", "--out", "r", "--jobs", "1", "--quiet")}[command]
    line = one_error_line(invoke(*args), "manifest.json", field)
    if command == "run":
        assert "--force" in line


def test_a_manifest_that_is_not_json_is_one_error_line(copy_run):
    copy_run("small")
    Path("r", "manifest.json").write_text("{ not json", encoding="utf-8")
    one_error_line(invoke("replay", "r", "--game", "0"), "manifest.json", "cannot be read")
    one_error_line(invoke("report", "r", "--quiet"), "manifest.json", "cannot be read")


# ------------------------------------------------------------------ item 2


def test_a_question_mark_in_the_run_path_reads_only_that_run():
    """After a run into runs/qX, `run --games 20 --out 'runs/q?'` used to count 2,020
    games (its summary and report read runs/qX's files too)."""
    run("runs/qX", 40)
    result = invoke("run", "-n", "20", "--out", "runs/q?", "--jobs", "1", "--quiet")
    assert result.exit_code == 0, result.output
    # every count of games it prints is 20 (a rate, "360 games/s", is not a count)
    counts = re.findall(r"(?<![\d,.])([\d,]+) games(?!/s)", result.output)
    assert "20 games in" in result.output and counts and set(counts) == {"20"}, counts
    assert invoke("report", "runs/q?", "--quiet").exit_code == 0
    assert games_in_report("runs/q?") == 20


@pytest.mark.parametrize("folder", ["deck[v2]", "a*b", "it's", "seed=7"])
def test_glob_quote_and_hive_characters_in_a_run_path_are_data(folder):
    """`--out 'runs/deck[v2]'` used to end in a polars ComputeError after writing a
    complete run, and report / replay crashed on it; DuckDB took `seed=7` for a hive
    partition and replaced every game's seed with 7."""
    out = f"runs/{folder}"
    result = invoke("run", "-n", "20", "--out", out, "--jobs", "1", "--quiet")
    assert result.exit_code == 0, result.output
    assert f"Run directory: {out}" in result.output  # not eaten as rich markup
    assert invoke("report", out, "--quiet").exit_code == 0
    assert games_in_report(out) == 20
    replay = invoke("replay", out, "--game", "3")
    assert replay.exit_code == 0 and "Replay matches" in replay.output, replay.output
    with open(Path(out, "games", "part-000000.parquet"), "rb") as f:
        seeds = pl.read_parquet(f)["seed"]
    with Analyses(read_run_info(out)) as a:
        viewed = a.con.sql("SELECT seed FROM games ORDER BY game_id").fetchall()
    assert [s for (s,) in viewed] == seeds.to_list()


def test_markup_in_names_is_printed_as_text(tmp_path):
    """A strategy named `[/bold]` used to be rich markup (a MarkupError traceback)."""
    strategy = tmp_path / "odd.toml"
    strategy.write_text('name = "[/bold]odd[x]"\nkind = "random"\n', encoding="utf-8")
    result = invoke("run", "-n", "20", "--p0", str(strategy), "--out", "r", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert "[/bold]odd[x] (seat 0)" in result.output
    replay = invoke("replay", "r", "--game", "1")
    assert replay.exit_code == 0 and "[/bold]odd[x]" in replay.output, replay.output


# ------------------------------------------------------------------ item 4


def test_a_deleted_part_file_is_found_and_replayed(copy_run):
    """Deleting one part file of a complete run: `report` used to count the other
    chunks' games with exit 0, and rerunning `run` said the run was complete."""
    before = copy_run("chunked")
    RunDir(Path("r")).table_path("games", 1).unlink()
    one_error_line(invoke("report", "r", "--quiet"), "chunk 1", "games/part-000001.parquet",
                   "missing", "rerun")
    one_error_line(invoke("compare", "r", "r", "--quiet"), "chunk 1")
    again = invoke("run", "-n", "40", "--chunk-size", "10", "--out", "r", "--jobs", "1",
                   "--quiet")
    assert again.exit_code == 0, again.output
    assert "Replayed chunk 1 (games 10..19): games/part-000001.parquet is missing" \
        in again.output
    assert "Resumed: 3 of 4 chunks" in again.output
    assert parquet_files(Path("r")) == before
    assert invoke("report", "r", "--quiet").exit_code == 0
    assert games_in_report("r") == 40


def test_a_stray_part_file_is_never_counted(copy_run):
    """A part file copied into the run used to be counted (40,020 games)."""
    copy_run("chunked")
    run("other", 20)
    for table in ("games", "rounds", "acquisitions", "offers", "raids", "goods"):
        shutil.copy(Path("other", table, "part-000000.parquet"),
                    Path("r", table, "part-000099.parquet"))
    again = invoke("run", "-n", "40", "--chunk-size", "10", "--out", "r", "--jobs", "1",
                   "--quiet")
    assert again.exit_code == 0 and "40 games in" in again.output, again.output
    assert invoke("report", "r", "--quiet").exit_code == 0
    assert games_in_report("r") == 40


@pytest.mark.parametrize("damage", ["garbage", "truncated", "same size"])
def test_a_damaged_part_file_is_refused_by_readers_and_replayed_by_run(damage, copy_run):
    """A garbage part used to end report / compare in a traceback while resume said
    "complete" and kept it; a truncated part ended replay in a traceback."""
    before = copy_run("chunked")
    part = RunDir(Path("r")).table_path("rounds", 2)
    data = part.read_bytes()
    if damage == "garbage":
        part.write_bytes(b"not parquet at all")
    elif damage == "truncated":
        part.write_bytes(data[: len(data) // 2])
    else:  # one byte changed in the middle: only the checksum can tell
        middle = len(data) // 2
        part.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:])
    reason = "sha256" if damage == "same size" else "bytes"
    one_error_line(invoke("report", "r", "--quiet"), "chunk 2", "rounds/part-000002.parquet",
                   reason)
    one_error_line(invoke("compare", "r", "r", "--quiet"), "chunk 2")
    one_error_line(invoke("replay", "r", "--game", "25"), "chunk 2", reason)
    assert invoke("replay", "r", "--game", "5").exit_code == 0  # other chunks still replay
    again = invoke("run", "-n", "40", "--chunk-size", "10", "--out", "r", "--jobs", "1",
                   "--quiet")
    assert again.exit_code == 0 and "Replayed chunk 2" in again.output, again.output
    assert parquet_files(Path("r")) == before


def test_a_damaged_marker_or_cards_file_is_caught(copy_run):
    copy_run("chunked")
    rd = RunDir(Path("r"))
    marker = json.loads(rd.marker_path(3).read_text())
    marker["games"] = 999
    rd.marker_path(3).write_text(json.dumps(marker))
    one_error_line(invoke("report", "r", "--quiet"), "chunk 3", "marker")
    again = invoke("run", "-n", "40", "--chunk-size", "10", "--out", "r", "--jobs", "1",
                   "--quiet")
    assert again.exit_code == 0 and "Replayed chunk 3" in again.output, again.output
    rd.cards_path.write_bytes(b"junk")
    one_error_line(invoke("report", "r", "--quiet"), "cards.parquet")
    assert invoke("run", "-n", "40", "--chunk-size", "10", "--out", "r", "--jobs", "1",
                  "--quiet").exit_code == 0
    assert invoke("report", "r", "--quiet").exit_code == 0
