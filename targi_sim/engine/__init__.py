"""The compiled Targi engine: flat integer state, numba functions, no Python objects.

Compiled code is cached on disk, once per machine (targi_sim/engine/cache.py): the cache
folder is named after the engine's sources and the numba, llvmlite, NumPy and Python
versions, and inside it each function's entry is keyed by its source file's content,
not by where the checkout lives, so a second clone, a worktree or a CI checkout of the
same code loads what the first compiled. numba functions are cached there while
`compile_cache()` is in force, which is how every engine module below is imported. Set
TARGI_SIM_CACHE_DIR to choose the parent directory.

Importing compiles nothing: the engine is compiled (or loaded from the cache) on
first use, and each strategy's policy only when a seat plays it.
"""

import functools
import hashlib
import os
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import llvmlite
import numba
import numpy

from . import cache as _cache

_HERE = Path(__file__).resolve().parent
_cache.install()


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """The engine's identity (run manifests record it): every engine source file and the
    numba version; computed once a process (its sources do not change under it)."""
    h = hashlib.sha256(numba.__version__.encode())
    for path in sorted(_HERE.rglob("*.py")):
        h.update(path.relative_to(_HERE.parent).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def build_key() -> str:
    """The compile cache folder's name: the engine's sources and every version the
    machine code depends on (numba, llvmlite, NumPy, Python), never a path."""
    versions = (source_digest(), numba.__version__, llvmlite.__version__, numpy.__version__,
                platform.python_implementation(), platform.python_version())
    return hashlib.sha256("|".join(versions).encode()).hexdigest()[:16]


def cache_dir() -> Path:
    root = os.environ.get("TARGI_SIM_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = str(Path(xdg) / "targi-sim" / "numba")
    return Path(root) / build_key()


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
        evaluation,  # the positions a cut playout's evaluation is fitted on
        expert,  # the search of every decision: imported here, or its functions would be
        # cached by numba's own locator, keyed on expert.py alone, and a change to a
        # module it calls (rollouts.py) would load stale machine code
        forks,  # card-value forks: compiled only when used (cardvalue/)
        information,
        logs,
        montecarlo,
        rng,
        round_replay,
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
