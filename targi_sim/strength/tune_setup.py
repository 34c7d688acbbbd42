"""What a tune is asked to do (TuneConfig), checked and loaded once into what it plays
(TunePlan: the start, the pool, the deck and rules, the search space and its size),
and the saved optimiser state that lets the same call continue a stopped tune.

A TuneConfig holds names and numbers only, as a user or the command line gives them;
`prepare_tune` checks every field (ConfigError names it) and loads every input once.
The state file next to the output holds the settings it was started with; a tune with
the same settings continues from it, one with other settings is refused.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from targi_sim._utils.atomic import atomic_write
from targi_sim.engine import constants as C
from targi_sim.errors import ConfigError, InputError
from targi_sim.game.deck import Deck, load_deck
from targi_sim.game.rules import Rules, load_rules
from targi_sim.play.match import Match, prepare_match
from targi_sim.players.strategy import (
    SYMBOL_KEYS,
    SYMBOL_RANGE,
    TUNING_RANGES,
    WEIGHTS,
    Strategy,
    list_strategies,
    load_strategy,
    resolve_strategy,
)
from targi_sim.searches import check_bounds, differences, settings_of
from targi_sim.searches.journal import named

STATE_VERSION = 2  # 2: the settings as a dict (searches.journal), compared field by field
DEFAULT_DEALS = 100  # deals per candidate per pool member per generation
DEFAULT_FINAL_DEALS = 1000  # deals per pool member for the final win rates
DEFAULT_CHECK_GAMES = 20_000  # cap of the closing SPRT
MAX_GAMES = 2**32


class TuneError(InputError):
    """A tune request that cannot be carried out (one line for the user)."""


@dataclass(frozen=True)
class TuneConfig:
    """What a tune is asked to do; its file depends on nothing else (not on jobs or the
    backend). `pool` None: default_pool (the start, every shipped heuristic strategy and
    greedy); `popsize` 0: cma's default for the space's dimension."""

    strategy: str
    pool: tuple[str, ...] | None = None
    budget: int = 2_000_000
    seed: int = 0
    deals: int = DEFAULT_DEALS
    popsize: int = 0
    final_deals: int = DEFAULT_FINAL_DEALS
    check_games: int = DEFAULT_CHECK_GAMES
    deck: str = "base"
    rules: str = "default"

    BOUNDS: ClassVar[dict[str, tuple[int, int]]] = {
        "budget": (1, MAX_GAMES), "seed": (0, 2**31 - 1), "deals": (1, 1_000_000),
        "popsize": (0, 10_000), "final_deals": (1, 10_000_000),
        "check_games": (1, 100_000_000)}


@dataclass(frozen=True)
class Param:
    """One tuned weight: its TOML table and key, engine column and search range."""

    table: str  # "weights" or "symbols"
    key: str
    column: int
    low: float
    high: float


def parameter_space() -> list[Param]:
    """Every tuned weight, in a fixed order (the coordinates of the search)."""
    params = [Param("weights", k, col, *TUNING_RANGES[k])  # type: ignore[misc]
              for k, (col, *_rest) in WEIGHTS.items() if TUNING_RANGES.get(k) is not None]
    params += [Param("symbols", s, C.HW_SYMBOL + i, *SYMBOL_RANGE)
               for i, s in enumerate(SYMBOL_KEYS)]
    return params


def games_per_generation(popsize: int, members: int, deals: int) -> int:
    return popsize * members * 2 * deals


def default_popsize(dimension: int) -> int:
    """cma's default population size for this many coordinates."""
    return 4 + int(3 * math.log(dimension))


def default_pool(start: Strategy) -> list[str]:
    """The start itself plus every shipped heuristic strategy and greedy."""
    names = [start.spec]
    for name in list_strategies():
        try:
            s = load_strategy(name)
        except ValueError:
            continue
        if s.kind == C.SK_HEURISTIC or name == "greedy":
            names.append(name)
    return names


def resolve_pool(start: Strategy, pool: Sequence[str] | None) -> list[Strategy]:
    """The pool's strategies, the start first when the default pool is used; members
    with the same parameters as an earlier one are dropped (they would count twice)."""
    specs = list(pool) if pool else default_pool(start)
    out: list[Strategy] = []
    seen: set[str] = set()
    for spec in specs:
        s = resolve_strategy(spec)
        if s.sha256 not in seen:
            seen.add(s.sha256)
            out.append(s)
    if not out:
        raise ConfigError("pool", "needs at least one strategy")
    return out


def check_start(start: Strategy) -> None:
    if start.kind != C.SK_HEURISTIC:
        raise TuneError(f"tune searches heuristic weights; {start.name!r} is of kind "
                        f"{start.kind_name} (tune a heuristic strategy, e.g. balanced)")


@dataclass(frozen=True)
class TunePlan:
    """A checked TuneConfig with its inputs loaded: `config` holds the resolved pool and
    population size (what the written file's header and the saved state record)."""

    config: TuneConfig
    start: Strategy
    pool: list[Strategy]
    deck: Deck
    rules: Rules
    space: list[Param]
    per_gen: int
    generations: int
    out: Path

    @property
    def matches(self) -> list[Match]:
        """The start against each pool member (what a generation plays)."""
        return [prepare_match((self.start, m), self.deck, self.rules) for m in self.pool]

    def settings(self) -> dict[str, Any]:
        """What a continued tune must share with the one that saved the state."""
        rules = getattr(self.rules, "sha256", repr(self.rules.vector.tolist()))
        return settings_of(self.config, start_sha256=self.start.sha256,
                           pool_sha256=[s.sha256 for s in self.pool],
                           deck_sha256=self.deck.sha256, rules_sha256=rules)


def prepare_tune(config: TuneConfig, out: str | Path | None = None) -> TunePlan:
    """Check `config` and the output path (default `<start>-tuned.toml` here), load the
    start, the pool, the deck and the rules. ConfigError names a bad field (or `out`);
    UsageError / DataError a bad name or file."""
    check_bounds(config, TuneConfig.BOUNDS)
    start = resolve_strategy(config.strategy)
    check_start(start)
    pool = resolve_pool(start, config.pool)
    deck, rules = load_deck(config.deck), load_rules(config.rules)
    space = parameter_space()
    size = config.popsize or default_popsize(len(space))
    if size < 2:
        raise ConfigError("popsize", f"must be at least 2 candidates, got {size}")
    per_gen = games_per_generation(size, len(pool), config.deals)
    if config.budget // per_gen < 1:
        raise ConfigError("budget", f"{config.budget:,} is too small for one generation: "
                                    f"{size} candidates x {len(pool)} pool members x "
                                    f"{2 * config.deals} games = {per_gen:,} games")
    out = _check_out(Path(out) if out is not None else
                     Path(f"{Path(start.name).stem}-tuned.toml"))
    resolved = replace(config, strategy=start.spec, pool=tuple(s.spec for s in pool),
                       popsize=size, deck=str(config.deck), rules=str(config.rules))
    return TunePlan(resolved, start, pool, deck, rules, space, per_gen,
                    config.budget // per_gen, out)


def _check_out(out: Path) -> Path:
    if out.suffix != ".toml":
        raise ConfigError("out", f"must name a .toml file; got {str(out)!r}")
    if out.exists() and out.is_dir():
        raise ConfigError("out", f"{str(out)!r} is a folder")
    if not out.parent.is_dir():
        raise ConfigError("out", f"{str(out)!r}: its folder does not exist")
    return out


def state_path(out: Path) -> Path:
    """Where the optimiser state of a tune writing `out` lives (next to it)."""
    return out.with_name(f"{out.name}.tune-state.pkl")


def save_state(path: Path, state: dict) -> None:
    atomic_write(path, lambda p: Path(p).write_bytes(pickle.dumps(state)))


def load_state(plan: TunePlan) -> dict | None:
    """The saved state of an unfinished tune of `plan.out` (None: none, start afresh);
    TuneError if it is unreadable or was saved with other settings."""
    path = state_path(plan.out)
    if not path.is_file():
        return None
    try:  # a pickle this program wrote: trusted like a cache
        state = pickle.loads(path.read_bytes())
    except Exception as exc:  # truncated or foreign file
        raise TuneError(f"cannot read the saved tune state {str(path)!r} "
                        f"({type(exc).__name__}); delete it to start over") from None
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
        raise TuneError(f"{str(path)!r} is not a tune state of this version; delete it to "
                        "start over")
    diff = differences(state["settings"], plan.settings())
    if diff:
        raise TuneError(f"{str(path)!r} was saved by a tune with other settings "
                        f"({named(diff)}); rerun it with the same ones to continue it, or "
                        "delete the file")
    np.random.set_state(state["np_random"])  # in case cma draws from it anywhere
    return state


__all__ = ["DEFAULT_CHECK_GAMES", "DEFAULT_DEALS", "DEFAULT_FINAL_DEALS", "Param",
           "TuneConfig", "TuneError", "TunePlan", "check_start", "default_pool",
           "default_popsize", "games_per_generation", "parameter_space", "prepare_tune",
           "resolve_pool", "save_state", "state_path"]
