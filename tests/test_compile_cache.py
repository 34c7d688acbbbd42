"""One compile per machine: two copies of the package in two folders share one compile
cache (targi_sim/engine/cache.py), and an edited engine never loads stale code."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1",
                                reason="nothing is compiled with NUMBA_DISABLE_JIT=1")

# Compile (or load) one small engine function the way the engine does, and say which.
PROBE = """
import json, numpy as np
from targi_sim.engine import cache_dir, rng
S = np.zeros(8, dtype=np.int64)
rng.seed_stream(S, 0, 7, 0)
stats = rng.seed_stream.stats
print(json.dumps({"file": rng.__file__, "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values()), "cache": str(cache_dir()),
                  "words": S[:4].tolist()}))
"""


def _copy(dest: Path) -> Path:
    shutil.copytree(ROOT / "targi_sim", dest / "targi_sim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    return dest


def _probe(checkout: Path, cache: Path) -> dict:
    env = {**os.environ, "TARGI_SIM_CACHE_DIR": str(cache), "PYTHONPATH": str(checkout)}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=checkout, env=env, check=True,
                         capture_output=True, text=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_second_checkout_loads_what_the_first_compiled(tmp_path):
    cache = tmp_path / "cache"
    first = _probe(_copy(tmp_path / "clone-a"), cache)
    second = _probe(_copy(tmp_path / "clone-b"), cache)
    assert first["file"].startswith(str(tmp_path / "clone-a"))  # each ran its own copy
    assert second["file"].startswith(str(tmp_path / "clone-b"))
    assert (first["hits"], first["misses"]) == (0, 1)  # compiled
    assert (second["hits"], second["misses"]) == (1, 0)  # loaded, nothing compiled
    assert first["cache"] == second["cache"] and first["words"] == second["words"]
    # the cache is filed by the path inside the package, never by the checkout's path
    names = {p.name for p in Path(first["cache"]).iterdir()}
    assert "engine" in names and not any("clone" in n for n in names)


def test_an_edited_engine_compiles_again(tmp_path):
    cache = tmp_path / "cache"
    first = _probe(_copy(tmp_path / "clone-a"), cache)
    edited = _copy(tmp_path / "clone-b")
    rng = edited / "targi_sim" / "engine" / "rng.py"
    rng.write_text(rng.read_text() + "\n# an edit\n")
    second = _probe(edited, cache)
    assert second["cache"] != first["cache"]
    assert (second["hits"], second["misses"]) == (0, 1)


def test_every_engine_function_is_cached_by_content():
    """Every cached numba function of the engine files its machine code under the
    content-keyed folder, whatever order the modules are imported in. One filed by
    numba's own locator (keyed on its own file alone) would load stale code after an
    edit of a module it calls: expert.py's search loaded an old rollouts.py that way
    until `expert` joined the modules the package imports inside compile_cache()."""
    probe = """
import importlib, pkgutil
import targi_sim.engine.expert  # first, as a caller that wants only the expert would
import targi_sim.engine as eng
from numba.core.dispatcher import Dispatcher
from targi_sim.engine.cache import ContentLocator
bad, seen = [], 0
for m in pkgutil.walk_packages(eng.__path__, "targi_sim.engine."):
    for name, obj in vars(importlib.import_module(m.name)).items():
        impl = getattr(getattr(obj, "_cache", None), "_impl", None)
        if isinstance(obj, Dispatcher) and obj.__module__ == m.name and impl is not None:
            seen += 1
            if not isinstance(impl._locator, ContentLocator):
                bad.append(f"{m.name}.{name}")
print(seen, bad)
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    seen, bad = done.stdout.strip().split(" ", 1)
    assert int(seen) > 100 and bad == "[]", done.stdout
