"""What an iteration of the expert's search costs, and how much of it is the replay of
the round up to the searched decision (docs/engine.md, "Decisions that can be branched").

    python benchmarks/search_costs.py                 # 6 games' decisions, 200 iterations each
    python benchmarks/search_costs.py --games 3 --iterations 400

Plays games of `expert@1` (the shipped expert's settings, one iteration) against tuned
through the session, and at each of the expert's decisions other than placements times
`search_decision` with `--iterations` iterations (one core, the engine loaded first):
the time per iteration, split by a least-squares line over the decisions into a part
that grows with the number of answers replayed before the decision and the rest (the
re-deal, the tree, the playout). Nothing here asserts.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from common import git_label  # noqa: E402 - script dir on sys.path

REPEATS = 5


def _repeat(S0, paused, D, R, SP, PB, arrays, times: int) -> float:
    """Search the paused decision `times` times in one compiled call (no Python between
    searches); returns the iterations done (early stops counted)."""
    from numba import njit

    from targi_sim.engine.expert import search_decision

    global _loop
    if _loop is None:
        @njit
        def loop(S0, paused, D, R, SP, PB, CTL, TREE, Sr, SPr, Lr, Or, times):
            done = 0.0
            for _ in range(times):
                S = S0.copy()
                search_decision(S, paused, D, R, SP, PB, 0, CTL, TREE, Sr, SPr, Lr, Or, 0)
                done += TREE[0, 4]  # the root's visits
            return done
        _loop = loop
    return _loop(S0, paused, D, R, SP, PB, *arrays, times)


_loop = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    import os

    from targi_sim import new_game
    from targi_sim.engine import layout as lay
    from targi_sim.engine.constants import MC_ACTION_ITERATIONS, MC_ITERATIONS
    from targi_sim.engine.expert import search_arrays
    from targi_sim.play.match import prepare_match

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    match = prepare_match(("expert", "tuned"))
    SP = match.SP.copy()
    SP[0, MC_ITERATIONS] = args.iterations
    SP[0, MC_ACTION_ITERATIONS] = args.iterations
    arrays = search_arrays(SP, lay.S_SIZE)
    rows = []  # (answers replayed, seconds per iteration)
    t_start = time.perf_counter()
    for g in range(args.games):
        game = new_game(args.seed + g, p1="tuned", transcript=True)
        first = True
        while not game.is_over:
            d = game.decision
            if d.type != "place":
                S0 = game.round_start.copy()
                paused = game.paused_replay()
                k = int(paused[lay.S_T_N])
                if first:  # compile / warm
                    _repeat(S0, paused, match.D, match.R, SP, match.PB, arrays, 1)
                    first = False
                t = time.process_time()  # CPU time: another job on the machine does not count
                done = _repeat(S0, paused, match.D, match.R, SP, match.PB, arrays, REPEATS)
                rows.append((k, (time.process_time() - t) / done))
            game.apply(0)
    ks = np.array([r[0] for r in rows], dtype=float)
    per = np.array([r[1] for r in rows]) * 1e6
    slope, intercept = np.polyfit(ks, per, 1)
    print(f"{git_label()}; {len(rows)} searched decisions in {args.games} games, "
          f"{args.iterations} iterations each (early stops counted), "
          f"{time.perf_counter() - t_start:.1f} s")
    print(f"microseconds per iteration: median {statistics.median(per):.1f}, "
          f"mean {per.mean():.1f}")
    print(f"answers replayed before a searched decision: median {statistics.median(ks):.0f}, "
          f"max {ks.max():.0f}")
    print(f"fit: {intercept:.1f} us + {slope:.3f} us per answer replayed; the replay's share "
          f"at the median decision: {slope * statistics.median(ks) / statistics.median(per):.1%}")


if __name__ == "__main__":
    main()
