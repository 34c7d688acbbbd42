"""The compiled Targi engine: flat integer state, numba functions, no Python objects.

numba's on-disk cache is keyed per source file, so editing one engine module
would leave stale machine code for the modules that call it. We therefore
compile into a cache directory named after a hash of every engine source file
(and the numba version), and import all engine modules while that directory is
in force (`compile_cache`). Set TARGI_SIM_CACHE_DIR to choose the parent directory.

Importing compiles nothing: the engine is compiled (or loaded from the cache) on
first use, and each strategy's policy only when a seat plays it.
"""

import functools
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numba

_HERE = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """A hash of every engine source and the numba version (computed once a process:
    the sources a process runs do not change under it)."""
    h = hashlib.sha256(numba.__version__.encode())
    for path in sorted(_HERE.rglob("*.py")):
        h.update(path.relative_to(_HERE.parent).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    root = os.environ.get("TARGI_SIM_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = str(Path(xdg) / "targi-sim" / "numba")
    return Path(root) / source_digest()


@contextmanager
def compile_cache() -> Iterator[None]:
    """numba functions defined inside this block cache into `cache_dir()`."""
    previous = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(cache_dir())
    try:
        yield
    finally:
        numba.config.CACHE_DIR = previous


with compile_cache():
    from . import (  # noqa: E402,F401  - compile-cache setup must precede these
        access,
        acquire,
        actions,
        ask,
        batch,
        costs,
        forks,  # card-value forks: compiled only when used (cardvalue/)
        information,
        logs,
        montecarlo,
        rng,
        rounds,
        scoring,
        stepping,
    )
    from .policies import (  # noqa: E402,F401
        external,
        greedy,
        heuristic,
        random,
        scripted,
    )
    from .policies import montecarlo as montecarlo_policy  # noqa: E402,F401
