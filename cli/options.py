"""The options many commands share, as annotated types: a command's signature then
takes one line per option (`deck: options.Deck = "base"`), and the help text of an
option is written once. A command's own options sit at the top of its module."""

from __future__ import annotations

from typing import Annotated

import typer

Deck = Annotated[str, typer.Option(
    "--deck", metavar="NAME|FILE",
    help="Shipped deck name (see `targi-sim decks`) or a deck .toml file.")]
Rules = Annotated[str, typer.Option(
    "--rules", metavar="NAME|FILE",
    help="Shipped rules name (see `targi-sim rules`) or a rules .toml file.")]
Seed = Annotated[str, typer.Option("--seed", metavar="SEED", help="Seed, 0..2147483647.")]
Jobs = Annotated[str, typer.Option(
    "--jobs", "-j", metavar="J", help="Worker processes (results do not depend on it).")]
Backend = Annotated[str, typer.Option(
    "--backend", metavar="loky|dask",
    help="Where the games run: local processes (loky) or a Dask cluster (dask).")]
Scheduler = Annotated[str | None, typer.Option(
    "--scheduler", metavar="tcp://HOST:PORT",
    help="Dask scheduler address for --backend dask (default: a local cluster).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
Force = Annotated[bool, typer.Option(
    "--force", help="Replace what OUT holds from a different command.")]
Resume = Annotated[bool, typer.Option(
    "--resume", hidden=True,
    help="Accepted for old scripts; rerunning the same command continues anyway.")]
StopAfter = Annotated[int | None, typer.Option(
    "--stop-after", hidden=True, help="Stop after this many steps of the search (tests).")]
StrategyFile = Annotated[str | None, typer.Option(
    "--strategy-file", metavar="FILE.py",
    help="A compiled strategy plugin (docs/strategy-plugins.md) whose NAME may then be used "
         "as a strategy (a path works too).")]

__all__ = ["Backend", "Deck", "Force", "Jobs", "Quiet", "Resume", "Rules", "Scheduler",
           "Seed", "StopAfter", "StrategyFile"]
