"""Atomic file output: a crash or a full disk never leaves a half file that looks complete.

Everything targi-sim writes goes to a hidden temporary file in the destination's
folder (so the rename stays on one file system) and is renamed into place only
once it is whole. Temporary names start with '.' and end in '.tmp', so globs such
as `games/*.parquet` never see them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

TMP_SUFFIX = ".tmp"


def temp_path(path: Path) -> Path:
    """The temporary name `path` is written under before the rename."""
    return path.with_name(f".{path.name}.{os.getpid()}{TMP_SUFFIX}")


def atomic_write(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Call `write(tmp)`, then rename tmp to `path`; on any error remove tmp and re-raise."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    return atomic_write(path, lambda p: Path(p).write_text(text, encoding="utf-8"))


def atomic_write_json(path: str | Path, data: Any) -> Path:
    return atomic_write_text(path, json.dumps(data, indent=1, sort_keys=False) + "\n")


def remove_temp_files(folder: Path) -> int:
    """Delete leftovers of interrupted writes (hidden *.tmp files) under `folder`."""
    n = 0
    for tmp in folder.rglob(f".*{TMP_SUFFIX}"):
        if tmp.is_file():
            tmp.unlink()
            n += 1
    return n
