"""Long runs: chunks of games played in parallel into a resumable run directory.

    from targi_sim.runner import RunConfig, resolve_run, execute
    outcome = execute(resolve_run(RunConfig(games=100_000, p0="balanced")), "runs/demo", jobs=2)

Layout and columns: docs/data-model.md. Reading a run for analysis:
`targi_sim.open_run` (runner/run.py, docs/analysis.md).
"""

from targi_sim.runner.dispatch import BACKENDS, RunOutcome, execute
from targi_sim.runner.layout import RunDir

from .config import RunConfig, resolve_run

__all__ = ["BACKENDS", "RunConfig", "RunDir", "RunOutcome", "execute", "resolve_run"]
