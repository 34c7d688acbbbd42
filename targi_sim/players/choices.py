"""Every answer a compiled seat gives is checked: an option it was not offered is an error.

Why: the engine cannot raise from compiled code, so it counts such answers per game
and seat (records.G_BAD: the count and the first decision's type) and plays on with
option 0. Left there, a plug-in with an off-by-one bug would play a whole run at a 0%
win rate with exit code 0. `check_answers` turns the counts into one StrategyError
line naming the strategy, the decision type and the game to replay.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from targi_sim._utils.paths import data_dir
from targi_sim.engine.constants import DECISION_NAMES
from targi_sim.engine.logs import G_BAD, G_FIRST, G_GAME
from targi_sim.errors import StrategyError


def replay_command(match, seed: int, first: int) -> str:
    """The `targi-sim replay` command that shows one game of this match."""
    p0, p1 = (spec or name for spec, name in zip(match.specs, match.strategies, strict=True))
    cmd = f"targi-sim replay --seed {seed} --first {first} --p0 {p0} --p1 {p1}"
    for flag, folder, default, obj in (("--deck", "decks", "base", match.deck),
                                       ("--rules", "rules", "default", match.rules)):
        arg = _file_argument(folder, obj.name, obj.path)
        if arg != default:
            cmd += f" {flag} {arg}"
    return cmd


def _file_argument(folder: str, name: str, path) -> str:
    """A shipped deck or rules file by name, anything else by path."""
    if path is None or Path(path).resolve() == (data_dir() / folder / f"{name}.toml").resolve():
        return name
    return str(path)


def check_answers(match, G: np.ndarray, seeds: np.ndarray) -> None:
    """StrategyError if a seat answered a decision of these games (rows of G, with their
    seeds) with an option it was not offered."""
    for p in range(2):
        counts = G[:, G_BAD + 2 * p]
        bad = np.flatnonzero(counts > 0)
        if not bad.size:
            continue
        g = G[bad[0]]
        what = DECISION_NAMES[int(g[G_BAD + 2 * p + 1])]
        raise StrategyError(
            f"strategy {match.strategies[p]!r} (seat {p}) answered {int(counts.sum())} "
            f"decision(s) with an option it was not offered (the first: a {what!r} decision "
            f"in game {int(g[G_GAME])}); see that game with "
            f"`{replay_command(match, int(seeds[bad[0]]), int(g[G_FIRST]))}`")
