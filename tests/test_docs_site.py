"""The front door: README.md as a landing page, the documentation site built with the
documented command, CHANGELOG.md naming the version, and the docs' Python examples run."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from doc_helpers import python_blocks

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SITE_PACKAGES = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")


def _missing() -> list[str]:
    return [name for name in SITE_PACKAGES if importlib.util.find_spec(name.split(".")[0])
            is None]


def test_readme_is_a_landing_page():
    lines = README.splitlines()
    assert len(lines) <= 200
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", README), "a dated figure belongs in benchmarks"
    assert not re.search(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b", README), \
        "a commit hash belongs in git"
    image = re.search(r"!\[[^]]+\]\((docs/images/[^)]+\.png)\)", README)
    assert image and (ROOT / image.group(1)).stat().st_size > 20_000  # a real picture
    assert (ROOT / "docs" / "images" / "report.txt").read_text().startswith("report.png")
    # what it is comes first, before any command; the set-up commands before the loop
    assert README.index("Targi") < README.index("```")
    assert README.index("## Set up") < README.index("## The designer's loop")


def test_readme_keeps_the_two_set_up_commands_ci_runs():
    install = "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]'"
    assert f"{install} && pytest" in README
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install --disable-pip-version-check -q -e '.[test]'" in ci
    assert "\npytest\n" in ci
    assert ("pip install -e . && targi-sim run --games 100000 --out runs/demo && "
            "targi-sim report runs/demo") in README


def test_benchmarks_and_changelog():
    from targi_sim import __version__

    bench = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert len(bench.splitlines()) <= 350
    prose = re.sub(r"`[^`]*`", "", bench)  # names like `TARGI_SIM_CACHE_DIR` are fine
    assert not re.search(r"\b[A-Z]{3,}_[A-Z_]{3,}\b", prose), "a figure still to fill in"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog
    assert re.search(rf"^## \[{re.escape(__version__)}\] - \d{{4}}-\d\d-\d\d$", changelog,
                     re.M), "CHANGELOG.md names the version of targi_sim/_version.py"
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and 'path = "targi_sim/_version.py"' in pyproject


@pytest.mark.parametrize("page", ["README.md", "docs/reference/api.md"])
def test_python_examples_run_as_written(page, tmp_path, monkeypatch):
    blocks = python_blocks(ROOT / page)
    assert blocks, page
    monkeypatch.chdir(tmp_path)
    for i, block in enumerate(blocks):
        exec(compile(block, f"{page} python block {i}", "exec"), {"__name__": "__docs__"})


def test_the_site_builds_with_the_documented_command(tmp_path):
    missing = _missing()
    if missing:
        pytest.skip(f"the docs packages are not installed ({', '.join(missing)}): "
                    "pip install -e '.[docs]'")
    assert "pip install -e '.[docs]' && mkdocs" in README
    site = tmp_path / "site"
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                          str(site)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-4000:]
    cli = (site / "reference" / "cli" / "index.html").read_text()
    for command in ("targi-sim run", "targi-sim compare", "targi-sim check init",
                    "targi-sim strategies check"):
        assert command in cli, command
    assert "  targi-sim run --games 1e6" in cli  # the examples, line for line
    api = (site / "reference" / "api" / "index.html").read_text()
    for name in ("play_games", "open_run", "compare_runs", "PythonStrategy"):
        assert name in api, name
    assert (site / "images" / "report.png").is_file()
    assert "Unreleased" in (site / "changelog" / "index.html").read_text()
