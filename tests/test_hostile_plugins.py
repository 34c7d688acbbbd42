"""A compiled plug-in file is user input: every fault is one Error line, never a
traceback, and an illegal answer stops the run naming the strategy (issue 13 items 6, 8)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "strategies" / "card-rush.py"

GOOD_BODY = '''
NAME = "{name}"

def choose(S, D, R, SP, p, dtype, O, n, ctx):
    return {answer}
'''


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "targi_sim.cli.app", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


def one_error_line(out: subprocess.CompletedProcess, *needles: str) -> None:
    assert "Traceback" not in out.stderr, out.stderr[-2000:]
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("Error:")]
    assert len(lines) == 1, out.stderr[-2000:]
    for needle in needles:
        assert needle in out.stderr, (needle, out.stderr[-2000:])


@pytest.mark.parametrize("text,needle", [
    ("raise RuntimeError('boom at import')\n", "boom at import"),
    ("def choose(S, D, R, SP, p, dtype, O, n, ctx)\n    return 0\n", "syntax"),
    ("NAME = 'no-choose'\n", "choose"),
    ("def choose(S, D, R, SP, p, dtype, O, n, ctx):\n    return [1, 2]  # not an int\n",
     "compile"),
], ids=["raises-at-import", "syntax-error", "no-choose", "does-not-compile"])
def test_a_broken_plugin_is_one_error_line(tmp_path, text, needle):
    bad = tmp_path / "bad.py"
    bad.write_text(text)
    out = cli("run", "--games", "20", "--quiet", "--jobs", "1", "--p0", str(bad),
              "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert out.returncode == 2, out.stderr[-2000:]
    one_error_line(out, "bad.py")
    assert needle.lower() in out.stderr.lower(), out.stderr[-2000:]
    assert not (tmp_path / "run" / "manifest.json").exists()


def test_strategies_show_reads_a_plugin_file(tmp_path):
    out = cli("strategies", "show", str(EXAMPLE), cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "card-rush" in out.stdout and "plugin" in out.stdout


@pytest.mark.parametrize("answer", ["n", "-1"])
def test_a_plugin_answering_an_option_it_was_not_offered_stops_the_run(tmp_path, answer):
    """Issue 13 item 6: such a run played on silently at 0.0% with exit code 0."""
    bad = tmp_path / "off-by-one.py"
    bad.write_text(GOOD_BODY.format(name="off-by-one", answer=answer))
    out = cli("run", "--games", "20", "--quiet", "--jobs", "1", "--p0", str(bad),
              "--p1", "random", "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert out.returncode == 1, (out.stdout[-1000:], out.stderr[-2000:])
    one_error_line(out, "off-by-one", "seat 0", "not offered", "targi-sim replay")
    assert "decision" in out.stderr
    # the command the line suggests shows that game, with the illegal answers counted
    command = out.stderr.split("`")[1].split()
    assert command[:2] == ["targi-sim", "replay"] and str(bad) in command
    shown = cli(*command[1:], cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert "seat 0 (off-by-one) answered" in shown.stdout and "not offered" in shown.stdout


def test_the_python_api_raises_the_same_error(tmp_path):
    from targi_sim import StrategyError, play_game, play_games

    bad = tmp_path / "off-by-one.py"
    bad.write_text(GOOD_BODY.format(name="off-by-one", answer="n"))
    with pytest.raises(StrategyError, match="'off-by-one' \\(seat 1\\) answered"):
        play_games(10, strategies=("random", str(bad)), logs=False)
    record = play_game(3, ("random", str(bad)))  # one game is shown, not refused
    assert record.illegal_answers[0] == 0 and record.illegal_answers[1] > 0
