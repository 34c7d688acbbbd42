"""The bar of issue 48: `expert` against OpenSpiel's ISMCTS bot (`openspiel-ismcts@N`,
random rollouts as OpenSpiel ships it) given at least the expert's wall time per
decision.

1. Calibration, in the same run: `--calibration-games` games of the expert against
   `openspiel-ismcts@4` measure the expert's wall time per decision and the bot's time
   per simulation; the bot's budget is then N = ceil(factor x expert time per decision /
   bot time per simulation x 1.25), at least 2 (`--budget N` sets it instead).
2. The match: `--games` games, four per deal (the expert in each seat, each seat
   starting round 1; deal k has the engine seed (seed << 32) | k), the expert against
   `openspiel-ismcts@N`, both through the Python-seat path `targi-sim run` takes.
   Every decision is timed: the bot's directly (its `choose`), the expert's as the
   game's wall time minus the bot's, over the expert's decisions with a choice (the
   trace's rows with more than one option).
3. The expert's win rate (draws half) with its 95% interval over deals (the unit;
   targi_sim.stats.rates.clustered_rate), both seats' mean time per decision, and the
   bar: rate >= 90% with the bot's mean time per decision >= the expert's.

    python benchmarks/openspiel_bots.py                      # 100 games, calibrated budget
    python benchmarks/openspiel_bots.py --factor 10          # the bot gets 10x the time
    python benchmarks/openspiel_bots.py --games 8 --budget 4 # a quick look

Rerun it after the expert's settings change: the calibration follows the expert.
Numbers depend on the machine and its load (printed); nothing here asserts.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass

import numpy as np
from common import cpu_model, git_label, reference_loop_seconds, time_choices  # noqa: E402

BAR_RATE = 0.90


@dataclass
class Played:
    deal: int
    expert_seat: int
    points: float  # the expert's: 1 win, 0.5 draw, 0 loss
    scores: tuple[int, int]
    expert_seconds: float
    expert_decisions: int
    bot_seconds: float
    bot_decisions: int


def play(seed: int, deal: int, expert_seat: int, first: int, expert: str, bot: str) -> Played:
    import polars as pl

    from targi_sim import play_game
    from targi_sim.play.pairing import pair_seed
    from targi_sim.players.strategy import resolve_strategy

    strategy = resolve_strategy(bot)
    times = time_choices(strategy.python.strategy)
    pair = (expert, strategy) if expert_seat == 0 else (strategy, expert)
    t0 = time.perf_counter()
    record = play_game(pair_seed(seed, deal), pair, first_player=first)
    wall = time.perf_counter() - t0
    trace = record.tables["trace"]
    asked = trace.filter((pl.col("player") == expert_seat) & (pl.col("n_options") > 1)).height
    points = 0.5 if record.winner < 0 else float(record.winner == expert_seat)
    return Played(deal, expert_seat, points, tuple(record.scores), wall - sum(times), asked,
                  sum(times), len(times))


def _per_decision(games: list[Played]) -> tuple[float, float]:
    """(expert, bot) mean seconds per decision over all the games' decisions."""
    e = sum(g.expert_seconds for g in games) / max(1, sum(g.expert_decisions for g in games))
    b = sum(g.bot_seconds for g in games) / max(1, sum(g.bot_decisions for g in games))
    return e, b


def _plan(deals: int) -> list[tuple[int, int, int]]:
    return [(k, seat, first) for k in range(deals) for seat in (0, 1) for first in (0, 1)]


def _play_all(plan, seed: int, expert: str, bot: str, jobs: int, label: str) -> list[Played]:
    from joblib import Parallel, delayed

    out: list[Played] = []
    t0 = time.perf_counter()
    tasks = (delayed(play)(seed, k, seat, first, expert, bot) for k, seat, first in plan)
    for g in Parallel(n_jobs=jobs, return_as="generator")(tasks):
        out.append(g)
        e, b = _per_decision(out)
        elapsed = time.perf_counter() - t0
        eta = elapsed / len(out) * (len(plan) - len(out))
        print(f"  {label}: {len(out)}/{len(plan)} games, {elapsed:,.0f} s, ETA {eta:,.0f} s; "
              f"per decision: expert {1000 * e:.1f} ms, bot {1000 * b:.1f} ms",
              file=sys.stderr, flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=100, help="games of the match (4 a deal)")
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--expert", default="expert")
    ap.add_argument("--factor", type=float, default=1.0,
                    help="the bot's time per decision as a multiple of the expert's")
    ap.add_argument("--budget", type=int, default=0, help="simulations per decision "
                    "(default 0: calibrated from the expert's time)")
    ap.add_argument("--calibration-games", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    print(f"benchmarks/openspiel_bots.py: {cpu_model()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}, reference loop {reference_loop_seconds():.2f} s, "
          f"{git_label()}, jobs {args.jobs}")
    play(args.seed + 1, 0, 0, 0, args.expert, "openspiel-ismcts@2")  # compile before timing
    budget = args.budget
    if budget <= 0:
        cal = _play_all(_plan(math.ceil(args.calibration_games / 4)), args.seed + 1,
                        args.expert, "openspiel-ismcts@4", args.jobs, "calibration")
        e, b = _per_decision(cal)
        budget = max(2, math.ceil(args.factor * e / (b / 4) * 1.25))
        print(f"calibration: expert {1000 * e:.1f} ms a decision, the bot {1000 * b / 4:.2f} ms "
              f"a simulation -> budget {budget} simulations a decision")
    bot = f"openspiel-ismcts@{budget}"
    t0 = time.perf_counter()
    games = _play_all(_plan(math.ceil(args.games / 4)), args.seed, args.expert, bot, args.jobs,
                      "match")
    _report(games, args, bot, time.perf_counter() - t0)


def _report(games: list[Played], args, bot: str, seconds: float) -> None:
    from targi_sim.stats.rates import clustered_rate

    deals = sorted({g.deal for g in games})
    points = [sum(g.points for g in games if g.deal == k) for k in deals]
    n = [sum(1 for g in games if g.deal == k) for k in deals]
    r = clustered_rate(points, n)
    w = sum(g.points == 1 for g in games)
    d = sum(g.points == 0.5 for g in games)
    e, b = _per_decision(games)
    med_e = statistics.median(g.expert_seconds / max(1, g.expert_decisions) for g in games)
    med_b = statistics.median(g.bot_seconds / max(1, g.bot_decisions) for g in games)
    met = r.rate >= BAR_RATE and b >= e
    print(f"\n{args.expert} vs {bot}: {len(games)} games on {len(deals)} deals in {seconds:,.0f} s")
    print(f"  W-D-L {w}-{d}-{len(games) - w - d}; win rate {100 * r.rate:.1f}% "
          f"(95% CI {100 * r.lo:.1f}-{100 * r.hi:.1f}, deals as the unit)")
    print(f"  per decision, mean over all decisions (median of games): expert "
          f"{1000 * e:.1f} ms ({1000 * med_e:.1f}), {bot} {1000 * b:.1f} ms ({1000 * med_b:.1f}); "
          f"bot / expert {b / e:.2f}")
    print(f"  mean decisions a game: expert {np.mean([g.expert_decisions for g in games]):.0f}, "
          f"bot {np.mean([g.bot_decisions for g in games]):.0f}")
    print(f"  bar: win rate >= {100 * BAR_RATE:.0f}% with the bot's time per decision >= the "
          f"expert's: {'met' if met else 'NOT met'}")
    print(f"load average after: {os.getloadavg()[0]:.1f}, reference loop "
          f"{reference_loop_seconds():.2f} s")


if __name__ == "__main__":
    main()
