"""Restart the command with a compiled strategy plugin built into the engine.

A `.py` strategy must be compiled into the engine when it first loads
(targi_sim/engine/plugin.py), so before anything is played the CLI looks for
one among its arguments and, if the engine was not started with it, restarts
itself with TARGI_SIM_PLUGIN set.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENV = "TARGI_SIM_PLUGIN"
STRATEGY_FLAGS = ("--p0", "--p1", "--strategies", "-s", "--strategy-file")


def plugin_in_args(argv: list[str]) -> Path | None:
    """The .py strategy named by the arguments (the first one), if any."""
    values = []
    for i, arg in enumerate(argv):
        flag, _, inline = arg.partition("=")
        if flag in STRATEGY_FLAGS:
            value = inline if inline else (argv[i + 1] if i + 1 < len(argv) else "")
            values.extend(v.strip() for v in value.split(","))
    for value in values:
        if value.endswith(".py"):
            return Path(value).resolve()
    return None


def restart_with_plugin(argv: list[str]) -> None:
    """Re-exec this command with the plugin loaded, unless it already is (or missing)."""
    path = plugin_in_args(argv)
    if path is None or not path.is_file():
        return  # no plugin, or a missing file: the normal error path reports it
    if os.environ.get(ENV) and Path(os.environ[ENV]).resolve() == path:
        return
    os.environ[ENV] = str(path)
    os.execv(sys.executable, [sys.executable, "-m", "targi_sim.cli.app", *argv])
