"""Decisions per second through each game-AI interface (docs/ai.md, docs/benchmarks.md).

Plays whole games with uniformly random answers (a seeded generator) through:

* `session`: targi_sim.new_game, both seats decided from Python (Game.apply): the floor
  every interface stands on;
* `openspiel`: the OpenSpiel game `python_targi` (state.apply_action on legal_actions);
  `openspiel+obs` also reads the player's information-state string and tensor at every
  decision, as a learning agent or ISMCTS would;
* `pettingzoo`: the AEC environment (env.last() with its observation and action mask,
  then env.step);

and times OpenSpiel's own bots as targi-sim strategies (`openspiel-mcts@N`,
`openspiel-ismcts@N` against `random`): milliseconds per decision and per simulation.
Each figure is the median of `--repeats` timings (games played one after the other in
this process, compile excluded: the engine is loaded first).

    python benchmarks/ai.py                       # 50 games per interface, 3 repeats
    python benchmarks/ai.py --games 20 --bot-games 1 --bot-budget 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
from common import cpu_model, git_label, reference_loop_seconds, time_choices  # noqa: E402

import targi_sim
from targi_sim import play_game


def _session(games: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    n = 0
    for k in range(games):
        g = targi_sim.new_game(seed * 1000 + k, first_player=k % 2)
        while not g.is_over:
            g.apply(int(rng.integers(len(g.decision.values))))
            n += 1
    return n


def _openspiel(games: int, seed: int, observe: bool = False) -> int:
    import pyspiel

    import targi_sim.openspiel  # noqa: F401

    game = pyspiel.load_game("python_targi", {"run_seed": seed})
    rng = np.random.default_rng(seed)
    n = 0
    for k in range(games):
        state = game.new_initial_state()
        state.apply_action(k)
        while not state.is_terminal():
            if observe:
                p = state.current_player()
                state.information_state_string(p)
                state.information_state_tensor(p)
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.integers(len(actions)))])
            n += 1
    return n


def _pettingzoo(games: int, seed: int) -> int:
    import targi_sim.pettingzoo as tpz

    env = tpz.env(run_seed=seed)
    rng = np.random.default_rng(seed)
    n = 0
    for k in range(games):
        env.reset(options={"deal": k})
        for _agent in env.agent_iter():
            obs, _reward, over, _truncated, _info = env.last()
            if over:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.integers(len(legal)))]))
            n += 1
    return n


def _timed(fn, repeats: int, *args) -> tuple[float, int]:
    """(median decisions per second, decisions per timing)."""
    rates, n = [], 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        n = fn(*args)
        rates.append(n / (time.perf_counter() - t0))
    return statistics.median(rates), n


def _bot(spec: str, games: int, seed: int) -> tuple[float, int]:
    """(median ms per decision of the bot's seat, its decisions)."""
    from targi_sim.players.strategy import resolve_strategy

    strategy = resolve_strategy(spec)
    times = time_choices(strategy.python.strategy)
    for k in range(games):
        play_game(seed * 1000 + k, (strategy, "random"), first_player=k % 2)
    return 1000 * statistics.median(times), len(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=50, help="games per timing (default 50)")
    ap.add_argument("--repeats", type=int, default=3, help="timings per interface (median)")
    ap.add_argument("--bot-games", type=int, default=2, help="games per bot (default 2)")
    ap.add_argument("--bot-budget", type=int, default=10,
                    help="simulations per decision of the bots (default 10)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"benchmarks/ai.py: {cpu_model()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}, reference loop {reference_loop_seconds():.2f} s, "
          f"{git_label()}, python {sys.version.split()[0]}")
    _session(1, args.seed)  # compile / load the engine before timing
    _openspiel(1, args.seed)
    print(f"{'interface':<16}{'decisions/s':>14}{'us/decision':>14}{'decisions':>12}")
    for name, fn, extra in (("session", _session, ()), ("openspiel", _openspiel, ()),
                            ("openspiel+obs", _openspiel, (True,)),
                            ("pettingzoo", _pettingzoo, ())):
        rate, n = _timed(fn, args.repeats, args.games, args.seed, *extra)
        print(f"{name:<16}{rate:>14,.0f}{1e6 / rate:>14,.0f}{n:>12,}")
    b = args.bot_budget
    print(f"\nbots against random, {args.bot_games} game(s) each, {b} simulations a decision:")
    print(f"{'strategy':<24}{'ms/decision':>14}{'ms/simulation':>16}{'decisions':>12}")
    for spec in (f"openspiel-mcts@{b}", f"openspiel-ismcts@{b}"):
        ms, n = _bot(spec, args.bot_games, args.seed)
        print(f"{spec:<24}{ms:>14,.1f}{ms / b:>16,.2f}{n:>12,}")
    print(f"load average after: {os.getloadavg()[0]:.1f}, reference loop "
          f"{reference_loop_seconds():.2f} s")


if __name__ == "__main__":
    main()
