"""The play page's web application (Starlette): the page, its assets and a small JSON API,
behind a guard that refuses anything but this machine's own browser tab.

Routes, all under `/<token>/` (the token is in the URL the command prints):

    GET  /               the page (play.html)
    GET  /static/NAME    its script and style sheets (a fixed list, served from the package)
    GET  /api/state      the setup, the game in progress as the person may know it
    POST /api/answer     {"seq": N, "option": I}: answer decision N with option I
    POST /api/new        deal the next game (when none is in progress)

Why these checks (docs/play.md, "Safety"): the server listens on 127.0.0.1 only, but a
web page open in the same browser can still send requests to it, and a page on a domain
that resolves to 127.0.0.1 (DNS rebinding) can even read the answers. So a request is
refused unless its Host header names this server exactly (127.0.0.1 or localhost, with
its port), its Origin (when the browser sends one) is this server, it is not a
cross-site fetch (Sec-Fetch-Site), and its path starts with the random token, compared
in constant time. A refused request changes nothing. An answer must be a small JSON body
for the decision waiting now, with a legal option; anything else is an error response
and the game is unchanged (table.py).
"""

from __future__ import annotations

import json
import secrets
from functools import cache
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from .table import PlayTable, RequestError

HERE = Path(__file__).parent
VIEWER = HERE.parent / "viewer"
ASSETS = {  # name in the URL -> (file, media type); nothing else is served
    "play.js": (HERE / "play.js", "text/javascript; charset=utf-8"),
    "play.css": (HERE / "play.css", "text/css; charset=utf-8"),
    "board.js": (VIEWER / "board.js", "text/javascript; charset=utf-8"),
    "viewer.css": (VIEWER / "viewer.css", "text/css; charset=utf-8"),
}
MAX_BODY = 4096  # bytes of a request body: an answer is a few dozen
SECURITY_HEADERS = {
    "content-security-policy": ("default-src 'none'; script-src 'self'; style-src 'self'; "
                                "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                                "form-action 'none'; frame-ancestors 'none'"),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
    "cross-origin-resource-policy": "same-origin",
}


def new_token() -> str:
    """A fresh random token for the URL (32 bytes, URL-safe)."""
    return secrets.token_urlsafe(32)


@cache
def _asset(name: str) -> bytes:
    return ASSETS[name][0].read_bytes()


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class Guard:
    """ASGI middleware: the Host, Origin, Sec-Fetch-Site and token checks (module
    docstring); the token is taken off the path before the routes see it."""

    def __init__(self, app: ASGIApp, token: str, port: int) -> None:
        self.app = app
        self.token = token.encode()
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{h}" for h in self.hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets here
            return
        refusal = self.refusal(scope)
        if refusal is not None:
            status, message = refusal
            await PlainTextResponse(message + "\n", status_code=status,
                                    headers=SECURITY_HEADERS)(scope, receive, send)
            return
        path = scope["path"]
        rest = path[1 + len(self.token.decode()):]
        if rest == "":  # /TOKEN -> /TOKEN/ so relative URLs keep the token
            await RedirectResponse(path + "/", status_code=308)(scope, receive, send)
            return
        inner = dict(scope, path=rest, raw_path=rest.encode())

        async def secure_send(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.decode().lower() not in SECURITY_HEADERS]
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = dict(message, headers=headers)
            await send(message)

        await self.app(inner, receive, secure_send)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, reason) if the request must be refused, else None."""
        headers: dict[str, list[str]] = {}
        for k, v in scope.get("headers", []):
            headers.setdefault(k.decode("latin-1").lower(), []).append(v.decode("latin-1"))
        hosts = headers.get("host", [])
        if len(hosts) != 1 or hosts[0].lower() not in self.hosts:
            return 403, "Refused: the Host header does not name this server."
        origin = headers.get("origin", [])
        if len(origin) > 1 or (origin and origin[0].lower() not in self.origins):
            return 403, "Refused: a request from another origin."
        site = headers.get("sec-fetch-site", [])
        if site and site[0].lower() not in ("same-origin", "none"):
            return 403, "Refused: a cross-site request."
        segment = scope["path"].lstrip("/").split("/", 1)[0]
        if not scope["path"].startswith("/") or not secrets.compare_digest(
                segment.encode("utf-8", "replace"), self.token):
            return 404, "Not found (the page's address holds its token: use the URL printed " \
                        "by `targi-sim play --browser`)."
        return None


def create_app(table: PlayTable, token: str, port: int) -> ASGIApp:
    """The guarded application serving `table` at http://127.0.0.1:`port`/`token`/."""

    async def page(request: Request) -> Response:
        return Response(_asset_text("play.html"), media_type="text/html; charset=utf-8")

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return PlainTextResponse("Not found\n", status_code=404)
        return Response(_asset(name), media_type=ASSETS[name][1])

    async def state(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(table.state))

    async def answer(request: Request) -> Response:
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        if set(body) != {"seq", "option"}:
            return _error(400, 'an answer is {"seq": N, "option": I}')
        return await _call(table.answer, body["seq"], body["option"])

    async def new(request: Request) -> Response:
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        return await _call(table.start)

    routes = [
        Route("/", page, methods=["GET"]),
        Route("/static/{name}", static, methods=["GET"]),
        Route("/api/state", state, methods=["GET"]),
        Route("/api/answer", answer, methods=["POST"]),
        Route("/api/new", new, methods=["POST"]),
    ]
    return Guard(Starlette(routes=routes), token, port)


@cache
def _asset_text(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


async def _call(fn, *args: Any) -> Response:
    try:
        return JSONResponse(await run_in_threadpool(fn, *args))
    except RequestError as exc:
        return _error(exc.status, str(exc))


async def _json_body(request: Request) -> dict[str, Any] | Response:
    """The request's JSON object, or an error response (415, 413, 400)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return _error(415, "send JSON (Content-Type: application/json)")
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            return _error(413, f"a request body is at most {MAX_BODY} bytes")
    try:
        body = json.loads(data.decode("utf-8")) if data else {}
    except (UnicodeDecodeError, json.JSONDecodeError):
        return _error(400, "the body is not JSON")
    if not isinstance(body, dict):
        return _error(400, "the body must be a JSON object")
    return body


__all__ = ["ASSETS", "Guard", "MAX_BODY", "create_app", "new_token"]
