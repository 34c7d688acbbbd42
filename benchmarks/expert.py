"""The `expert` bars: its win rate against expert-placements (the searcher of placements
only, the expert before it searched every decision), its speed and a worker's memory;
optionally, which search settings or rollout strategy are strongest.

    python benchmarks/expert.py                         # 200 + 200 games, fresh seed
    python benchmarks/expert.py --games 50 --jobs 1     # a quick look
    python benchmarks/expert.py --opponent montecarlo-tuned
    python benchmarks/expert.py --variants "w3:prior=0.3 c2:exploration=2.0" --games 50
    python benchmarks/expert.py --variants "uct:prior=0.0 b200:iterations=200,action_iterations=40"
    python benchmarks/expert.py --rollout-bases random,greedy,balanced,tuned --games 50

The matchup is played as benchmarks/strength.py plays one: X in seat 0 for `--games`
games, then in seat 1 on the same deals, each order in seat-swapped pairs; X's win rate
counts draws as half and its 95% interval treats the deal (four games) as the unit
(targi_sim.stats.rates.clustered_rate).

Speed: games per second of one core = games / the CPU time the workers spent playing
them (time.process_time around each chunk, so another job on the machine does not
count; compile excluded: the engine is loaded before); both seats' searches count.
Memory: the largest peak RSS any worker reported (resource.getrusage in the worker).

`--variants "NAME:KEY=VALUE,KEY=VALUE NAME2:..."` plays, for each variant, a copy of
data/strategies/expert.toml with those keys changed (iterations, action_iterations,
prior, exploration, depth, decisions) against `--opponent`: the settings' alternatives,
measured on the same deals. `--rollout-bases A,B,...` plays the expert with that rollout
strategy (its own other decisions keep tuned's weights); `BASE@N` gives that variant N
iterations per placement.

Bars (the full expert against expert-placements): win rate >= 60% over >= 400 games,
>= 1 game/s of a core, worker peak RSS <= 500 MB.
Numbers depend on the machine and its load (printed); nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import git_label, peak_rss_mb  # noqa: E402 - script dir on sys.path
from strength import Matchup, matchup_stats, play_chunk

ROOT = Path(__file__).resolve().parent.parent
CHUNK = 10  # games per task: a few seconds each, so progress shows and both cores stay busy
BAR_RATE = 0.60
BAR_SPEED = 1.0
BAR_RSS_MB = 500.0


def _task(i: int, subject: str, opponent: str, orient: int, seed: int, start: int,
          n: int) -> tuple:
    cpu = time.process_time()
    result, scores, _wall = play_chunk(subject, opponent, orient, seed, start, n, False)
    return i, orient, start, result, scores, time.process_time() - cpu, peak_rss_mb()


def _variant(base: str, folder: Path) -> str:
    """A copy of data/strategies/expert.toml whose rollouts play `base`; its own other
    decisions keep tuned's weights (copied), so only the rollout policy differs."""
    text = (ROOT / "data" / "strategies" / "expert.toml").read_text()
    lines = [f'base = "{base}"' if ln.startswith("base =") else
             (f'name = "expert-{base}"' if ln.startswith("name =") else ln)
             for ln in text.splitlines()]
    tuned = (ROOT / "data" / "strategies" / "tuned.toml").read_text()
    tables = tuned[tuned.index("\n[") + 1:]  # its [weights] and [symbols]
    path = folder / f"expert-{base}.toml"
    path.write_text("\n".join(lines) + "\n" + tables)
    return str(path)


def _with_settings(name: str, settings: str, folder: Path) -> str:
    """A copy of data/strategies/expert.toml named expert-NAME with KEY=VALUE changed."""
    changes = dict(kv.split("=", 1) for kv in settings.split(",") if kv)
    lines = (ROOT / "data" / "strategies" / "expert.toml").read_text().splitlines()
    out = []
    for ln in lines:
        key = ln.split("=", 1)[0].strip()
        if key == "name":
            out.append(f'name = "expert-{name}"')
        elif key in changes:
            value = changes.pop(key)
            out.append(f"{key} = {value}")
        else:
            out.append(ln)
    out += [f"{k} = {v}" for k, v in changes.items()]
    path = folder / f"expert-{name}.toml"
    path.write_text("\n".join(out) + "\n")
    return str(path)


def play(matchups: list[Matchup], seed: int, jobs: int, t_start: float) -> dict[int, float]:
    """Play every matchup's chunks; returns each matchup's largest worker peak RSS (MB)."""
    from joblib import Parallel, delayed

    tasks = [(i, m.subject, m.opponent, o, seed, s, min(CHUNK, m.per_seat - s))
             for i, m in enumerate(matchups) for o in (0, 1)
             for s in range(0, m.per_seat, CHUNK)]
    rss: dict[int, float] = {}
    par = Parallel(n_jobs=jobs, return_as="generator_unordered")
    for i, o, start, result, scores, secs, peak in par(delayed(_task)(*t) for t in tasks):
        m = matchups[i]
        m.results[o][start] = result
        m.scores[o][start] = scores
        m.core_s += secs
        m.done += len(result)
        rss[i] = max(rss.get(i, 0.0), peak)
        so_far = float(np.concatenate([r for d in m.results.values() for r in d.values()]).mean())
        elapsed = time.perf_counter() - t_start
        done = sum(x.done for x in matchups)
        left = sum(x.total for x in matchups) - done
        print(f"  [{elapsed:7.1f} s, ETA {elapsed / done * left:6.0f} s] {m.subject} vs "
              f"{m.opponent}: {m.done}/{m.total} games, so far {100 * so_far:.1f}%, "
              f"{m.done / m.core_s:.2f} games/s of a core", flush=True)
    return rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per seat order (even)")
    parser.add_argument("--seed", type=int, default=20261204, help="run seed")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--subject", default="expert", help="the player measured")
    parser.add_argument("--opponent", default="expert-placements")
    parser.add_argument("--variants", default="",
                        help="compare copies of the expert with these settings instead")
    parser.add_argument("--rollout-bases", default="",
                        help="compare the expert with these rollout strategies instead")
    args = parser.parse_args()
    if args.games < 2 or args.games % 2:
        parser.error("--games must be even and at least 2 (seat-swapped pairs)")
    t_start = time.perf_counter()
    print(f"command: {os.path.relpath(sys.executable)} {shlex.join(sys.argv)}")
    print(f"{git_label()}; {args.jobs} process(es); load average "
          f"{os.getloadavg()[0]:.2f} at start; seed {args.seed}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        bases = [b for b in args.rollout_bases.split(",") if b]
        subjects = [_variant(b.partition("@")[0], Path(tmp)) + (f"@{b.partition('@')[2]}"
                    if "@" in b else "") for b in bases]
        subjects += [_with_settings(*v.split(":", 1), Path(tmp))
                     for v in args.variants.split() if v]
        bases += args.variants.split()
        subjects = subjects or [args.subject]
        matchups = [Matchup("", s, args.opponent, BAR_RATE, args.games) for s in subjects]
        t0 = time.perf_counter()
        for s in subjects:  # compile (or load) before the clock of any chunk starts
            play_chunk(s, args.opponent, 0, args.seed, 0, 2, False)
        print(f"engine ready in {time.perf_counter() - t0:.1f} s", flush=True)
        rss = play(matchups, args.seed, args.jobs, t_start)
    print()
    print("| player | vs | games | W-D-L | win rate (95% CI, deals) | games/s of a core "
          "| worker peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for i, m in enumerate(matchups):
        s = matchup_stats(m)
        lo, hi = s["ci"]
        name = Path(m.subject).name.replace(".toml", "") if "/" in m.subject else m.subject
        print(f"| {name} | {m.opponent} | {s['n']} | {s['w']}-{s['d']}-{s['l']} | "
              f"{100 * s['rate']:.1f}% ({100 * lo:.1f}-{100 * hi:.1f}) | "
              f"{m.done / m.core_s:.2f} | {rss[i]:.0f} MB |")
    if not bases:
        s = matchup_stats(matchups[0])
        speed = matchups[0].done / matchups[0].core_s
        print(f"bars: win rate >= 60%: {'met' if s['rate'] >= BAR_RATE else 'NOT met'} "
              f"(interval {'above' if s['ci'][0] >= BAR_RATE else 'not wholly above'}); "
              f">= 1 game/s of a core: {'met' if speed >= BAR_SPEED else 'NOT met'}; "
              f"worker RSS <= 500 MB: {'met' if rss[0] <= BAR_RSS_MB else 'NOT met'}")
    print(f"wall time {time.perf_counter() - t_start:.1f} s; load average "
          f"{os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
