"""Benchmark: HTML viewer pages (targi_sim.viewer) for many games: time and page size.

Plays the games first (not timed), then times writing one page per game: the engine's
second replay of the game for its positions, the captions and the HTML. Targets (issue
18): 100 pages <= 10 s, every page <= 300 KB. Prints the load average, since the
figure depends on what else the machine runs.

    python benchmarks/viewer.py [--games 100] [--p0 random] [--p1 random] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from targi_sim import load_deck, load_rules, play_game
from targi_sim.viewer import write_game_page

TARGET_SECONDS_PER_100 = 10.0
TARGET_BYTES = 300_000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--p0", default="random")
    ap.add_argument("--p1", default="random")
    ap.add_argument("--out", default=None, help="folder for the pages (default: a temp dir)")
    args = ap.parse_args()
    deck, rules = load_deck("base"), load_rules("default")
    records = [play_game(seed, (args.p0, args.p1), deck=deck, rules=rules)
               for seed in range(args.games)]
    write_game_page(records[0], deck, rules, Path(tempfile.gettempdir()) / "warm-up.html",
                    "warm-up")  # the stepping entry point loads once per process
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out or tmp)
        out.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        sizes = [write_game_page(r, deck, rules, out / f"game-{r.seed}.html",
                                 f"seed {r.seed}").stat().st_size for r in records]
        wall = time.perf_counter() - t0
    decisions = sum(r.trace.height for r in records)
    per100 = wall * 100 / max(1, args.games)
    print(f"{args.games} pages ({args.p0} vs {args.p1}, {decisions:,} decisions): {wall:.2f} s "
          f"({per100:.2f} s per 100; target {TARGET_SECONDS_PER_100:g} s); page size "
          f"median {sorted(sizes)[len(sizes) // 2] / 1024:.0f} KB, max {max(sizes) / 1024:.0f} KB "
          f"(target {TARGET_BYTES / 1000:g} KB); load average {load0:.1f} -> "
          f"{os.getloadavg()[0]:.1f}")
    ok = per100 <= TARGET_SECONDS_PER_100 and max(sizes) <= TARGET_BYTES
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
