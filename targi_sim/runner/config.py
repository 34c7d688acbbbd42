"""What determines a run's games, and its identity (hash) for resuming.

Only things that change the games or the files are in the configuration: game
count, seed, pairing (seat-swapped pairs or one game per deal), chunk size, the
content of the strategies, deck and rules, and the engine build. `--jobs`, the
backend and the machine are not, because results do not depend on them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from targi_sim.play.match import Match, prepare_match
from targi_sim.play.pairing import ONE_PER_DEAL, SEAT_SWAPPED, resolve_pairing
from targi_sim.players.strategy import Strategy, resolve_strategy

from ..engine import source_digest
from ..engine.montecarlo import uses_montecarlo

DEFAULT_CHUNK = 20_000
MONTECARLO_CHUNK = 20  # ~20 games/s: small chunks keep the progress bar moving


@dataclass(frozen=True)
class RunConfig:
    """The user's choices that define a run (names or paths, as typed)."""

    games: int
    seed: int = 0
    p0: str = "balanced"
    p1: str = "balanced"
    deck: str = "base"
    rules: str = "default"
    paired: bool = True  # False (--unpaired): the same as pairing="one_per_deal"
    chunk_size: int | None = None  # None: DEFAULT_CHUNK, or MONTECARLO_CHUNK for search seats
    pairing: str = "auto"  # auto | seat_swapped | one_per_deal (targi_sim.play.pairing)


@dataclass(frozen=True, eq=False)
class RunSpec:
    """Everything a worker needs to play and write any chunk: picklable, no open files."""

    out: Path
    games: int
    seed: int
    pairing: str
    chunk_size: int
    match: Match
    config_hash: str
    tribe_symbol: np.ndarray = field(repr=False)

    @property
    def n_chunks(self) -> int:
        return -(-self.games // self.chunk_size)

    def chunk_games(self, chunk: int) -> tuple[int, int]:
        """(first game id, number of games) of a chunk."""
        start = chunk * self.chunk_size
        return start, min(self.chunk_size, self.games - start)


@dataclass(frozen=True, eq=False)
class ResolvedRun:
    """A validated run configuration: loaded data plus its manifest description."""

    config: RunConfig
    strategies: tuple[Strategy, Strategy]
    match: Match
    chunk_size: int
    identity: dict[str, Any]
    config_hash: str
    pairing: str = SEAT_SWAPPED

    def spec(self, out: Path) -> RunSpec:
        return RunSpec(
            out=out.resolve(), games=self.config.games, seed=self.config.seed,
            pairing=self.pairing, chunk_size=self.chunk_size, match=self.match,
            config_hash=self.config_hash, tribe_symbol=self.match.deck.tribe_symbol.copy(),
        )


def resolve_run(config: RunConfig) -> ResolvedRun:
    """Load and validate everything; UsageError (unknown name), DataError (bad file) or
    ValueError (bad number) on bad input."""
    if config.games < 1:
        raise ValueError(f"games must be at least 1, got {config.games}")
    if config.chunk_size is not None and config.chunk_size < 1:
        raise ValueError(f"chunk size must be at least 1, got {config.chunk_size}")
    strategies = (resolve_strategy(config.p0), resolve_strategy(config.p1))
    pairing = run_pairing(config, strategies)
    match = prepare_match(strategies, config.deck, config.rules)
    chunk = config.chunk_size or (MONTECARLO_CHUNK if uses_montecarlo(match.SP)
                                  else DEFAULT_CHUNK)
    identity = {
        "games": config.games,
        "seed": config.seed,
        "pairing": pairing,
        "chunk_size": chunk,
        "strategies": [{"seat": seat, "name": s.name, "sha256": s.sha256}
                       for seat, s in enumerate(strategies)],
        "deck": {"name": match.deck.name, "sha256": match.deck.sha256},
        "rules": {"name": match.rules.name, "sha256": match.rules.sha256},
        "engine": source_digest(),
    }
    return ResolvedRun(config, strategies, match, chunk, identity, config_digest(identity),
                       pairing)


def config_digest(identity: dict[str, Any]) -> str:
    """The run's identity hash (manifest `config_hash`): resuming requires the same."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def run_pairing(config: RunConfig, strategies: tuple[Strategy, Strategy]) -> str:
    """The pairing of a run: `paired` False means one game per deal; `auto` decides from
    the strategies (targi_sim.play.pairing.auto_pairing)."""
    if not config.paired:
        if config.pairing not in ("auto", ONE_PER_DEAL):
            raise ValueError(f"`unpaired` plays one game per deal; it contradicts `pairing` "
                             f"{config.pairing!r}")
        return ONE_PER_DEAL
    return resolve_pairing(config.pairing, strategies)


def describe_inputs(run: ResolvedRun) -> dict[str, Any]:
    """Full content and hashes of the deck, rules and strategy files (for the manifest)."""
    deck, rules = run.match.deck, run.match.rules
    return {
        "deck": {"name": deck.name, "path": str(deck.path), "sha256": deck.sha256,
                 "content": deck.content},
        "rules": {"name": rules.name, "path": str(rules.path) if rules.path else None,
                  "sha256": rules.sha256, "content": rules.content},
        "strategies": [
            {"seat": seat, "name": s.name, "kind": s.kind_name,
             "path": str(s.path) if s.path else None, "sha256": s.sha256, "content": s.content}
            for seat, s in enumerate(run.strategies)
        ],
    }


def differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Human-readable list of what differs between two run identities."""
    out = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            a, b = old.get(key), new.get(key)
            if isinstance(a, dict | list) or isinstance(b, dict | list):
                out.append(key)
            else:
                out.append(f"{key} {a} -> {b}")
    return out
