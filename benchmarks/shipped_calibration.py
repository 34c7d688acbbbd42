"""Does the documented calibration still propose the shipped base deck's economy?

Runs the command docs/calibrate.md documents for the shipped deck --

    targi-sim calibrate --deck base-token-economy --jobs 2

-- into a folder (--out; a rerun into the same folder continues it), then compares its
proposal with the economy of data/decks/base.toml, value by value, and its validated
economies with the record the test suite holds the deck to
(data/baselines/calibration-base.json; tests/test_shipped_calibration.py). Prints the
time, each changed value and the verdict; exit code 1 on a mismatch. `--record` copies
the run's validated.json over the shipped record (after a deliberate re-calibration).

    python benchmarks/shipped_calibration.py                  # about 13 min on 2 cores
    python benchmarks/shipped_calibration.py --out runs/cal   # reuse a finished run
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "data" / "baselines" / "calibration-base.json"
COMMAND = ["calibrate", "--deck", "base-token-economy"]


def shipped_economy() -> dict[str, str]:
    """Each parameter of the shipped space, read from the shipped base deck."""
    from targi_sim.calibrate import load_space
    from targi_sim.calibrate.space import value_key
    from targi_sim.game.deck import load_deck
    from targi_sim.game.rules import load_rules

    space = load_space("economy-space", load_deck("base"), load_rules("default"))
    return {p: value_key(v) for p, v in space.current().items()}


def proposed_economy(run: Path) -> dict[str, str] | None:
    """The proposal's value of each parameter in the run's validated.json (None: no
    change proposed)."""
    data = json.loads((run / "validated.json").read_text(encoding="utf-8"))
    chosen = next((v for v in data["validated"] if v["number"] == data["proposal"]), None)
    return chosen["choice"] if chosen else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="runs/shipped-calibration", help="the run's folder")
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--record", action="store_true",
                    help="write the run's validated.json as the shipped record")
    args = ap.parse_args()
    run = Path(args.out) if Path(args.out).is_absolute() else ROOT / args.out
    cmd = [sys.executable, "-m", "targi_sim.cli.launch", *COMMAND, "--jobs", args.jobs,
           "--out", str(run)]
    print("$ targi-sim " + " ".join(cmd[3:]), flush=True)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT)
    print(f"calibrate: {time.perf_counter() - t0:.0f} s")
    proposed, shipped = proposed_economy(run), shipped_economy()
    if proposed is None:
        print("the run proposes no change: the shipped base deck would be the token economy")
        return 1
    differ = {p: (shipped[p], proposed[p]) for p in shipped if shipped[p] != proposed[p]}
    for p, (s, v) in differ.items():
        print(f"  {p}: shipped {s}, proposed {v}")
    written = run / "validated.json"
    same = written.read_bytes() == RECORD.read_bytes()
    print("the run's validated.json is " + ("the shipped record" if same else
          f"not the shipped record ({RECORD.relative_to(ROOT)})"))
    if args.record:
        shutil.copyfile(written, RECORD)
        print(f"record written: {RECORD.relative_to(ROOT)}")
    print("MATCH: the command proposes the shipped economy" if not differ else
          f"MISMATCH: {len(differ)} values differ")
    return 0 if not differ else 1


if __name__ == "__main__":
    raise SystemExit(main())
