"""Suite-wide set-up: warm the compile cache once before parallel workers start.

The suite runs on pytest-xdist workers (pyproject.toml: `-n auto`). Without this, every
worker would compile the same engine builds at the same moment on a fresh machine,
each paying the full compile. Here the controller compiles the shared builds first,
one group per core (tests/warm_engine.py), and the workers then load them from the
cache. A serial run (`pytest -n 0`) and NUMBA_DISABLE_JIT=1 skip this.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

WARM = Path(__file__).resolve().parent / "warm_engine.py"


def _parallel_controller(config: pytest.Config) -> bool:
    if hasattr(config, "workerinput"):  # an xdist worker
        return False
    n = getattr(config.option, "numprocesses", None)
    return bool(n) and not getattr(config.option, "collectonly", False)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if not _parallel_controller(config) or os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return
    t0 = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    procs = {group: subprocess.Popen([sys.executable, str(WARM), group], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
             for group in ("heuristic", "generic")}
    failed = []
    for group, proc in procs.items():
        _, err = proc.communicate()
        if proc.returncode != 0:
            failed.append(f"{group}: {err.strip().splitlines()[-1:] or ['?']}")
    seconds = time.perf_counter() - t0
    line = f"engine builds compiled or loaded for the test workers in {seconds:.1f} s"
    if failed:  # the tests compile what they need themselves, and report real errors
        line += f" (warm-up failed, tests will compile on their own: {'; '.join(failed)})"
    sys.stderr.write(line + "\n")
