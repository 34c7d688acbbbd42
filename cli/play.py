"""Play a long run in fixed-size chunks so memory stays bounded.

The games are exactly those of `targi_sim.play_games(n, seed=...)` (same seeds,
same seat-swapped pairs, same game ids); only the bookkeeping is chunked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import polars as pl

from targi_sim.api import Match, game_plan, prepare_match
from targi_sim.engine.montecarlo import uses_montecarlo
from targi_sim.record import games_frame

CHUNK_GAMES = 20_000
MC_CHUNK_GAMES = 20


def prepare(p0: str, p1: str, deck: str, rules: str) -> Match:
    """Resolve names/paths; raises UsageError (unknown name) or DataError (bad file)."""
    return prepare_match((p0, p1), deck, rules)


def chunk_size(setup: Match) -> int:
    """Games per chunk: large for speed, small when a Monte Carlo seat makes games slow
    (~20 games/s), so the progress bar keeps moving."""
    return MC_CHUNK_GAMES if uses_montecarlo(setup.SP) else CHUNK_GAMES


def warm_up(setup: Match) -> None:
    """Load (or compile, on the first run) the engine by playing one throw-away game."""
    seeds, first, ids = game_plan(1, 0)
    setup.play(seeds, first, ids, logs=False)


def play_chunks(
    setup: Match, n_games: int, seed: int, chunk: int = CHUNK_GAMES,
    progress: Callable[[int], None] | None = None,
) -> Iterator[pl.DataFrame]:
    """Yield the `games` table of each chunk of the run, in game-id order."""
    start = 0
    while start < n_games:
        n = min(chunk, n_games - start)
        seeds, first, ids = game_plan(n, seed, paired=True, start=start)
        G, _ = setup.play(seeds, first, ids, logs=False)
        start += n
        if progress is not None:
            progress(n)
        yield games_frame(G)
