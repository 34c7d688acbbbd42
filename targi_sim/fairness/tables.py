"""The balance measurement of games already played: per-deal sums from a run's chunks.

Why: `balance` measures the games it plays in memory (measure.play_deals); `compare`
measures two run directories, from each chunk's games table and game digest
(targi_sim.runner.digests: the card masks reduce_games would build from the rows). Both
reduce with the same function (measure.reduce_masks), so a run's balance terms are those
`balance` computes for the same games (tests/test_verdict.py plays them both ways).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import polars as pl

from targi_sim.game.classes import CardClasses

from .measure import DeckStats, PerDeal, reduce_masks, sum_by

# the games-table columns reduce_masks reads
GAME_COLUMNS = ("game_id", "pair_id", "first_player", "winner", "rounds", "tiebreak")


def digest_part(games: pl.DataFrame, digest: pl.DataFrame, n_cards: int) -> PerDeal:
    """One chunk's per-deal sums from its games (GAME_COLUMNS) and game digest, both in
    game order."""
    if not games["game_id"].equals(digest["game_id"]):
        raise ValueError("a chunk's game digest does not list its games")

    def seats(name: str) -> np.ndarray:
        return np.stack([digest[f"{name}_p{p}"].to_numpy() for p in (0, 1)], axis=1)

    return reduce_masks(games, digest["offered"].to_numpy(), seats("acquired"),
                        seats("played"), n_cards)


def merge_deals(parts: Sequence[PerDeal], block: int = 1) -> PerDeal:
    """One PerDeal of `parts`, rows with the same id summed: a deal cut in two by a chunk
    boundary becomes whole again (the sums are additive). block > 1 merges the deals of
    each run of `block` consecutive ids (id // block) into one unit."""
    ids = np.concatenate([p.deal_ids for p in parts]) // block
    units, row = np.unique(ids, return_inverse=True)

    def add(arrays: list[np.ndarray]) -> np.ndarray:
        return sum_by(np.concatenate(arrays), row, len(units))

    keys = parts[0].x
    return PerDeal(units, {k: add([p.x[k] for p in parts]) for k in keys},
                   {k: add([p.n[k] for p in parts]) for k in keys})


def _split_last(p: PerDeal) -> tuple[PerDeal, PerDeal]:
    """(every deal but the last, the last): the last may go on in the next chunk."""
    def part(s: slice) -> PerDeal:
        return PerDeal(p.deal_ids[s], {k: v[s] for k, v in p.x.items()},
                       {k: v[s] for k, v in p.n.items()})
    return part(slice(None, -1)), part(slice(-1, None))


def measure_chunks(chunks: Iterable[PerDeal], block: int = 1,
                   classes: CardClasses | None = None) -> tuple[DeckStats, PerDeal]:
    """The DeckStats of a run's chunks, each reduced to its per-deal sums (digest_part),
    with the deal as the cluster exactly as measure.play_deals gives them; and their
    per-unit sums for a bootstrap, a unit being `block` consecutive deals (merge_deals).
    Chunks come in game order; one is in memory at a time. `classes`: card columns
    pooled into classes of identical cards, per deal."""
    stats: DeckStats | None = None
    units: list[PerDeal] = []
    pending: PerDeal | None = None  # the last deal so far: the next chunk may continue it
    for chunk in chunks:
        if not len(chunk.deal_ids):
            continue
        part = chunk.pooled(classes)
        done, pending = _split_last(part if pending is None else merge_deals([pending, part]))
        if len(done.deal_ids):
            stats = done.stats() if stats is None else stats + done.stats()
            units.append(merge_deals([done], block))
    if pending is None:
        raise ValueError("no games to measure")
    stats = pending.stats() if stats is None else stats + pending.stats()
    units.append(merge_deals([pending], block))
    return stats, merge_deals(units)
