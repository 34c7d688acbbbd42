"""Compile (or load) the engine builds most tests share, one group per process.

    python tests/warm_engine.py generic      # random/greedy seats, a Python seat, forks
    python tests/warm_engine.py heuristic    # balanced, Monte Carlo

tests/conftest.py runs the groups side by side before parallel test workers start, so
the workers load the compile cache instead of each compiling the same builds at once.
Each group plays a few games: a build is compiled exactly as a real run compiles it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def warm_generic() -> None:
    import targi_sim
    from targi_sim.cardvalue.forks import play_forks
    from targi_sim.play.match import prepare_match
    from targi_sim.play.pairing import game_plan

    targi_sim.play_games(2, strategies=("random", "random"), logs=True)
    targi_sim.play_games(2, strategies=("greedy", "random"), logs=False)
    targi_sim.play_game(1, ("greedy", "random"))  # the single-game path, with its trace
    oasis = str(ROOT / "data" / "strategies" / "oasis-first.py")
    targi_sim.play_games(2, strategies=(oasis, "random"), logs=False)  # the stepping engine
    # last: by now the other group has cached most of the heuristic build it calls into
    play_forks(prepare_match(("balanced", "balanced"), "base", "default"), *game_plan(2, 0),
               1.0)


def warm_heuristic() -> None:
    import targi_sim

    targi_sim.play_games(2, strategies=("balanced", "balanced"), logs=True)
    targi_sim.play_game(1, ("balanced", "random"))
    targi_sim.play_games(2, strategies=("montecarlo", "balanced"), logs=False)


GROUPS = {"generic": warm_generic, "heuristic": warm_heuristic}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in GROUPS:
        sys.exit(f"usage: python {Path(__file__).name} {'|'.join(GROUPS)}")
    GROUPS[sys.argv[1]]()
