"""The game as data: decks and rules files (validated on load), the state of one game,
its decisions and what a player may see of it, narration and the record of a played game.

May import: engine, errors, _utils. Never a player, a runner or an analysis.
"""
