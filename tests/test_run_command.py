"""`targi-sim run` and `targi-sim replay` end to end: bad input, a full disk, a real
kill and resume, replaying logged games, and a real Dask cluster."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from cli_helpers import one_error_line as usage_error
from cli_helpers import parquet_files
from typer.testing import CliRunner

from targi_sim.cli.app import app
from targi_sim.runner import RunDir
from targi_sim.runner.replay import logged_differences, logged_rows, replay_logged_game

runner = CliRunner()


@pytest.fixture(autouse=True)
def _in_tmp_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def invoke(*args: str):
    return runner.invoke(app, list(args))


def _exe() -> str:
    found = shutil.which("targi-sim", path=str(Path(sys.executable).parent))
    assert found, "the targi-sim console script is not installed"
    return found


# ------------------------------------------------------------------ the command


def test_run_writes_a_run_directory_and_a_one_line_summary():
    result = invoke("run", "--games", "1_000", "--p0", "greedy", "--p1", "random",
                    "--chunk-size", "300", "--jobs", "1", "--quiet")
    assert result.exit_code == 0, result.output
    out = Path("runs/greedy-vs-random-1000-seed0")
    assert RunDir(out).read_manifest()["status"] == "complete"
    assert pl.read_parquet(out / "games" / "*.parquet").height == 1000
    line = next(x for x in result.output.splitlines() if x.startswith("1,000 games in"))
    for needle in ("games/s", "B/game", "first player", "greedy (seat 0)", "random (seat 1)"):
        assert needle in line, needle
    again = invoke("run", "--games", "1e3", "--p0", "greedy", "--p1", "random",
                   "--chunk-size", "300", "--quiet")
    assert again.exit_code == 0, again.output
    assert "Resumed: 4 of 4 chunks were already complete" in again.output


@pytest.mark.parametrize("value", ["0", "-5", "abc", "1.5"])
def test_bad_games_exit_2(value):
    usage_error(invoke("run", "--games", value), "--games", repr(value))
    assert not Path("runs").exists()


@pytest.mark.parametrize(("option", "value", "needle"), [
    ("--chunk-size", "0", "--chunk-size"),
    ("--jobs", "two", "--jobs"),
    ("--backend", "spark", "loky, dask"),
    ("--p0", "no-such-strategy", "balanced"),
    ("--deck", "no-such-deck", "base"),
    ("--rules", "no-such-rules", "default"),
])
def test_bad_options_exit_2(option, value, needle):
    usage_error(invoke("run", "--games", "10", option, value), needle)


def test_scheduler_without_dask_backend_exits_2():
    usage_error(invoke("run", "--games", "10", "--scheduler", "tcp://127.0.0.1:1"),
                "--backend dask")


def test_unwritable_output_exits_2(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    usage_error(invoke("run", "--games", "10", "--out", str(blocker / "run")),
                "cannot write to output folder")
    usage_error(invoke("run", "--games", "10", "--out", str(blocker)), "not a folder")


def test_a_different_run_into_the_same_folder_is_refused(tmp_path):
    assert invoke("run", "-n", "20", "--out", "r", "--quiet").exit_code == 0
    usage_error(invoke("run", "-n", "40", "--out", "r", "--quiet"), "--force", "games 20 -> 40")
    forced = invoke("run", "-n", "40", "--out", "r", "--quiet", "--force")
    assert forced.exit_code == 0, forced.output
    assert pl.read_parquet("r/games/*.parquet").height == 40


def test_full_disk_exits_2_keeps_completed_chunks_and_resumes(monkeypatch):
    """The third chunk's last file hits ENOSPC: clear message, no half file, resumable."""
    from targi_sim.runner import chunks

    real_open = chunks.open_writer

    def failing_open(path, schema):
        if "part-000002" in str(path) and "goods" in str(path):
            Path(path).write_bytes(b"PAR1 half")  # a partial temporary file
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, schema)

    monkeypatch.setattr(chunks, "open_writer", failing_open)
    args = ("run", "-n", "50", "--chunk-size", "10", "--jobs", "1", "--out", "r", "--quiet")
    line = usage_error(invoke(*args), "disk is full", "rerun the same command")
    assert "Traceback" not in line
    out = Path("r")
    assert RunDir(out).done_chunks() == {0, 1}
    assert not list(out.rglob("*.tmp"))
    assert not (out / "games" / "part-000002.parquet").exists()
    assert RunDir(out).read_manifest()["status"] == "incomplete"

    monkeypatch.setattr(chunks, "open_writer", real_open)
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert "Resumed: 2 of 5 chunks" in result.output
    assert pl.read_parquet("r/games/*.parquet")["game_id"].to_list() == list(range(50))


@pytest.mark.skipif(os.name != "posix", reason="needs POSIX signals")
def test_killed_run_resumes_to_the_same_files(tmp_path):
    """SIGKILL mid-run (no clean-up at all), rerun: the files equal an uninterrupted run."""
    exe = _exe()
    args = ["run", "-n", "24000", "--p0", "balanced", "--p1", "random", "--chunk-size",
            "1000", "--jobs", "1", "--quiet"]
    subprocess.run([exe, *args, "--out", str(tmp_path / "whole")], check=True,
                   capture_output=True, timeout=600)
    killed = tmp_path / "killed"
    proc = subprocess.Popen([exe, *args, "--out", str(killed)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while len(RunDir(killed).done_chunks()) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    done = RunDir(killed).done_chunks()
    assert 3 <= len(done) < 24, "the kill came too late to test anything"
    resumed = subprocess.run([exe, *args, "--out", str(killed)], capture_output=True,
                             text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert "Resumed:" in resumed.stdout
    assert parquet_files(killed) == parquet_files(tmp_path / "whole")
    assert not list(killed.rglob("*.tmp"))


# ------------------------------------------------------------------- replay


def test_replayed_game_equals_the_logged_rows(tmp_path):
    assert invoke("run", "-n", "40", "--chunk-size", "16", "--out", "r", "--quiet",
                  "--p1", "random").exit_code == 0
    for game_id in (0, 17, 39):
        record, ref = replay_logged_game("r", game_id)
        assert ref.chunk == game_id // 16
        logged = logged_rows(ref)
        assert logged_differences(record, logged) == []
        assert record.first_player == game_id % 2
    # the check can fail: another game's rows do not match
    other = logged_rows(replay_logged_game("r", 18)[1])
    assert logged_differences(record, other)


def test_replay_survives_edits_to_the_data_files(tmp_path):
    """The manifest's stored deck is replayed, not today's edited file."""
    deck = tmp_path / "deck.toml"
    from targi_sim._utils.paths import data_dir

    deck.write_text((data_dir() / "decks" / "base.toml").read_text(encoding="utf-8"))
    assert invoke("run", "-n", "10", "--deck", str(deck), "--out", "r", "--quiet").exit_code == 0
    deck.write_text("broken")
    record, ref = replay_logged_game("r", 3)
    assert logged_differences(record, logged_rows(ref)) == []


def test_replay_command_prints_the_game_round_by_round():
    assert invoke("run", "-n", "10", "--out", "r", "--quiet").exit_code == 0
    result = invoke("replay", "r", "--game", "3")
    assert result.exit_code == 0, result.output
    out = result.output
    for needle in ("Game 3 of r", "Round 1", "Round 12", "places Targi 1 on border card",
                   "robber on", "Raid 1:", "score now", "Final", "VP tokens", "Result:",
                   "Replay matches the run's logged rows"):
        assert needle in out, needle
    by_seed = invoke("replay", "--seed", "7", "--p0", "greedy", "--p1", "random")
    assert by_seed.exit_code == 0 and "Game with seed 7" in by_seed.output


@pytest.mark.parametrize("args", [
    ("replay",), ("replay", "r"), ("replay", "r", "--game", "99"),
    ("replay", "nowhere", "--game", "1"), ("replay", "--seed", "x"),
])
def test_replay_bad_input_exits_2(args):
    assert invoke("run", "-n", "10", "--out", "r", "--quiet").exit_code == 0
    usage_error(invoke(*args))


# --------------------------------------------------------------------- Dask


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_dask_cluster_output_equals_a_local_run(tmp_path):
    """A real `dask scheduler` and two `dask worker` processes on 127.0.0.1."""
    from tests.dask_cluster import dask_cluster

    with dask_cluster(tmp_path) as address:
        args = ("run", "-n", "3000", "--p1", "random", "--chunk-size", "500", "--quiet")
        local = invoke(*args, "--out", str(tmp_path / "local"), "--jobs", "1")
        assert local.exit_code == 0, local.output
        remote = invoke(*args, "--out", str(tmp_path / "dask"), "--backend", "dask",
                        "--scheduler", address)
        assert remote.exit_code == 0, remote.output
        assert RunDir(tmp_path / "dask").read_manifest()["machine"]["backend"] == "dask"
        assert parquet_files(tmp_path / "dask") == parquet_files(tmp_path / "local")


def test_unreachable_scheduler_exits_2(monkeypatch):
    import importlib

    # import_module, not attribute access: the package exports a function named execute
    execute = importlib.import_module("targi_sim.runner.dispatch")
    monkeypatch.setattr(execute, "SCHEDULER_CONNECT_TIMEOUT", "1s")  # not the 10 s default
    port = _free_port()
    usage_error(invoke("run", "-n", "10", "--backend", "dask", "--scheduler",
                       f"tcp://127.0.0.1:{port}", "--quiet"), "Dask scheduler")


def test_one_line_names_a_long_engine_load_so_games_per_second_reads_right():
    from types import SimpleNamespace

    from targi_sim.cli.run import one_line
    from targi_sim.runner.summary import Tally

    tally = Tally(("balanced", "balanced"), games=2000, wins=[990, 990], draws=20,
                  first_wins=880)
    outcome = SimpleNamespace(games_played=2000, manifest={"counts": {"bytes": 534_000}})
    cold = one_line(tally, outcome, wall=201.0, play=0.2)
    assert "2,000 games in 201.0 s wall (200.8 s engine load, then 10,000 games/s)" in cold
    warm = one_line(tally, outcome, wall=0.4, play=0.2)
    assert "in 0.4 s wall (10,000 games/s)" in warm and "engine load" not in warm
    assert "first player 44.5%" in warm  # (880 + 0.5 * 20) / 2000
