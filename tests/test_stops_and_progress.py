"""Every search command continues when rerun after a kill -9 and ends with the files an
uninterrupted run writes; every long command writes plain progress lines to a stderr
that is not a terminal, with no long silence (TARGI_SIM_PROGRESS_EVERY shortens the
interval from 10 s to 0.5 s, so a silence of GAP seconds means a phase reports
nothing). Balance and calibrate: tests/test_balance.py, tests/test_calibrate.py.

Each uninterrupted reference runs in this process (CliRunner); the killed run and the
rerun are real processes."""

from __future__ import annotations

import io
import pickle
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from targi_sim.cli.app import app
from targi_sim.cli.logprogress import LogProgress
from tests.cli_helpers import assert_steady_progress, kill_when, piped

runner = CliRunner()


def _tables(folder: Path) -> dict[str, bytes]:
    """Every CSV table under `folder` (a report's tables), by relative path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.csv"))}


def _markers(folder: Path, pattern: str) -> int:
    return len(list(folder.glob(pattern)))


# ------------------------------------------------------------ the helper itself
def test_a_nested_task_gives_its_own_and_the_outer_elapsed_and_eta():
    buf, clock = io.StringIO(), [0.0]
    with LogProgress(Console(file=buf, width=300), get_time=lambda: clock[0],
                     every=10) as bar:
        outer = bar.add_task("candidate 0/4", total=4, unit="candidates")
        clock[0] = 60.0
        bar.update(outer, completed=1)
        inner = bar.add_task("re-tune tuned", total=10, unit="generations", parent=outer)
        clock[0] = 80.0
        bar.update(inner, completed=5)
        bar.remove_task(inner)
    lines = buf.getvalue().splitlines()
    nested = next(line for line in lines if line.startswith("re-tune tuned: 5/10"))
    assert "elapsed 0:00:20, ETA 0:00:20 [candidate 0/4: elapsed 0:01:20, ETA 0:04:00]" \
        in nested, nested
    assert lines[-2].startswith("re-tune tuned: 5/10") and ", done [candidate" in lines[-2]


def test_lines_keep_coming_while_no_task_runs():
    buf, clock = io.StringIO(), [0.0]
    bar = LogProgress(Console(file=buf, width=300), get_time=lambda: clock[0], every=10)
    with bar:
        task = bar.add_task("games", total=10)
        bar.update(task, completed=10)  # done: the work after it (a report) says nothing
        for second in range(1, 31):
            clock[0] = float(second)
            bar.tick()
    said = [line for line in buf.getvalue().splitlines() if "still working" in line]
    assert said == ["games: done; still working (elapsed 0:00:10)",
                    "games: done; still working (elapsed 0:00:20)",
                    "games: done; still working (elapsed 0:00:30)"]


def test_a_continued_task_counts_only_this_run_s_work_in_its_rate():
    buf, clock = io.StringIO(), [0.0]
    with LogProgress(Console(file=buf, width=300), get_time=lambda: clock[0],
                     every=10) as bar:
        task = bar.add_task("generation 4/10", total=100, completed=40)
        clock[0] = 2.0
        bar.advance(task, 10)
    lines = buf.getvalue().splitlines()
    assert lines[0] == "generation 4/10: started, 100 games (40 done before)"
    assert "50/100 games (50%), 5 games/s, elapsed 0:00:02, ETA 0:00:10" in lines[1], lines


# ------------------------------------------------------------ kill -9, then rerun
TUNE = ["tune", "balanced", "--against", "balanced,greedy", "--budget", "4800", "--deals",
        "20", "--popsize", "4", "--final-deals", "20", "--check-games", "200", "--seed", "5"]


def test_a_killed_tune_continues_when_rerun_and_writes_the_same_file(tmp_path):
    for name in ("whole", "killed"):  # the same file name: it names the strategy
        (tmp_path / name).mkdir()
    whole = runner.invoke(app, [*TUNE, "--out", str(tmp_path / "whole" / "t.toml"), "-q"])
    assert whole.exit_code == 0, whole.output
    out = tmp_path / "killed" / "t.toml"
    state = out.with_name("t.toml.tune-state.pkl")

    def some_generations() -> bool:
        try:
            return pickle.loads(state.read_bytes())["generation"] >= 3
        except (OSError, EOFError, pickle.UnpicklingError):
            return False

    kill_when([*TUNE, "--out", str(out), "-q"], some_generations)
    assert not out.exists()
    again = piped([*TUNE, "--out", str(out)])
    assert_steady_progress(again)
    assert out.read_bytes() == (tmp_path / "whole" / "t.toml").read_bytes()
    assert not state.exists()


LADDER = ["ladder", "--rungs", "random,greedy", "--games", "2000", "--jobs", "1", "--seed", "2"]


def test_a_killed_ladder_continues_when_rerun_and_writes_the_same_tables(tmp_path):
    whole = runner.invoke(app, [*LADDER, "--out", str(tmp_path / "whole"), "-q"])
    assert whole.exit_code == 0, whole.output
    out = tmp_path / "killed"
    kill_when([*LADDER, "--out", str(out), "-q"],
              lambda: _markers(out, "runs/*/chunks/chunk-*.json") >= 1)
    assert not (out / "report").exists()
    again = piped([*LADDER, "--out", str(out)])
    assert_steady_progress(again)
    assert _tables(out / "report") == _tables(tmp_path / "whole" / "report")


SWEEP = ["sweep", "--games", "2000", "--chunk-size", "500", "--jobs", "1", "--seed", "3",
         "--strategies", "random:greedy", "--set", "border.Merchant.trades[1].give_amount = 2, 4"]


def test_a_killed_sweep_continues_when_rerun_and_writes_the_same_tables(tmp_path):
    whole = runner.invoke(app, [*SWEEP, "--out", str(tmp_path / "whole"), "-q"])
    assert whole.exit_code == 0, whole.output
    out = tmp_path / "killed"
    kill_when([*SWEEP, "--out", str(out), "-q"],
              lambda: _markers(out, "runs/*/chunks/chunk-*.json") >= 3)
    assert not (out / "report").exists()
    again = piped([*SWEEP, "--out", str(out)])
    assert_steady_progress(again)
    assert "Resumed:" in again.stdout or "variants" in again.stdout
    assert _tables(out / "report") == _tables(tmp_path / "whole" / "report")


def test_killed_card_value_forks_continue_when_rerun_and_give_the_same_values(tmp_path):
    run = ["run", "--games", "2000", "--p0", "random", "--p1", "greedy", "--chunk-size",
           "250", "--jobs", "1", "-q"]
    for name in ("whole", "killed"):
        made = runner.invoke(app, [*run, "--out", str(tmp_path / name)])
        assert made.exit_code == 0, made.output
    forks = ["--fork-rate", "1", "--jobs", "1"]
    whole = runner.invoke(app, ["card-value", str(tmp_path / "whole"), *forks, "-q"])
    assert whole.exit_code == 0, whole.output
    out = tmp_path / "killed"
    kill_when(["card-value", str(out), *forks, "-q"],
              lambda: _markers(out, "forks/chunk-*.json") >= 2)
    assert _markers(out, "forks/chunk-*.json") < 8
    again = piped(["card-value", str(out), *forks])
    assert_steady_progress(again)
    assert "Resumed:" in again.stdout
    parts = sorted(p.name for p in (tmp_path / "whole" / "forks").glob("part-*.parquet"))
    assert len(parts) == 8
    for name in parts:
        assert (out / "forks" / name).read_bytes() == \
            (tmp_path / "whole" / "forks" / name).read_bytes(), name


# ------------------------------------------------------------ the other long commands
def test_run_report_and_compare_report_steadily_in_a_log(tmp_path):
    played = piped(["run", "--games", "4000", "--p0", "random", "--p1", "greedy",
                    "--chunk-size", "500", "--jobs", "1", "--out", str(tmp_path / "r")])
    assert_steady_progress(played)
    assert_steady_progress(piped(["report", str(tmp_path / "r")]))
    assert_steady_progress(piped(["compare", str(tmp_path / "r"), str(tmp_path / "r"),
                                  "--out", str(tmp_path / "ab")]))  # A/A: what compare does


def test_a_tournament_and_a_check_report_steadily_in_a_log(tmp_path):
    played = piped(["tournament", "-s", "random,greedy,balanced", "--games", "2000",
                    "--out", str(tmp_path / "t")])
    assert_steady_progress(played)
    baseline = tmp_path / "b.toml"
    baseline.write_text('description = "two"\nseed = 3\n[defaults]\nbatch_games = 200\n'
                        'max_games = 2000\n\n[[expectation]]\nname = "greedy beats random"\n'
                        'kind = "win_rate"\nstrategy = "greedy"\nopponent = "random"\n'
                        'rate = 99.0\ntolerance = 1.0\n\n[[expectation]]\nname = "mirror"\n'
                        'kind = "first_player_rate"\nstrategy = "balanced"\nrate = 50.0\n'
                        'tolerance = 5.0\n')
    checked = piped(["check", str(baseline)])
    checked.returncode = 0 if checked.returncode in (0, 1) else checked.returncode
    assert_steady_progress(checked)
