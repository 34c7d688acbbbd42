"""The realised error rates and sample sizes of `targi-sim check`, by simulation.

Each model is a distribution of a unit's score measured with the real engine (a
seat-swapped pair: pentanomial; a single game when a deterministic mirror plays one
game per deal: trinomial). The script draws units from it with numpy and runs the
whole two-sided procedure of targi_sim.stats.sprt exactly as `check` does (a look after every
1,000 games, the default game cap of targi_sim.check.baseline.default_cap, the fixed-sample
verdict at the cap): under H0 (the rate unchanged) the share of checks that fail is the
realised false-alarm rate, split into failures by the bounds and by the cap rule; under
a move of the tolerance up or down, the share that fails is the power. Wald's bounds for
alpha = beta = 0.05, alpha/2 per side, are log(0.05/0.975) = -2.97 and
log(0.95/0.025) = +3.64.

    python benchmarks/check_errors.py [--runs 3000] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

# unit-score frequencies measured with the real engine (tests/test_sprt.py): balanced's
# points in a seat-swapped pair against greedy (20,000 pairs); the round-1 first player's
# in the balanced mirror as single games (one per deal) and, before one game per deal,
# as seat-swapped pairs, which were 0-or-1 pairs (each pair one game twice)
MODELS = {
    "balanced vs greedy, win rate (pentanomial pairs)":
        np.array([3299, 32, 8704, 35, 7930]) / 20_000,
    "mirror balanced, first player (trinomial games, one per deal)":
        np.array([5836, 121, 4043]) / 10_000,
    "mirror balanced, first player (0-or-1 pentanomial pairs, the old layout)":
        np.array([5836, 0, 121, 0, 4043]) / 10_000,
}


def simulate(pdf: np.ndarray, delta: float, runs: int, seed: int,
             batch_games: int = 1000) -> dict:
    from targi_sim.check.baseline import default_cap
    from targi_sim.stats import sprt

    scores = sprt.unit_scores(len(pdf))
    m = (len(pdf) - 1) // 2  # games per unit
    p0 = float(pdf @ scores)
    cap_units = default_cap(p0, delta, batch_games) // m
    sd = math.sqrt(float(pdf @ (scores - p0) ** 2))
    out = {"p0": p0, "cap_games": cap_units * m,
           "fixed_games": sprt.fixed_sample_pairs(sd, delta) * m}
    for k, (label, shift) in enumerate((("H0", 0.0), ("H1 up", delta), ("H1 down", -delta))):
        truth = pdf if shift == 0 else sprt.mle_with_mean(pdf, p0 + shift)
        used, failed, capped = sprt.simulate_sample_numbers(
            truth, p0, delta, batch_pairs=batch_games // m, max_pairs=cap_units, runs=runs,
            seed=seed + k)
        out[label] = {"fail": float(failed.mean()), "se": float(failed.std() / math.sqrt(runs)),
                      "fail_by_bounds": float((failed & ~capped).mean()),
                      "fail_at_cap": float((failed & capped).mean()),
                      "asn_games": float(used.mean() * m)}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3000, help="simulated checks per row")
    ap.add_argument("--delta", type=float, default=0.01, help="tolerance (fraction)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    from targi_sim.stats import sprt

    lo, hi = sprt.bounds(0.025, 0.05)
    print(f"bounds per side (alpha/2 = 0.025, beta = 0.05): {lo:+.3f}, {hi:+.3f}; "
          f"{args.runs:,} simulated checks per row, tolerance {100 * args.delta:g} points, "
          "a look every 1,000 games")
    for name, pdf in MODELS.items():
        r = simulate(pdf, args.delta, args.runs, args.seed)
        print(f"{name}: rate {100 * r['p0']:.2f}%, cap {r['cap_games']:,} games, "
              f"fixed-sample test {r['fixed_games']:,} games")
        for label in ("H0", "H1 up", "H1 down"):
            x = r[label]
            print(f"  {label:8s} fails {x['fail']:.3f} +- {x['se']:.3f} (bounds "
                  f"{x['fail_by_bounds']:.3f}, cap rule {x['fail_at_cap']:.3f}), ASN "
                  f"{x['asn_games']:,.0f} games = {x['asn_games'] / r['fixed_games']:.2f} x fixed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
