"""A user's compiled strategy from a Python file: its `choose` becomes a policy.

The file defines, in numba-compilable Python (docs/strategy-plugins.md),

    def choose(S, D, R, SP, p, dtype, O, n, ctx):  # -> index into O[0:n]

and optionally NAME, DESCRIPTION, WEIGHTS (heuristic weights for what it delegates to
`decide_heuristic`) and DETERMINISTIC. Loading a file runs it, like importing a module.
`choose` is compiled on its own, against the already compiled engine, the first time a
seat plays it, and cached beside the engine (keyed by the file's content); the engine is
never recompiled for a plugin, and any number of plugins can play in one process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from .jit import entry_point, jit
from .policies import Policy

MODULE_PREFIX = "targi_sim_plugin_"
CHOOSE_ARGS = ("S", "D", "R", "SP", "p", "dtype", "O", "n", "ctx")


class PluginError(ValueError):
    """A plugin file that cannot be used; the message is one line naming the file."""


@dataclass(frozen=True)
class Plugin:
    """A loaded plugin file."""

    path: Path
    module: ModuleType
    policy: Policy
    content: str

    @property
    def name(self) -> str:
        return str(getattr(self.module, "NAME", self.path.stem))

    @property
    def description(self) -> str:
        return str(getattr(self.module, "DESCRIPTION", ""))

    @property
    def weights(self) -> dict:
        w = getattr(self.module, "WEIGHTS", {})
        return w if isinstance(w, dict) else {"<not a table>": w}

    @property
    def deterministic(self) -> bool:
        return getattr(self.module, "DETERMINISTIC", False) is True


_LOADED: dict[tuple[Path, str], Plugin] = {}
_MODULES: dict[tuple[Path, str], ModuleType] = {}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def load_module(path: str | Path) -> tuple[Path, str, ModuleType]:
    """Import a strategy file once per content: (resolved path, source, module).

    PluginError (one line) if the file is missing, unreadable or fails to import.
    """
    from . import compile_cache

    p = Path(path).expanduser().resolve()
    if not p.is_file():
        raise PluginError(f"{path}: no such strategy file")
    try:
        source = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PluginError(f"{path}: cannot be read ({_first_line(exc)})") from None
    key = (p, hashlib.sha256(source.encode()).hexdigest())
    if key in _MODULES:
        return p, source, _MODULES[key]
    name = MODULE_PREFIX + key[1][:16]
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise PluginError(f"{path}: not a Python file that can be loaded")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's compile cache (and pickling) find it by name
    try:
        with compile_cache():
            spec.loader.exec_module(module)
    except Exception as exc:  # the file's own code failed: report it, do not crash
        sys.modules.pop(name, None)
        raise PluginError(f"{path}: loading it failed: {_first_line(exc)}") from None
    _MODULES[key] = module
    return p, source, module


def load_plugin(path: str | Path) -> Plugin:
    """A compiled plugin file: its `choose` wrapped as a policy (compiled on first use).

    PluginError (one line) if the file does not load or has no usable `choose`.
    """
    from . import compile_cache

    p, source, module = load_module(path)
    key = (p, hashlib.sha256(source.encode()).hexdigest())
    if key in _LOADED:
        return _LOADED[key]
    choose = getattr(module, "choose", None)
    if not callable(choose):
        raise PluginError(f"{path}: a compiled strategy plugin must define choose(S, D, R, "
                          "SP, p, dtype, O, n, ctx) returning an index into O[0:n] (a Python "
                          "strategy defines a targi_sim.PythonStrategy subclass instead)")
    fn = getattr(choose, "py_func", choose)
    try:
        args = tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        args = ()
    if len(args) != len(CHOOSE_ARGS):
        raise PluginError(f"{path}: choose takes {len(args)} arguments ({', '.join(args)}); "
                          f"it must take 9: {', '.join(CHOOSE_ARGS)}")
    with compile_cache():
        compiled = entry_point(choose if hasattr(choose, "py_func") else jit(choose))
    policy = Policy(f"plugin:{p.name}", compiled, (plugin_policy, (str(p),)))
    plugin = Plugin(p, module, policy, source)
    _LOADED[key] = plugin
    return plugin


def plugin_policy(path: str) -> Policy:
    """The policy of a plugin file (how worker processes rebuild it)."""
    return load_plugin(path).policy


def compile_policy(policy: Policy) -> None:
    """Compile a policy now; a plugin that numba cannot compile gets one PluginError line."""
    from . import compile_cache

    try:
        with compile_cache():
            policy.compile()
    except Exception as exc:
        if not policy.name.startswith("plugin:"):
            raise
        raise PluginError(f"{policy.name.removeprefix('plugin:')}: numba cannot compile "
                          f"choose: {_first_line(exc)}") from None
