"""The balance search's bar: a proposal for the base deck with at most 6 changed cards
that cuts the card-value spread by >= 30% without moving the first-player rate further
from 50%, confirmed on fresh seeds (targi_sim.balance).

    python benchmarks/balance.py                          # balanced mirror, 8e6 games
    python benchmarks/balance.py --strategies tuned

Prints the wall time, search games/s, peak RSS (this process; the workers' own is
printed by the pool if you watch it), the changes, every validated term with its 95%
paired-bootstrap interval, and whether the bar is met. docs/benchmarks.md quotes it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import cpu_model, git_label, peak_rss_mb  # noqa: E402

from targi_sim.balance import BalanceConfig, balance_deck, load_settings  # noqa: E402
from targi_sim.balance.space import describe  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deck", default="base")
    ap.add_argument("--strategies", default="balanced")
    ap.add_argument("--budget", type=float, default=8e6)
    ap.add_argument("--block-deals", type=int, default=20_000)
    ap.add_argument("--blocks", type=int, default=3)
    ap.add_argument("--validate-deals", type=int, default=60_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--objective", default=None,
                    help="settings TOML (default data/balance/default.toml)")
    ap.add_argument("--out", default=None, help="output folder (default: a temporary one)")
    args = ap.parse_args()
    config = BalanceConfig(deck=args.deck, strategies=tuple(args.strategies.split(",")),
                           budget=int(args.budget), block_deals=args.block_deals,
                           blocks=args.blocks, seed=args.seed,
                           validate_deals=args.validate_deals)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="targi-balance-"))
    print(f"{cpu_model()}, {git_label()}, jobs {args.jobs}; {config}")
    t0 = time.perf_counter()
    settings = load_settings(args.objective) if args.objective else None
    result = balance_deck(config, out / "search", settings=settings, jobs=args.jobs)
    wall = time.perf_counter() - t0
    st = result.state
    print(f"wall {wall:.0f} s; {st.trials} candidates, {st.games:,} search games "
          f"({st.games / wall:,.0f} games/s including validation time); "
          f"peak RSS {peak_rss_mb():.0f} MB (main process)")
    for r in describe(result.base, result.edits):
        print(f"  card_id {r['card_id']} {r['name']}: {r['field']} {r['old']} -> {r['new']}")
    t = {r["term"]: r for r in result.validation.table.iter_rows(named=True)}
    for name, r in t.items():
        print(f"  {name:>13}: {r['base']:.4f} -> {r['proposal']:.4f}  change {r['change']:+.4f} "
              f"(95% {r['lo']:+.4f}..{r['hi']:+.4f}) {r['verdict']}")
    cut = 1 - t["spread"]["proposal"] / t["spread"]["base"]
    fp_ok = t["first_player"]["proposal"] <= t["first_player"]["base"]
    met = len(result.edits) <= 6 and cut >= 0.30 and fp_ok and t["spread"]["hi"] < 0
    print(f"spread cut {cut:.0%} (bar >= 30%, its interval below 0: "
          f"{t['spread']['hi'] < 0}); first-player distance not larger: {fp_ok}; "
          f"bar {'MET' if met else 'NOT met'}")
    print(f"outputs: {out / 'search'}")


if __name__ == "__main__":
    main()
