"""docs/ci.md as a new user follows it: every install line names a git URL pinned to a tag
or commit, or a path (targi-sim is not on a package index, so `pip install targi-sim`
stops at "No matching distribution found"); step 1's block and the ci-steps block run as
written, one after the other, in a fresh git repository holding a copy of the base deck
(so `baselines/` does not exist until `check init` makes it). Only the install line is
skipped, because the package is already installed in this test's environment, and only
the game counts of `check init` are made small, so the whole recipe runs in seconds.
tests/test_check_ci.py runs the ci-steps block on changed decks.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_helpers import one_error_line
from typer.testing import CliRunner

from targi_sim._utils.paths import data_dir
from targi_sim.cli.app import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
CI_MD = ROOT / "docs" / "ci.md"
INSTALL = re.compile(r"pip install ([^`&\n]+)")
# `targi-sim @ git+https://<your host>/<owner>/targi-sim@<tag-or-commit>`, extras allowed
GIT_PIN = re.compile(r"^targi-sim(\[[a-z,]+\])? @ git\+(https|ssh|file)://\S+/targi-sim"
                     r"(\.git)?@\S+$")
INIT = "targi-sim check init --deck my-deck.toml --out baselines/my-deck.toml"
# the smallest honest configuration: every kind `check init` writes by default, each
# measured on 5,000 games and checked on at most 1,000 (tolerances follow from the cap;
# the tolerance does not allow for the measurement's own error, so that is kept small:
# measured on 1,000 games too, an unchanged deck failed its raid-4 loss on the
# calibrated base deck)
SMALL = " --games 5000 --max-games 1000 --batch-games 500 --jobs 1 --quiet"


def _block(name: str) -> list[str]:
    """The non-blank lines of the bash block between `<!-- name: begin/end -->`."""
    text = CI_MD.read_text(encoding="utf-8")
    block = text.split(f"<!-- {name}: begin -->")[1].split(f"<!-- {name}: end -->")[0]
    body = block.split("```bash\n")[1].split("```")[0]
    return [line for line in body.splitlines() if line.strip()]


def _requirement_ok(arg: str) -> bool:
    """A git URL pinned to a tag or commit, or a path (`.`, `./targi-sim`, `'.[test]'`)."""
    return bool(GIT_PIN.match(arg)) or arg.startswith((".", "/"))


def _bad_install_args(command: str, text: str) -> list[str]:
    """The arguments of one `pip install ...` that would ask a package index for targi-sim."""
    args = shlex.split(command, comments=True)
    bad = []
    for k, arg in enumerate(args):
        if arg.startswith("-"):
            continue
        if k and args[k - 1] == "-r":  # a requirements file the page spells out
            held = re.search(rf"`{re.escape(arg)}` holding(.*?)\):", text, re.S)
            lines = re.findall(r"`([^`]+)`", held.group(1)) if held else []
            bad += [f"{arg}: {line}" for line in lines
                    if line.startswith("targi-sim") and not GIT_PIN.match(line)]
            if not any(line.startswith("targi-sim") for line in lines):
                bad.append(f"{arg}: the page does not say what it holds")
        elif not _requirement_ok(arg):
            bad.append(arg)
    return bad


def test_every_install_line_names_a_git_url_or_a_path():
    pages = [CI_MD, ROOT / "docs" / "cluster.md", ROOT / "README.md"]
    seen = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for command in INSTALL.findall(text):
            seen += 1
            assert _bad_install_args(command, text) == [], (page.name, command)
    assert seen >= 6
    # the checker refuses what the page used to say
    assert _bad_install_args("targi-sim", "") == ["targi-sim"]
    assert _bad_install_args("'targi-sim[dask]'", "") == ["targi-sim[dask]"]
    assert _bad_install_args("-r r.txt", "`r.txt` holding `targi-sim==0.1.0`):") != []
    assert _bad_install_args('"targi-sim @ git+https://h/o/targi-sim"', "") != []  # unpinned
    step1 = _block("ci-setup")
    assert INSTALL.match(step1[0]) and GIT_PIN.match(shlex.split(step1[0])[2])
    assert not any(INSTALL.search(line) for line in step1[1:])


def _sh(script: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_step_one_then_the_ci_steps_run_as_written_in_a_fresh_git_repository(tmp_path):
    exe = shutil.which("targi-sim", path=str(Path(os.sys.executable).parent))
    if exe is None or shutil.which("git") is None:
        pytest.skip("needs git and the installed targi-sim of this environment")
    repo = tmp_path / "designer"
    repo.mkdir()
    env = {**os.environ, "PATH": f"{Path(exe).parent}{os.pathsep}{os.environ['PATH']}",
           "CI": "", "GIT_AUTHOR_NAME": "d", "GIT_AUTHOR_EMAIL": "d@example.org",
           "GIT_COMMITTER_NAME": "d", "GIT_COMMITTER_EMAIL": "d@example.org"}
    shutil.copy(data_dir() / "decks" / "base.toml", repo / "my-deck.toml")
    setup = _sh("git init -q && git add my-deck.toml && git commit -qm 'my deck'", repo, env)
    assert setup.returncode == 0, setup.stderr

    step1 = _block("ci-setup")
    # the package is installed in this environment already (PATH above): the install line,
    # whose form the test above checks, becomes a no-op
    assert INSTALL.match(step1[0])
    step1[0] = ": pip install: done by this test environment"
    assert step1[1] == INIT  # as the page writes it, with smaller game counts only
    step1[1] = INIT + SMALL
    assert not (repo / "baselines").exists()
    first = _sh("set -ex\n" + "\n".join(step1) + "\n", repo, env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "wrote baselines/my-deck.toml" in first.stdout
    assert "expectations passed" in first.stdout
    committed = _sh("git ls-files && git status --porcelain", repo, env).stdout.split()
    assert committed == [".gitignore", "baselines/my-deck.toml", "my-deck.toml"]

    # the compile cache the workflow restores: here the suite's own (linked, not copied)
    from targi_sim.engine import cache_dir

    cache = cache_dir()
    (repo / ".targi-sim-cache").mkdir()
    (repo / ".targi-sim-cache" / cache.name).symlink_to(cache, target_is_directory=True)
    steps = _sh("set -e\n" + "\n".join(_block("ci-steps")) + "\n", repo, env)
    assert steps.returncode == 0, steps.stdout + steps.stderr
    root = ET.parse(repo / "targi-check.xml").getroot()
    assert int(root.get("tests")) >= 3 and root.get("failures") == "0"
    assert "### targi-sim check:" in steps.stdout  # the summary, printed by the step
    # step 1's .gitignore keeps every CI output out of the repository
    assert _sh("git status --porcelain --ignored=no", repo, env).stdout == ""


def test_check_init_makes_the_out_folders(tmp_path):
    out = tmp_path / "a" / "b" / "first.toml"
    result = runner.invoke(app, ["check", "init", "--deck", "base", "--out", str(out),
                                 "--kinds", "first_player_rate", "--games", "1000",
                                 "--max-games", "1000", "--batch-games", "500",
                                 "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    assert 'kind = "first_player_rate"' in out.read_text(encoding="utf-8")
    assert 'deck = "base"' in out.read_text(encoding="utf-8")


def test_check_init_refuses_a_file_where_a_folder_must_be(tmp_path):
    (tmp_path / "notes").write_text("x", encoding="utf-8")
    base = ["check", "init", "--deck", "base", "--quiet", "--out"]
    one_error_line(runner.invoke(app, [*base, str(tmp_path / "notes" / "b" / "x.toml")]),
                   "--out", "notes is a file, not a folder")
    one_error_line(runner.invoke(app, [*base, str(tmp_path), "--force"]),
                   "--out", "is a folder")
    assert not (tmp_path / "notes").is_dir()
