"""Strategies as the engine sees them: a kind code and a row of numeric parameters.

A strategy is data: a TOML file in `data/strategies/` (or any path) with a
`kind` and its parameters, validated on load. The engine reads it as one
float64 row (kind in column 0, weights in the HW_* columns; see
`targi_sim.constants`). `scripted` builds the test-only strategy that replays
a list of choices.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import constants as C
from .constants import HC_KEY, N_STRAT_PARAMS, SK_GREEDY, SK_RANDOM, SK_SCRIPTED
from .deck import resolve
from .engine.policy import SCRIPT_START
from .errors import DataError, FieldReader, UsageError, read_toml
from .paths import data_dir

KINDS = {"random": C.SK_RANDOM, "greedy": C.SK_GREEDY, "heuristic": C.SK_HEURISTIC,
         "montecarlo": C.SK_MONTECARLO}

# Heuristic weights: TOML key -> (engine column, default, lowest allowed, meaning)
WEIGHTS: dict[str, tuple[int, float, float, str]] = {
    "vp": (C.HW_VP, 1.0, 0.0, "value of one VP token"),
    "card_vp": (C.HW_CARD_VP, 1.0, 0.0, "value per printed VP of a displayed card"),
    "gold": (C.HW_GOLD, 1.2, 0.0, "value of one gold early in the game"),
    "good": (C.HW_GOOD, 0.45, 0.0, "value of one good early in the game"),
    "need": (C.HW_NEED, 0.3, 0.0, "extra value of a good visible cards still need"),
    "display": (C.HW_DISPLAY, 0.5, -10.0, "value of a displayed card beyond its VP"),
    "row_same": (C.HW_ROW_SAME, 0.5, 0.0, "weight of progress toward a 4-of-a-symbol row"),
    "row_diff": (C.HW_ROW_DIFF, 0.5, 0.0, "weight of progress toward a 4-different row"),
    "hand": (C.HW_HAND, 0.4, 0.0, "value of a kept hand card per printed VP"),
    "denial": (C.HW_DENIAL, 0.15, 0.0, "weight of what a choice takes from the opponent"),
    "raid": (C.HW_RAID, 0.5, 0.0, "weight of raid exposure and raid protection"),
    "late": (C.HW_LATE, 1.0, 0.0, "how fast resources lose value as rounds run out"),
    "trade_margin": (C.HW_TRADE_MARGIN, 0.05, -10.0, "minimum gain for a trade"),
    "line": (C.HW_LINE, 0.3, 0.0, "value of future crossings along a Targi's line"),
    "noise": (C.HW_NOISE, 0.0, 0.0, "random jitter added to option values"),
}
SYMBOL_KEYS = tuple(C.SYMBOL_NAMES)
TOP_KEYS = ("name", "kind", "description", "weights", "symbols", "rollouts", "base")
KIND_KEYS = {
    "random": ("name", "kind", "description"),
    "greedy": ("name", "kind", "description"),
    "heuristic": ("name", "kind", "description", "weights", "symbols"),
    "montecarlo": TOP_KEYS,
}
MAX_ROLLOUTS = 10_000


@dataclass(frozen=True, eq=False)
class Strategy:
    """A named compiled policy: `kind` selects the code path, `params` tunes it."""

    name: str
    kind: int
    params: np.ndarray = field(default_factory=lambda: np.zeros(N_STRAT_PARAMS))
    description: str = ""
    path: Path | None = None
    content: str = ""

    @property
    def kind_name(self) -> str:
        return C.STRATEGY_KIND_NAMES[self.kind]

    @property
    def deterministic(self) -> bool:
        """True when the policy draws no random numbers: the same position always gets
        the same answer. Greedy and scripted are; heuristic when its `noise` weight is
        0; random and Monte Carlo (random rollouts) are not; a compiled plugin when its
        module sets DETERMINISTIC = True. Two seats playing the same deterministic
        strategy make a seat-swapped pair's second game a relabelled copy of the first
        (targi_sim.pairing decides from this)."""
        if self.kind in (SK_GREEDY, SK_SCRIPTED):
            return True
        if self.kind == C.SK_HEURISTIC:
            return float(self.params[C.HW_NOISE]) == 0.0
        if self.kind == C.SK_PLUGIN:
            from .engine.plugin import plugin_module

            return bool(getattr(plugin_module, "DETERMINISTIC", False))
        return False

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.row().tobytes()).hexdigest()

    def row(self) -> np.ndarray:
        """The engine's parameter row; the heuristic's cache columns start empty (NaN)."""
        row = np.zeros(N_STRAT_PARAMS, dtype=np.float64)
        row[:] = self.params
        row[0] = self.kind
        if self.kind >= SK_GREEDY:
            row[HC_KEY:] = np.nan
        return row

    def settings(self) -> dict[str, Any]:
        """The parameters by name (what `targi-sim strategies show` prints)."""
        out: dict[str, Any] = {"kind": self.kind_name}
        if self.kind in (C.SK_HEURISTIC, C.SK_MONTECARLO, C.SK_PLUGIN):
            out["weights"] = {k: float(self.params[col]) for k, (col, *_rest) in WEIGHTS.items()}
            out["symbols"] = {s: float(self.params[C.HW_SYMBOL + i])
                              for i, s in enumerate(SYMBOL_KEYS)}
        if self.kind == C.SK_MONTECARLO:
            out["rollouts"] = int(self.params[C.MC_ROLLOUTS])
            base_kind = int(self.params[C.MC_BASE])
            out["base_kind"] = C.STRATEGY_KIND_NAMES[base_kind]
        return out


def scripted(choices: Sequence[int], name: str = "scripted") -> Strategy:
    """A test strategy that answers each multi-option decision with the next value.

    Decisions with a single legal option are not asked and consume nothing. A
    scripted value that is not legal sets the state's error flag (see GameState).
    """
    if len(choices) > N_STRAT_PARAMS - SCRIPT_START:
        raise ValueError(f"at most {N_STRAT_PARAMS - SCRIPT_START} scripted choices")
    params = np.zeros(N_STRAT_PARAMS)
    params[SCRIPT_START:SCRIPT_START + len(choices)] = choices
    params[SCRIPT_START + len(choices):] = -999
    return Strategy(name, SK_SCRIPTED, params, "replays a fixed list of choices")


RANDOM = Strategy("random", SK_RANDOM, description="uniformly random over the legal options")


def list_strategies() -> list[str]:
    """Names of the strategies shipped in `data/strategies/`."""
    return sorted(p.stem for p in (data_dir() / "strategies").glob("*.toml"))


def list_plugin_files() -> list[Path]:
    """Example compiled strategy plugins shipped in `data/strategies/` (*.py)."""
    return sorted((data_dir() / "strategies").glob("*.py"))


available_strategies = list_strategies  # the name the public API has used


def _float(r: FieldReader, key: str, default: float, lo: float) -> float:
    value = r.data.get(key, default)
    expected = f"a number >= {lo:g}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise r.error(key, value, expected, "has the wrong type")
    if not math.isfinite(value) or value < lo:
        raise r.error(key, value, expected, "is out of range")
    return float(value)


def _weights(r: FieldReader, params: np.ndarray, defaults: np.ndarray | None) -> None:
    table = r.get_table("weights", WEIGHTS, required=False)
    for key, (col, default, lo, _) in WEIGHTS.items():
        fallback = default if defaults is None else float(defaults[col])
        params[col] = _float(table, key, fallback, lo)
    symbols = r.get_table("symbols", SYMBOL_KEYS, required=False)
    for i, sym in enumerate(SYMBOL_KEYS):
        fallback = 0.0 if defaults is None else float(defaults[C.HW_SYMBOL + i])
        params[C.HW_SYMBOL + i] = _float(symbols, sym, fallback, -100.0)


class PluginNotLoaded(ValueError):
    """A .py strategy was asked for, but the engine was not started with it."""


def load_plugin_strategy(path: Path) -> Strategy:
    """The compiled policy of a Python file (engine/plugin.py explains the constraint)."""
    from .engine.plugin import ENV, plugin_module, plugin_path

    path = Path(path).resolve()
    if plugin_path() != path or plugin_module is None:
        raise PluginNotLoaded(
            f"{path}: a compiled strategy is built into the engine when it starts; use "
            f"--strategy-file {path} (the command restarts itself with it), or set "
            f"{ENV}={path} before importing targi_sim"
        )
    params = np.zeros(N_STRAT_PARAMS)
    params[0] = C.SK_PLUGIN
    r = FieldReader(path, "strategy plugin", {"weights": getattr(plugin_module, "WEIGHTS", {})})
    _weights(r, params, None)
    return Strategy(
        getattr(plugin_module, "NAME", path.stem), C.SK_PLUGIN, params,
        getattr(plugin_module, "DESCRIPTION", ""), path, path.read_text(encoding="utf-8"),
    )


def load_strategy(name_or_path: str | Path, _seen: tuple[Path, ...] = ()) -> Strategy:
    """Load and validate a strategy by shipped name ("balanced") or by file path.

    A path ending in .py is a compiled plugin (see docs/strategy-plugins.md).
    """
    if str(name_or_path).endswith(".py"):
        return load_plugin_strategy(Path(name_or_path))
    path = resolve("strategy", "strategies", name_or_path, list_strategies())
    text, data = read_toml(path)
    r = FieldReader(path, "strategy", data)
    r.check_keys(TOP_KEYS, required=("kind",))
    kind_name = r.get_choice("kind", tuple(KINDS))
    r.check_keys(KIND_KEYS[kind_name], required=("kind",))
    name = r.get_str("name", path.stem)
    params = np.zeros(N_STRAT_PARAMS)
    params[0] = KINDS[kind_name]
    if kind_name == "heuristic":
        _weights(r, params, None)
    elif kind_name == "montecarlo":
        base = _base_strategy(r, path, _seen)
        params[C.MC_ROLLOUTS] = r.get_int("rollouts", 8, lo=1, hi=MAX_ROLLOUTS)
        base_row = base.row()
        n = 1 + C.N_HEURISTIC_WEIGHTS
        params[C.MC_BASE:C.MC_BASE + n] = base_row[:n]
        # its own decisions other than placement: its weights, else the base's
        defaults = base_row if base.kind == C.SK_HEURISTIC else None
        _weights(r, params, defaults)
    return Strategy(name, KINDS[kind_name], params, r.data.get("description", ""), path, text)


def _base_strategy(r: FieldReader, path: Path, seen: tuple[Path, ...]) -> Strategy:
    base_name = r.get_str("base", "balanced")
    if path in seen:
        raise r.error("base", base_name, None, "forms a loop of montecarlo bases")
    base_path = path.parent / base_name if base_name.endswith(".toml") else base_name
    if base_name.endswith(".toml") and not Path(base_path).is_file():
        raise r.error("base", base_name, "a shipped strategy name or an existing .toml file",
                      "names a file that does not exist")
    try:
        base = load_strategy(base_path, (*seen, path))
    except UsageError:
        raise r.error("base", base_name, list_strategies(), "is not a known strategy") from None
    if base.kind == C.SK_MONTECARLO:
        raise r.error("base", base_name, "random, greedy or heuristic strategies",
                      "cannot be a montecarlo strategy")
    return base


def resolve_strategy(spec: str | Path | Strategy) -> Strategy:
    """A Strategy from a Strategy, a shipped name or a TOML path.

    Unknown names raise UsageError listing the valid ones; malformed files DataError.
    """
    if isinstance(spec, Strategy):
        return spec
    from .engine.plugin import plugin_module, plugin_path

    if plugin_module is not None and spec == getattr(plugin_module, "NAME", None):
        return load_plugin_strategy(plugin_path())  # the loaded plugin, by its NAME
    return load_strategy(spec)


def strategy_matrix(strategies: Sequence[str | Strategy]) -> tuple[np.ndarray, tuple[str, str]]:
    """The engine's SP array (one row per seat) and the two names."""
    if len(strategies) != 2:
        raise ValueError("a game needs exactly two strategies (seat 0 and seat 1)")
    s0, s1 = (resolve_strategy(s) for s in strategies)
    return np.vstack([s0.row(), s1.row()]), (s0.name, s1.name)


__all__ = ["DataError", "RANDOM", "Strategy", "list_strategies", "load_strategy",
           "resolve_strategy", "scripted", "strategy_matrix"]
