"""Play in the browser: `targi-sim play --browser` (docs/play.md).

table.py runs the game a person plays (the engine's game, the positions after each move
for the page, the journal that keeps it in a playtest directory: runner/playtest.py);
payload.py says what the page is sent (only the person's View); app.py is the guarded
web application (Starlette) and server.py serves it on 127.0.0.1 (uvicorn).
"""

from .app import create_app, new_token
from .server import PlayServer
from .table import PlayTable, RequestError

__all__ = ["PlayServer", "PlayTable", "RequestError", "create_app", "new_token"]
