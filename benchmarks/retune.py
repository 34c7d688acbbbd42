"""How fast, and how strong, is calibration's warm-started re-tune?

For a deck, re-tune a level (default `tuned`) from its own weights with
targi_sim.strength.tune.retune at each --budgets value (the cost calibration pays per
candidate), time it, and play the result against a reference -- a full tune written by
`targi-sim tune` (--full FILE.toml) -- and against balanced, on fresh seat-swapped pairs.

    python benchmarks/retune.py --deck base --full data/strategies/tuned.toml \
        --budgets 1e5,3e5,1e6 --pairs 2000 --jobs 2

Prints one line per budget (seconds, generations, win rate against the full tune and
against balanced with 95% pair-clustered intervals) and a JSON line at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import cpu_model, peak_rss_mb  # noqa: E402


def head_to_head(a, b, deck, rules, pairs: int, seed: int, parallel) -> dict:
    """a's rate (draws half) against b over seat-swapped pairs, pair-clustered."""
    from joblib import delayed

    from targi_sim.calibrate.measure import cross_figure, play_shape_chunk
    from targi_sim.play.match import prepare_match
    from targi_sim.play.pairing import pair_ids, plan

    match = prepare_match((a, b), deck, rules)
    seeds, first, ids = plan(2 * pairs, seed, "seat_swapped")
    units = pair_ids(ids, "seat_swapped")
    step = 1000
    rows = parallel(delayed(play_shape_chunk)(match, seeds[i:i + step], first[i:i + step],
                                              ids[i:i + step], units[i:i + step])
                    for i in range(0, len(seeds), step))
    import numpy as np

    e = cross_figure(np.concatenate(rows))
    return {"rate": e.value, "lo": e.lo, "hi": e.hi, "pairs": e.units}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deck", default="base")
    ap.add_argument("--rules", default="default")
    ap.add_argument("--level", default="tuned", help="the strategy re-tuned (warm start)")
    ap.add_argument("--full", required=True, help="a full tune's strategy file (reference)")
    ap.add_argument("--budgets", default="1e5,3e5,1e6")
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0, help="re-tune seed")
    ap.add_argument("--play-seed", type=int, default=424242, help="fresh deals of the match")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()

    from targi_sim.game.deck import load_deck
    from targi_sim.game.rules import load_rules
    from targi_sim.players.strategy import resolve_strategy
    from targi_sim.runner.dispatch import parallel_pool
    from targi_sim.strength.tune import retune

    deck, rules = load_deck(args.deck), load_rules(args.rules)
    full, balanced = resolve_strategy(args.full), resolve_strategy("balanced")
    out = {"deck": args.deck, "level": args.level, "full": args.full, "cpu": cpu_model(),
           "jobs": args.jobs, "rows": []}
    with parallel_pool(args.jobs) as parallel:
        head_to_head(balanced, balanced, deck, rules, 10, 1, parallel)  # compile and warm
        start = resolve_strategy(args.level)
        base = {"budget": 0, "seconds": 0.0, "generations": 0,
                "vs_full": head_to_head(start, full, deck, rules, args.pairs,
                                        args.play_seed, parallel),
                "vs_balanced": head_to_head(start, balanced, deck, rules, args.pairs,
                                            args.play_seed, parallel)}
        rows = [base]
        for b in [int(float(x)) for x in args.budgets.split(",")]:
            t0 = time.perf_counter()
            r = retune(start, deck, rules, parallel=parallel, budget=b, seed=args.seed)
            secs = time.perf_counter() - t0
            rows.append({"budget": b, "seconds": secs, "generations": r.generations,
                         "vs_full": head_to_head(r.strategy, full, deck, rules, args.pairs,
                                                 args.play_seed, parallel),
                         "vs_balanced": head_to_head(r.strategy, balanced, deck, rules,
                                                     args.pairs, args.play_seed, parallel)})
        rows.append({"budget": "full", "seconds": None, "generations": None,
                     "vs_full": None,
                     "vs_balanced": head_to_head(full, balanced, deck, rules, args.pairs,
                                                 args.play_seed, parallel)})
    for r in rows:
        vf, vb = r["vs_full"], r["vs_balanced"]
        f = f"{vf['rate']:.1%} ({vf['lo']:.1%}-{vf['hi']:.1%})" if vf else "-"
        secs = f"{r['seconds']:.1f} s" if r["seconds"] is not None else "-"
        print(f"re-tune {r['budget']!s:>8}: {secs:>8}  gens {r['generations']!s:>4}  "
              f"vs full tune {f:>22}  vs balanced {vb['rate']:.1%} "
              f"({vb['lo']:.1%}-{vb['hi']:.1%})")
    out["rows"] = rows
    out["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
