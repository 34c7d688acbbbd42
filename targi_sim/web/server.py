"""Serving the play page: uvicorn on 127.0.0.1 only, on a socket bound before it serves.

Why bind first: the URL printed for the person (with its port, when the system chose a
free one) and the Host header the guard accepts (app.py) must be known before the first
request. uvicorn stops gracefully on Ctrl-C or SIGTERM, then raises the signal again, so
the command ends the way `run` does (exit code 130 or 143).
"""

from __future__ import annotations

import socket

import uvicorn

from .app import create_app, new_token
from .table import PlayTable

HOST = "127.0.0.1"  # never another interface: the page is for this machine's browser


def bind(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:`port` (0: a free port); OSError if it is taken.
    A browser opened at once on the printed URL waits for the server, never refused."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
        sock.listen(128)  # connections wait in the backlog until the server takes them
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class PlayServer:
    """The page's server for `table` (see the module docstring)."""

    def __init__(self, table: PlayTable, port: int = 0, token: str | None = None, *,
                 sock: socket.socket | None = None) -> None:
        """Serves on `sock` if given (bound by `bind`), else binds `port` now."""
        self.sock = sock if sock is not None else bind(port)
        self.port = int(self.sock.getsockname()[1])
        self.token = token or new_token()
        config = uvicorn.Config(create_app(table, self.token, self.port), log_config=None,
                                log_level="warning", access_log=False, lifespan="off",
                                ws="none", http="h11", server_header=False)
        self.server = uvicorn.Server(config)

    @property
    def url(self) -> str:
        """The page's address, token included."""
        return f"http://{HOST}:{self.port}/{self.token}/"

    def serve(self) -> None:
        """Serve until stopped (a signal, or `stop()` from another thread)."""
        try:
            self.server.run(sockets=[self.sock])
        finally:
            self.sock.close()

    def stop(self) -> None:
        self.server.should_exit = True


__all__ = ["HOST", "PlayServer", "bind"]
