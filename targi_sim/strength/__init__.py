"""How strong players are: tuning a heuristic's weights (tune), the round-robin
tournament with Elo, and the skill ladder.

May import: check (for tune's gate), report, runner, play, players, game, engine, stats.
"""
