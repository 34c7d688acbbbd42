"""Strategies as the engine sees them: a kind code and a row of numeric parameters.

A strategy is data: a TOML file in `data/strategies/` (or any path) with a
`kind` and its parameters, validated on load. The engine reads it as one
float64 row (kind in column 0, weights in the HW_* columns; see
`targi_sim.engine.constants`). `scripted` builds the test-only strategy that replays
a list of choices.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from targi_sim._utils.paths import data_dir
from targi_sim.engine import constants as C
from targi_sim.engine.constants import (
    HC_END,
    HC_KEY,
    N_STRAT_PARAMS,
    SK_GREEDY,
    SK_RANDOM,
    SK_SCRIPTED,
)
from targi_sim.engine.policies import Policy, Seats, builtin
from targi_sim.engine.policies.scripted import SCRIPT_START
from targi_sim.errors import (
    DataError,
    FieldReader,
    FileProblem,
    InputError,
    UsageError,
    read_toml,
)
from targi_sim.game.deck import resolve
from targi_sim.players.evaluation import EVAL_COLUMNS, EVAL_FITTED

KINDS = {"random": C.SK_RANDOM, "greedy": C.SK_GREEDY, "heuristic": C.SK_HEURISTIC,
         "montecarlo": C.SK_MONTECARLO}
# kinds whose play uses no random numbers (a heuristic only when its noise is 0)
_DETERMINISTIC_KINDS = (C.SK_SCRIPTED, C.SK_GREEDY)

# Heuristic weights: TOML key -> (engine column, default, lowest allowed, meaning). The
# defaults are `balanced`'s weights (data/strategies/balanced.toml gives each one's reason),
# so a strategy file that sets a few weights is balanced with those changed.
WEIGHTS: dict[str, tuple[int, float, float, str]] = {
    "vp": (C.HW_VP, 1.0, 0.0, "value of one VP token"),
    "card_vp": (C.HW_CARD_VP, 1.0, 0.0, "value per printed VP of a displayed card"),
    "gold": (C.HW_GOLD, 1.5, 0.0, "value of one gold early in the game"),
    "good": (C.HW_GOOD, 0.45, 0.0, "value of one good early in the game"),
    "need": (C.HW_NEED, 0.3, 0.0, "extra value of a good visible cards still need"),
    "display": (C.HW_DISPLAY, 0.5, -10.0, "value of a displayed card beyond its VP"),
    "row_same": (C.HW_ROW_SAME, 0.5, 0.0, "weight of progress toward a 4-of-a-symbol row"),
    "row_diff": (C.HW_ROW_DIFF, 0.5, 0.0, "weight of progress toward a 4-different row"),
    "row_focus": (C.HW_ROW_FOCUS, 2.0, 0.5, "exponent of a row's progress: 1 values every card "
                  "in a row alike, 3 the fourth far above a new row's first"),
    "hand": (C.HW_HAND, 0.4, 0.0, "value of a kept hand card per printed VP"),
    "denial": (C.HW_DENIAL, 0.15, 0.0, "weight of what a choice takes from the opponent"),
    "raid": (C.HW_RAID, 0.5, 0.0, "weight of raid exposure and raid protection"),
    "late": (C.HW_LATE, 0.0, 0.0, "how fast resources lose value as rounds run out"),
    "trade_margin": (C.HW_TRADE_MARGIN, 0.05, -10.0, "minimum gain for a trade"),
    "line": (C.HW_LINE, 1.5, 0.0, "value of future crossings along a Targi's line"),
    "noise": (C.HW_NOISE, 0.0, 0.0, "random jitter added to option values"),
}
SYMBOL_KEYS = tuple(C.SYMBOL_NAMES)
# Where `targi-sim tune` searches each weight (targi_sim.strength.tune): key -> (low, high), or
# None for a weight tune keeps fixed (noise: a tuned strategy stays deterministic).
# Every range lies inside the weight's allowed values and holds the shipped strategies'
# values; [symbols] entries share SYMBOL_RANGE. docs/strategies.md lists them.
TUNING_RANGES: dict[str, tuple[float, float] | None] = {
    "vp": (0.5, 2.0), "card_vp": (0.0, 3.0), "gold": (0.0, 4.0), "good": (0.0, 2.0),
    "need": (0.0, 2.0), "display": (-2.0, 4.0), "row_same": (0.0, 3.0),
    "row_diff": (0.0, 3.0), "row_focus": (1.0, 4.0), "hand": (0.0, 2.0),
    "denial": (0.0, 2.0), "raid": (0.0, 4.0),
    "late": (0.0, 3.0), "trade_margin": (-1.0, 1.0), "line": (0.0, 2.0), "noise": None,
}
SYMBOL_RANGE = (-3.0, 3.0)
# a cut playout's evaluation (rollouts.position_value): with `rollout_rounds` > 0, the
# four numbers as given, or none: fitted on the match's deck (players/evaluation.py)
EVAL_KEYS = ("rollout_rounds", *EVAL_FITTED)
TOP_KEYS = ("name", "kind", "description", "weights", "symbols", "rollouts", "base",
            "search", "iterations", "exploration", "decisions", "action_iterations", "depth",
            "prior", "placement_tree", "action_exploration", "placement_crn", "margin",
            "confidence", "reuse_tree", *EVAL_KEYS)
KIND_KEYS = {
    "random": ("name", "kind", "description"),
    "greedy": ("name", "kind", "description"),
    "heuristic": ("name", "kind", "description", "weights", "symbols"),
    "montecarlo": TOP_KEYS,
}
MAX_ROLLOUTS = 10_000
MAX_ITERATIONS = 100_000  # the ISMCTS tree holds one node per iteration (160 bytes each)
MAX_ROLLOUT_ROUNDS = 100  # rollout_rounds: more than any game lasts
MAX_DEPTH = 500  # decisions on one path of the every-decision tree (0: to the round's end)
DEFAULT_EXPLORATION = 0.7
DEFAULT_PRIOR = 0.0  # decisions = "all": weight of the base's own answer (0: plain UCT)
# the settings of a search of every decision (decisions = "all"), refused otherwise
EVERY_DECISION_KEYS = ("action_iterations", "depth", "prior", "placement_tree",
                       "action_exploration", "placement_crn", "margin", "confidence")


@dataclass(frozen=True, eq=False)
class Strategy:
    """A named compiled policy: `kind` selects the code path, `params` tunes it."""

    name: str
    kind: int
    params: np.ndarray = field(default_factory=lambda: np.zeros(N_STRAT_PARAMS))
    description: str = ""
    path: Path | None = None
    content: str = ""
    python: PythonSeat | None = None  # kind SK_EXTERNAL: the Python strategy deciding it

    @property
    def kind_name(self) -> str:
        return C.STRATEGY_KIND_NAMES[self.kind]

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.row().tobytes() + self._code_identity()).hexdigest()

    def _code_identity(self) -> bytes:
        """A plugin's or Python strategy's identity includes its code, not only its row."""
        budget = b""
        if self.python is not None and getattr(self.python.strategy, "budget", None) is not None:
            budget = f"@{self.python.strategy.budget}".encode()  # NAME@N plays another game
        if self.kind == C.SK_PLUGIN or (self.python is not None and self.content):
            return self.content.encode() + budget
        if self.python is not None:
            cls = type(self.python.strategy)
            return f"{cls.__module__}.{cls.__qualname__}".encode() + budget
        return b""

    @property
    def policy(self) -> Policy:
        """The compiled decision function the engine calls for this strategy's seat."""
        if self.kind == C.SK_PLUGIN:
            from targi_sim.engine.plugin import load_plugin

            assert self.path is not None
            return load_plugin(self.path).policy
        return builtin(self.kind)

    @property
    def rollout_policy(self) -> Policy:
        """The policy a montecarlo strategy plays its rollouts with (its base strategy's)."""
        if self.kind != C.SK_MONTECARLO:
            return self.policy
        return builtin(int(self.params[C.MC_BASE]))

    @property
    def tree_search(self) -> bool:
        """A montecarlo strategy that searches with the ISMCTS tree (the expert), not flat."""
        return self.kind == C.SK_MONTECARLO and self.params[C.MC_SEARCH] == C.SEARCH_ISMCTS

    @property
    def searches(self) -> bool:
        """A search strategy, slow per game: montecarlo, or a Python strategy with a budget
        per decision (OpenSpiel's bots: players.python_strategy)."""
        return self.kind == C.SK_MONTECARLO or (
            self.python is not None and getattr(self.python.strategy, "budget", None) is not None)

    @property
    def searches_every_decision(self) -> bool:
        """A tree search over every decision of its own (the expert), not placements only."""
        return self.tree_search and self.params[C.MC_DECISIONS] == C.SEARCHED_ALL

    @property
    def deterministic(self) -> bool:
        """True if this strategy's play uses no random numbers: the same position always
        gets the same answer (so a mirror match's seat-swapped games are relabellings)."""
        if self.kind in _DETERMINISTIC_KINDS:
            return True
        if self.kind == C.SK_HEURISTIC:
            return float(self.params[C.HW_NOISE]) == 0.0
        if self.kind == C.SK_PLUGIN:
            from targi_sim.engine.plugin import load_plugin

            return self.path is not None and load_plugin(self.path).deterministic
        if self.python is not None:
            return getattr(self.python.strategy, "deterministic", False) is True
        return False

    @property
    def spec(self) -> str:
        """What to type to get this strategy again: its name if it ships, else its path."""
        if self.path is None or self.path.resolve().parent == (data_dir() / "strategies").resolve():
            return self.name
        return str(self.path)

    def row(self) -> np.ndarray:
        """The engine's parameter row; the heuristic's cache columns start empty (NaN)."""
        row = np.zeros(N_STRAT_PARAMS, dtype=np.float64)
        row[:] = self.params
        row[0] = self.kind
        if self.kind >= SK_GREEDY:
            row[HC_KEY:HC_END] = np.nan
        return row

    def settings(self) -> dict[str, Any]:
        """The parameters by name (what `targi-sim strategies show` prints)."""
        out: dict[str, Any] = {"kind": self.kind_name}
        py = self.python.strategy if self.python is not None else None
        if getattr(py, "budget", None) is not None:
            out["budget"] = int(py.budget)
            out["budget_unit"] = str(py.budget_unit)
        if self.kind in (C.SK_HEURISTIC, C.SK_MONTECARLO, C.SK_PLUGIN):
            out["weights"] = {k: float(self.params[col]) for k, (col, *_rest) in WEIGHTS.items()}
            out["symbols"] = {s: float(self.params[C.HW_SYMBOL + i])
                              for i, s in enumerate(SYMBOL_KEYS)}
        if self.kind == C.SK_MONTECARLO:
            out["search"] = C.SEARCH_NAMES[int(self.params[C.MC_SEARCH])]
            if self.tree_search:
                out["decisions"] = C.SEARCHED_NAMES[int(self.params[C.MC_DECISIONS])]
                out["iterations"] = int(self.params[C.MC_ITERATIONS])
                if self.searches_every_decision:
                    out["action_iterations"] = int(self.params[C.MC_ACTION_ITERATIONS])
                    out["depth"] = int(self.params[C.MC_DEPTH])
                    out["prior"] = float(self.params[C.MC_PRIOR])
                    out["placement_tree"] = C.PLACEMENT_TREE_NAMES[
                        int(self.params[C.MC_PLACEMENT_TREE])]
                    out["action_exploration"] = float(self.params[C.MC_ACTION_EXPLORATION])
                    out["placement_crn"] = bool(self.params[C.MC_PLACEMENT_CRN])
                    out["margin"] = float(self.params[C.MC_MARGIN])
                    out["confidence"] = float(self.params[C.MC_CONFIDENCE])
                out["exploration"] = float(self.params[C.MC_EXPLORATION])
                out["reuse_tree"] = bool(self.params[C.MC_REUSE_TREE] == 1)
                out["rollout_rounds"] = int(self.params[C.MC_ROLLOUT_ROUNDS])
                if out["rollout_rounds"] > 0 and not np.isnan(self.params[C.MC_EVAL_SCALE]):
                    for key, col in zip(EVAL_FITTED, EVAL_COLUMNS, strict=True):
                        out[key] = float(self.params[col])
            else:
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


class PythonSeat:
    """A Python strategy as a seat of a match; sent to worker processes by file path
    when it comes from a file (the module only exists where the file was imported)."""

    def __init__(self, strategy: Any, path: Path | None = None) -> None:
        self.strategy = strategy
        self.path = path

    def __reduce__(self):
        if self.path is not None:
            return (_python_seat_from_file,
                    (str(self.path), getattr(self.strategy, "budget", None)))
        return (PythonSeat, (self.strategy, None))


def _python_seat_from_file(path: str, budget: int | None = None) -> PythonSeat:
    seat = load_py_strategy(Path(path)).python
    assert seat is not None
    if budget is not None:  # NAME@N
        seat.strategy.budget = budget
    return seat


def python_seat(obj: Any, path: Path | None = None, content: str = "") -> Strategy:
    """A Strategy for a PythonStrategy instance (targi_sim.players.python_strategy)."""
    from targi_sim.players.python_strategy import PythonStrategy

    if isinstance(obj, type) and issubclass(obj, PythonStrategy):
        obj = obj()
    if not isinstance(obj, PythonStrategy):
        raise UsageError(f"{obj!r} is not a targi_sim.PythonStrategy")
    params = np.zeros(N_STRAT_PARAMS)
    params[0] = C.SK_EXTERNAL
    name = str(getattr(obj, "name", "") or type(obj).__name__)
    return Strategy(name, C.SK_EXTERNAL, params, str(getattr(obj, "description", "")), path,
                    content, PythonSeat(obj, path))


def _python_strategy_class(module: Any, path: Path) -> type | None:
    """The PythonStrategy subclass a file defines (its STRATEGY, or its only one)."""
    from targi_sim.players.python_strategy import PythonStrategy

    chosen = getattr(module, "STRATEGY", None)
    if chosen is not None:
        if isinstance(chosen, type) and issubclass(chosen, PythonStrategy):
            return chosen
        raise DataError(path, None, "STRATEGY", chosen, "a PythonStrategy subclass",
                        "is not a PythonStrategy subclass")
    found = [v for v in vars(module).values() if isinstance(v, type)
             and issubclass(v, PythonStrategy) and v.__module__ == module.__name__]
    if len(found) > 1:
        names = ", ".join(sorted(c.__name__ for c in found))
        raise DataError(path, None, "STRATEGY", None, f"one of {names}",
                        "must name the strategy: the file defines several")
    return found[0] if found else None


def load_py_strategy(path: Path) -> Strategy:
    """A strategy from a .py file: a PythonStrategy subclass, or a compiled plugin's
    `choose` (docs/strategies.md, docs/strategy-plugins.md). Loading runs the file."""
    from targi_sim.engine.plugin import PluginError, load_module

    try:
        p, source, module = load_module(path)
    except PluginError as exc:
        raise FileProblem(str(exc)) from None
    cls = _python_strategy_class(module, p)
    if cls is not None:
        try:
            return python_seat(cls(), p, source)
        except Exception as exc:  # the user's constructor failed
            raise FileProblem(f"{path}: creating {cls.__name__}() failed: "
                            f"{type(exc).__name__}: {exc}") from None
    return load_plugin_strategy(p)


def load_plugin_strategy(path: Path) -> Strategy:
    """The compiled policy of a Python file (docs/strategy-plugins.md); loading runs it.

    DataError (one line) for a file that is missing, does not import or has no usable
    `choose`.
    """
    from targi_sim.engine.plugin import PluginError, load_plugin

    try:
        plugin = load_plugin(path)
    except PluginError as exc:
        raise FileProblem(str(exc)) from None
    params = np.zeros(N_STRAT_PARAMS)
    params[0] = C.SK_PLUGIN
    r = FieldReader(plugin.path, "strategy plugin", {"weights": plugin.weights})
    _weights(r, params, None)
    return Strategy(plugin.name, C.SK_PLUGIN, params, plugin.description, plugin.path,
                    plugin.content)


def load_strategy(name_or_path: str | Path, _seen: tuple[Path, ...] = ()) -> Strategy:
    """Load and validate a strategy by shipped name ("balanced") or by file path.

    A path ending in .py is a compiled plugin (see docs/strategy-plugins.md).
    """
    if str(name_or_path).endswith(".py"):
        return load_py_strategy(Path(name_or_path))
    shipped_py = data_dir() / "strategies" / f"{name_or_path}.py"
    if isinstance(name_or_path, str) and "/" not in name_or_path and shipped_py.is_file():
        return load_py_strategy(shipped_py)  # a shipped Python strategy, by its name
    path = resolve("strategy", "strategies", name_or_path,
                   list_strategies() + [p.stem for p in list_plugin_files()])
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
        _search_budget(r, params)
        base_row = base.row()
        n = 1 + C.N_HEURISTIC_WEIGHTS
        params[C.MC_BASE:C.MC_BASE + n] = base_row[:n]
        # its own decisions other than placement: its weights, else the base's
        defaults = base_row if base.kind == C.SK_HEURISTIC else None
        _weights(r, params, defaults)
    return Strategy(name, KINDS[kind_name], params, r.data.get("description", ""), path, text)


def _search_budget(r: FieldReader, params: np.ndarray) -> None:
    """A montecarlo strategy's search: flat (`rollouts` per option) or ismcts
    (`iterations` per decision, `exploration`); a key of the other search is refused."""
    search = r.get_choice("search", C.SEARCH_NAMES, "flat")
    params[C.MC_SEARCH] = C.SEARCH_NAMES.index(search)
    other = (("iterations", "exploration", *EVERY_DECISION_KEYS, "decisions", "reuse_tree",
              *EVAL_KEYS)
             if search == "flat" else ("rollouts",))
    for key in other:
        if key in r.data:
            raise r.error(key, r.data[key], None,
                          f"does not apply to search = {search!r} (see docs/strategies.md)")
    params[C.MC_ROLLOUTS] = r.get_int("rollouts", 8, lo=1, hi=MAX_ROLLOUTS)
    params[C.MC_ITERATIONS] = r.get_int("iterations", 1000, lo=1, hi=MAX_ITERATIONS)
    params[C.MC_EXPLORATION] = _float(r, "exploration", DEFAULT_EXPLORATION, 0.0)
    params[C.MC_REUSE_TREE] = 1.0 if r.get_bool("reuse_tree", False) else 0.0
    _evaluation(r, params)
    decisions = r.get_choice("decisions", C.SEARCHED_NAMES, "placements")
    params[C.MC_DECISIONS] = C.SEARCHED_NAMES.index(decisions)
    if decisions == "placements":
        for key in EVERY_DECISION_KEYS:
            if key in r.data:
                raise r.error(key, r.data[key], None,
                              'applies only to decisions = "all" (see docs/strategies.md)')
    params[C.MC_ACTION_ITERATIONS] = r.get_int("action_iterations", int(params[C.MC_ITERATIONS]),
                                               lo=1, hi=MAX_ITERATIONS)
    if decisions == "placements":
        params[C.MC_ACTION_ITERATIONS] = 0
    params[C.MC_DEPTH] = r.get_int("depth", 0, lo=0, hi=MAX_DEPTH)
    prior = _float(r, "prior", DEFAULT_PRIOR, 0.0)
    if prior >= 1.0:
        raise r.error("prior", prior, "a number from 0 to below 1", "is out of range")
    params[C.MC_PRIOR] = prior if decisions == "all" else 0.0
    tree = r.get_choice("placement_tree", C.PLACEMENT_TREE_NAMES, "round")
    params[C.MC_PLACEMENT_TREE] = C.PLACEMENT_TREE_NAMES.index(tree)
    params[C.MC_ACTION_EXPLORATION] = _float(r, "action_exploration", 0.0, 0.0)
    params[C.MC_PLACEMENT_CRN] = 1.0 if r.get_bool("placement_crn", False) else 0.0
    params[C.MC_MARGIN] = _float(r, "margin", 0.0, 0.0)
    params[C.MC_CONFIDENCE] = _float(r, "confidence", 0.0, 0.0)
    if params[C.MC_CONFIDENCE] > 0 and params[C.MC_PRIOR] == 0:
        raise r.error("confidence", params[C.MC_CONFIDENCE], "0 unless `prior` is above 0",
                      "measures answers against the prior's, and there is no prior")


def _evaluation(r: FieldReader, params: np.ndarray) -> None:
    """`rollout_rounds` (0: playouts to the game's end) and, when it is above 0, the
    evaluation the cut playouts end with: the four numbers as given, or (none given) NaN,
    fitted on the match's deck when a match is prepared (players/evaluation.py)."""
    rounds = r.get_int("rollout_rounds", 0, lo=0, hi=MAX_ROLLOUT_ROUNDS)
    params[C.MC_ROLLOUT_ROUNDS] = rounds
    given = [k for k in EVAL_FITTED if k in r.data]
    if rounds == 0 and given:
        raise r.error(given[0], r.data[given[0]], None,
                      "applies only with rollout_rounds > 0 (see docs/strategies.md)")
    if rounds == 0 or not given:
        for col in EVAL_COLUMNS:
            params[col] = np.nan if rounds > 0 else 0.0
        return
    for key in EVAL_FITTED:
        if key not in r.data:
            raise r.error(key, None, "a number, or none of the four (fitted on the deck)",
                          "is missing (the evaluation is given whole or fitted whole)")
    for key, col in zip(EVAL_FITTED, EVAL_COLUMNS, strict=True):
        params[col] = _float(r, key, 0.0, 0.0)
    if params[C.MC_EVAL_SCALE] <= 0:
        raise r.error("eval_scale", params[C.MC_EVAL_SCALE], "a number above 0",
                      "is out of range")


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
    from targi_sim.players.python_strategy import PythonStrategy

    if isinstance(spec, PythonStrategy) or (isinstance(spec, type)
                                            and issubclass(spec, PythonStrategy)):
        return python_seat(spec)
    registered = _REGISTERED_PLUGINS.get(str(spec))
    if registered is not None:
        return load_py_strategy(registered)  # a plugin named by its NAME
    name, at, budget = str(spec).rpartition("@")
    if at and not Path(str(spec)).exists():
        return with_budget(load_strategy(name), budget, str(spec))
    return load_strategy(spec)


def searches_with(search: Strategy, base: Strategy) -> bool:
    """Does this search strategy roll out with `base` (the same kind and weights)?"""
    n = 1 + C.N_HEURISTIC_WEIGHTS
    return (search.kind == C.SK_MONTECARLO and base.kind == C.SK_HEURISTIC
            and np.array_equal(search.params[C.MC_BASE:C.MC_BASE + n], base.row()[:n]))


def follow_retuned(players: Sequence[Strategy], before: Sequence[Strategy]) -> list[Strategy]:
    """The players of a candidate deck once some levels were re-tuned (`before[i]` ->
    `players[i]`): a search level whose rollouts played a re-tuned level's old weights
    plays its new ones, and so do its own decisions when they were that level's (so an
    `expert` level searches with the `tuned` re-tuned for the deck, not the shipped one)."""
    n = 1 + C.N_HEURISTIC_WEIGHTS
    out = list(players)
    for k, search in enumerate(players):
        for old, new in zip(before, players, strict=True):
            if old is new or not searches_with(search, old):
                continue
            params = search.params.copy()
            params[C.MC_BASE:C.MC_BASE + n] = new.row()[:n]
            if np.array_equal(search.params[1:n], old.params[1:n]):
                params[1:n] = new.params[1:n]
            out[k] = replace(search, params=params)
    return out


LEVEL_ITERATIONS = 50  # an ismcts level of balance / calibrate: ~10x faster than expert's 500


def level_spec(spec: str) -> str:
    """A level of play for `balance` or `calibrate`, which measure thousands of deals per
    candidate deck: a tree search typed without a budget plays LEVEL_ITERATIONS per
    decision (`expert` -> `expert@50`); `NAME@N` keeps N, other strategies are as typed."""
    if "@" in spec:
        return spec
    if resolve_strategy(spec).tree_search:
        return f"{spec}@{LEVEL_ITERATIONS}"
    return spec


def with_budget(strategy: Strategy, budget: str, spec: str) -> Strategy:
    """`NAME@BUDGET`: a search strategy with another budget per decision (an ismcts
    search's iterations, a flat one's rollouts per option, a Python search's `budget`),
    named as typed."""
    if strategy.python is not None and strategy.python.strategy.budget is not None:
        return _python_with_budget(strategy, budget, spec)
    if strategy.kind != C.SK_MONTECARLO:
        raise InputError(f"strategy {spec!r}: only a search strategy (kind montecarlo) takes "
                         f"a budget after '@'; {strategy.name!r} is {strategy.kind_name}")
    what = "iterations" if strategy.tree_search else "rollouts"
    limit = MAX_ITERATIONS if what == "iterations" else MAX_ROLLOUTS
    text = budget.strip()
    if not text.isdigit() or not 1 <= int(text) <= limit:
        raise InputError(f"strategy {spec!r}: the budget after '@' ({what} per decision) must "
                         f"be a whole number from 1 to {limit:,}; got {budget!r}")
    n = int(text)
    params = strategy.params.copy()
    params[C.MC_ITERATIONS if what == "iterations" else C.MC_ROLLOUTS] = n
    if strategy.searches_every_decision:  # other decisions keep their share of the budget
        share = strategy.params[C.MC_ACTION_ITERATIONS] / strategy.params[C.MC_ITERATIONS]
        params[C.MC_ACTION_ITERATIONS] = max(1, round(n * share))
    return Strategy(f"{strategy.name}@{n}", strategy.kind, params, strategy.description,
                    strategy.path, strategy.content)


def _python_with_budget(strategy: Strategy, budget: str, spec: str) -> Strategy:
    """A Python strategy that searches (players.python_strategy, `budget`) with another."""
    assert strategy.python is not None
    py = strategy.python.strategy
    text = budget.strip()
    if not text.isdigit() or not py.min_budget <= int(text) <= py.max_budget:
        raise InputError(f"strategy {spec!r}: the budget after '@' ({py.budget_unit} per "
                         f"decision) must be a whole number from {py.min_budget} to "
                         f"{py.max_budget:,}; got {budget!r}")
    copy = type(py).__new__(type(py))
    copy.__dict__.update(py.__dict__)
    copy.budget = int(text)
    return Strategy(f"{strategy.name}@{copy.budget}", strategy.kind, strategy.params.copy(),
                    strategy.description, strategy.path, strategy.content,
                    PythonSeat(copy, strategy.python.path))


_REGISTERED_PLUGINS: dict[str, Path] = {}


def register_plugin(path: str | Path) -> Strategy:
    """Load a .py strategy so that its NAME also works as a strategy name (--strategy-file)."""
    strategy = load_py_strategy(Path(path))
    _REGISTERED_PLUGINS[strategy.name] = Path(path).resolve()
    return strategy


def strategy_matrix(strategies: Sequence[str | Strategy]) -> tuple[np.ndarray, tuple[str, str]]:
    """The engine's SP array (one row per seat) and the two names."""
    s0, s1 = resolve_pair(strategies)
    return np.vstack([s0.row(), s1.row()]), (s0.name, s1.name)


def resolve_pair(strategies: Sequence[str | Strategy]) -> tuple[Strategy, Strategy]:
    """The two seats' strategies (seat 0, seat 1), resolved and validated."""
    if len(strategies) != 2:
        raise ValueError("a game needs exactly two strategies (seat 0 and seat 1)")
    s0, s1 = (resolve_strategy(s) for s in strategies)
    return s0, s1


def seat_policies(strategies: Sequence[Strategy]) -> tuple[tuple, tuple]:
    """(the seats' policies, the policies their rollouts use), as the engine takes them.

    With a heuristic or montecarlo seat the tuples carry a third element that selects
    the engine build with the heuristic compiled in (engine/ask.py).
    """
    from targi_sim.engine.ask import HEURISTIC_INSIDE

    s0, s1 = strategies
    P: tuple = (s0.policy, s1.policy)
    PB: tuple = (s0.rollout_policy, s1.rollout_policy)
    if any(s.kind in (C.SK_HEURISTIC, C.SK_MONTECARLO) for s in strategies):
        P += (HEURISTIC_INSIDE,)
        PB += (HEURISTIC_INSIDE,)
    return Seats(P), Seats(PB)


__all__ = ["DataError", "RANDOM", "SYMBOL_RANGE", "Strategy", "TUNING_RANGES",
           "list_strategies", "load_strategy", "register_plugin", "resolve_pair",
           "resolve_strategy", "scripted", "seat_policies", "strategy_matrix"]
