"""`targi-sim run`: play N games into a resumable run directory and print a summary."""

from __future__ import annotations

import contextlib
import errno
import re
import sys
import time
from pathlib import Path
from typing import Annotated, NamedTuple

import typer
from rich.console import Console
from rich.markup import escape

from . import options
from .helptext import epilog

RUN_EPILOG = epilog("""\
Examples:

  targi-sim run --games 1e6                          # balanced vs balanced, all cores

  targi-sim run --games 100000 --p0 random --p1 random --out runs/random

  targi-sim run --games 1_000_000 --seed 42 --jobs 2 --quiet

  cp data/decks/base.toml my-deck.toml   # make your deck first (`targi-sim decks`)
  targi-sim run --games 1e5 --deck ./my-deck.toml --out runs/my-deck

  targi-sim run --games 1e6 --backend dask --scheduler tcp://10.0.0.5:8786

Games are played in seat-swapped pairs: both games of a pair share a seed and
swap who starts round 1, so seat advantage and strategy strength can be told
apart. When both seats play the same deterministic strategy (e.g. balanced vs
balanced) the second game of a pair would be the first with the seats
relabelled, so such a run plays one game per deal instead, the round-1 first
player alternating between deals (--pairing auto, the default; the run header
says which). --unpaired is --pairing one_per_deal. Every interval treats a pair
(or a game whose deal is played once) as one independent unit. The same seed,
deck, rules, strategies, pairing and --chunk-size always give the same files,
whatever --jobs or --backend.

Output (docs/data-model.md): manifest.json, cards.parquet and one Parquet file
per chunk for each table (games, rounds, acquisitions, offers, raids, goods).
Rerunning the same command resumes an interrupted run; a different run into
the same --out is refused unless --force. Read it with `targi-sim report DIR`
or `targi-sim replay DIR --game ID`.
""")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(text).stem if text.endswith(".toml") else text)


def default_out(p0: str, p1: str, games: int, seed: int, deck: str, rules: str) -> Path:
    """runs/<p0>-vs-<p1>-<games>-seed<S>[-<deck>][-<rules>]: the same command, the same folder."""
    name = f"{_slug(p0)}-vs-{_slug(p1)}-{games}-seed{seed}"
    if deck != "base":
        name += f"-{_slug(deck)}"
    if rules != "default":
        name += f"-{_slug(rules)}"
    return Path("runs") / name


def _human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def one_line(tally, outcome, wall: float, play: float) -> str:
    """Games, wall time, games/s of play, output size, first-player and strategy rates."""
    n = tally.games
    s0, s1 = tally.strategies
    size = outcome.manifest["counts"]["bytes"]
    played = outcome.games_played
    speed = (f"{played / play:,.0f} games/s" if played and play > 0
             else "nothing left to play")
    if played and played < n:
        speed += f" for the {played:,} played now"
    if wall - play >= 1.0:  # a cold engine compile takes minutes: say so, or games/s looks wrong
        speed = f"{wall - play:.1f} s engine load, then {speed}"
    first = (tally.first_wins + 0.5 * tally.draws) / n
    half = 0.5 * tally.draws
    return (f"{n:,} games in {wall:.1f} s wall ({speed}), "
            f"{_human_bytes(size)} written ({size / n:,.0f} B/game); first player {first:.1%}; "
            f"{s0} (seat 0) {tally.wins[0] / n:.1%}, {s1} (seat 1) {tally.wins[1] / n:.1%}, "
            f"draws {tally.draws / n:.1%} (draws as half, as in the report: "
            f"{(tally.wins[0] + half) / n:.1%} / {(tally.wins[1] + half) / n:.1%})")


def register(app: typer.Typer) -> None:
    """Add the `run` command to the app."""
    app.command(epilog=RUN_EPILOG)(run)


Games = Annotated[str, typer.Option(
    "--games", "-n", metavar="N",
    help="Number of games: 100000, 1_000_000 and 1e6 are all accepted.")]
P0 = Annotated[str, typer.Option(
    "--p0", metavar="NAME|FILE", help="Strategy of seat 0: a name from `targi-sim "
    "strategies` or a strategy .toml (or compiled .py) file.")]
P1 = Annotated[str, typer.Option("--p1", metavar="NAME|FILE",
                                 help="Strategy of seat 1: a name or a file.")]
Jobs = Annotated[str, typer.Option(
    "--jobs", "-j", metavar="J",
    help="Worker processes (default and most: one per CPU). Results do not depend on it.")]
ChunkSize = Annotated[str | None, typer.Option(
    "--chunk-size", metavar="K", help="Games per chunk (one Parquet file per table per "
    "chunk; memory grows with it). Default 20000, or 20 with a montecarlo seat.")]
Out = Annotated[str | None, typer.Option(
    "--out", "-o", metavar="DIR",
    help="Run directory (default runs/<p0>-vs-<p1>-<games>-seed<S>).")]
Backend = Annotated[str, typer.Option(
    "--backend", metavar="loky|dask",
    help="Where the chunks run: local processes (loky) or a Dask cluster (dask).")]
Unpaired = Annotated[bool, typer.Option(
    "--unpaired", help="One game per deal, first player alternating (= --pairing "
    "one_per_deal).")]
Pairing = Annotated[str, typer.Option(
    "--pairing", metavar="auto|seat_swapped|one_per_deal",
    help="How games share deals. auto: seat-swapped pairs, except one game per deal when "
         "both seats play the same deterministic strategy.")]
Force = Annotated[bool, typer.Option("--force", help="Replace a different run already in "
                                                     "--out.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar; summary only.")]
CardValue = Annotated[bool, typer.Option(
    "--card-value",
    help="Then fork the games for each card's causal value (= targi-sim card-value).")]
ForkRate = Annotated[str, typer.Option(
    "--fork-rate", metavar="R", help="With --card-value: share of decisions forked.")]


class RunPlan(NamedTuple):
    """What the options ask for, checked: the resolved run, where it goes, the workers,
    the fork rate of --card-value (None: no forks)."""

    resolved: object
    out: Path
    jobs: int
    rate: float | None


def run(games: Games = "100000", p0: P0 = "balanced", p1: P1 = "balanced",
        deck: options.Deck = "base", rules: options.Rules = "default",
        seed: options.Seed = "0", jobs: Jobs = "auto", chunk_size: ChunkSize = None,
        out: Out = None, backend: Backend = "loky", scheduler: options.Scheduler = None,
        unpaired: Unpaired = False, pairing: Pairing = "auto", force: Force = False,
        quiet: Quiet = False, strategy_file: options.StrategyFile = None,
        card_value: CardValue = False, fork_rate: ForkRate = "0.25") -> None:
    """Play N games between two strategies into a run directory of Parquet tables."""
    from .common import stops, usage_errors

    with usage_errors(run):
        plan = plan_run(games, p0, p1, deck, rules, seed, jobs, chunk_size, out, backend,
                        scheduler, unpaired, pairing, force, strategy_file,
                        fork_rate if card_value else None)
    n_games, done = plan.resolved.config.games, [0]
    with stops(lambda: f"Interrupted after {done[0]:,} of {n_games:,} games. Completed "
                       f"chunks are kept in {plan.out}; rerun the same command to resume.",
               lambda exc: _cannot_write(plan.out, exc), run):
        outcome, times = play_run(plan, backend, scheduler, force, quiet, done, deck)
    show_run(plan, outcome, deck, rules, times)
    if plan.rate is not None:  # --card-value: the forks go into the finished run directory
        from .card_value import fork_run

        with stops("Interrupted while forking. The run and the forked chunks are kept; "
                   "rerun the same command to resume.", command=run):
            fork_run(plan.out, plan.rate, plan.jobs, force=force, quiet=quiet,
                     strategy_files=(strategy_file,) if strategy_file else ())


def plan_run(games, p0, p1, deck, rules, seed, jobs, chunk_size, out, backend, scheduler,
             unpaired, pairing, force, strategy_file, fork_rate) -> RunPlan:
    """Parse and check the options (ParseError / the library's errors)."""
    from targi_sim.runner import RunConfig, resolve_run
    from targi_sim.runner.dispatch import check_options, check_out

    from .parse import cap_jobs, parse_games, parse_run_jobs, parse_seed, parse_whole_number

    if strategy_file:
        from targi_sim.players.strategy import register_plugin

        register_plugin(strategy_file)
    n_games, run_seed = parse_games(games), parse_seed(seed)
    chunk = (parse_whole_number(chunk_size, "--chunk-size", 1, 10_000_000)
             if chunk_size is not None else None)
    resolved = resolve_run(RunConfig(games=n_games, seed=run_seed, p0=p0, p1=p1, deck=deck,
                                     rules=rules, paired=not unpaired, chunk_size=chunk,
                                     pairing=pairing))
    n_jobs = parse_run_jobs(jobs, -(-n_games // resolved.chunk_size))
    if not (backend == "dask" and scheduler):  # a remote cluster has its own workers
        n_jobs = cap_jobs(n_jobs)
    names = resolved.match.strategies
    out_dir = Path(out) if out else default_out(names[0], names[1], n_games, run_seed, deck,
                                                rules)
    check_options(n_jobs, backend, scheduler)
    check_out(resolved, out_dir, force=force)
    rate = None
    if fork_rate is not None:
        from targi_sim.cardvalue.forks import check_forkable

        from .parse import parse_rate

        rate = parse_rate(fork_rate)
        check_forkable(resolved.match)
    return RunPlan(resolved, out_dir, n_jobs, rate)


def play_run(plan: RunPlan, backend: str, scheduler: str | None, force: bool, quiet: bool,
             done: list[int], deck: str) -> tuple:
    """Load the engine, play the run under a progress bar (`done[0]`: games so far);
    returns the outcome and the times (start, engine loaded, played)."""
    from targi_sim.runner.dispatch import execute

    from .common import progress_bar

    err, resolved = Console(stderr=True), plan.resolved
    names = resolved.match.strategies

    def advance(n: int) -> None:
        done[0] += n
        bar.advance(task, n)

    played = resolved.match.deck
    if played.declared_name:  # a copy of a shipped deck, edited, that kept its name
        err.print(f"Note: {deck} names itself {played.declared_name!r} like the shipped "
                  f"deck but its cards differ; reports call it {played.name!r} (set "
                  f"name = \"...\" in the file to choose another).",
                  highlight=False, markup=False, soft_wrap=True)
    t0 = time.perf_counter()
    _load(err, quiet, resolved, plan.out)
    t1 = time.perf_counter()
    with progress_bar(err, quiet) as bar:
        task = bar.add_task(escape(f"{names[0]} vs {names[1]}"), total=resolved.config.games)
        outcome = execute(resolved, plan.out, jobs=plan.jobs, backend=backend,
                          scheduler=scheduler, force=force, progress=advance,
                          command=["targi-sim", *sys.argv[1:]])
    return outcome, (t0, t1, time.perf_counter())


def _load(err: Console, quiet: bool, resolved, out: Path) -> None:
    """The engine build, then the chunk summaries' compiled code (once per machine)."""
    from targi_sim.runner.chunks import warm_summaries

    from .common import load_engine, status

    load_engine(err, quiet, [resolved.match])
    text = "Loading the chunk-summary code (compiled once per machine)..."
    with (contextlib.nullcontext() if quiet else
          status(err, text, describe=lambda elapsed: f"{text} {elapsed:.0f} s")):
        warm_summaries(resolved.spec(out))


def _cannot_write(out: Path, exc: OSError) -> str:
    reason = "the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or exc)
    return (f"cannot write the run to {out}: {reason}. Completed chunks are kept; free "
            "space and rerun the same command to resume.")


def show_run(plan: RunPlan, outcome, deck: str, rules: str, times: tuple) -> None:
    """The summary: replayed chunks, a resume, the tables, the one-line figures."""
    from targi_sim.runner.summary import summarise_run

    from .summary import render

    t0, t1, t2 = times
    resolved = plan.resolved
    tally = summarise_run(plan.out, resolved.match.strategies, outcome.chunks_total)
    console = Console()
    for mismatch in outcome.replayed:
        console.print(f"Replayed {mismatch} (no longer matched its completion marker).",
                      highlight=False, markup=False)
    if outcome.chunks_skipped:
        console.print(f"Resumed: {outcome.chunks_skipped} of {outcome.chunks_total} chunks "
                      "were already complete.", highlight=False)
    render(console, tally, seconds=t2 - t1, setup_seconds=t1 - t0, deck=deck, rules=rules,
           seed=resolved.config.seed, games_played=outcome.games_played,
           pairing=resolved.pairing)
    console.print(one_line(tally, outcome, wall=t2 - t0, play=t2 - t1), highlight=False,
                  soft_wrap=True, markup=False)
    console.print(f"Run directory: {plan.out}  (status {outcome.manifest['status']})",
                  highlight=False, markup=False)
