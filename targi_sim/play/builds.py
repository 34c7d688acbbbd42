"""Loading the compiled engine before play, with an honest estimate of a first compile.

The engine is compiled on first use and cached (targi_sim.engine.cache_dir). Which
compiled code a match needs depends on its seats (engine/ask.py): the generic build,
the build with the heuristic inside, the Monte Carlo driver, each strategy's policy.
`load_build` compiles (or loads) all of it by playing one game, times it, and remembers a
cold compile's duration per build in the cache folder, so the next first compile on
this machine (after an upgrade or a cache wipe) can show an estimate.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from targi_sim._utils.atomic import atomic_write_json
from targi_sim.engine import cache_dir
from targi_sim.engine.constants import SK_MONTECARLO
from targi_sim.play.games import run_batch
from targi_sim.play.match import Match
from targi_sim.play.pairing import game_plan

BUILDS_FILE = "builds.json"
# Cold-compile seconds measured on the development machine (2 vCPU AMD EPYC, idle;
# docs/benchmarks.md), used until this machine has measured its own.
DOCUMENTED_SECONDS = {"generic": 25.0, "heuristic": 55.0, "heuristic+montecarlo": 60.0}
COLD_THRESHOLD = 2.0  # a load slower than this compiled something


@dataclass(frozen=True)
class LoadResult:
    build: str
    seconds: float
    compiled: bool


def build_of(match: Match) -> str:
    """The name of the compiled build a match plays with."""
    build = "heuristic" if len(match.P) == 3 else "generic"
    if (match.SP[:, 0] == SK_MONTECARLO).any():
        build += "+montecarlo"
    return build


def _builds_path() -> Path:
    return cache_dir() / BUILDS_FILE


def _read() -> dict:
    try:
        data = json.loads(_builds_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def is_compiled(match: Match) -> bool:
    """True once this build has been compiled into the current cache folder."""
    return build_of(match) in _read()


def estimate_seconds(match: Match) -> float:
    """Expected seconds of a cold compile of this match's build on this machine."""
    build = build_of(match)
    seen = _read().get(build, {})
    value = seen.get("seconds") if isinstance(seen, dict) else None
    if isinstance(value, int | float) and value > 0:
        return float(value)
    return DOCUMENTED_SECONDS.get(build, DOCUMENTED_SECONDS["heuristic"])


def _remember(build: str, seconds: float) -> None:
    data = _read()
    data[build] = {"seconds": round(seconds, 1), "at": time.strftime("%Y-%m-%dT%H:%M:%S")}
    with contextlib.suppress(OSError):  # an unwritable cache only loses the estimate
        atomic_write_json(_builds_path(), data)


def load_build(match: Match) -> LoadResult:
    """Compile or load everything `match` needs by playing one game with it."""
    build = build_of(match)
    t0 = time.perf_counter()
    run_batch(match, *game_plan(1, 0), logs=False)
    seconds = time.perf_counter() - t0
    compiled = seconds >= COLD_THRESHOLD
    if compiled or build not in _read():
        _remember(build, seconds if compiled else estimate_seconds(match))
    return LoadResult(build, seconds, compiled)


__all__ = ["LoadResult", "build_of", "estimate_seconds", "is_compiled", "load_build"]
