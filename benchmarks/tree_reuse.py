"""What the expert's placement tree reuse (`reuse_tree`, engine/ismcts.py) saves: over
whole games, the share of its placement searches' budget that the seat's previous search
of the round had already spent below the new position.

    python benchmarks/tree_reuse.py                     # 20 games, the shipped expert
    python benchmarks/tree_reuse.py --games 40 --opponent expert-placements

The expert (seat 0 in even games, seat 1 in odd ones) plays `--opponent` in sessions
(targi_sim.new_game: the same games as a batch), and each game's
`Game.placement_searches` counts its searches, the root visits they reused and the
iterations they ran. Prints those totals, the share of the budget (searches x
`iterations`) reused -- iterations a search without reuse would have run -- and the
per-search mean with its 95% interval over games (the unit: one game's searches share
its deal). Time and strength: benchmarks/expert.py --variants (docs/benchmarks.md).
Nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time

import numpy as np
from common import git_label  # noqa: E402 - script dir on sys.path


def main() -> None:
    from scipy import stats

    from targi_sim import new_game
    from targi_sim.players.strategy import resolve_strategy

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--expert", default="expert")
    ap.add_argument("--opponent", default="tuned")
    args = ap.parse_args()
    print(f"command: {os.path.relpath(sys.executable)} {shlex.join(sys.argv)}")
    print(f"{git_label()}; load average {os.getloadavg()[0]:.2f} at start", flush=True)
    iterations = int(resolve_strategy(args.expert).settings()["iterations"])
    shares, totals = [], np.zeros(3, dtype=np.int64)
    t0 = time.perf_counter()
    for g in range(args.games):
        seat = g % 2
        seats = {"p0": args.expert, "p1": args.opponent} if seat == 0 else \
            {"p0": args.opponent, "p1": args.expert}
        game = new_game(args.seed + g, **seats, first_player=(g // 2) % 2)
        c = game.placement_searches(seat)
        totals += (c["searches"], c["reused"], c["ran"])
        shares.append(c["reused"] / max(1, c["searches"] * iterations))
        elapsed = time.perf_counter() - t0
        eta = elapsed / (g + 1) * (args.games - g - 1)
        print(f"  game {g + 1}/{args.games} ({elapsed:.0f} s, ETA {eta:.0f} s): "
              f"{c['searches']} searches, {c['reused']:,} visits reused, {c['ran']:,} run",
              flush=True)
    searches, reused, ran = (int(x) for x in totals)
    mean = float(np.mean(shares))
    lo, hi = stats.t.interval(0.95, len(shares) - 1, loc=mean, scale=stats.sem(shares))
    print(f"\n{args.expert} ({iterations} iterations a placement) vs {args.opponent}, "
          f"{args.games} games: {searches:,} placement searches ran {ran:,} iterations and "
          f"reused {reused:,} root visits: {reused / (searches * iterations):.1%} of the "
          f"budget (per game {mean:.1%}, 95% CI {lo:.1%}-{hi:.1%}, n = {len(shares)} games)")
    print(f"wall time {time.perf_counter() - t0:.1f} s; load average "
          f"{os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
