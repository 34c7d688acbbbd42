"""How a run lays its games out on deals: seat-swapped pairs, or one game per deal.

Why two layouts: a seat-swapped pair plays one deal twice, swapping who starts
round 1, so seat advantage and strategy strength can be told apart and the
deal's luck cancels within the pair. But when both seats play the same
deterministic strategy, the second game of a pair is the first one with the
seats relabelled -- nothing new is learnt and half the run is wasted. Such a
run plays one game per deal instead, alternating the round-1 first player
between deals. docs/data-model.md documents both.

* `seat_swapped`: games 2k and 2k+1 share pair_id k and seed (run_seed << 32) | k;
  game 2k has seat 0 start round 1, game 2k+1 seat 1.
* `one_per_deal`: game k has pair_id k, seed (run_seed << 32) | k and seat k % 2
  starts round 1.
* `unpaired` (read only): run directories written before the pairing setting
  existed with `paired: false`: game k has pair_id k, seed (run_seed << 32) | k
  and seat 0 always starts.

The cluster of every interval and test (targi_sim.stats.rates) is the pair_id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from targi_sim.players.strategy import Strategy

SEAT_SWAPPED = "seat_swapped"
ONE_PER_DEAL = "one_per_deal"
LEGACY_UNPAIRED = "unpaired"
PAIRINGS = (SEAT_SWAPPED, ONE_PER_DEAL)
CHOICES = ("auto", *PAIRINGS)

DESCRIPTIONS = {
    SEAT_SWAPPED: "seat-swapped pairs (each deal twice, first player swapped)",
    ONE_PER_DEAL: "one game per deal, first player alternating",
    LEGACY_UNPAIRED: "independent deals, seat 0 always first",
}


def pair_seed(run_seed: int, pair_id: int) -> int:
    """The game seed of a seat-swapped pair: run seed in the high half, pair in the low."""
    if not 0 <= run_seed < 2**31:
        raise ValueError(f"run seed must be in 0..{2**31 - 1}, got {run_seed}")
    if not 0 <= pair_id < 2**32:
        raise ValueError(f"pair id must be in 0..{2**32 - 1}, got {pair_id}")
    return (run_seed << 32) | pair_id


def game_plan(n_games: int, seed: int, paired: bool = True, start: int = 0) -> tuple:
    """(seeds, first players, game ids) for games start..start+n-1 of a run.

    Paired games share a seed and swap the first player, so seat advantage and
    strategy strength can be told apart.
    """
    ids = np.arange(start, start + n_games, dtype=np.int64)
    pairs = ids // 2 if paired else ids
    pair_seed(seed, int(pairs[-1]) if n_games else 0)  # range checks
    seeds = (np.int64(seed) << np.int64(32)) | pairs
    first = (ids % 2) if paired else np.zeros(n_games, dtype=np.int64)
    return seeds, first.astype(np.int64), ids


def mirrors_itself(strategies: Sequence[Strategy]) -> bool:
    """True when both seats play the same parameters and the policy is deterministic:
    a seat-swapped pair's second game would then be its first with seats relabelled."""
    s0, s1 = strategies
    return s0.sha256 == s1.sha256 and s0.deterministic and s1.deterministic


def auto_pairing(strategies: Sequence[Strategy]) -> str:
    """one_per_deal for a deterministic mirror, else seat_swapped."""
    return ONE_PER_DEAL if mirrors_itself(strategies) else SEAT_SWAPPED


def seat_orders(strategies: Sequence[Strategy]) -> int:
    """How many seat orders a match of these two strategies needs on one deal: 1 when
    both are deterministic (the game with the seats swapped and the other strategy
    starting is the same game relabelled; tested), else 2."""
    return 1 if all(s.deterministic for s in strategies) else 2


def resolve_pairing(choice: str, strategies: Sequence[Strategy]) -> str:
    """The pairing a run uses for `choice` (auto, seat_swapped or one_per_deal)."""
    if choice not in CHOICES:
        raise ValueError(f"pairing must be one of {', '.join(CHOICES)}; got {choice!r}")
    return auto_pairing(strategies) if choice == "auto" else choice


def plan(n_games: int, seed: int, pairing: str, start: int = 0) -> tuple:
    """(seeds, first players, game ids) of games start..start+n-1 under `pairing`."""
    if pairing == SEAT_SWAPPED:
        return game_plan(n_games, seed, paired=True, start=start)
    if pairing == LEGACY_UNPAIRED:
        return game_plan(n_games, seed, paired=False, start=start)
    if pairing != ONE_PER_DEAL:
        raise ValueError(f"unknown pairing {pairing!r}")
    seeds, _, ids = game_plan(n_games, seed, paired=False, start=start)
    return seeds, (ids % 2).astype(np.int64), ids


def pair_ids(game_ids: np.ndarray, pairing: str) -> np.ndarray:
    """The pair (cluster) id of each game."""
    ids = np.asarray(game_ids, dtype=np.int64)
    return ids // 2 if pairing == SEAT_SWAPPED else ids


def games_per_deal(pairing: str) -> int:
    return 2 if pairing == SEAT_SWAPPED else 1


def config_pairing(config: dict[str, Any]) -> str:
    """The pairing of a run from its manifest `config` (old runs: the `paired` flag)."""
    value = config.get("pairing")
    if value in PAIRINGS:
        return value
    return SEAT_SWAPPED if config.get("paired", True) else LEGACY_UNPAIRED


__all__ = ["CHOICES", "DESCRIPTIONS", "LEGACY_UNPAIRED", "ONE_PER_DEAL", "PAIRINGS",
           "SEAT_SWAPPED", "auto_pairing", "config_pairing", "games_per_deal",
           "mirrors_itself", "pair_ids", "plan", "resolve_pairing", "seat_orders"]
