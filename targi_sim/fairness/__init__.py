"""What "balanced" means and how a deck's games measure it: the objective `balance`
minimises and `compare`'s balance verdict reads (docs/balance.md).

Why its own package: the report (compare's verdict) and the balance search both need the
same measure, and the search sits above the strength and calibration layers it re-tunes
and checks shape with; this package sits below the report, so neither depends on the
other's layer. `measure` reduces games to per-deal sums (classes of identical cards
pooled), `objective` turns sums into terms, `bootstrap` resamples deals, `tables` reads
a run's tables, `settings` loads the settings file.
"""
