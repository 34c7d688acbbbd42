"""docs/tutorial.md runs as written, and quotes only what the tool prints.

The test follows the tutorial in a scratch folder: each `$ ` line of its console blocks
is run (`targi-sim ...` in-process; `cp` and `diff` as the shell would; `$ # edit ...`
is the edit the tutorial describes, made here by `_edit`, and the quoted `diff` output
proves the two agree). Then:

* every output line a console block quotes is a line the command printed, in order
  (`…` alone skips lines; a line ending in `…` is a prefix), timings and sizes aside;
* every line of a ```text block introduced by "From `PATH`:" is a line of that file;
* every figure in the tutorial's prose (a number with a decimal point, a percent sign
  or three or more digits) is one the commands printed or wrote, so a number in the
  tutorial cannot drift from the tool's;
* README.md's designer's loop is the tutorial's commands.

The one documented override: `--jobs 1` is added to each `run` (the test workers
already share the cores); results do not depend on it.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from cli.app import app

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
SKIP = "…"
# what differs from machine to machine: wall times, speeds, sizes on disk
VARIABLE = [(re.compile(r"(\d[\d,]*(\.\d+)?|…) s\b"), "T s"),
            (re.compile(r"[\d,]+ games/s"), "N games/s"),
            (re.compile(r"[\d.,]+ (B|KB|MB|GB)\b"), "S B"),
            (re.compile(r"[\d,]+ B/game"), "S B/game")]


def _mask(line: str) -> str:
    line = line.rstrip()
    for pattern, text in VARIABLE:
        line = pattern.sub(text, line)
    return line


def _blocks(fence: str) -> list[tuple[int, list[str]]]:
    """(offset, lines) of every ```<fence> block of the tutorial."""
    return [(m.start(), m.group(1).splitlines())
            for m in re.finditer(rf"```{fence}\n(.*?)```", TUTORIAL, re.S)]


def _quoted_in_order(quoted: list[str], printed: list[str], where: str) -> None:
    got = [_mask(s) for s in printed]
    at = 0
    skipping = False
    for line in quoted:
        if line.strip() == SKIP:
            skipping = True
            continue
        want = _mask(line)
        prefix = want.endswith(SKIP)
        want = want.removesuffix(SKIP).rstrip() if prefix else want

        def match(s: str, want=want, prefix=prefix) -> bool:
            return s.startswith(want) if prefix else s == want

        if skipping:
            found = next((i for i in range(at, len(got)) if match(got[i])), None)
            assert found is not None, f"{where}: not printed (in order): {line!r}"
            at = found + 1
        else:
            assert at < len(got) and match(got[at]), \
                f"{where}: {line!r} quoted, {got[at] if at < len(got) else '(end)'!r} printed"
            at += 1
        skipping = False


def _edit(home: Path) -> None:
    """The tutorial's edit of cheap-oasis.toml: its own name, card_id 36 cheaper."""
    path = home / "cheap-oasis.toml"
    text = path.read_text()
    text = text.replace('name = "base"', 'name = "cheap-oasis"', 1)
    old = "cost = { salt = 1, pepper = 2, dates = 2 }"
    at = text.index(old, text.index("# card_id 36: Oasis 3VP #1"))
    path.write_text(text[:at] + "cost = { salt = 1, pepper = 1, dates = 1 }"
                    + text[at + len(old):])


def _run(command: str, home: Path) -> list[str]:
    if command.startswith("# edit"):
        _edit(home)
        return []
    words = shlex.split(command)
    if words[0] == "cp":
        shutil.copy(home / words[1], home / words[2])
        return []
    if words[0] == "diff":
        res = subprocess.run(words, cwd=home, capture_output=True, text=True)
        return res.stdout.splitlines()
    assert words[0] == "targi-sim", command
    args = words[1:] + (["--jobs", "1"] if words[1] == "run" else [])
    res = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    assert res.exit_code == 0, (command, res.output)
    return res.stdout.splitlines()


def _commands(block: list[str]) -> list[tuple[str, list[str]]]:
    """(command, the output lines quoted after it) of a console block."""
    out: list[tuple[str, list[str]]] = []
    for line in block:
        if line.startswith("$ "):
            out.append((line[2:], []))
        else:
            out[-1][1].append(line)
    return out


def _prose_figures() -> set[str]:
    prose = re.sub(r"```.*?```", " ", TUTORIAL, flags=re.S)
    prose = re.sub(r"`[^`]*`", " ", prose)  # names and commands, not figures
    prose = re.sub(r"\([^()]*\.md[^()]*\)", " ", prose)  # link targets
    found = re.findall(r"(?<![\w.#-])(\d[\d,]*\.\d+|\d[\d,]*%|\d{1,3}(?:,\d{3})+|\d{3,})",
                       prose)
    return set(found)


def test_the_tutorial_runs_and_quotes_what_the_tool_prints(tmp_path, monkeypatch):
    home = tmp_path / "designer"
    home.mkdir()
    (home / "data").symlink_to(ROOT / "data", target_is_directory=True)
    monkeypatch.chdir(home)
    printed: list[str] = []
    commands = []
    for _, block in _blocks("console"):
        for command, quoted in _commands(block):
            commands.append(command)
            lines = _run(command, home)
            printed += lines
            if quoted:
                _quoted_in_order(quoted, lines, command)
    assert len(commands) >= 8

    files: dict[str, str] = {}
    for offset, block in _blocks("text"):
        intro = TUTORIAL[:offset].rstrip().splitlines()[-1]
        m = re.fullmatch(r"From `([^`]+)`:", intro)
        assert m, f"a text block without its source: {block[:1]}"
        text = files.setdefault(m.group(1), (home / m.group(1)).read_text(encoding="utf-8"))
        lines = set(text.splitlines())
        for line in block:
            assert line == SKIP or line in lines, f"{m.group(1)}: {line!r}"

    everything = "\n".join(printed + list(files.values()) + commands)
    missing = sorted(f for f in _prose_figures() if f not in everything)
    assert missing == [], f"figures in the tutorial's prose that no command printed: {missing}"

    loop = re.search(r"## The designer's loop.*?```bash\n(.*?)```", README, re.S)
    assert loop, "README.md's designer's loop"
    readme = [line.split("#")[0].strip() for line in loop.group(1).splitlines()
              if line.strip() and not line.startswith("#")]
    assert readme and all(command in commands for command in readme), readme
