"""Every example of every `--help`, as printed: run, or (the long ones) parsed.

The examples are read from the help text each command prints (cli/helptext.examples), at
80 columns, so an example that the help wraps, joins or hyphenates fails here. Each one is
exercised in a designer's scratch folder (`scenario`): the repository's data/, a copied
deck (my-deck.toml), a copied strategy (my-strategy.toml), a Python strategy
(my_policy.py) and small complete runs under runs/ for every run folder the examples name.

How each example is exercised is listed in HOW, keyed by the example exactly as printed:

* run(...): run as printed, in-process, except for the documented override: the sizes
  given (--games, --budget and the like) replace the printed ones and --jobs is 1 (the
  test workers already share the cores). Every other word is as printed.
* parse(reason): long by nature (a search over millions of games, the shipped
  baselines, an interactive game, a Dask cluster): click parses its words against the
  command's options, so a misspelt or removed option fails, but it does not run; the
  reason says why and which test runs the command itself.

An example a --help prints that HOW does not list fails, and so does an entry of HOW no
--help prints any more: nothing is skipped silently.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cli.app import app
from cli.helptext import examples

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


@dataclass(frozen=True)
class How:
    reason: str = ""  # parse only, and why
    sizes: dict[str, str] = field(default_factory=dict)  # run: option -> value


def run(**sizes: str) -> How:
    return How(sizes={f"--{k.replace('_', '-')}": v for k, v in sizes.items()})


def parse(reason: str) -> How:
    return How(reason=reason)


SEARCH = "a search of millions of games; tests/test_{}.py runs it on a small budget"
CLUSTER = "needs a Dask scheduler at that address; tests/test_runner.py runs a local cluster"
HOW: dict[str, How] = {
    # run
    "targi-sim run --games 1e6": run(games="200"),
    "targi-sim run --games 100000 --p0 random --p1 random --out runs/random": run(games="200"),
    "targi-sim run --games 1_000_000 --seed 42 --jobs 2 --quiet": run(games="200"),
    "cp data/decks/base.toml my-deck.toml": run(),
    "targi-sim run --games 1e5 --deck ./my-deck.toml --out runs/my-deck": run(games="200"),
    "targi-sim run --games 1e6 --backend dask --scheduler tcp://10.0.0.5:8786": parse(CLUSTER),
    # replay
    "targi-sim replay runs/balanced-vs-balanced-100000-seed0 --game 17": run(),
    "targi-sim replay --seed 42 --p0 balanced --p1 random": run(),
    "targi-sim replay --seed 42 --p0 greedy --p1 random --first 1 --deck ./my-deck.toml": run(),
    "targi-sim replay runs/balanced-vs-balanced-100000-seed0 --game 17 --html game17.html":
        run(),
    # report, compare
    "targi-sim report runs/base": run(),
    "targi-sim report runs/base --out reports/base --min-n 1000": run(),
    "targi-sim compare runs/base runs/cheap-oasis": run(),
    "targi-sim compare runs/a runs/b --out reports/a-vs-b --correction bh": run(),
    # check
    "targi-sim check": parse("plays every shipped baseline (a Monte Carlo one too): about "
                             "20 s on 2 cores; .ci/run runs it, tests/test_check*.py test it"),
    "targi-sim check data/baselines/default.toml --jobs 2": parse(
        "sequential tests of up to 40,000 games each; tests/test_check.py runs check"),
    "targi-sim check init --deck my-deck.toml --strategies tuned,balanced --out "
    "baselines/my-deck.toml": parse("measures 1e5 games per expectation; tests/"
                                    "test_check_ci.py runs check init on a small budget"),
    "targi-sim check baselines/my-deck.toml --quiet": parse(
        "the baseline the init example writes; tests/test_check_ci.py checks one"),
    "targi-sim check baselines/my-deck.toml --junit-xml check.xml --summary-md summary.md "
    "--report-dir reports": parse("as above; tests/test_check_ci.py writes these files"),
    "targi-sim check --update": parse("rewrites the shipped baselines in data/"),
    "targi-sim check init --deck my-deck.toml --out baselines/my-deck.toml": parse(
        "measures 1e5 games per expectation; tests/test_check_ci.py runs check init"),
    "targi-sim check init --deck my-deck.toml --strategies tuned,balanced --games 2e5 "
    "--out b.toml": parse("as above"),
    # play
    "targi-sim play": parse("interactive: reads your moves; tests/test_session.py plays it"),
    "targi-sim play --vs greedy --seat 1 --seed 7": parse("interactive, as above"),
    "targi-sim play --vs balanced --deck ./my-deck.toml --rules raid-pay-what-they-have":
        parse("interactive, as above"),
    "targi-sim play --browser --vs expert@20": parse(
        "serves a page until stopped; tests/test_play_browser.py plays it in Chromium"),
    "targi-sim play --browser --deck ./my-deck.toml --out runs/mine --no-open": parse(
        "serves a page until stopped, as above"),
    # ladder
    "targi-sim ladder": parse("the default rungs include the search players (minutes to "
                              "tens of minutes); tests/test_ladder.py runs a small ladder"),
    "targi-sim ladder --rungs random,greedy,balanced --games 5000": run(games="100"),
    "targi-sim ladder --deck ./my-deck.toml --out runs/ladder-my-deck": parse(
        "the default rungs, as above"),
    "targi-sim ladder --rungs greedy,balanced --games 4000 --width 1": run(games="400"),
    "targi-sim ladder --rungs random,greedy --games 2000 --fixed": run(games="200"),
    # tune
    "targi-sim tune balanced --budget 2e6 --out my-tuned.toml": parse(SEARCH.format("tune")),
    "targi-sim tune balanced --against balanced,greedy --budget 5e5 --seed 3 --jobs 2":
        parse(SEARCH.format("tune")),
    "targi-sim tune ./my-strategy.toml --out tuned-mine.toml": parse(SEARCH.format("tune")),
    "targi-sim tune balanced --budget 4e6 --backend dask --scheduler tcp://10.0.0.5:8786":
        parse(CLUSTER),
    # card-value
    "targi-sim card-value runs/base": run(),
    "targi-sim card-value runs/base --fork-rate 1 --jobs 2": run(),
    "targi-sim run --games 20000 --card-value --fork-rate 0.5 --out runs/base-forks":
        run(games="200"),
    # sweep
    'targi-sim sweep --games 20000 --set "border.Merchant.trades[1].give_amount = 2, 4"':
        run(games="200"),
    "targi-sim sweep --games 100000 --set \"tribe['Oasis 3VP #1'].cost = {salt=1, pepper=1}, "
    "{salt=2}\" --set \"border.Silversmith.trades[1].get_amount = 1, 3\" --rules "
    "default,finish-round-after-raid4 --out sweeps/oasis": parse(
        "a grid of 8 variants; tests/test_sweep.py runs grids on small budgets"),
    "targi-sim sweep uncertain-rules --jobs 2": parse(
        "13 variants of 100,000 games; tests/test_sweep.py runs the file's plan"),
    "targi-sim sweep --strategies balanced:balanced,tuned:balanced --games 20000":
        run(games="200"),
    # balance, calibrate
    "targi-sim balance --deck base --jobs 2 --out balance/base": parse(SEARCH.format("balance")),
    "targi-sim balance --levels balanced,tuned --jobs 2": parse(SEARCH.format("balance")),
    "targi-sim balance --levels balanced,tuned --economy economy-space --jobs 2": parse(
        SEARCH.format("balance")),
    "targi-sim balance --deck ./my-deck.toml --strategies balanced,greedy --max-changes 4":
        parse(SEARCH.format("balance")),
    "targi-sim calibrate --jobs 2": parse(SEARCH.format("calibrate")),
    "targi-sim calibrate --budget 30 --out runs/cal-quick": parse(SEARCH.format("calibrate")),
    "targi-sim calibrate --playtest my-games.csv": parse(SEARCH.format("calibrate")),
    "targi-sim calibrate --playtest runs/playtest-base": parse(SEARCH.format("calibrate")),
    "targi-sim calibrate --out runs/cal": parse(SEARCH.format("calibrate")),
    "targi-sim calibrate --seeds 0,1,2 --jobs 2": parse(SEARCH.format("calibrate")),
    # tournament
    "targi-sim tournament --strategies random,greedy,balanced --games 2000": run(games="20"),
    "targi-sim tournament --strategies balanced,blocker,./my-strategy.toml --games 1e4 "
    "--jobs 4": run(games="20"),
    "targi-sim tournament --strategies balanced,montecarlo --games 200 --out runs/mc":
        run(games="2"),
    # strategies check
    "targi-sim strategies check balanced": run(games="2"),
    "targi-sim strategies check ./my-strategy.toml --games 50": run(games="2"),
    "targi-sim strategies check ./my_policy.py --opponent random --redeals 5": run(games="2"),
}

SIZE_ALIASES = {"-n": "--games", "-j": "--jobs"}


def _command_paths() -> list[list[str]]:
    def walk(command, path: list[str]):
        yield path
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            yield from walk(sub, [*path, name])

    return [*walk(typer.main.get_command(app), []), ["check", "init"]]


def _printed_examples() -> dict[str, str]:
    """Every example of every --help at 80 columns -> the command whose help prints it."""
    found: dict[str, str] = {}
    for path in _command_paths():
        res = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
        assert res.exit_code == 0, (path, res.output)
        for example in examples(res.output):
            found.setdefault(example, " ".join(path))
    return found


PRINTED = _printed_examples()


def test_every_printed_example_is_listed_and_every_listed_one_printed():
    assert set(PRINTED) - set(HOW) == set(), "a --help prints an example HOW does not list"
    assert set(HOW) - set(PRINTED) == set(), "HOW lists an example no --help prints"
    assert len(PRINTED) >= 50


def _help(columns: str) -> str:
    """`targi-sim sweep --help` in a process of its own (click's test runner fixes the
    width at 80), with COLUMNS set."""
    code = ("import sys; sys.argv = ['targi-sim', 'sweep', '--help']; "
            "from targi_sim.cli.launch import main; main()")
    env = {**os.environ, "COLUMNS": columns}
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_help_wraps_to_columns_and_keeps_examples_whole():
    wide, narrow = _help("140"), _help("80")
    assert 120 < max(map(len, wide.splitlines())) <= 140  # COLUMNS is honoured
    assert max(len(s) for s in narrow.splitlines() if not s.startswith("    targi")) <= 80
    for text in (wide, narrow):  # the continued example prints line for line
        assert "    targi-sim sweep --games 100000 \\\n" in text
        assert "\n      --set \"border.Silversmith.trades[1].get_amount = 1, 3\" \\\n" in text


def _small_run(folder: Path, deck: str = "base") -> None:
    from targi_sim.runner import RunConfig, execute, resolve_run

    execute(resolve_run(RunConfig(games=200, deck=deck)), folder, jobs=1)


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """The designer's folder the examples run in (copied for each example)."""
    home = tmp_path_factory.mktemp("designer")
    (home / "data").symlink_to(ROOT / "data", target_is_directory=True)
    text = (ROOT / "data" / "decks" / "base.toml").read_text()
    (home / "my-deck.toml").write_text(text.replace('name = "base"', 'name = "my-deck"', 1))
    old = "cost = { salt = 1, pepper = 2, dates = 2 }"  # card_id 36, Oasis 3VP #1
    at = text.index(old, text.index("# card_id 36: Oasis 3VP #1"))
    cheap = text[:at] + "cost = { salt = 1, pepper = 1, dates = 1 }" + text[at + len(old):]
    (home / "cheap-oasis.toml").write_text(cheap.replace('name = "base"', 'name = "cheap"', 1))
    strategy = (ROOT / "data" / "strategies" / "balanced.toml").read_text()
    (home / "my-strategy.toml").write_text(
        strategy.replace('name = "balanced"', 'name = "my-strategy"', 1))
    shutil.copy(ROOT / "data" / "strategies" / "oasis-first.py", home / "my_policy.py")
    runs = home / "runs"
    _small_run(runs / "base")
    _small_run(runs / "cheap-oasis", str(home / "cheap-oasis.toml"))
    for name, like in (("a", "base"), ("b", "cheap-oasis"),
                       ("balanced-vs-balanced-100000-seed0", "base")):
        shutil.copytree(runs / like, runs / name)
    return home


def _scaled(args: list[str], how: How) -> list[str]:
    out = list(args)
    sizes = {**how.sizes, "--jobs": "1"}
    for i, word in enumerate(out[:-1]):
        name = SIZE_ALIASES.get(word, word)
        if name in sizes:
            out[i + 1] = sizes[name]
    return out


def _parses(args: list[str]) -> None:
    """click's parse of the words, as `targi-sim` would do before running anything."""
    command = typer.main.get_command(app)
    name = "targi-sim"
    while args and args[0] in getattr(command, "commands", {}):
        name, command, args = args[0], command.commands[args[0]], args[1:]
    ctx = command.make_context(name, list(args))
    assert ctx.command is not None


@pytest.mark.parametrize("example", sorted(HOW))
def test_example(example, template, tmp_path, monkeypatch):
    how = HOW[example]
    words = shlex.split(example)
    if how.reason:
        _parses(words[1:])
        return
    home = tmp_path / "home"
    shutil.copytree(template, home, symlinks=True)
    monkeypatch.chdir(home)
    if words[0] == "cp":
        (home / words[2]).unlink(missing_ok=True)
        shutil.copy(words[1], words[2])
        assert (home / words[2]).read_text() == (home / words[1]).read_text()
        return
    assert words[0] == "targi-sim"
    res = runner.invoke(app, _scaled(words[1:], how))
    assert res.exit_code == 0, (example, res.output, res.exception)
    assert "Traceback" not in res.output
