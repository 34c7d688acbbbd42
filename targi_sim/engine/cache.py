"""One compile per machine: numba's disk cache keyed by what was compiled, not where.

numba files a cached function under a folder named after the hash of its source
file's absolute directory, so a second clone, a git worktree or a CI checkout of the
same code compiled the whole engine again. `ContentLocator` files targi-sim's own
functions under their path *inside the package* (`engine`, `engine.policies`, `runner`)
in the cache folder `compile_cache()` sets, and stamps each index with a hash of the
source file's content; the folder itself is named after every engine source and the
numba, llvmlite, NumPy and Python versions (targi_sim.engine.build_key). Machine code is
still specific to the CPU: numba's own index key holds the target and its features.

Functions outside the package (a strategy plugin file) keep numba's own locators.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba.core import caching, config

PACKAGE = Path(__file__).resolve().parent.parent  # the targi_sim package


def _content_hash(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class ContentLocator(caching._CacheLocator):
    """numba cache locator for functions defined in the targi_sim package while
    `compile_cache()` is in force (see the module docstring)."""

    def __init__(self, py_func, py_file: str, inside: Path) -> None:  # type: ignore[no-untyped-def]
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(config.CACHE_DIR, ".".join(inside.parent.parts) or "_")

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        return _content_hash(self._py_file)

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file: str):  # type: ignore[no-untyped-def]
        if not config.CACHE_DIR or not os.path.isfile(py_file):
            return None
        try:
            inside = Path(py_file).resolve().relative_to(PACKAGE)
        except ValueError:
            return None  # not targi-sim's own code
        locator = cls(py_func, py_file, inside)
        try:
            locator.ensure_cache_path()
        except OSError:
            return None  # an unwritable cache: numba's next locator decides
        return locator


def install() -> bool:
    """Put ContentLocator first in numba's list of locators (once); False if this numba
    has no such list, in which case its own path-keyed locators are used."""
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    if not isinstance(classes, list):
        return False
    if ContentLocator not in classes:
        classes.insert(0, ContentLocator)
    return True
