"""The `targi-sim` command line: summaries, friendly errors, exit codes; and wilson_interval."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import one_error_line as assert_usage_error
from typer.testing import CliRunner

from targi_sim import available_strategies, list_decks, list_rules
from targi_sim._utils.paths import data_dir
from targi_sim.cli.app import app
from targi_sim.cli.parse import ParseError, parse_games, parse_seed
from targi_sim.stats.rates import wilson_interval

runner = CliRunner()


@pytest.fixture(autouse=True)
def _in_tmp_dir(tmp_path, monkeypatch):
    """`run` writes runs/<name> under the working directory: keep it out of the checkout."""
    monkeypatch.chdir(tmp_path)


def invoke(*args: str):
    return runner.invoke(app, list(args))


# --------------------------------------------------------------------------- run


def test_run_prints_summary():
    result = invoke("run", "--games", "200", "--p0", "random", "--p1", "random", "--quiet")
    assert result.exit_code == 0, result.output
    out = result.output
    for needle in (
        "200 games", "seed 0", "games/s", "wall time", "95% Wilson interval",
        "seat 0 (random) wins", "seat 1 (random) wins", "draws",
        "round-1 first player wins", "mean score", "mean rounds", "end reason",
    ):
        assert needle in out, needle


def test_summary_intervals_treat_the_pair_as_the_unit():
    """The issue: the run summary printed the first player's interval as if the two
    games of a seat-swapped pair were independent (40.61-41.98% where the pair-clustered
    interval is 40.33-42.26%). It now prints the clustered interval and design effect,
    and names the pairing in its header."""
    import re

    import polars as pl

    from targi_sim.stats.rates import clustered_rate, wilson_interval

    result = invoke("run", "-n", "3000", "--pairing", "seat_swapped", "--quiet", "--out", "r",
                    "--chunk-size", "999", "--jobs", "1")  # pairs straddle chunks
    assert result.exit_code == 0, result.output
    out = result.output
    assert "seat-swapped pairs" in out.splitlines()[0]
    line = next(x for x in out.splitlines() if x.strip().startswith("round-1 first player"))
    lo, hi, deff = re.search(r"([\d.]+)% \.\. ([\d.]+)%\s+([\d.]+)", line).groups()
    g = pl.read_parquet("r/games/*.parquet")
    pts = ((g["winner"] == g["first_player"]) + 0.5 * (g["winner"] == -1)).cast(pl.Float64)
    per_pair = g.with_columns(pts.alias("p")).group_by("pair_id").agg(
        pl.col("p").sum(), pl.len().cast(pl.Float64).alias("n"))
    r = clustered_rate(per_pair["p"].to_numpy(), per_pair["n"].to_numpy())
    assert (float(lo), float(hi)) == pytest.approx((100 * r.lo, 100 * r.hi), abs=0.006)
    assert float(deff) == pytest.approx(r.deff, abs=0.006) and r.deff > 1.8
    naive = wilson_interval(float(pts.sum()), g.height)
    assert (r.hi - r.lo) / (naive[1] - naive[0]) > 1.3  # about sqrt(2) wider
    mirror = invoke("run", "-n", "100", "--quiet", "--out", "m")
    assert "one game per deal" in mirror.output.splitlines()[0]


def test_run_is_deterministic_for_a_seed():
    a = invoke("run", "-n", "60", "--seed", "5", "--quiet", "--out", "a")
    b = invoke("run", "-n", "60", "--seed", "5", "--quiet", "--out", "b")
    assert a.exit_code == b.exit_code == 0

    def stable(output: str) -> list[str]:
        return [line for line in output.splitlines()
                if "games/s" not in line and "Run directory" not in line]

    assert stable(a.output) == stable(b.output)
    assert Path("a/games/part-000000.parquet").read_bytes() == \
        Path("b/games/part-000000.parquet").read_bytes()


@pytest.mark.parametrize("value", ["0", "-5", "abc", "1.5", "1e-3", "", "1__000"])
def test_bad_games_values_exit_2(value):
    assert_usage_error(invoke("run", "--games", value), "--games", repr(value))


def test_bad_seed_exits_2():
    assert_usage_error(invoke("run", "--games", "10", "--seed", "-1"), "--seed")


@pytest.mark.parametrize(
    ("option", "valid"),
    [
        ("--p0", available_strategies),
        ("--p1", available_strategies),
        ("--deck", list_decks),
        ("--rules", list_rules),
    ],
)
def test_unknown_names_exit_2_and_list_valid_ones(option, valid):
    result = invoke("run", "--games", "10", option, "no-such-name")
    names = valid()
    assert names
    assert_usage_error(result, "no-such-name", *names)


def test_malformed_deck_file_exits_2_naming_the_file(tmp_path):
    bad = tmp_path / "broken-deck.toml"
    bad.write_text('name = "broken"\nborder = [\n', encoding="utf-8")
    assert_usage_error(invoke("run", "--games", "10", "--deck", str(bad)), "broken-deck.toml")


def test_missing_deck_file_exits_2_naming_the_file(tmp_path):
    missing = tmp_path / "missing.toml"
    assert_usage_error(invoke("run", "--games", "10", "--deck", str(missing)), "missing.toml")


def test_edited_copy_of_base_deck(tmp_path):
    """The README's recipe: copy base.toml, change a card, run with --deck PATH."""
    text = (data_dir() / "decks" / "base.toml").read_text(encoding="utf-8")
    good = tmp_path / "my-deck.toml"
    good.write_text(text.replace('name = "base"', 'name = "mine"', 1), encoding="utf-8")
    result = invoke("run", "--games", "20", "--deck", str(good), "--quiet")
    assert result.exit_code == 0, result.output
    assert "20 games" in result.output

    bad = tmp_path / "bad-card.toml"
    bad.write_text(text.replace("position = 2\n", "position = 99\n", 1), encoding="utf-8")
    assert_usage_error(invoke("run", "--games", "10", "--deck", str(bad)), "bad-card.toml")


def test_malformed_rules_file_exits_2(tmp_path):
    bad = tmp_path / "odd-rules.toml"
    bad.write_text('base = "default"\nraid_unpaid = "sometimes"\n', encoding="utf-8")
    assert_usage_error(invoke("run", "--games", "10", "--rules", str(bad)), "odd-rules.toml")


# ----------------------------------------------------------------- other commands


def test_listing_commands():
    decks = invoke("decks")
    assert decks.exit_code == 0 and "base" in decks.output
    rules = invoke("rules")
    assert rules.exit_code == 0 and all(name in rules.output for name in list_rules())
    strategies = invoke("strategies")
    assert strategies.exit_code == 0 and "random" in strategies.output
    version = invoke("version")
    assert version.exit_code == 0 and "targi-sim 0." in version.output


def test_help_teaches_with_examples():
    result = invoke("run", "--help")
    assert result.exit_code == 0
    assert "Examples" in result.output and "targi-sim run --games" in result.output
    assert "1e6" in result.output


# ------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1e6", 1_000_000), ("1E6", 1_000_000), ("1_000_000", 1_000_000),
        ("100000", 100_000), ("2.5e5", 250_000), (" 42 ", 42), ("1", 1), ("5.0", 5),
    ],
)
def test_parse_games_accepts(text, expected):
    assert parse_games(text) == expected


@pytest.mark.parametrize(
    "text", ["0", "-5", "abc", "1.5", "1e-3", "", "inf", "nan", "0x10", "1,000", "_1", "1e100"]
)
def test_parse_games_rejects(text):
    with pytest.raises(ParseError) as info:
        parse_games(text)
    message = str(info.value)
    assert "--games" in message and "\n" not in message


def test_parse_seed_range():
    assert parse_seed("0") == 0
    assert parse_seed("2147483647") == 2**31 - 1
    for text in ("-1", "2147483648", "x"):
        with pytest.raises(ParseError):
            parse_seed(text)


# ------------------------------------------------------------------- wilson


def test_wilson_known_answers():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4) and hi == pytest.approx(1.0, abs=1e-12)
    lo, hi = wilson_interval(5000, 10000)
    assert hi - lo == pytest.approx(2 * 0.0098, abs=1e-4)


def test_wilson_no_data_is_the_whole_range():
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_properties():
    for s, n in [(0, 1), (1, 3), (7.5, 20), (999, 1000)]:
        lo, hi = wilson_interval(s, n)
        assert 0.0 <= lo <= s / n <= hi <= 1.0
    wide = wilson_interval(30, 100, z=2.576)
    narrow = wilson_interval(30, 100)
    assert wide[0] < narrow[0] and wide[1] > narrow[1]


@pytest.mark.parametrize(("s", "n"), [(-1, 10), (11, 10), (0, -1)])
def test_wilson_rejects_impossible_counts(s, n):
    with pytest.raises(ValueError):
        wilson_interval(s, n)


# ------------------------------------------------------- the installed entry point


def _entry_point() -> str:
    local = Path(sys.executable).parent / "targi-sim"
    found = str(local) if local.exists() else shutil.which("targi-sim")
    if not found:
        pytest.fail("the `targi-sim` console script is not installed (pip install -e .)")
    return found


def test_installed_entry_point_runs(tmp_path):
    exe = _entry_point()
    done = subprocess.run(
        [exe, "run", "--games", "1e3", "--quiet"], capture_output=True, text=True, timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "1,000 games" in done.stdout and "95% Wilson interval" in done.stdout

    bad = subprocess.run([exe, "run", "--games", "abc"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
    assert bad.stderr.strip().startswith("Error: --games")


@pytest.mark.skipif(os.name != "posix", reason="needs POSIX signals")
def test_ctrl_c_exits_130(tmp_path):
    exe = _entry_point()

    def default_sigint() -> None:  # a background shell may have SIGINT ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(
        [exe, "run", "--games", "1e9", "--quiet"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint, cwd=tmp_path,
    )
    # stop it once it plays (its run directory exists), not after a fixed sleep: on a
    # loaded machine the start-up alone can take longer than any sleep we would pick
    deadline = time.monotonic() + 120
    while not any((tmp_path / "runs").glob("*/manifest*")) and proc.poll() is None:
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the run did not start within 120 s")
        time.sleep(0.2)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("targi-sim did not stop on SIGINT")
    assert proc.returncode == 130, err
    assert "Interrupted" in err and "Traceback" not in err


def test_montecarlo_runs_use_small_chunks_so_progress_moves():
    from targi_sim.runner import RunConfig, resolve_run
    from targi_sim.runner.config import DEFAULT_CHUNK, MONTECARLO_CHUNK

    assert resolve_run(RunConfig(10, p0="montecarlo")).chunk_size == MONTECARLO_CHUNK
    assert resolve_run(RunConfig(10, p0="random")).chunk_size == DEFAULT_CHUNK
    assert MONTECARLO_CHUNK < 100 < DEFAULT_CHUNK


@pytest.mark.parametrize("args", [
    ["ladder", "--rungs", "nope", "--rungs", "random,greedy", "--games", "10"],
    ["balance", "-s", "nope", "-s", "balanced", "--budget", "10"],
    ["check", "init", "--deck", "base", "--strategies", "nope", "--strategies", "balanced",
     "--games", "10"],
    ["tune", "balanced", "--against", "nope", "--against", "greedy", "--budget", "10"],
    ["sweep", "--strategies", "nope:balanced", "--strategies", "balanced:greedy", "-n", "10"],
    ["sweep", "--rules", "nope", "--rules", "default", "-n", "10"],
])
def test_list_options_keep_every_repeated_flag(tmp_path, args):
    """A list option given twice keeps both values: the first flag's unknown name is
    reported (a plain string option kept only the last flag and silently dropped it)."""
    out = ["--out", str(tmp_path / ("b.toml" if args[0] in ("check", "tune") else "o"))]
    assert_usage_error(runner.invoke(app, [*args, *out]), "nope")
