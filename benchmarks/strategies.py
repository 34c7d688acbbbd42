"""Strategy speed: games/s per strategy pairing and the Monte Carlo player's rate.

    python benchmarks/strategies.py                     # 50,000 games x 5 runs per pairing
    python benchmarks/strategies.py --games 20000 --repeats 3 --mc-games 40

balanced vs balanced, tuned vs tuned, greedy vs greedy and random vs random (for
reference) on
the base deck and default rules, logs off, through targi_sim.play.games.run_batch.
Each pairing runs in its own subprocess pinned to one CPU, warms up, then times
`--repeats` runs of `--games` games and reports the median games/s and that
process's peak RSS.

The Monte Carlo player (data/strategies/montecarlo.toml, default budget) is
timed the same way over `--mc-games` games of montecarlo (seat 0) vs balanced
(seat 1), the pairs alternating who starts round 1.
Its placement decisions and rollouts are counted by replaying the same games
through a Python copy of the driver loop (targi_sim.engine.montecarlo.
play_batch_mc) that calls the same compiled pieces and checks it reaches
identical results: a decision is one call of choose_placement (one Targi
placement with at least one legal card), and a rollout is one determinised
game played to the end for one option, so rollouts = sum(options) x budget.
decisions/s and rollouts/s divide those counts by the timed run_batch time.
Numbers depend on the machine and its load; nothing here asserts on them.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

from common import cpu_model as _cpu_model  # noqa: E402 - script dir on sys.path
from common import git_label as _git_label
from common import peak_rss_mb as _peak_rss_mb
from common import pin_one_cpu as _pin_one_cpu
from common import print_table, spawn, speed_label

ROOT = Path(__file__).resolve().parent.parent
PAIRINGS = {
    "balanced": ("balanced", "balanced"),
    "tuned": ("tuned", "tuned"),  # targi-sim tune's result (data/strategies/tuned.toml)
    "greedy": ("greedy", "greedy"),
    "random": ("random", "random"),
    "montecarlo": ("montecarlo", "balanced"),
    "python": ("first-option", "balanced"),  # targi_sim.FirstOption: a trivial Python strategy
}
SEED = 2024






def _counted_mc_games(match, seeds, first, ids) -> tuple:
    """play_batch_mc's loop in Python, counting decisions and options; returns (G, dec, opts)."""
    import numpy as np

    from targi_sim.engine import layout as lay
    from targi_sim.engine.batch import write_result
    from targi_sim.engine.buffers import make_logs
    from targi_sim.engine.constants import MC_PENDING
    from targi_sim.engine.logs import G_SIZE
    from targi_sim.engine.montecarlo import choose_placement, search_scratch
    from targi_sim.engine.rounds import legal_placements, placing_player, play_to_end, setup_game

    D, R, SP, P, PB = match.D, match.R, match.SP, match.P, match.PB
    n = len(seeds)
    G = np.zeros((n, G_SIZE), dtype=np.int64)
    L = make_logs(0)
    S = np.zeros(lay.S_SIZE, dtype=np.int64)
    SPw = SP.copy()
    O = np.zeros(256, dtype=np.int64)
    scratch = search_scratch(SP, lay.S_SIZE)
    decisions = options = 0
    for i in range(n):
        setup_game(S, D, R, seeds[i], first[i])
        S[lay.S_PAUSE_MC] = 1
        SPw[:, :] = SP
        SPw[:, MC_PENDING] = np.nan
        while not play_to_end(S, D, R, SPw, L, P, O):
            p = placing_player(S)
            options += legal_placements(S, D, R, p, O)
            decisions += 1
            SPw[p, MC_PENDING] = choose_placement(S, D, R, SPw, PB, p, O, *scratch)
        write_result(S, D, R, G, i, ids[i])
    return G, decisions, options


def worker_speed(pairing: str, games: int, repeats: int) -> dict:
    """Runs in a subprocess: warm up, then time `repeats` batches of `games` games."""
    pinned = _pin_one_cpu()
    import numpy as np

    from targi_sim.engine import source_digest
    from targi_sim.engine.constants import MC_ROLLOUTS
    from targi_sim.play.games import run_batch
    from targi_sim.play.match import prepare_match
    from targi_sim.play.pairing import game_plan

    seats = PAIRINGS[pairing]
    if pairing == "python":
        from targi_sim import FirstOption

        seats = (FirstOption(), seats[1])
    match = prepare_match(seats)
    seeds, first, ids = game_plan(games, seed=SEED)
    t0 = time.perf_counter()
    warm = min(games, 2 if pairing in ("montecarlo", "python") else 200)
    run_batch(match, seeds[:warm], first[:warm], ids[:warm], logs=False)
    warm_s = time.perf_counter() - t0
    times = []
    G = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        G, _ = run_batch(match, seeds, first, ids, logs=False)
        times.append(time.perf_counter() - t0)
    out = {"times": times, "rss_mb": _peak_rss_mb(), "pinned": pinned, "warm_s": warm_s,
           "digest": source_digest()}
    if pairing == "montecarlo":
        t0 = time.perf_counter()
        Gc, decisions, options = _counted_mc_games(match, seeds, first, ids)
        out.update(decisions=decisions, options=options,
                   budget=int(match.SP[0, MC_ROLLOUTS]),
                   counted_s=time.perf_counter() - t0,
                   identical=bool(np.array_equal(G, Gc)),
                   rss_mb=_peak_rss_mb())
    return out








def _spawn(args: list[str], env: dict[str, str] | None = None) -> dict:
    return spawn(__file__, args, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50_000,
                        help="games per timed run (balanced, greedy, random pairings)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per pairing")
    parser.add_argument("--mc-games", type=int, default=40,
                        help="games per timed run of montecarlo vs balanced")
    parser.add_argument("--py-games", type=int, default=1000,
                        help="games per timed run of a Python strategy vs balanced")
    parser.add_argument("--worker", choices=tuple(PAIRINGS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.games < 1 or args.repeats < 1 or args.mc_games < 1:
        parser.error("--games, --repeats and --mc-games must be at least 1")

    def games_of(pairing: str) -> int:
        return {"montecarlo": args.mc_games, "python": args.py_games}.get(pairing, args.games)

    if args.worker:
        games = games_of(args.worker)
        print(json.dumps(worker_speed(args.worker, games, args.repeats)))
        return

    import numba

    import targi_sim
    from targi_sim.engine import source_digest

    t_start = time.perf_counter()
    digest = source_digest()
    print(f"targi-sim {targi_sim.__version__} strategy benchmark: deck base, rules default, "
          f"logs off, seed {SEED}", flush=True)
    print(f"python {platform.python_version()}, numba {numba.__version__}, {_cpu_model()}",
          flush=True)
    print(f"{_git_label()}, engine source digest {digest}", flush=True)
    print(f"before: {speed_label()}", flush=True)

    res = {}
    for pairing, seats in PAIRINGS.items():
        games = games_of(pairing)
        print(f"measuring {seats[0]} vs {seats[1]}: {args.repeats} x {games:,} games ...",
              flush=True)
        res[pairing] = _spawn(["--worker", pairing, "--games", str(args.games),
                               "--repeats", str(args.repeats), "--mc-games", str(args.mc_games),
                               "--py-games", str(args.py_games)])

    rows = []
    for pairing in ("balanced", "tuned", "greedy", "random"):
        rates = [args.games / t for t in res[pairing]["times"]]
        a, b = PAIRINGS[pairing]
        rows.append((f"games/s, {a} vs {b} (median)", f"{statistics.median(rates):,.0f}",
                     f"min {min(rates):,.0f}, max {max(rates):,.0f}"))
    py = [args.py_games / t for t in res["python"]["times"]]
    rows.append(("games/s, Python first-option vs balanced (median)",
                 f"{statistics.median(py):,.0f}", f"min {min(py):,.0f}, max {max(py):,.0f}"))
    mc = res["montecarlo"]
    n = args.mc_games
    med_t = statistics.median(mc["times"])
    rollouts = mc["options"] * mc["budget"]
    rates = [n / t for t in mc["times"]]
    rows.append(("games/s, montecarlo vs balanced (median)", f"{n / med_t:,.2f}",
                 f"min {min(rates):,.2f}, max {max(rates):,.2f}"))
    rows.append(("MC decisions/s (median run)", f"{mc['decisions'] / med_t:,.0f}",
                 f"{mc['decisions']:,} placements by rollouts in {n} games "
                 f"({mc['decisions'] / n:.1f}/game)"))
    rows.append(("MC rollouts/s (median run)", f"{rollouts / med_t:,.0f}",
                 f"{rollouts:,} rollouts = {mc['options']:,} options x {mc['budget']} "
                 f"({mc['options'] / mc['decisions']:.2f} options/decision)"))
    rows.append(("MC time per decision (median run)", f"{1e3 * med_t / mc['decisions']:.2f} ms",
                 f"counting replay {'identical to' if mc['identical'] else 'DIFFERS from'} "
                 f"run_batch, {mc['counted_s']:.2f} s"))
    for pairing, seats in PAIRINGS.items():
        games = games_of(pairing)
        warm = res[pairing]["warm_s"]
        how = "compiled in this process" if warm > 5 else "engine loaded from cache"
        rows.append((f"peak RSS, {seats[0]} vs {seats[1]}", f"{res[pairing]['rss_mb']:,.0f} MB",
                     f"whole worker, {games:,} games per batch; warm-up {warm:.1f} s ({how})"))

    print()
    print(f"{args.repeats} timed runs per pairing after a warm-up, one core "
          f"({res['balanced']['pinned']}); montecarlo budget {mc['budget']} rollouts/option")
    print_table(rows)
    if source_digest() != digest or any(r["digest"] != digest for r in res.values()):
        print("WARNING: engine sources changed during the run; workers may have run "
              "different engine versions")
    print(f"after: {speed_label()}")
    print(f"wall time {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
