"""`targi-sim play --browser` in a real browser: Debian's Chromium driven by Playwright
clicks through whole games, against `random` and against `expert@20` (.ci/run installs
the package; without it these tests skip and say why). Screenshots go to
tests/artifacts/browser/.

The command runs as the person would start it; the page is driven only through what it
shows: each option a button with `data-decision` and `data-option`, the border cards of
a placement clickable, the result in an element with `data-game-over`. The choices are
tests/play_helpers.py's, made from the buttons' texts."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from play_helpers import DECISION_TYPES, choose
from typer.testing import CliRunner

from targi_sim.cli.app import app

runner = CliRunner()
CHROMIUM = os.environ.get("TARGI_SIM_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts" / "browser"
# abilities-example: the base deck with a card that swaps display cards (the `ability`
# decision); with this seed the first game already reaches every decision type and the
# Noble with play_helpers.choose's clicks (seed 5 needed four games: 57 s against 19)
COVER = {"deck": "abilities-example", "seed": 2, "games": 4}


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; .ci/run "
                    "installs it; TARGI_SIM_CHROMIUM names another binary)")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright is not installed (pip install -e '.[test]')")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM,
                               args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


class Served:
    """`targi-sim play --browser --no-open ...` in a process of its own."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "targi_sim.cli.launch", "play", "--browser", "--no-open",
             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"))
        self.url = self.proc.stdout.readline().strip()
        if not re.fullmatch(r"http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]+/", self.url):
            self.proc.kill()
            raise AssertionError(f"no URL line: {self.url!r} {self.proc.stderr.read()}")

    def stop(self, sig: int) -> int:
        self.proc.send_signal(sig)
        try:
            _, self.err = self.proc.communicate(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        return self.proc.returncode


def open_page(browser, url: str):
    page = browser.new_page(viewport={"width": 1300, "height": 1150})
    problems: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url + "#speed=0")
    return page, problems, requests


def settle(page) -> None:
    """Wait until the page has its answer and has shown the bot's moves."""
    page.wait_for_function("() => document.body.dataset.busy === '0'", timeout=120_000)


def click_decision(page, seen: dict[str, int], *, on_board: bool) -> None:
    """Take the waiting decision by clicking what `choose` picks."""
    box = page.locator("#decision")
    kind, seq = box.get_attribute("data-type"), int(box.get_attribute("data-seq"))
    buttons = page.locator("#options button[data-option]")
    texts = buttons.all_inner_texts()
    assert {b for b in page.locator("#options button").evaluate_all(
        "bs => bs.map(b => b.dataset.decision)")} == {kind}
    i = choose(kind, texts, int(page.evaluate("document.body.dataset.game")), seq)
    seen[kind] = seen.get(kind, 0) + 1
    if kind == "tribe" and page.locator("#title").inner_text().startswith("The Noble"):
        seen["noble"] = seen.get("noble", 0) + 1
    cell = page.locator(f".border-card[data-place-option='{i}']")
    if on_board and kind == "place" and cell.count() == 1:
        cell.click()
        seen["board clicks"] = seen.get("board clicks", 0) + 1
    else:
        page.locator(f"#options button[data-option='{i}']").click()
    settle(page)


def play_game(page, seen: dict[str, int], *, stop_after: int | None = None) -> str | None:
    """Click through the game on the page to its end (its result), or `stop_after`
    decisions (None)."""
    settle(page)
    n = 0
    while page.locator("#result[data-game-over]").count() == 0:
        if stop_after is not None and n >= stop_after:
            return None
        click_decision(page, seen, on_board=n % 2 == 0)
        n += 1
    result = page.locator("#result").get_attribute("data-game-over")
    assert page.locator("#result").is_visible()
    assert page.locator("#decision").is_hidden()
    return result


def only_here(requests: list[str], *urls: str) -> None:
    """Every request the page made went to its own server (or was a data: URL)."""
    origins = tuple(re.match(r"http://127\.0\.0\.1:\d+/", u).group(0) for u in urls)
    outside = [r for r in requests if not r.startswith((*origins, "data:"))]
    assert requests and not outside, outside


def test_whole_games_against_random_by_clicking_reach_every_decision(browser, tmp_path):
    """Up to four games of one playtest directory, every option clicked on the page: each
    ends with its result, every decision type of the engine (the Noble, Fata Morgana,
    trades, raid payments, discards, a card's ability) is reached, and the directory
    the command leaves passes `targi-sim report`."""
    out = tmp_path / "games"
    served = Served("--vs", "random", "--deck", COVER["deck"], "--seed", str(COVER["seed"]),
                    "--out", str(out))
    page, problems, requests = open_page(browser, served.url)
    seen: dict[str, int] = {}
    results = []
    try:
        for game in range(COVER["games"]):
            results.append(play_game(page, seen))
            if game == 0:
                page.screenshot(path=str(ARTIFACTS / "play-over.png"), full_page=True)
            if all(t in seen for t in DECISION_TYPES) and "noble" in seen:
                break
            page.locator("#next-game[data-action='new-game']").click()
            settle(page)
    finally:
        code = served.stop(signal.SIGINT)
    assert code == 130, served.err  # Ctrl-C: as `run` ends
    missing = [t for t in (*DECISION_TYPES, "noble") if t not in seen]
    assert not missing, f"not reached in {len(results)} games: {missing} ({seen})"
    assert seen.get("board clicks", 0) > 10
    assert set(results) <= {"won", "lost", "draw"}
    assert not problems, problems
    only_here(requests, served.url)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["games"] == len(results)
    result = runner.invoke(app, ["report", str(out), "--out", str(tmp_path / "report"),
                                 "--quiet"])
    assert result.exit_code == 0, result.output


def test_a_game_against_expert_shown_move_by_move_and_resumed(browser, tmp_path):
    """Against expert@20: the bot's moves appear one after another (at a speed above 0),
    the game stopped in the middle (SIGTERM) goes on where it was under a new server
    and URL, and is played to its end by clicking."""
    out = tmp_path / "games"
    served = Served("--vs", "expert@20", "--out", str(out))
    page, problems, requests = open_page(browser, served.url)
    seen: dict[str, int] = {}
    try:
        settle(page)
        page.select_option("#speed", "450")
        page.evaluate("""() => { window.added = [];
            new MutationObserver(() => window.added.push(performance.now()))
              .observe(document.getElementById('lines'), {childList: true}); }""")
        click_decision(page, seen, on_board=False)  # seat 0 starts game 0: the bot answers
        times = page.evaluate("window.added")
        assert len(times) >= 2 and times[-1] - times[0] >= 200, times
        page.select_option("#speed", "0")
        assert play_game(page, seen, stop_after=30) is None
        before = page.locator("#decision").get_attribute("data-seq")
        page.screenshot(path=str(ARTIFACTS / "play-expert.png"), full_page=True)
    finally:
        code = served.stop(signal.SIGTERM)
    assert code == 143, served.err
    assert not (out / "manifest.json").exists()  # no game finished: none in the tables
    again = Served("--out", str(out))  # the directory's own setup
    try:
        page.goto(again.url + "#speed=0")
        settle(page)
        assert "resumed where you left it" in page.locator("#sub").inner_text()
        assert page.locator("#decision").get_attribute("data-seq") == before
        assert play_game(page, seen) in ("won", "lost", "draw")
    finally:
        again.stop(signal.SIGTERM)
    assert not problems, problems
    only_here(requests, served.url, again.url)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["games"] == 1
    assert [s["name"] for s in manifest["strategies"]] == ["human", "expert@20"]
