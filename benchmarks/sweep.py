"""The variance reduction of a sweep's paired design, measured against independent seeds.

The sweep report estimates, per metric, the paired variance of a variant's change and
the variance two independent runs would give (each run's own deal-clustered variance).
This script measures both by replication instead of by formula: it splits a complete
sweep's deals into --batches equal batches and computes each batch's change twice --
on the same deals (paired, as the sweep does) and against the baseline's *next* batch
(different deals: independent seeds). The spread of the batch changes over batches is
the measured variance of each design; their ratio is compared with the report's.

    python benchmarks/sweep.py SWEEP_DIR [--batches 50]

It also prints the sweep's wall time and games/s from its manifest.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import numpy as np

from targi_sim.runner.reading import read_run_info
from targi_sim.sweep.deals import HEADLINE, deal_data
from targi_sim.sweep.paired import align, paired_change


def batch_changes(xb, nb, xv, nv, batches: int) -> tuple[np.ndarray, np.ndarray]:
    """Per batch, the change on the same deals and against the next batch's deals."""
    edges = np.linspace(0, len(xb), batches + 1).astype(int)
    parts = [slice(edges[i], edges[i + 1]) for i in range(batches)]

    def rate(x, n, s):
        return x[s].sum() / n[s].sum()

    same = np.array([rate(xv, nv, s) - rate(xb, nb, s) for s in parts])
    other = np.array([rate(xv, nv, parts[i]) - rate(xb, nb, parts[(i + 1) % batches])
                      for i in range(batches)])
    return same, other


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep", type=Path)
    ap.add_argument("--batches", type=int, default=50)
    args = ap.parse_args()
    manifest = json.loads((args.sweep / "sweep.json").read_text())
    t = manifest["timings"]
    games = manifest["spec"]["games"] * len(manifest["variants"])
    played = t.get("games_played", 0)
    speed = (f"{played:,} games played in {t.get('seconds', 0):.1f} s "
             f"({played / t['seconds']:,.0f} games/s)" if played else "nothing played")
    print(f"{manifest['name']}: {len(manifest['variants'])} variants x "
          f"{manifest['spec']['games']:,} games ({games:,}); its last invocation: {speed}")
    keys = [v["key"] for v in manifest["variants"]]
    data = {k: deal_data(read_run_info(args.sweep / "runs" / k)) for k in keys}
    base = data[keys[0]]
    print(f"{'metric':<18} {'variance ratio: report':>24} {'measured (median)':>18} "
          f"{'variants':>8}")
    for metric in HEADLINE:
        reported, measured = [], []
        for k in keys[1:]:
            _, ib, iv = align(base.deals, data[k].deals)
            xb, nb = (a[ib] for a in base.headline[metric])
            xv, nv = (a[iv] for a in data[k].headline[metric])
            pc = paired_change(xb, nb, xv, nv)
            same, other = batch_changes(xb, nb, xv, nv, args.batches)
            if not (other.var(ddof=1) > 0) or not (pc.variance_ratio > 0):
                continue  # a variant that plays every deal as the baseline measures nothing
            reported.append(pc.variance_ratio)
            measured.append(same.var(ddof=1) / other.var(ddof=1))
        if reported:
            print(f"{metric:<18} {statistics.median(reported):>24.3f} "
                  f"{statistics.median(measured):>18.3f} {len(reported):>8}")


if __name__ == "__main__":
    main()
