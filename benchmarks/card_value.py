"""Benchmark causal card values (issue 16, part 2): all 45 tribe cards to +-2 win-rate points
(40 values: identical printed copies are one class, their forks pooled).

Runs the real command line in fresh processes (engine and fork driver loaded from the
compile cache; a 10-game warm-up compiles them first): `targi-sim run` of N balanced-vs-
balanced games, then `targi-sim card-value` on it, and prints each step's wall time, the
forks made and forks/s, the peak resident memory of each process tree, and how precise
the 45 card values are (the widest 95% half-width, clustered by deal).

    python benchmarks/card_value.py                         # 100,000 games, fork rate 1
    python benchmarks/card_value.py --games 2e4 --fork-rate 0.5 --jobs 1

Target (issue 16): every card's value to +-2 points (95% half-width <= 0.02) within 10
minutes, run and forks together, on the 2-core development machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import cpu_model, git_label, print_table  # noqa: E402
from run import timed_run  # noqa: E402

TARGET_HALF_WIDTH = 0.02
TARGET_SECONDS = 600.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="1e5")
    ap.add_argument("--fork-rate", default="1")
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--chunk-size", default="10000")
    ap.add_argument("--strategy", default="balanced")
    ap.add_argument("--keep", default=None, help="keep the run directory here")
    a = ap.parse_args()
    exe = shutil.which("targi-sim", path=str(Path(sys.executable).parent)) or "targi-sim"
    games = int(float(a.games))
    work = Path(tempfile.mkdtemp(prefix="targi-bench-cv-"))
    out = Path(a.keep) if a.keep else work / "run"
    s = a.strategy
    try:
        warm = work / "warm"
        subprocess.run([exe, "run", "--games", "10", "--p0", s, "--p1", s, "--quiet",
                        "--jobs", "1", "--out", str(warm), "--card-value", "--fork-rate", "1"],
                       check=True, capture_output=True)
        run_wall, run_peak = timed_run([exe, "run", "--games", str(games), "--p0", s, "--p1", s,
                                        "--jobs", a.jobs, "--chunk-size", a.chunk_size,
                                        "--quiet", "--force", "--out", str(out)])
        cv_wall, cv_peak = timed_run([exe, "card-value", str(out), "--fork-rate", a.fork_rate,
                                      "--jobs", a.jobs, "--quiet", "--force"])
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from targi_sim import card_values

        v = card_values(out)
        summary = json.loads((out / "forks" / "forks.json").read_text())
        forks = int(summary["forks"])
        half = ((v["ci_high"] - v["ci_low"]) / 2).fill_nan(None)
        widest = v.with_columns(half.alias("half")).sort("half", descending=True,
                                                          nulls_last=False).row(0, named=True)
        within = int((half <= TARGET_HALF_WIDTH).sum())
        total = run_wall + cv_wall
        rows = [
            ("run: wall", f"{run_wall:.1f} s", f"{games:,} games {s} vs {s}, --jobs {a.jobs}, "
             f"{games / run_wall:,.0f} games/s"),
            ("run: peak RSS, process tree", f"{run_peak / 2**20:,.0f} MB", ""),
            ("card-value: wall", f"{cv_wall:.1f} s", f"--fork-rate {a.fork_rate}, "
             f"--jobs {a.jobs}"),
            ("card-value: forks", f"{forks:,}", f"{forks / games:.2f} per game, "
             f"{forks / cv_wall:,.0f} forks/s (2 playouts each)"),
            ("card-value: peak RSS, process tree", f"{cv_peak / 2**20:,.0f} MB", ""),
            ("card classes within +-2 points", f"{within} / {v.height}",
             f"95% half-width <= {TARGET_HALF_WIDTH}"),
            ("widest half-width", f"{100 * widest['half']:.2f} pts",
             f"{widest['name']} ({widest['n_forks']:,} forks)"),
            ("fewest forks of a card", f"{int(v['n_forks'].min()):,}", ""),
            ("total wall (run + card-value)", f"{total:.1f} s",
             f"target <= {TARGET_SECONDS:.0f} s and all cards within +-2"),
        ]
        print(f"{cpu_model()}; {git_label()}")
        print_table(rows)
        ok = within == v.height and total <= TARGET_SECONDS
        print("target met" if ok else "target NOT met")
        print(json.dumps({"games": games, "fork_rate": float(a.fork_rate), "jobs": a.jobs,
                          "run_seconds": round(run_wall, 2), "card_value_seconds":
                          round(cv_wall, 2), "forks": forks, "forks_per_second":
                          round(forks / cv_wall, 1), "peak_rss_mb": round(max(
                              run_peak, cv_peak) / 2**20, 1), "widest_half_width":
                          round(widest["half"], 5), "cards_within": within, "ok": ok}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
