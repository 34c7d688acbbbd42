"""`targi-sim sweep`: many variants of a deck, rules or strategy pair on the same deals.

Modules, one job each: plan (axes, variants, sweep files), run (the sweep directory,
its manifest and resume), deals (a run's metrics per deal), paired (the paired change
and its variance reduction), report / plots (tables, heat maps), analyse (reading the
runs into the report). The path grammar of `--set` is targi_sim.game.deck_edit.

    from targi_sim.sweep import SweepSpec, run_sweep
    spec = SweepSpec(games=20_000, sets=("border.Merchant.trades[1].give_amount = 2, 4",))
    result = run_sweep(spec, "sweeps/merchant", jobs=2)
"""

from .plan import SweepSpec, load_sweep_file, resolve_file_path
from .run import SweepResult, plan_sweep, run_sweep

__all__ = ["SweepResult", "SweepSpec", "load_sweep_file", "plan_sweep", "resolve_file_path",
           "run_sweep"]
