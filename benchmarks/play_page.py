"""Benchmark: the play page (`targi-sim play --browser`): how long the page waits for an
answer, and the screenshots of docs/play.md.

Starts the command as a person would (a process of its own, --no-open), then:

* timings: plays whole games over HTTP, as the page does, choosing uniformly at random,
  and times each answer's round trip (the bot's moves up to the person's next decision,
  the positions after each move, the journal written; a game's last answer also writes
  the game into the run directory). Prints the median and 90th percentile per answer;
* `--screenshots DIR`: drives Debian's Chromium (Playwright) through a game by clicking
  and saves play-decision.png (a placement, the border cards to click), play-raid.png
  (a raid payment) and play-over.png (the result) into DIR.

    python benchmarks/play_page.py [--vs random] [--games 3] [--seed 0]
    python benchmarks/play_page.py --vs expert@20 --games 1
    python benchmarks/play_page.py --screenshots docs/images --games 0
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHROMIUM = os.environ.get("TARGI_SIM_CHROMIUM", "/usr/bin/chromium")


def start(folder: Path, vs: str, seed: int, deck: str) -> tuple[subprocess.Popen, str]:
    """The command, run in `folder` with its default --out (runs/playtest-<deck>)."""
    if Path(deck).is_file():
        deck = str(Path(deck).resolve())
    proc = subprocess.Popen(
        [sys.executable, "-m", "targi_sim.cli.launch", "play", "--browser", "--no-open",
         "--vs", vs, "--seed", str(seed), "--deck", deck],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=folder,
        env=dict(os.environ, PYTHONUNBUFFERED="1"))
    url = proc.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        proc.kill()
        sys.exit("the command printed no URL")
    return proc, url


def post(url: str, path: str, body: dict) -> dict:
    host, rest = url.removeprefix("http://").split("/", 1)
    conn = http.client.HTTPConnection(*host.split(":"), timeout=600)
    conn.request("POST", f"/{rest}{path}", body=json.dumps(body),
                 headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    data = json.loads(response.read())
    conn.close()
    if response.status != 200:
        sys.exit(f"{path}: {response.status} {data}")
    return data


def timings(url: str, games: int, seed: int) -> dict:
    rng = random.Random(seed)
    answers, last = [], []
    for _ in range(games):
        state = post(url, "api/new", {})
        while state["game"]["over"] is None:
            d = state["game"]["decision"]
            t0 = time.perf_counter()
            state = post(url, "api/answer", {"seq": d["seq"],
                                             "option": rng.randrange(len(d["options"]))})["state"]
            (last if state["game"]["over"] else answers).append(time.perf_counter() - t0)
    q = statistics.quantiles(answers, n=10)
    return {"answers": len(answers), "median_ms": 1000 * statistics.median(answers),
            "p90_ms": 1000 * q[-1], "max_ms": 1000 * max(answers),
            "last_answer_ms": 1000 * statistics.median(last) if last else None}


def screenshots(url: str, folder: Path, seed: int) -> None:
    from playwright.sync_api import sync_playwright

    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    wanted = {"decision": None, "raid": None}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM,
                                     args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1300, "height": 1150})
        page.goto(url + "#speed=0")

        def settle() -> None:
            page.wait_for_function("() => document.body.dataset.busy === '0'",
                                   timeout=600_000)

        settle()
        while page.locator("#result[data-game-over]").count() == 0:
            kind = page.locator("#decision").get_attribute("data-type")
            rnd = int(page.evaluate("document.body.dataset.round"))
            if kind == "place" and rnd >= 3 and wanted["decision"] is None and \
                    page.locator(".border-card.choosable").count() >= 5:
                wanted["decision"] = folder / "play-decision.png"
                page.screenshot(path=str(wanted["decision"]))
            if kind == "raid_mode" and wanted["raid"] is None:
                wanted["raid"] = folder / "play-raid.png"
                page.screenshot(path=str(wanted["raid"]))
            buttons = page.locator("#options button[data-option]")
            buttons.nth(rng.randrange(buttons.count())).click()
            settle()
        page.screenshot(path=str(folder / "play-over.png"))
        browser.close()
    for name, path in wanted.items():
        print(f"{name}: {path or 'not reached in this game: try another --seed'}")
    print(f"over: {folder / 'play-over.png'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vs", default="random")
    ap.add_argument("--games", type=int, default=3, help="games timed over HTTP")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--deck", default="base")
    ap.add_argument("--screenshots", metavar="DIR", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        proc, url = start(Path(tmp), args.vs, args.seed, args.deck)
        ready = time.perf_counter() - t0
        try:
            load0 = os.getloadavg()[0]
            if args.games:
                t = timings(url, args.games, args.seed)
                print(f"{args.games} games against {args.vs}: {t['answers']} answers, "
                      f"median {t['median_ms']:.0f} ms, p90 {t['p90_ms']:.0f} ms, max "
                      f"{t['max_ms']:.0f} ms per answer; a game's last answer (written into "
                      f"the run directory) median {t['last_answer_ms']:.0f} ms; URL after "
                      f"{ready:.1f} s; load average {load0:.1f} -> {os.getloadavg()[0]:.1f}")
            if args.screenshots:
                screenshots(url, Path(args.screenshots).resolve(), args.seed)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
