"""Words the terminal prints for a designer: abbreviations explained once, long sentences
wrapped to the terminal. (An unknown name's "did you mean" is targi_sim.errors.UsageError's.)

Why here: the report's tables define their columns in tooltips (data/report/columns.toml),
but a terminal has no tooltips, so each command that prints an abbreviation ends with
one line saying what the abbreviations it printed mean.
"""

from __future__ import annotations

import re
import shutil
import textwrap
from collections.abc import Iterable

# abbreviation -> what it means, in the order they are explained
ABBREVIATIONS = {
    "WR played": "win rate (draws as half) of the players who played the card",
    "WR not taken": "win rate of the players who were offered the card and did not take it",
    "p adj": "p-value adjusted for the number of tests",
    "Holm p": "p-value adjusted for the number of tests by Holm's method",
    "Holm": "Holm's method, which keeps the chance of any false alarm among all the tests "
            "at 5%",
    "Benjamini-Hochberg": "a method that keeps the expected share of false alarms among the "
                          "flagged tests at 5%",
    "VP-equivalent": "VP plus goods and gold valued at the deck's trade rates",
    "n =": "the number of independent units (games, or pairs of games sharing a deal) "
           "behind the figure",
}


def _pattern(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])")


def abbreviations_line(texts: Iterable[str]) -> str | None:
    """One line explaining every abbreviation that occurs in `texts`, or None ("Holm"
    inside "Holm p" is explained by "Holm p")."""
    rest = "\n".join(texts)
    found = set()
    for word in sorted(ABBREVIATIONS, key=len, reverse=True):
        rest, n = _pattern(word).subn(" ", rest)
        if n:
            found.add(word)
    lines = [f"{k}: {v}" for k, v in ABBREVIATIONS.items() if k in found]
    return ("Abbreviations: " + "; ".join(lines) + ".") if lines else None


def width() -> int:
    """The terminal's width (COLUMNS when set; 80 when not a terminal)."""
    return max(40, shutil.get_terminal_size((80, 24)).columns)


def wrapped(text: str, indent: str = "", first: str | None = None) -> str:
    """`text` wrapped to the terminal, continuation lines indented by `indent`."""
    return textwrap.fill(text, width=width(), initial_indent=indent if first is None else first,
                         subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)

