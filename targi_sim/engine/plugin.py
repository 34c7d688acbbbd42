"""A user's compiled policy, loaded from a Python file into the engine at import time.

numba compiles `decide` with every function it may call fixed in advance, so a
plugin cannot be attached to an engine already compiled: the file is named by
the environment variable TARGI_SIM_PLUGIN before targi_sim is imported (the
CLI's --strategy-file does this by restarting itself), and its source is part
of the compile-cache key. The file defines

    def choose(S, D, R, SP, p, dtype, O, n, ctx):  # -> index into O[0:n]

in numba-compilable Python (see docs/strategy-plugins.md). One plugin per process.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from .jit import jit

ENV = "TARGI_SIM_PLUGIN"
MODULE_NAME = "targi_sim_user_plugin"


def _no_plugin(S, D, R, SP, p, dtype, O, n, ctx):
    return 0


def plugin_path() -> Path | None:
    value = os.environ.get(ENV)
    return Path(value).resolve() if value else None


def _load():
    path = plugin_path()
    if path is None:
        return jit(_no_plugin), None
    if not path.is_file():
        raise RuntimeError(f"{ENV}={path}: no such file")
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE_NAME] = module  # numba's compile cache finds functions by module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    choose = getattr(module, "choose", None)
    if not callable(choose):
        raise RuntimeError(f"{path}: a strategy plugin must define choose(S, D, R, SP, p, "
                           "dtype, O, n, ctx) returning an index into O[0:n]")
    return (choose if hasattr(choose, "py_func") else jit(choose)), module


plugin_choose, plugin_module = _load()
