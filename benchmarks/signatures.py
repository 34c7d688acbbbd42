"""Each named strategy's signature figure against balanced (targi_sim.audits.signatures).

    python benchmarks/signatures.py                  # 10,000 games per strategy, seed 0
    python benchmarks/signatures.py --games 2000

Prints, for every named strategy, every figure of its seat and of balanced's seat in
the same games (seat-swapped pairs), the difference per player and game with its 95%
interval over pairs and p-value, and whether the figure its name promises moved the
promised way (p < 0.01). docs/strategies.md quotes the table.
"""

from __future__ import annotations

import argparse
import time

from targi_sim.audits.signatures import FIGURES, PROMISES, signature


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t0 = time.perf_counter()
    print(f"{args.games:,} games per strategy against balanced, seat-swapped pairs, "
          f"seed {args.seed}; difference = strategy - balanced per player and game")
    print("| strategy | figure | strategy | balanced | difference (95% CI) | p | promise |")
    print("|---|---|---|---|---|---|---|")
    for name, (promised, direction) in PROMISES.items():
        sig = signature(name, games=args.games, seed=args.seed)
        for figure in FIGURES:
            s = sig[figure]
            mark = ""
            if figure == promised:
                kept = s.keeps_promise(direction)
                mark = ("**kept**" if kept else "**not kept**") + (
                    " (should rise)" if direction > 0 else " (should fall)")
            print(f"| {name} | {figure} | {s.strategy_mean:.3f} | {s.balanced_mean:.3f} | "
                  f"{s.difference:+.3f} ({s.ci_low:+.3f} .. {s.ci_high:+.3f}) | "
                  f"{s.p_value:.2g} | {mark} |")
    print(f"wall time {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
