"""The HTML game viewer: one game as one self-contained page.

states.py replays a recorded game in the engine and keeps every position; story.py
captions each position with the text replay's sentences; page.py writes the page
(inline CSS, SVG and JS; viewer.js only draws the precomputed positions, with board.js:
the drawing the play page, targi_sim/web, shares).
"""

from .page import game_page, render_page, write_game_page
from .states import Snapshot, ViewerError, game_snapshots

__all__ = ["Snapshot", "ViewerError", "game_page", "game_snapshots", "render_page",
           "write_game_page"]
