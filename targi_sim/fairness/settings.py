"""The balance settings file: objective weights and the search space, validated on load."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from targi_sim._utils.paths import data_dir
from targi_sim.game.deck import COST_KEYS, Deck

from ..errors import DataError, FieldReader, read_toml

FIELDS = ("vp", *COST_KEYS)
VALUES = ("play_win", "acquire", "causal")
COMBINE = ("worst", "mean")
OBJECTIVE_KEYS = ("value", "spread", "extremes", "never", "always", "first_player",
                  "tiebreak", "rounds", "rounds_target", "change", "min_plays", "combine",
                  "level_weights", "fork_rate")
SPACE_KEYS = ("fields", "step", "min_total_cost", "min_vp", "max_changes", "frozen",
              "candidates", "distinct", "economy")
VALIDATION_KEYS = ("targets", "shape_deals", "min_forks")


@dataclass(frozen=True)
class Objective:
    value: str = "play_win"
    spread: float = 6.0
    extremes: float = 1.0
    never: float = 0.10
    always: float = 0.90
    first_player: float = 1.0
    tiebreak: float = 0.25
    rounds: float = 0.0
    rounds_target: float = 12.0
    change: float = 0.0002
    min_plays: int = 200
    combine: str = "worst"  # how the levels' objectives make one: the worst, or a mean
    level_weights: tuple[tuple[str, float], ...] = ()  # the mean's weights (default equal)
    fork_rate: float = 0.25  # decisions forked for the causal value (search and validation)

    def weight(self, level: str) -> float:
        return dict(self.level_weights).get(level, 1.0)


@dataclass(frozen=True)
class Space:
    fields: tuple[str, ...] = FIELDS
    step: int = 1
    min_total_cost: int = 1
    min_vp: int = 1
    max_changes: int = 6
    frozen: tuple[str | int, ...] = ()
    candidates: int = 18
    distinct: tuple[str | int, ...] = ()  # copies of a printed card meant to differ
    economy: str = ""  # a calibration space file whose values the search may change too

    def frozen_ids(self, deck: Deck, path: Path | None = None) -> frozenset[int]:
        """Card ids of the frozen entries (names or card_id numbers) of `deck`."""
        return card_ids(self.frozen, "frozen", deck, path)

    def distinct_ids(self, deck: Deck, path: Path | None = None) -> frozenset[int]:
        """Card ids of the `distinct` entries: copies a designer means to differ."""
        return card_ids(self.distinct, "distinct", deck, path)


@dataclass(frozen=True)
class Validation:
    """How a proposal is confirmed on fresh deals besides its objective."""

    targets: str = "real-game-shape"  # calibration targets the game shape must keep ("": none)
    shape_deals: int = 4000  # deals per level for the game-shape figures
    min_forks: int = 100  # classes forked fewer times are left out of the causal spread


def card_ids(items: tuple[str | int, ...], key: str, deck: Deck,
             path: Path | None = None) -> frozenset[int]:
    """Card ids of a list of card names or card_id numbers of `deck`."""
    out = set()
    for item in items:
        if isinstance(item, int):
            if not 0 <= item < deck.n_tribe:
                raise DataError(path, "[space]", key, item,
                                f"card_id 0..{deck.n_tribe - 1} or card names",
                                "names no card of the deck")
            out.add(item)
        elif item in deck.tribe_names:
            out.add(deck.tribe_names.index(item))
        else:
            raise DataError(path, "[space]", key, item,
                            f"card_id 0..{deck.n_tribe - 1} or names such as "
                            f"{deck.tribe_names[0]!r}", "names no card of the deck")
    return frozenset(out)


@dataclass(frozen=True)
class Settings:
    objective: Objective
    space: Space
    path: Path | None = None
    text: str = ""
    validation: Validation = Validation()


def default_path() -> Path:
    return data_dir() / "balance" / "default.toml"


def _number(r: FieldReader, key: str, default: float, lo: float = 0.0,
            hi: float | None = None) -> float:
    value = r.data.get(key, default)
    allowed = f"a number >= {lo}" if hi is None else f"a number {lo}..{hi}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise r.error(key, value, allowed, "has the wrong type")
    if value < lo or (hi is not None and value > hi):
        raise r.error(key, value, allowed, "is out of range")
    return float(value)


def _objective(r: FieldReader) -> Objective:
    r.check_keys(OBJECTIVE_KEYS)
    d = Objective()
    never = _number(r, "never", d.never, 0.0, 1.0)
    always = _number(r, "always", d.always, 0.0, 1.0)
    if never > always:
        raise r.error("never", never, f"at most always ({always})", "is out of range")
    return Objective(
        value=r.get_choice("value", VALUES, d.value),
        spread=_number(r, "spread", d.spread), extremes=_number(r, "extremes", d.extremes),
        never=never, always=always,
        first_player=_number(r, "first_player", d.first_player),
        tiebreak=_number(r, "tiebreak", d.tiebreak), rounds=_number(r, "rounds", d.rounds),
        rounds_target=_number(r, "rounds_target", d.rounds_target, 1.0, 100.0),
        change=_number(r, "change", d.change),
        min_plays=r.get_int("min_plays", d.min_plays, lo=1),
        combine=r.get_choice("combine", COMBINE, d.combine),
        level_weights=_weights(r),
        fork_rate=_number(r, "fork_rate", d.fork_rate, 0.001, 1.0),
    )


def _weights(r: FieldReader) -> tuple[tuple[str, float], ...]:
    """`level_weights = { balanced = 1, tuned = 2 }`: a strategy name -> weight >= 0."""
    w = r.data.get("level_weights", {})
    allowed = "a table of level name = weight (a number >= 0)"
    if not isinstance(w, dict):
        raise r.error("level_weights", w, allowed, "has the wrong type")
    for k, v in w.items():
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
            raise r.error(f"level_weights.{k}", v, allowed, "is not a weight")
    return tuple((str(k), float(v)) for k, v in w.items())


def _space(r: FieldReader) -> Space:
    r.check_keys(SPACE_KEYS)
    d = Space()
    fields = r.data.get("fields", list(d.fields))
    if not isinstance(fields, list) or not fields or any(f not in FIELDS for f in fields):
        raise r.error("fields", fields, f"a non-empty list of {', '.join(FIELDS)}",
                      "is not a list of known fields")
    frozen, distinct = _cards_list(r, "frozen"), _cards_list(r, "distinct")
    economy = r.get_str("economy", d.economy)
    return Space(fields=tuple(dict.fromkeys(fields)), step=r.get_int("step", d.step, lo=1, hi=5),
                 min_total_cost=r.get_int("min_total_cost", d.min_total_cost, hi=20),
                 min_vp=r.get_int("min_vp", d.min_vp, hi=20),
                 max_changes=r.get_int("max_changes", d.max_changes, lo=1, hi=45),
                 frozen=tuple(frozen),
                 candidates=r.get_int("candidates", d.candidates, hi=64),
                 distinct=tuple(distinct), economy=economy)


def _cards_list(r: FieldReader, key: str) -> list:
    items = r.data.get(key, [])
    if not isinstance(items, list) or any(
            isinstance(x, bool) or not isinstance(x, int | str) for x in items):
        raise r.error(key, items, "a list of card names or card_id numbers",
                      "has the wrong type")
    return items


def _validation(r: FieldReader) -> Validation:
    r.check_keys(VALIDATION_KEYS)
    d = Validation()
    return Validation(targets=r.get_str("targets", d.targets),
                      shape_deals=r.get_int("shape_deals", d.shape_deals, lo=0,
                                            hi=10_000_000),
                      min_forks=r.get_int("min_forks", d.min_forks, lo=1))


def load_settings(path: str | Path | None = None) -> Settings:
    """The shipped defaults, or a settings file (every key optional; unknown keys are
    errors naming the file, the field and the allowed keys)."""
    p = Path(path) if path is not None else default_path()
    text, data = read_toml(p)
    top = FieldReader(p, None, data)
    top.check_keys(("objective", "space", "validation"))
    obj = _objective(top.get_table("objective", required=False))
    space = _space(top.get_table("space", required=False))
    validation = _validation(top.get_table("validation", required=False))
    return Settings(obj, space, p, text=text, validation=validation)


def with_overrides(settings: Settings, **changes: Any) -> Settings:
    """Command-line overrides of the space (e.g. --max-changes)."""
    from dataclasses import replace

    space = replace(settings.space, **{k: v for k, v in changes.items() if v is not None})
    return replace(settings, space=space)
