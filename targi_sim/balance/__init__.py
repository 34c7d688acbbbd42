"""`targi-sim balance`: search card costs and VP toward a balanced deck with the fewest
changes, then confirm the proposal on fresh seeds (docs/balance.md).

    from targi_sim.balance import BalanceConfig, balance_deck
    result = balance_deck(BalanceConfig(deck="base", budget=500_000), "balance/base")
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from targi_sim.balance.searching import BalanceConfig, Evaluator, SearchState, search
from targi_sim.balance.validation import Validation, validate
from targi_sim.game.deck import Deck, load_deck

from ..errors import DataError
from .settings import Settings, load_settings, with_overrides
from .space import Edits, apply_edits


@dataclass
class BalanceResult:
    edits: Edits
    state: SearchState
    validation: Validation
    proposal: Deck  # loaded back from the written proposal.toml
    base: Deck
    paths: dict[str, Path]


def balance_deck(config: BalanceConfig, out: str | Path, *, settings: Settings | None = None,
                 jobs: int = 1, resume: bool = False, command: str = "targi-sim balance",
                 progress: Callable | None = None,
                 validation_progress: Callable[[str, int, int], None] | None = None,
                 stop_after: int | None = None, backend: str = "loky",
                 scheduler: str | None = None) -> BalanceResult | None:
    """Search, write the proposal, load it back (the loader validates it) and validate
    it on fresh seeds. None if stopped early (`stop_after` trials: tests). `backend`
    "dask" (with `scheduler`, or a local cluster) plays the games on Dask: the same
    proposal and validation as local workers."""
    from targi_sim.runner.dispatch import parallel_pool

    from .output import write_outputs
    from .searching import pool_width

    out = Path(out)
    settings = settings or load_settings()
    state = search(config, settings, out, jobs=jobs, resume=resume, progress=progress,
                   stop_after=stop_after, backend=backend, scheduler=scheduler)
    if stop_after is not None and state.games < config.budget:
        return None
    state.max_changes = settings.space.max_changes  # type: ignore[attr-defined]
    base = load_deck(config.deck)
    edits = state.best.edits if state.best else {}
    with parallel_pool(jobs, backend, scheduler) as parallel:
        ev = Evaluator(config, settings, parallel, pool_width(jobs, backend))
        val = validate(ev, base, apply_edits(base, edits), len(edits), config.validate_deals,
                       progress=validation_progress)
    paths = write_outputs(out, config, base, edits, state, val, command)
    try:
        proposal = load_deck(paths["proposal"])
    except DataError as exc:  # the writer produced a deck the loader rejects: a bug
        raise RuntimeError(f"the written proposal does not load: {exc}") from exc
    return BalanceResult(edits=edits, state=state, validation=val, proposal=proposal,
                         base=base, paths=paths)


__all__ = ["BalanceConfig", "BalanceResult", "Settings", "balance_deck", "load_settings",
           "with_overrides"]
