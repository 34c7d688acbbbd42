"""`targi-sim balance`: search card classes' costs and VP (and, opt-in, the economy's
open values) toward a deck balanced at every level of play with the fewest changes,
then confirm the proposal on fresh seeds (docs/balance.md).

    from targi_sim.balance import BalanceConfig, balance_deck
    result = balance_deck(BalanceConfig(deck="base", budget=500_000), "balance/base")
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from targi_sim.balance.config import BalanceConfig, BalancePlan, prepare_balance
from targi_sim.balance.searching import (
    Evaluator,
    RetuneProgress,
    SearchState,
    retune_seed,
    search,
)
from targi_sim.balance.validation import Side, Validation, validate
from targi_sim.fairness.settings import Settings, load_settings, with_overrides
from targi_sim.game.classes import CardClasses
from targi_sim.game.deck import Deck, load_deck

from ..errors import DataError
from ..searches import resolve_levels
from .space import Edits


@dataclass
class BalanceResult:
    edits: Edits
    economy: dict
    state: SearchState
    validation: Validation
    proposal: Deck  # loaded back from the written proposal.toml
    base: Deck
    paths: dict[str, Path]
    classes: CardClasses | None = None
    changes: pl.DataFrame | None = None  # changes.csv: one row per changed field


def balance_deck(config: BalanceConfig | BalancePlan, out: str | Path, *,
                 settings: Settings | None = None, jobs: int = 1,
                 command: str = "targi-sim balance", progress: Callable | None = None,
                 validation_progress: Callable[[str, int, int], None] | None = None,
                 on_retune: RetuneProgress | None = None, stop_after: int | None = None,
                 backend: str = "loky", scheduler: str | None = None
                 ) -> BalanceResult | None:
    """Search (continuing the search with the same settings already in `out`), write
    the proposal, load it back (the loader validates it) and validate it on fresh seeds.
    `config` is checked and loaded by prepare_balance (with `settings` instead of its
    settings file, if given), unless it is a BalancePlan already. None if stopped early
    (`stop_after` trials: tests). `on_retune(level, generation, generations)` reports
    each re-tune. `backend` "dask" (with `scheduler`, or a local cluster) plays the
    games on Dask: the same proposal and validation as local workers."""
    from targi_sim.runner.dispatch import check_options, parallel_pool

    from .output import changes_frame, write_outputs
    from .searching import pool_width

    out = Path(out)
    plan = config if isinstance(config, BalancePlan) else prepare_balance(config, settings)
    config, settings = plan.config, plan.settings
    check_options(jobs, backend, scheduler)
    state = search(plan, out, jobs=jobs, progress=progress, stop_after=stop_after,
                   backend=backend, scheduler=scheduler, on_retune=on_retune)
    if stop_after is not None and state.games < config.budget:
        return None
    state.max_changes = settings.space.max_changes  # type: ignore[attr-defined]
    best = state.best
    edits, econ = (best.edits, best.economy) if best else ({}, {})
    with parallel_pool(jobs, backend, scheduler) as parallel:
        ev = Evaluator(config, settings, parallel, pool_width(jobs, backend), on_retune, plan)
        sides = []
        for i, (e, c) in enumerate((({}, {}), (edits, econ))):
            if validation_progress is not None:
                validation_progress("retune", i, 2)
            deck, rules = ev.deck_for(e, c, "proposal" if i else "base")
            players, _, _ = ev.players(deck, rules, retune_seed(config, "validate"))
            sides.append(Side(deck, rules, players, ev.changed(e, c)))
        if validation_progress is not None:
            validation_progress("retune", 2, 2)
        val = validate(ev, sides[0], sides[1], config.validate_deals,
                       progress=validation_progress)
    changes = changes_frame(ev, edits, econ)
    paths = write_outputs(out, config, ev, edits, econ, state, val, command, sides[1].players,
                          changes)
    try:
        proposal = load_deck(paths["proposal"])
    except DataError as exc:  # the writer produced a deck the loader rejects: a bug
        raise RuntimeError(f"the written proposal does not load: {exc}") from exc
    return BalanceResult(edits=edits, economy=econ, state=state, validation=val,
                         proposal=proposal, base=ev.deck, paths=paths, classes=ev.classes,
                         changes=changes)


__all__ = ["BalanceConfig", "BalancePlan", "BalanceResult", "Settings", "balance_deck",
           "load_settings", "prepare_balance", "resolve_levels", "with_overrides"]
