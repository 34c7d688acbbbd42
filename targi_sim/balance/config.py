"""What a balance search is asked to do (BalanceConfig), checked and loaded once into
what it plays (BalancePlan: the levels, the settings file with its overrides, the base
deck), and the settings a search folder records so that the same call continues it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from targi_sim.errors import ConfigError
from targi_sim.fairness.settings import Settings, load_settings, with_overrides
from targi_sim.game.deck import Deck, load_deck
from targi_sim.game.rules import Rules, load_rules
from targi_sim.play.match import Match, prepare_match
from targi_sim.players.strategy import Strategy, resolve_strategy
from targi_sim.searches import check_bounds, resolve_levels, settings_of

DEFAULT_BUDGET = 8_000_000
DEFAULT_RETUNED_BUDGET = 10_000_000  # racing: most candidates stop before their re-tunes
SIGMA_RANGE = (0.001, 0.5)


@dataclass(frozen=True)
class BalanceConfig:
    """Everything a search's result depends on (a continued one must match it exactly).

    The players: `levels` (weakest first; every heuristic level after the first is
    re-tuned for each candidate deck), or fixed `strategies` with the re-tuned ones in
    `retuned`. `budget` None: DEFAULT_BUDGET, or DEFAULT_RETUNED_BUDGET when a level is
    re-tuned. `objective`: the settings file (None: data/balance/default.toml), whose
    `max_changes` and `economy` these fields override when set."""

    deck: str = "base"
    rules: str = "default"
    strategies: tuple[str, ...] = ("balanced",)
    budget: int | None = None
    block_deals: int = 20_000
    blocks: int = 3
    seed: int = 0
    validate_deals: int = 60_000
    resamples: int = 1000  # paired-bootstrap resamples of the validation
    retuned: tuple[str, ...] = ()  # levels re-tuned for each candidate deck
    retune_budget: int = 300_000  # games of each re-tune
    # CMA-ES's first step of a re-tune (unit cube): a local refinement. With the tune's own
    # 0.15 two seeds of the same deck's re-tune moved tuned's first-player rate 44.9% ->
    # 50.9% and its objective 0.166 -> 0.195 (docs/benchmarks.md): noise a search fits
    retune_sigma: float = 0.04
    levels: tuple[str, ...] | None = None
    objective: str | None = None
    economy: str | None = None
    max_changes: int | None = None

    BOUNDS: ClassVar[dict[str, tuple[int, int]]] = {
        "budget": (1, 2**32), "block_deals": (10, 10_000_000), "blocks": (1, 100),
        "seed": (0, 2**31 - 1), "validate_deals": (100, 100_000_000),
        "resamples": (10, 1_000_000), "retune_budget": (0, 10**10), "max_changes": (1, 45)}


@dataclass(frozen=True)
class BalancePlan:
    """A checked BalanceConfig with its inputs loaded: `config` with the levels resolved
    into `strategies` and `retuned` and the budget chosen (what the proposal's header
    says), the settings with the config's overrides, the base deck."""

    config: BalanceConfig
    settings: Settings
    deck: Deck
    strategies: tuple[Strategy, ...]
    rules: Rules

    def matches(self) -> list[Match]:
        """Each level's mirror on the base deck (what the engine must load)."""
        return [prepare_match((s, s), self.deck, self.rules) for s in self.strategies]

    def record(self) -> dict[str, Any]:
        """What a continued search must share with the one that started the folder."""
        return settings_of(self.config, settings_text=self.settings.text,
                           deck_sha256=self.deck.sha256)


def prepare_balance(config: BalanceConfig, settings: Settings | None = None) -> BalancePlan:
    """Check `config` (ConfigError names a bad field) and load its inputs once: the
    levels, the settings file (or `settings`) with the overrides, the deck, and the
    files the settings name (frozen and distinct cards, the economy space, the targets),
    so that a mistake in any of them stops the search before it plays."""
    check_bounds(config, BalanceConfig.BOUNDS)
    if not SIGMA_RANGE[0] <= config.retune_sigma <= SIGMA_RANGE[1]:
        raise ConfigError("retune_sigma", f"must be a number in {SIGMA_RANGE[0]}.."
                                          f"{SIGMA_RANGE[1]}; got {config.retune_sigma!r}")
    config = _resolved(config)
    settings = with_overrides(settings or load_settings(config.objective),
                              max_changes=config.max_changes, economy=config.economy)
    deck, rules = load_deck(config.deck), load_rules(config.rules)
    settings.space.frozen_ids(deck, settings.path)
    settings.space.distinct_ids(deck, settings.path)
    if settings.space.economy:
        from targi_sim.calibrate.space import load_space

        load_space(settings.space.economy, deck, rules)
    if settings.validation.targets:
        from targi_sim.calibrate.targets import load_targets

        load_targets(settings.validation.targets, list(config.strategies), strict=False)
    return BalancePlan(config, settings, deck,
                       tuple(resolve_strategy(s) for s in config.strategies), rules)


def _resolved(config: BalanceConfig) -> BalanceConfig:
    """The levels as strategies and re-tuned ones, and the budget chosen."""
    if config.levels is not None:
        levels = resolve_levels(config.levels)
        config = replace(config, strategies=levels.specs, retuned=levels.retuned_specs)
    if not config.strategies:
        raise ConfigError("strategies", "needs at least one strategy")
    if config.budget is None:
        config = replace(config, budget=DEFAULT_RETUNED_BUDGET if config.retuned
                         else DEFAULT_BUDGET)
    return config


__all__ = ["DEFAULT_BUDGET", "DEFAULT_RETUNED_BUDGET", "BalanceConfig", "BalancePlan",
           "prepare_balance"]
