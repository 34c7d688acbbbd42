"""How much of a strong level's balance terms is its re-tune's luck: re-tune one deck's
`tuned` with several seeds (warm start, the balance search's re-tune) and measure each
player's mirror on the same deals.

    python benchmarks/retune_noise.py --sigma 0.15 --sigma 0.04

Prints, per first step (sigma) and seed: tuned's spread, extremes, first-player rate and
objective, and the seconds it took. docs/benchmarks.md ("Balance at every level") quotes
it: a search whose candidates are re-tuned ranks them partly by this noise.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import cpu_model, git_label  # noqa: E402

from targi_sim.balance import BalanceConfig, load_settings  # noqa: E402
from targi_sim.balance.searching import Evaluator, measure_full  # noqa: E402
from targi_sim.runner.dispatch import parallel_pool  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sigma", type=float, action="append", default=None)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--budget", type=int, default=300_000)
    ap.add_argument("--deck", default="base")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    settings = load_settings()
    print(f"{cpu_model()}, {git_label()}, jobs {args.jobs}, deck {args.deck}, "
          f"re-tune {args.budget:,} games, {args.deals:,} deals")
    with parallel_pool(args.jobs) as parallel:
        for sigma in args.sigma or [0.15, 0.04]:
            config = BalanceConfig(deck=args.deck, strategies=("balanced", "tuned"),
                                   retuned=("tuned",), retune_budget=args.budget,
                                   retune_sigma=sigma, block_deals=args.deals, blocks=1)
            ev = Evaluator(config, settings, parallel, args.jobs)
            for seed in (int(x) for x in args.seeds.split(",")):
                t0 = time.perf_counter()
                players, _, _ = ev.players(ev.deck, ev.rules, seed)
                ts, _ = measure_full(ev, ev.deck, ev.matches_for(ev.deck, ev.rules, players))
                t = ts[1]
                print(f"sigma {sigma} seed {seed}: tuned spread {t.spread:.4f} extremes "
                      f"{t.extremes:.4f} first-player rate {t.first_rate:.4f} objective "
                      f"{t.total(settings.objective):.4f} ({time.perf_counter() - t0:.0f} s)",
                      flush=True)


if __name__ == "__main__":
    main()
