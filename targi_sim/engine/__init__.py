"""The compiled Targi engine: flat integer state, numba functions, no Python objects.

numba's on-disk cache is keyed per source file, so editing one engine module
would leave stale machine code for the modules that call it. We therefore
compile into a cache directory named after a hash of every engine source file
(and the numba version), and import all engine modules here while that
directory is in force. Set TARGI_SIM_CACHE_DIR to choose the parent directory.
"""

import hashlib
import os
from pathlib import Path

import numba

_HERE = Path(__file__).resolve().parent


def source_digest() -> str:
    h = hashlib.sha256(numba.__version__.encode())
    for path in sorted(_HERE.glob("*.py")) + [_HERE.parent / "constants.py"]:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    plugin = os.environ.get("TARGI_SIM_PLUGIN")  # a user policy compiled into decide
    if plugin and Path(plugin).is_file():
        h.update(Path(plugin).resolve().read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    root = os.environ.get("TARGI_SIM_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = str(Path(xdg) / "targi-sim" / "numba")
    return Path(root) / source_digest()


_previous = numba.config.CACHE_DIR
numba.config.CACHE_DIR = str(cache_dir())
try:
    from . import (  # noqa: E402,F401  - compile-cache setup must precede these
        acquire,
        actions,
        ask,
        batch,
        costs,
        heuristic,
        information,
        montecarlo,
        plugin,
        policy,
        rng,
        rounds,
        scoring,
        state,
    )
finally:
    numba.config.CACHE_DIR = _previous
