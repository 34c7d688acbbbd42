"""The play page's server over real HTTP (targi_sim.web): what it refuses and what it
never sends, and the `play --browser` command's URL line, errors and exit codes.

Refused, with the game unchanged: requests without the token, with a foreign Host
(DNS rebinding) or Origin, cross-site fetches, answers out of turn or with an illegal
option, malformed or oversized bodies. Never sent: a tribe card the person may not
know (in the deck, face down in the centre, the bot's hand drawn unseen). Clicking
through the page in a browser is test_play_browser.py."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest
from cli_helpers import one_error_line
from play_helpers import choose, playtest, serving
from typer.testing import CliRunner

from targi_sim.cli.app import app
from targi_sim.engine import layout as lay
from targi_sim.web.app import ASSETS, MAX_BODY

runner = CliRunner()
SEED = 1  # the random bot draws cards unseen and keeps them in these games


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A server for a playtest against random, in a thread of this process."""
    out = tmp_path_factory.mktemp("web") / "games"
    with playtest(out, vs="random", seed=SEED) as (_, table), serving(table) as server:
        table.start()
        yield server, table


def call(server, method: str, path: str, body: bytes | dict | None = None,
         headers: dict[str, str] | None = None, token: bool = True):
    """(status, headers, body text) of one request; `path` is relative to the page."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    send = {"Host": f"127.0.0.1:{server.port}"}
    if isinstance(body, dict):
        body = json.dumps(body).encode()
        send["Content-Type"] = "application/json"
    send.update(headers or {})
    conn.request(method, (f"/{server.token}/" if token else "/") + path, body=body,
                 headers=send)
    response = conn.getresponse()
    text = response.read().decode("utf-8", "replace")
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, text


def state(server) -> dict:
    status, _, text = call(server, "GET", "api/state")
    assert status == 200, text
    return json.loads(text)


# ------------------------------------------------------------------ what is served


def test_the_page_and_its_assets_come_from_here_only(site):
    server, _ = site
    status, headers, html = call(server, "GET", "")
    assert status == 200 and headers["content-type"].startswith("text/html")
    links = re.findall(r"""(?:src|href)=["']([^"']+)""", html)
    assert sorted(links) == sorted(["data:,", "static/viewer.css", "static/play.css",
                                    "static/board.js", "static/play.js"])
    for name, (_, kind) in ASSETS.items():
        status, headers, text = call(server, "GET", f"static/{name}")
        assert status == 200 and headers["content-type"] == kind, name
        assert "url(" not in text and "@import" not in text, name
        assert not re.search(r"""fetch\(\s*["'](https?:)?//""", text), name
    csp = headers["content-security-policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp
    assert headers["x-frame-options"] == "DENY" and headers["cache-control"] == "no-store"
    assert headers["referrer-policy"] == "no-referrer"
    assert call(server, "GET", "static/../app.py")[0] == 404
    assert call(server, "GET", "static/table.py")[0] == 404


# ------------------------------------------------------------------ what is refused


def test_requests_without_the_token_are_refused(site):
    server, _ = site
    before = state(server)
    for path in ("", "api/state", f"{server.token[:-1]}/api/state",
                 f"{server.token}x/api/state", "static/play.js"):
        status, _, text = call(server, "GET", path, token=False)
        assert status == 404, path
        assert "seat" not in text and "{" not in text
    d = before["game"]["decision"]
    status, _, _ = call(server, "POST", f"{server.token[::-1]}/api/answer",
                        {"seq": d["seq"], "option": 0}, token=False)
    assert status == 404
    assert state(server) == before


def test_a_foreign_host_or_origin_or_a_cross_site_fetch_is_refused(site):
    server, _ = site
    before = state(server)
    d = before["game"]["decision"]
    answer = {"seq": d["seq"], "option": 0}
    for headers in ({"Host": f"rebound.example:{server.port}"},
                    {"Host": f"127.0.0.1:{server.port + 1}"}, {"Host": "127.0.0.1"},
                    {"Origin": "http://evil.example"},
                    {"Origin": f"http://rebound.example:{server.port}"},
                    {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}):
        for method, path, body in (("GET", "api/state", None), ("POST", "api/answer", answer)):
            status, _, text = call(server, method, path, body, headers)
            assert status == 403, (headers, path, text)
            assert text.startswith("Refused")
    assert state(server) == before
    for headers in ({"Host": f"localhost:{server.port}"},
                    {"Origin": f"http://127.0.0.1:{server.port}",
                     "Sec-Fetch-Site": "same-origin"}):
        assert call(server, "GET", "api/state", None, headers)[0] == 200


def test_bad_answers_get_an_error_and_change_nothing(site):
    server, _ = site
    before = state(server)
    d = before["game"]["decision"]
    n = len(d["options"])
    cases = [
        ({"seq": d["seq"] + 1, "option": 0}, 409),       # out of turn (ahead)
        ({"seq": d["seq"] - 1, "option": 0}, 409),       # out of turn (a stale page)
        ({"seq": d["seq"], "option": n}, 400),           # not an option
        ({"seq": d["seq"], "option": -1}, 400),
        ({"seq": d["seq"], "option": "0"}, 400),
        ({"seq": d["seq"], "option": 0.0}, 400),
        ({"seq": d["seq"], "option": True}, 400),
        ({"seq": d["seq"], "option": 0, "more": 1}, 400),
        ({"option": 0}, 400),
    ]
    for body, expected in cases:
        status, _, text = call(server, "POST", "api/answer", body)
        assert status == expected, (body, text)
        assert "error" in json.loads(text)
    raw = [(b"{not json", "application/json", 400), (b"[1, 2]", "application/json", 400),
           (json.dumps({"seq": d["seq"], "option": 0}).encode(), "text/plain", 415),
           (b'{"seq": 0, "option": 0, "pad": "' + b"x" * MAX_BODY + b'"}',
            "application/json", 413)]
    for body, kind, expected in raw:
        status, _, text = call(server, "POST", "api/answer", body, {"Content-Type": kind})
        assert status == expected, (body[:20], text)
    assert call(server, "GET", "api/answer")[0] == 405
    assert call(server, "POST", "api/state", {})[0] == 405
    assert call(server, "POST", "api/new", {})[0] == 200  # a game is in progress: kept
    assert state(server) == before


# ------------------------------------------------------------------ what is never sent


def _hidden_tribe_names(table) -> set[str]:
    """The tribe cards the person may not know now, by name: the deck, face-down centre
    cards, and the bot's hand card when it was drawn unseen."""
    S = table.playing.game.frozen
    deck = table.setup.deck
    ids = set(S[lay.S_TRIBE:lay.S_TRIBE + S[lay.S_TRIBE_N]].tolist())
    for cell in range(9):
        if S[lay.S_CELL_TYPE + cell] == lay.CELL_TRIBE and S[lay.S_CELL_UP + cell] == 0:
            ids.add(int(S[lay.S_CELL_CARD + cell]))
    bot = lay.S_PLAYER + 1 * lay.P_SIZE
    if S[bot + lay.P_HAND] >= 0 and S[bot + lay.P_HAND_KNOWN] == 0:
        ids.add(int(S[bot + lay.P_HAND]))
    return {deck.tribe_names[c] for c in ids if c >= 0}


def _unseen_bot_hand(table) -> bool:
    S = table.playing.game.frozen
    bot = lay.S_PLAYER + 1 * lay.P_SIZE
    return bool(S[bot + lay.P_HAND] >= 0 and S[bot + lay.P_HAND_KNOWN] == 0)


def test_the_page_is_never_told_a_card_its_player_may_not_know(tmp_path):
    """Two whole games over HTTP; after every answer, the names of the hidden tribe cards
    appear nowhere in what was sent (the new frames, the view, the decision), and every
    view marks the face-down cards and the bot's unseen hand as unknown (-2)."""
    unseen_moments = 0
    with playtest(tmp_path / "games", vs="random", seed=SEED) as (_, table), \
            serving(table) as server:
        for game_id in range(2):
            status, _, text = call(server, "POST", "api/new", {})
            assert status == 200
            current = json.loads(text)
            while current["game"]["over"] is None:
                d = current["game"]["decision"]
                i = choose(d["type"], [o["text"] for o in d["options"]], game_id, d["seq"])
                status, _, text = call(server, "POST", "api/answer",
                                       {"seq": d["seq"], "option": i})
                assert status == 200, text
                reply = json.loads(text)
                current = reply["state"]
                if current["game"]["over"] is not None:
                    break
                hidden = _hidden_tribe_names(table)
                sent = json.dumps([reply["frames"], current["game"]["view"],
                                   current["game"]["decision"]])
                for name in hidden:
                    assert f"'{name}'" not in sent and f'"{name}"' not in sent, name
                unseen = _unseen_bot_hand(table)
                unseen_moments += unseen
                views = [f["view"] for f in reply["frames"]] + [current["game"]["view"]]
                if unseen:
                    assert current["game"]["view"]["players"][1]["hand"] == -2
                for view in views:
                    for cell in view["cells"]:
                        if cell[0] >= 0 and not cell[1]:
                            assert cell[2] == -2
    assert unseen_moments > 0, "the bot never held an unseen card: choose another SEED"


# ------------------------------------------------------------------ the command


def test_the_command_prints_one_url_line_and_stops_on_sigterm_like_run(tmp_path):
    out = tmp_path / "games"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "targi_sim.cli.launch", "play", "--browser",
                             "--vs", "random", "--out", str(out), "--no-open"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        url = proc.stdout.readline().strip()
        m = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/([A-Za-z0-9_-]{40,})/", url)
        assert m, url
        conn = http.client.HTTPConnection("127.0.0.1", int(m.group(1)), timeout=60)
        conn.request("GET", f"/{m.group(2)}/api/state")
        assert conn.getresponse().status == 200
        conn.close()
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err
    assert rest == ""  # the URL was the only line on stdout
    assert "Traceback" not in err and "Stopped." in err
    assert (out / "playtest" / "setup.json").is_file()


def test_command_mistakes_are_one_error_line(tmp_path):
    one_error_line(runner.invoke(app, ["play", "--browser", "--seat", "1"]), "--seat")
    one_error_line(runner.invoke(app, ["play", "--out", str(tmp_path)]), "--browser")
    one_error_line(runner.invoke(app, ["play", "--browser", "--port", "70000",
                                       "--out", str(tmp_path / "a")]), "--port")
    one_error_line(runner.invoke(app, ["play", "--browser", "--vs", "nobody",
                                       "--out", str(tmp_path / "b")]), "nobody")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        t0 = time.perf_counter()
        one_error_line(runner.invoke(app, ["play", "--browser", "--port", str(port),
                                           "--out", str(tmp_path / "c"), "--no-open"]),
                       "in use")
        assert time.perf_counter() - t0 < 30  # said before the engine loads
