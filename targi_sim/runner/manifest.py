"""Reading a run's manifest.json as untrusted input: a schema check, like a deck file.

Why: a run directory may come from someone else, and replay and report act on what
its manifest says (which deck to load, how games map to chunks, what a name is). So
every field they use is checked for type, range and consistency (hashes of the stored
files, the configuration hash, the chunk count) before anything is done with it, and
a fault is one line naming manifest.json and the field. Names from a manifest are
only ever displayed, never used as paths (replay writes stored files under fixed names).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from targi_sim.engine.constants import STRATEGY_KIND_NAMES
from targi_sim.play.pairing import PAIRINGS

from ..errors import DataError, FieldReader, InputError
from .config import config_digest
from .tables import TABLES

MAX_GAMES = 2**32          # pair ids must fit in 32 bits (targi_sim.play.games.pair_seed)
MAX_SEED = 2**31 - 1
MAX_CHUNK = 10_000_000
STATUSES = ("complete", "incomplete")
_HEX64 = re.compile(r"[0-9a-f]{64}")


class ManifestError(DataError, InputError):
    """A manifest.json that cannot be trusted; the message is one line (file and field)."""


class _Reader(FieldReader):
    error_class = ManifestError

    def hex64(self, key: str) -> str:
        value = self.get_str(key)
        if not _HEX64.fullmatch(value):
            raise self.error(key, value, "64 lowercase hex digits (a sha256)", "is not a hash")
        return value

    def optional_str(self, key: str) -> str | None:
        if key not in self.data:
            raise self.error(key, None, "a string or null", "is missing (required)")
        value = self.data[key]
        if value is not None and not isinstance(value, str):
            raise self.error(key, value, "a string or null", "has the wrong type")
        return value

    def item(self, key: str, index: int) -> _Reader:
        items = self.get_list(key)
        return _Reader(self.path, self.where, items[index], f"{self.prefix}{key}[{index}].")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_manifest(data: Any, path: Path) -> dict[str, Any]:
    """`data` (parsed manifest.json at `path`) if this version can use it, else ManifestError."""
    top = _Reader(path, None, data)
    top.check_keys(
        ("tool", "version", "engine_hash", "command", "config", "config_hash", "deck", "rules",
         "strategies", "chunks", "status", "timings", "machine", "counts", "cards"),
        required=("tool", "version", "config", "config_hash", "deck", "rules", "strategies",
                  "chunks", "status", "timings"))
    top.get_choice("tool", ("targi-sim",))
    top.get_str("version")
    config = _check_config(top)
    if top.hex64("config_hash") != config_digest(config.data):
        raise top.error("config_hash", data["config_hash"][:12] + "...",
                        "the sha256 of `config`", "does not match the configuration")
    games, chunk = config.data["games"], config.data["chunk_size"]
    expected = -(-games // chunk)
    top.get_int("chunks", lo=expected, hi=expected)
    _check_files(top, config)
    status = top.get_choice("status", STATUSES)
    timings = top.get_table("timings")
    timings.get_str("first_started")
    if status == "complete":
        _check_counts(top.get_table("counts"))
        cards = top.get_table("cards", ("bytes", "sha256"))
        cards.get_int("bytes")
        cards.hex64("sha256")
    return data


def _check_config(top: _Reader) -> _Reader:
    config = top.get_table("config")
    config.check_keys(("games", "seed", "pairing", "paired", "chunk_size", "strategies",
                       "deck", "rules", "engine"),
                      required=("games", "seed", "chunk_size", "strategies", "deck", "rules",
                                "engine"))
    config.get_int("games", lo=1, hi=MAX_GAMES)
    config.get_int("seed", hi=MAX_SEED)
    if "pairing" in config.data:  # targi_sim.pairing; older runs record `paired`
        config.get_choice("pairing", PAIRINGS)
    else:
        config.get_bool("paired")
    config.get_int("chunk_size", lo=1, hi=MAX_CHUNK)
    config.get_str("engine")
    if len(config.get_list("strategies")) != 2:
        raise config.error("strategies", len(config.data["strategies"]), "2 seats",
                           "has the wrong number of entries")
    for seat in range(2):
        s = config.item("strategies", seat)
        s.check_keys(("seat", "name", "sha256"), required=("seat", "name", "sha256"))
        s.get_int("seat", lo=seat, hi=seat)
        s.get_str("name")
        s.hex64("sha256")
    for key in ("deck", "rules"):
        entry = config.get_table(key, ("name", "sha256"))
        entry.get_str("name")
        entry.hex64("sha256")
    return config


def _check_files(top: _Reader, config: _Reader) -> None:
    """The stored deck, rules and strategies: types, and hashes that match `config`."""
    for key in ("deck", "rules"):
        entry = top.get_table(key, ("name", "path", "sha256", "content"))
        entry.get_str("name")
        entry.optional_str("path")
        content = entry.get_str("content")
        sha = entry.hex64("sha256")
        if sha != config.data[key]["sha256"]:
            raise entry.error("sha256", sha[:12] + "...", f"config.{key}.sha256",
                              "does not match the configuration")
        if _sha256(content) != sha:
            raise entry.error("content", f"{len(content)} characters", "the text whose sha256 "
                              "is recorded", "does not match its sha256")
    if len(top.get_list("strategies")) != 2:
        raise top.error("strategies", len(top.data["strategies"]), "2 seats",
                        "has the wrong number of entries")
    for seat in range(2):
        entry = top.item("strategies", seat)
        entry.check_keys(("seat", "name", "kind", "path", "sha256", "content"),
                         required=("seat", "name", "kind", "path", "sha256", "content"))
        entry.get_int("seat", lo=seat, hi=seat)
        entry.get_choice("kind", STRATEGY_KIND_NAMES)
        entry.optional_str("path")
        entry.optional_str("content")
        for key in ("name", "sha256"):
            if entry.get_str(key) != config.data["strategies"][seat][key]:
                raise entry.error(key, entry.data[key], f"config.strategies[{seat}].{key}",
                                  "does not match the configuration")


def _check_counts(counts: _Reader) -> None:
    counts.check_keys(("games", "rows", "bytes"), required=("games", "rows", "bytes"))
    counts.get_int("games", hi=MAX_GAMES)
    counts.get_int("bytes")
    rows = counts.get_table("rows", TABLES)
    for table in TABLES:
        rows.get_int(table)


def read_manifest(path: Path) -> dict[str, Any]:
    """Parse and check manifest.json at `path`; ManifestError (one line) on any fault."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(path, None, None, problem=f"cannot be read: {exc}") from None
    return check_manifest(data, path)
