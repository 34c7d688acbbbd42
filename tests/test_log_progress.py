"""Progress in logs: with stderr not a terminal (a CI log, a file), long commands print
plain progress lines -- `report` once printed nothing for 30 s on a 1e6-game run and
`run` one line, at the end."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from targi_sim.cli.common import progress_bar
from targi_sim.cli.logprogress import LogProgress


def _console(buf):
    return Console(file=buf, force_terminal=False, width=200)


def test_a_line_each_tenth_of_the_work_and_every_ten_seconds(tmp_path):
    import io

    buf = io.StringIO()
    clock = [0.0]
    with LogProgress(_console(buf), get_time=lambda: clock[0]) as bar:
        task = bar.add_task("games", total=1000)
        for _ in range(100):  # 10 games a second for 100 s
            clock[0] += 1.0
            bar.advance(task, 10)
    lines = buf.getvalue().splitlines()
    assert lines[0] == "games: started, 1,000 games"
    assert len(lines) == 1 + 10  # one per tenth, the last one "done"
    assert lines[-1].endswith("done") and "1,000/1,000 games (100%)" in lines[-1]
    assert "10 games/s" in lines[1] and "ETA 0:01:30" in lines[1]
    buf.truncate(0), buf.seek(0)
    with LogProgress(_console(buf), get_time=lambda: clock[0]) as bar:
        task = bar.add_task("slow", total=10**9)
        for _ in range(30):
            clock[0] += 1.0
            bar.advance(task, 1)
    assert len(buf.getvalue().splitlines()) == 1 + 3 + 1  # started, every 10 s, at the end


def test_the_bar_is_plain_lines_only_off_a_terminal():
    import io

    assert isinstance(progress_bar(_console(io.StringIO()), quiet=False), LogProgress)
    tty = Console(file=io.StringIO(), force_terminal=True)
    assert not isinstance(progress_bar(tty, quiet=False), LogProgress)


def test_a_run_piped_to_a_file_shows_progress_lines(tmp_path):
    exe = shutil.which("targi-sim", path=str(Path(sys.executable).parent))
    out = subprocess.run([exe, "run", "--games", "20000", "--chunk-size", "1000", "--jobs",
                          "1", "--p0", "random", "--p1", "random", "--out",
                          str(tmp_path / "r")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    progress = [line for line in out.stderr.splitlines()
                if re.search(r"\d[\d,]*/20,000 games \(\d+%\)", line)]
    assert len(progress) >= 3, out.stderr
    assert "\r" not in out.stderr and "\x1b[" not in out.stderr  # nothing animated
