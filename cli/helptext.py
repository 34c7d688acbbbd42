"""How `--help` prints: examples line for line as written, prose wrapped to the terminal.

click rewraps every paragraph of an epilog to the help width, which joined two example
lines into one and broke a path at its hyphen. A paragraph whose lines are all indented
(an example, or several lines that belong together) is marked with click's `\\b`, which
keeps it as written; the prose around it still wraps, to the terminal's width (COLUMNS
when set: `CONTEXT` lifts click's 80-column cap).
"""

from __future__ import annotations

# click's help width is min(terminal width, max_content_width) - 2: no cap of its own
CONTEXT = {"max_content_width": 10_000}
VERBATIM = "\b"


def epilog(text: str) -> str:
    """`text` with each indented paragraph (the examples) kept line for line."""
    paragraphs = text.strip("\n").split("\n\n")
    out = []
    for p in paragraphs:
        lines = p.split("\n")
        if all(line.startswith("  ") for line in lines):
            p = VERBATIM + "\n" + p
        out.append(p)
    return "\n\n".join(out) + "\n"


def examples(help_text: str) -> list[str]:
    """The example commands of a printed help text (what tests/test_help_examples.py
    runs): the lines of the indented paragraphs after "Examples:", a line ending in a
    backslash joined with the next, comments after `#` dropped."""
    lines = help_text.splitlines()
    try:
        start = next(i for i, s in enumerate(lines) if s.strip() == "Examples:")
    except StopIteration:
        return []
    indent = len(lines[start]) - len(lines[start].lstrip())
    found: list[str] = []
    pending = ""
    for line in lines[start + 1:]:
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) <= indent:
            break  # the prose after the examples
        text = pending + line.strip()
        if text.endswith("\\"):
            pending = text[:-1].rstrip() + " "
            continue
        pending = ""
        command = _without_comment(text)
        if command:
            found.append(command)
    return found


def _without_comment(line: str) -> str:
    """The command before a `#` comment (a `#` inside quotes is part of the command)."""
    quote = ""
    for i, c in enumerate(line):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] == " "):
            return line[:i].rstrip()
    return line.rstrip()
