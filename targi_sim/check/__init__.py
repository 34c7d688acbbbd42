"""`targi-sim check`: the win-rate regression guard. baseline (the TOML files), metrics
(what is measured), guard (play and test with SPRT), drift (the per-card deck check),
output (what is printed and written), init_baseline (`check init`).

May import: report (values), runner, play, players, game, engine, stats.
"""
