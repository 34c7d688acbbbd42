"""Strategy strength bars: win rates with 95% intervals (the deal as the unit), PASS/FAIL.

    python benchmarks/strength.py                    # 5,000 + 5,000 games per cheap matchup,
                                                     # 1,000 + 1,000 per montecarlo matchup
    python benchmarks/strength.py --games 1000 --mc-games 100 --jobs 1

Every matchup "X vs Y" is played in both seat orders on the same plan of games
(targi_sim.play.games.game_plan with `--seed`): X in seat 0 for `n` games, then X in
seat 1 for the same `n` games. Within each order the games come in
seat-swapped pairs (both games of a pair share a deal and swap who starts
round 1), so every deal is played with X in each seat and each start order.
X's win rate counts draws as half a win; the interval treats the deal (its four
games) as the unit: targi_sim.stats.rates.clustered_rate over the n/2 deals. Base deck,
default rules.

Bars (rate >= bar on the point estimate is PASS; the `CI` column says whether
the whole 95% interval clears the bar):
  (a) balanced vs random               >= 95%
  (b) montecarlo vs balanced           >= 60%  (default budget, data/strategies/montecarlo.toml)
  (c) every named strategy vs random   >= 80%  (list_strategies() minus random)

Games run in chunks, in `--jobs` processes (joblib); the default is 2 when the
machine's 1-minute load average is below 0.5 and there are >= 2 CPUs, else 1
(then pinned to one CPU). Chunking and process count do not change the games.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from common import git_label as _git_label  # noqa: E402 - script dir on sys.path

ROOT = Path(__file__).resolve().parent.parent
CHUNK = 2_500      # games per task, cheap strategies
MC_CHUNK = 50      # games per task when a montecarlo seat plays


@dataclass
class Matchup:
    label: str
    subject: str
    opponent: str
    bar: float
    per_seat: int
    # filled as chunks come back: per orientation, X's result (1 win, .5 draw, 0 loss)
    results: dict[int, dict[int, np.ndarray]] = field(default_factory=lambda: {0: {}, 1: {}})
    scores: dict[int, dict[int, np.ndarray]] = field(default_factory=lambda: {0: {}, 1: {}})
    core_s: float = 0.0
    done: int = 0
    next_report: float = 0.1

    @property
    def total(self) -> int:
        return 2 * self.per_seat

    @property
    def montecarlo(self) -> bool:
        return searches(self.subject, self.opponent)


def searches(*names: str) -> bool:
    """Does one of these strategies search (kind montecarlo: flat or ISMCTS)?"""
    from targi_sim.players.strategy import resolve_strategy

    return any(resolve_strategy(n).kind_name == "montecarlo" for n in names)


def play_chunk(subject: str, opponent: str, orient: int, seed: int, start: int, n: int,
               pin: bool) -> tuple[np.ndarray, np.ndarray, float]:
    """Games start..start+n-1 with `subject` in seat `orient`.

    Returns (subject's result per game, scores [subject, opponent] per game, seconds).
    """
    if pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    from targi_sim.engine.logs import G_SCORE0, G_SCORE1, G_WINNER
    from targi_sim.play.games import run_batch
    from targi_sim.play.match import prepare_match
    from targi_sim.play.pairing import game_plan

    t0 = time.perf_counter()
    seats = (subject, opponent) if orient == 0 else (opponent, subject)
    match = prepare_match(seats)
    seeds, first, ids = game_plan(n, seed, start=start)
    G, _ = run_batch(match, seeds, first, ids, logs=False)
    w = G[:, G_WINNER]
    result = np.where(w == orient, 1.0, np.where(w == -1, 0.5, 0.0))
    s = G[:, [G_SCORE0, G_SCORE1]]
    scores = s if orient == 0 else s[:, ::-1]
    return result, scores.astype(np.int64), time.perf_counter() - t0


def _tasks(i: int, m: Matchup, seed: int):
    size = MC_CHUNK if m.montecarlo else CHUNK
    for orient in (0, 1):
        for start in range(0, m.per_seat, size):
            yield i, m.subject, m.opponent, orient, seed, start, min(size, m.per_seat - start)


def _task(i: int, subject: str, opponent: str, orient: int, seed: int, start: int, n: int,
          pin: bool) -> tuple:
    return i, orient, start, play_chunk(subject, opponent, orient, seed, start, n, pin)


def matchup_stats(m: Matchup) -> dict:
    """X's record, win rate (draws half) and its interval over deals (four games each)."""
    from targi_sim.stats.rates import clustered_rate

    per = [np.concatenate([m.results[o][k] for k in sorted(m.results[o])]) for o in (0, 1)]
    sc = np.concatenate([m.scores[o][k] for o in (0, 1) for k in sorted(m.scores[o])])
    allr = np.concatenate(per)
    wins = float(allr.sum())
    n = len(allr)
    deal = np.arange(len(per[0])) // 2  # game g of either seat order is on deal g // 2
    deal_points = np.bincount(deal, weights=per[0]) + np.bincount(deal, weights=per[1])
    deal_games = 2.0 * np.bincount(deal)
    return {
        "n": n,
        "w": int((allr == 1).sum()), "d": int((allr == 0.5).sum()), "l": int((allr == 0).sum()),
        "rate": wins / n, "ci": clustered_rate(deal_points, deal_games).interval,
        "seat": [float(p.mean()) for p in per],
        "score": (float(sc[:, 0].mean()), float(sc[:, 1].mean())),
    }




def _auto_jobs() -> tuple[int, str]:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    if (cpus or 1) >= 2 and load < 0.5:
        return 2, f"auto: load average {load:.2f}, {cpus} CPUs"
    return 1, f"auto: load average {load:.2f}, {cpus} CPUs"


def _print_table(rows: list[tuple[str, ...]], header: tuple[str, ...], right: set[int]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = "+-" + "-+-".join("-" * w for w in widths) + "-+"
    print(line)
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print(line)
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        print("| " + " | ".join(cells) + " |")
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5_000,
                        help="games per seat order for matchups without montecarlo")
    parser.add_argument("--mc-games", type=int, default=1_000,
                        help="games per seat order for matchups with montecarlo")
    parser.add_argument("--seed", type=int, default=7, help="run seed of every matchup")
    parser.add_argument("--jobs", type=int, default=0,
                        help="processes (default: 2 if the machine looks idle, else 1)")
    args = parser.parse_args()
    if args.games < 1 or args.mc_games < 1:
        parser.error("--games and --mc-games must be at least 1")
    if args.games % 2 or args.mc_games % 2:
        parser.error("--games and --mc-games must be even (games come in seat-swapped pairs)")

    t_start = time.perf_counter()
    jobs, why = (args.jobs, "--jobs") if args.jobs > 0 else _auto_jobs()

    import numba
    from joblib import Parallel, delayed

    import targi_sim
    from targi_sim.engine import source_digest
    from targi_sim.players.strategy import list_strategies

    digest = source_digest()
    exe = os.path.relpath(sys.executable) if sys.executable.startswith(str(ROOT)) \
        else sys.executable
    print(f"command: {exe} {shlex.join(sys.argv)}")
    print(f"targi-sim {targi_sim.__version__} strength bars: deck base, rules default, "
          f"seed {args.seed}, numba {numba.__version__}")
    print(f"{_git_label()}, engine source digest {digest}")
    print(f"{jobs} process(es) ({why}); chunks of {CHUNK:,} games, {MC_CHUNK} with montecarlo",
          flush=True)

    def per_seat(*names: str) -> int:
        return args.mc_games if searches(*names) else args.games

    matchups = [Matchup("(a)", "balanced", "random", 0.95, per_seat("balanced"))]
    named = [s for s in list_strategies() if s != "random"]
    for s in named:
        if s != "balanced":
            matchups.append(Matchup("(c)", s, "random", 0.80, per_seat(s)))
    matchups.append(Matchup("(b)", "montecarlo", "balanced", 0.60, per_seat("montecarlo")))
    # cheap matchups first so their results arrive early; montecarlo vs random last
    matchups.sort(key=lambda m: (m.montecarlo, m.label == "(c)"))

    # compile (or load from the cache) once before any worker starts
    t0 = time.perf_counter()
    play_chunk("balanced", "random", 0, args.seed, 0, 2, pin=jobs == 1)
    play_chunk("montecarlo", "balanced", 0, args.seed, 0, 2, pin=jobs == 1)
    print(f"engine ready in {time.perf_counter() - t0:.1f} s", flush=True)

    tasks = [t for i, m in enumerate(matchups) for t in _tasks(i, m, args.seed)]
    total_games = sum(m.total for m in matchups)
    print(f"{len(matchups)} matchups, {total_games:,} games, {len(tasks)} tasks", flush=True)
    if jobs == 1:
        raw = (_task(*t, pin=True) for t in tasks)
    else:
        par = Parallel(n_jobs=jobs, return_as="generator_unordered")
        raw = par(delayed(_task)(*t, pin=False) for t in tasks)
    gen = ((matchups[i], o, start, out) for i, o, start, out in raw)

    for m, o, start, (result, scores, secs) in gen:
        m.results[o][start] = result
        m.scores[o][start] = scores
        m.core_s += secs
        m.done += len(result)
        frac = m.done / m.total
        if frac >= m.next_report or m.done == m.total:
            while m.next_report <= frac:
                m.next_report += 0.1
            elapsed = time.perf_counter() - t_start
            partial = float(np.concatenate(
                [r for o2 in (0, 1) for r in m.results[o2].values()]).mean())
            print(f"  [{elapsed:7.1f} s] {m.label} {m.subject} vs {m.opponent}: "
                  f"{m.done:,}/{m.total:,} games, so far {100 * partial:.1f}%, "
                  f"{m.done / m.core_s:,.1f} games/s per process", flush=True)

    rows = []
    order = sorted(matchups, key=lambda m: (m.label, m.subject))
    for m in order:
        s = matchup_stats(m)
        lo, hi = s["ci"]
        ok = s["rate"] >= m.bar
        ci_note = "above bar" if lo >= m.bar else ("below bar" if hi < m.bar else "straddles")
        rows.append((
            m.label, f"{m.subject} vs {m.opponent}", f"{s['n']:,}",
            f"{s['w']}-{s['d']}-{s['l']}", f"{100 * s['rate']:.1f}%",
            f"{100 * lo:.1f}-{100 * hi:.1f}%",
            f"{100 * s['seat'][0]:.1f}% / {100 * s['seat'][1]:.1f}%",
            f"{s['score'][0]:.1f} - {s['score'][1]:.1f}",
            f"{100 * m.bar:.0f}%", f"{100 * (s['rate'] - m.bar):+.1f} pp", ci_note,
            "PASS" if ok else "FAIL", f"{m.core_s:,.1f} s",
        ))
    print()
    print("X's win rate vs Y, draws as half; both seat orders on the same deals")
    header = ("part", "matchup (X vs Y)", "games", "W-D-L", "win rate", "95% CI",
              "X in seat 0 / 1", "mean score X - Y", "bar", "margin", "CI", "result",
              "core time")
    _print_table(rows, header, right={2, 3, 4, 5, 6, 7, 8, 9, 12})
    n_fail = sum(r[11] == "FAIL" for r in rows)
    print(f"{len(rows) - n_fail} PASS, {n_fail} FAIL")
    if source_digest() != digest:
        print("WARNING: engine sources changed during the run; processes may have run "
              "different engine versions")
    print(f"wall time {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
