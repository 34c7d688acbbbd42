"""Audits of a strategy by play: the no-peeking proof (fairplay) and whether it does what
its name promises (signatures).

May import: play, players, game, engine, stats, errors, _utils.
"""
