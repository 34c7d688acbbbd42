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
# Cold-compile seconds measured on the development machine (2-vCPU Intel Xeon, idle,
# 2026-12-03; benchmarks/startup.py, docs/benchmarks.md), and how fast that machine ran
# the reference loop below: a machine that has never compiled a build scales these by
# its own loop time. Once it has compiled one (any engine version: every cache folder
# beside the current one is read), its own seconds are used.
DOCUMENTED_SECONDS = {"generic": 13.2, "heuristic": 26.7, "heuristic+montecarlo": 30.0,
                      "evaluation fit": 10.0}
# The cut playouts' evaluation is fitted on games recorded by a compiled function of its
# own (engine/evaluation.py), compiled the first time a match with such a search is
# prepared; its cold seconds are remembered under this name. Its documented figure is a
# third of the heuristic+montecarlo build's, as the two measured on one cold cache
# (34.6 s and 108 s, 2026-12-06, a slower day of the same machine).
FIT_BUILD = "evaluation fit"
DOCUMENTED_LOOP_SECONDS = 0.025  # reference_loop_seconds() there (1M additions)
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
    return is_built(build_of(match))


def is_built(build: str) -> bool:
    """True once the build of this name (a match's, or FIT_BUILD) has been compiled
    into the current cache folder."""
    return build in _read()


def reference_loop_seconds(additions: int = 1_000_000) -> float:
    """Seconds this machine takes for `additions` CPython additions (a million: about
    25 ms): how fast it is now, to scale a compile time measured elsewhere (and, with
    10 million, the index benchmarks/ print beside their figures)."""
    t = time.perf_counter()
    total = 0
    for i in range(additions):
        total += i
    return time.perf_counter() - t


def _measured(data: dict, build: str) -> float | None:
    seen = data.get(build)
    value = seen.get("seconds") if isinstance(seen, dict) else None
    return float(value) if isinstance(value, int | float) and value > 0 else None


def _measured_before(build: str) -> float | None:
    """This build's cold-compile seconds from this machine's other cache folders (earlier
    engine versions), the newest first."""
    here = cache_dir()
    found = []
    for other in here.parent.glob(f"*/{BUILDS_FILE}") if here.parent.is_dir() else []:
        if other.parent == here:
            continue
        try:
            data = json.loads(other.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and (value := _measured(data, build)) is not None:
            found.append((other.stat().st_mtime, value))
    return max(found)[1] if found else None


def estimate_seconds(match: Match) -> float:
    """Expected seconds of a cold compile of this match's build on this machine: its own
    last compile of the build, else its compile of an earlier engine version, else the
    documented figure scaled by how fast this machine runs a reference loop."""
    return estimate_build_seconds(build_of(match))


def estimate_build_seconds(build: str) -> float:
    """estimate_seconds for a build named (a match's, or FIT_BUILD)."""
    own = _measured(_read(), build)
    if own is None:
        own = _measured_before(build)
    if own is not None:
        return own
    documented = DOCUMENTED_SECONDS.get(build, DOCUMENTED_SECONDS["heuristic"])
    return documented * reference_loop_seconds() / DOCUMENTED_LOOP_SECONDS


def remember_build(build: str, seconds: float) -> None:
    """Record that a build was compiled here, and its cold seconds when it compiled
    (`seconds` >= COLD_THRESHOLD; else the estimate is kept)."""
    if seconds >= COLD_THRESHOLD or build not in _read():
        _remember(build, seconds if seconds >= COLD_THRESHOLD else
                  estimate_build_seconds(build))


def _remember(build: str, seconds: float) -> None:
    data = _read()
    data[build] = {"seconds": round(seconds, 1), "at": time.strftime("%Y-%m-%dT%H:%M:%S")}
    with contextlib.suppress(OSError):  # an unwritable cache only loses the estimate
        _builds_path().parent.mkdir(parents=True, exist_ok=True)
        atomic_write_json(_builds_path(), data)


def load_build(match: Match) -> LoadResult:
    """Compile or load everything `match` needs by playing one game with it."""
    build = build_of(match)
    t0 = time.perf_counter()
    run_batch(match, *game_plan(1, 0), logs=False)
    seconds = time.perf_counter() - t0
    remember_build(build, seconds)
    return LoadResult(build, seconds, seconds >= COLD_THRESHOLD)


__all__ = ["FIT_BUILD", "LoadResult", "build_of", "estimate_build_seconds", "estimate_seconds",
           "is_built", "is_compiled", "load_build", "remember_build"]
