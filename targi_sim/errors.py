"""User-facing errors for deck and rules files, and the small reader that raises them.

Why: a designer editing a TOML file must get one line naming the file, the card, the
field, the bad value and what is allowed -- never a KeyError or a numpy traceback.
`FieldReader` keeps that discipline in one place for both `deck.py` and `rules.py`.
"""

from __future__ import annotations

import copy
import difflib
import functools
import re
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


def _fmt_allowed(allowed: str | Iterable[Any] | None) -> str:
    if allowed is None:
        return ""
    if isinstance(allowed, str):
        return allowed
    return ", ".join(repr(a) if isinstance(a, str) else str(a) for a in allowed)


class TargiSimError(Exception):
    """Base of every error targi-sim raises on purpose: its message is one line for the
    user. `except TargiSimError` catches a bad file, name, request or strategy alike."""


class DataError(TargiSimError, ValueError):
    """A deck or rules file holds something the loader cannot accept.

    `where` names the card or section ("tribe card 11 (Camel Rider 2VP #3)": the
    card_id, from 0, and the name; "border card 5 (Merchant)": the position),
    `field` the key, `got` the offending value (None when absent), `allowed` what
    would be accepted, `problem` an optional short phrase ("is missing").
    """

    def __init__(
        self,
        path: str | Path | None,
        where: str | None,
        field: str | None,
        got: Any = None,
        allowed: str | Iterable[Any] | None = None,
        problem: str | None = None,
    ) -> None:
        self.path = path
        self.where = where
        self.field = field
        self.got = got
        self.allowed = _fmt_allowed(allowed)
        self.problem = problem
        super().__init__(self._message())

    def __reduce__(self):  # keep pickling (joblib workers) faithful
        return (
            type(self),
            (self.path, self.where, self.field, self.got, self.allowed, self.problem),
        )

    def _message(self) -> str:
        msg = str(self.path) if self.path is not None else "<no file>"
        if self.where:
            msg += f": {self.where}"
        if self.field:
            msg += f": field '{self.field}'"
        msg += f" {self.problem}" if self.problem else " has a bad value"
        if self.got is not None:
            msg += f" (got {self.got!r})"
        if self.allowed:
            msg += f"; allowed: {self.allowed}"
        return msg + "."

    def __str__(self) -> str:
        return self._message()


class FileProblem(DataError):
    """A DataError already phrased as one line naming its file (a strategy file that
    does not import, has no `choose`, or does not compile)."""

    def __init__(self, message: str) -> None:
        self.text = message
        super().__init__(None, None, None)

    def __reduce__(self):
        return (type(self), (self.text,))

    def _message(self) -> str:
        return self.text


class UsageError(TargiSimError, ValueError):
    """An unknown deck / rules / strategy name; the message lists the valid ones."""

    def __init__(self, kind: str, got: str, valid: Sequence[str]) -> None:
        self.kind = kind
        self.got = got
        self.valid = tuple(valid)
        names = ", ".join(self.valid) if self.valid else "(none found)"
        close = difflib.get_close_matches(got, self.valid, n=1, cutoff=0.6)
        guess = f" (did you mean {close[0]!r}?)" if close else ""
        super().__init__(f"unknown {kind} {got!r}{guess}; available: {names}")

    def __reduce__(self):
        return (type(self), (self.kind, self.got, self.valid))


class InputError(TargiSimError, ValueError):
    """A request that cannot be carried out as given (an output folder, a run directory,
    a game id): the message is one line for the user, and the CLI exits with code 2."""


class ConfigError(InputError):
    """A setting that cannot be used: a field of a config object (TuneConfig, ...) or an
    argument of a library function. The message names it in backquotes, as the Python
    API spells it (`block_deals must be ...`); the command line shows its own option
    there instead (--block-deals). Library messages never name command-line flags."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"`{field}` {problem}")

    def __reduce__(self):
        return (type(self), (self.field, self.problem))


def read_text(path: Path) -> str:
    """A data file's text, turning every failure into a DataError."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(path, None, None, problem="cannot be read: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(path, None, None, problem=f"cannot be read: {exc}") from None


@functools.lru_cache(maxsize=128)
def _parsed(text: str) -> dict[str, Any] | tomllib.TOMLDecodeError:
    """TOML parsed once per text (a game made in a loop reads the same files again)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return exc


def read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """Read and parse a TOML file, turning every failure into a DataError."""
    text = read_text(path)
    data = _parsed(text)
    if isinstance(data, tomllib.TOMLDecodeError):
        m = re.search(r"at line (\d+), column (\d+)", str(data))
        where = f"line {m.group(1)}, column {m.group(2)}" if m else None
        raise DataError(path, where, None, problem=f"is not valid TOML: {data}") from None
    return text, copy.deepcopy(data)  # callers may change their copy


class FieldReader:
    """Typed, validated access to one TOML table (a card, a cost, the rules file)."""

    error_class: type[DataError] = DataError  # what its errors are (a subclass may change it)

    def __init__(self, path: Path | None, where: str | None, data: Any, prefix: str = "") -> None:
        self.path = path
        self.where = where
        self.prefix = prefix
        if not isinstance(data, dict):
            raise self.error_class(path, where, prefix.rstrip(".") or None, data, "a table")
        self.data: dict[str, Any] = data

    def error(self, key: str, got: Any = None, allowed: Any = None, problem: str | None = None):
        return self.error_class(self.path, self.where, self.prefix + key, got, allowed, problem)

    def check_keys(self, allowed: Iterable[str], required: Iterable[str] = ()) -> None:
        allowed = list(allowed)
        for key in self.data:
            if key not in allowed:
                raise self.error(key, None, allowed, "is not a known field")
        required = list(required)
        for key in required:
            if key not in self.data:
                raise self.error(
                    key, None, None, f"is missing (required fields: {', '.join(required)})"
                )

    def _get(self, key: str, default: Any, expected: str) -> Any:
        if key in self.data:
            return self.data[key]
        if default is None:
            raise self.error(key, None, expected, "is missing (required)")
        return default

    def get_int(
        self, key: str, default: int | None = None, lo: int = 0, hi: int | None = None
    ) -> int:
        expected = f"an integer >= {lo}" if hi is None else f"an integer {lo}..{hi}"
        value = self._get(key, default, expected)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, value, expected, "has the wrong type")
        if value < 0 and lo >= 0:
            raise self.error(key, value, expected, "must not be negative")
        if value < lo or (hi is not None and value > hi):
            raise self.error(key, value, expected, "is out of range")
        return value

    def get_str(self, key: str, default: str | None = None) -> str:
        value = self._get(key, default, "a string")
        if not isinstance(value, str):
            raise self.error(key, value, "a string", "has the wrong type")
        return value

    def get_bool(self, key: str, default: bool | None = None) -> bool:
        value = self._get(key, default, "true or false")
        if not isinstance(value, bool):
            raise self.error(key, value, "true or false", "has the wrong type")
        return value

    def get_choice(self, key: str, options: Sequence[str], default: str | None = None) -> str:
        value = self.get_str(key, default)
        if value not in options:
            raise self.error(key, value, options, "is not a known value")
        return value

    def get_table(
        self, key: str, allowed: Iterable[str] | None = None, required: bool = True
    ) -> FieldReader:
        value = self._get(key, None if required else {}, "a table")
        if not isinstance(value, dict):
            raise self.error(key, value, "a table", "has the wrong type")
        sub = type(self)(self.path, self.where, value, f"{self.prefix}{key}.")
        if allowed is not None:
            sub.check_keys(allowed)
        return sub

    def get_list(self, key: str) -> list[Any]:
        value = self._get(key, None, "a list")
        if not isinstance(value, list):
            raise self.error(key, value, "a list", "has the wrong type")
        return value

    def ints(self, keys: Sequence[str], hi: int | None = None) -> list[int]:
        """All of `keys` as integers 0..hi (absent -> 0), e.g. a cost table."""
        self.check_keys(keys)
        return [self.get_int(k, 0, hi=hi) for k in keys]


class StrategyError(TargiSimError, RuntimeError):
    """A strategy misbehaved while playing (e.g. answered a decision with an option it
    was not offered); the message is one line naming the strategy, the decision type and
    a game to replay. The CLI exits with code 1."""
