"""The engine's numba configuration (targi_sim/engine/jit.py) does what it says."""

from __future__ import annotations

import os
import subprocess
import sys

import llvmlite.binding as ll
import pytest
from numba import njit, types

from targi_sim.engine import jit as engine_jit

pytestmark = pytest.mark.skipif(not hasattr(njit(lambda: 0), "overloads"),
                                reason="NUMBA_DISABLE_JIT=1: nothing is compiled")


def _library_linkages(caller, args) -> dict[str, ll.Linkage]:
    caller.compile(args)
    library = caller.overloads[caller.signatures[0]].library
    return {f.name: f.linkage for f in library._final_module.functions
            if not f.is_declaration}


def _callee_linkages(entry: bool) -> list[ll.Linkage]:
    @njit(cache=False)
    def helper_of_an_engine_function(x):  # too large for LLVM to inline at two call sites
        t = 0
        for i in range(x):
            for j in range(i % 7, x):
                if (i * j) % 3 == 0:
                    t += i * j - (t >> 3)
                elif (i + j) % 5 == 1:
                    t ^= (j << 2) + i
                else:
                    t = (t * 31 + j) % 1000003
                if t % 11 == 4:
                    t += x // (j + 1)
        return t

    def caller(x):
        return helper_of_an_engine_function(x) + helper_of_an_engine_function(x + 1)

    caller.__qualname__ = f"caller_registered_{entry}"
    dispatcher = njit(cache=False)(caller)
    if entry:
        engine_jit.entry_point(dispatcher)
    linkages = _library_linkages(dispatcher, (types.int64,))
    return [v for k, v in linkages.items() if "helper_of_an_engine_function" in k]


def test_an_entry_point_s_linked_callees_become_private():
    """Inside an entry point's code library the copies of its callees are private, so
    LLVM may drop their unused array arguments and inline them (balanced ~10% faster).
    Private, not internal: an internal copy is still a (local) symbol, and the loader of
    cached machine code bound another library's call to it (see the test below)."""
    assert _callee_linkages(entry=True) == [ll.Linkage.private]


def test_other_libraries_keep_numba_s_linkage():
    """A library that is only linked into callers is left as numba makes it."""
    assert _callee_linkages(entry=False) == [ll.Linkage.linkonce_odr]


_PLAY_THEN_CALL_A_STEP = """
from targi_sim import play_games
from targi_sim.play.scenario import Scenario
play_games(4, seed=4, strategies=("random", "random"), logs=False)
Scenario()  # setup_game, called from Python after play_batch's code was loaded
print("ok")
"""


def test_code_loaded_from_the_cache_calls_its_own_functions():
    """With the callee copies internal (still symbols), a process that loaded play_batch
    from the compile cache and then called setup_game from Python ran play_batch's
    reshaped copy of it: "SystemError: unknown error when calling native function"."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    for _ in range(2):  # the second run loads everything from the cache
        done = subprocess.run([sys.executable, "-c", _PLAY_THEN_CALL_A_STEP], env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_the_batch_drivers_and_policies_are_entry_points():
    import targi_sim.engine  # noqa: F401  - registers every engine function

    for name in ("play_batch", "play_batch_mc", "play_batch_forks", "play_one_round",
                 "decide_heuristic", "decide_random", "decide_greedy", "decide_montecarlo"):
        assert name in engine_jit.ENTRY_POINTS, name
