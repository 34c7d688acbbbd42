"""`targi-sim run`: play N games into a resumable run directory and print a summary."""

from __future__ import annotations

import contextlib
import errno
import re
import sys
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from .common import backend_option, scheduler_option
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

    @app.command(epilog=RUN_EPILOG)
    def run(
        games: str = typer.Option(
            "100000", "--games", "-n", metavar="N",
            help="Number of games: 100000, 1_000_000 and 1e6 are all accepted.",
        ),
        p0: str = typer.Option(
            "balanced", "--p0", metavar="NAME|FILE",
            help="Strategy of seat 0: a name from `targi-sim strategies` or a strategy "
                 ".toml (or compiled .py) file.",
        ),
        p1: str = typer.Option("balanced", "--p1", metavar="NAME|FILE",
                               help="Strategy of seat 1: a name or a file."),
        deck: str = typer.Option(
            "base", "--deck", metavar="NAME|FILE",
            help="Shipped deck name (see `targi-sim decks`) or a deck .toml file.",
        ),
        rules: str = typer.Option(
            "default", "--rules", metavar="NAME|FILE",
            help="Shipped rules name (see `targi-sim rules`) or a rules .toml file.",
        ),
        seed: str = typer.Option("0", "--seed", metavar="SEED",
                                 help="Run seed, 0..2147483647."),
        jobs: str = typer.Option(
            "auto", "--jobs", "-j", metavar="J",
            help="Worker processes (default and most: one per CPU). Results do not depend "
                 "on it.",
        ),
        chunk_size: str | None = typer.Option(
            None, "--chunk-size", metavar="K",
            help="Games per chunk (one Parquet file per table per chunk; memory grows with "
                 "it). Default 20000, or 20 with a montecarlo seat.",
        ),
        out: str | None = typer.Option(
            None, "--out", "-o", metavar="DIR",
            help="Run directory (default runs/<p0>-vs-<p1>-<games>-seed<S>).",
        ),
        backend: str = backend_option("chunks"),
        scheduler: str | None = scheduler_option(),
        unpaired: bool = typer.Option(
            False, "--unpaired",
            help="One game per deal, first player alternating (= --pairing one_per_deal).",
        ),
        pairing: str = typer.Option(
            "auto", "--pairing", metavar="auto|seat_swapped|one_per_deal",
            help="How games share deals. auto: seat-swapped pairs, except one game per "
                 "deal when both seats play the same deterministic strategy.",
        ),
        force: bool = typer.Option(
            False, "--force", help="Replace a different run already in --out.",
        ),
        quiet: bool = typer.Option(False, "--quiet", "-q",
                                   help="No progress bar; summary only."),
        strategy_file: str | None = typer.Option(
            None, "--strategy-file", metavar="FILE.py",
            help="A compiled strategy plugin (docs/strategy-plugins.md) whose NAME may then "
                 "be used as --p0/--p1 (a path works too).",
        ),
        card_value: bool = typer.Option(
            False, "--card-value",
            help="Then fork the games for each card's causal value (= targi-sim card-value).",
        ),
        fork_rate: str = typer.Option("0.25", "--fork-rate", metavar="R",
                                      help="With --card-value: share of decisions forked."),
    ) -> None:
        """Play N games between two strategies into a run directory of Parquet tables.

        Prints a progress bar, then win rates with 95% intervals. The first run on a
        machine compiles the engine build its strategies need (measured on 2-core
        VMs: 13-25 s for random vs random, 27-55 s for balanced, by VM), showing the
        time so far and the expected total; later runs load it from the cache in about
        a second.
        """
        from targi_sim import DataError, InputError, UsageError
        from targi_sim.runner import RunConfig, resolve_run
        from targi_sim.runner.chunks import warm_summaries
        from targi_sim.runner.dispatch import check_options, check_out, execute
        from targi_sim.runner.summary import summarise_run

        from .common import fail, load_engine, progress_bar, status
        from .parse import (
            ParseError,
            cap_jobs,
            parse_games,
            parse_run_jobs,
            parse_seed,
            parse_whole_number,
        )
        from .signals import exit_code
        from .summary import render

        try:
            if strategy_file:
                from targi_sim.players.strategy import register_plugin

                register_plugin(strategy_file)
            n_games = parse_games(games)
            run_seed = parse_seed(seed)
            chunk = (parse_whole_number(chunk_size, "--chunk-size", 1, 10_000_000)
                     if chunk_size is not None else None)
            resolved = resolve_run(RunConfig(
                games=n_games, seed=run_seed, p0=p0, p1=p1, deck=deck, rules=rules,
                paired=not unpaired, chunk_size=chunk, pairing=pairing))
            n_chunks = -(-n_games // resolved.chunk_size)
            n_jobs = parse_run_jobs(jobs, n_chunks)
            if not (backend == "dask" and scheduler):  # a remote cluster has its own workers
                n_jobs = cap_jobs(n_jobs)
            names = resolved.match.strategies
            out_dir = Path(out) if out else default_out(names[0], names[1], n_games, run_seed,
                                                        deck, rules)
            check_options(n_jobs, backend, scheduler)
            check_out(resolved, out_dir, force=force)
            rate = None
            if card_value:
                from targi_sim.cardvalue.forks import check_forkable

                from .parse import parse_rate

                rate = parse_rate(fork_rate)
                check_forkable(resolved.match)
        except (ParseError, InputError, UsageError, DataError, ValueError) as exc:
            raise fail(str(exc)) from None
        err = Console(stderr=True)
        played = resolved.match.deck
        if played.declared_name:  # a copy of a shipped deck, edited, that kept its name
            err.print(f"Note: {deck} names itself {played.declared_name!r} like the shipped "
                      f"deck but its cards differ; reports call it {played.name!r} (set "
                      f"name = \"...\" in the file to choose another).",
                      highlight=False, markup=False, soft_wrap=True)
        done = 0

        def advance(n: int) -> None:
            nonlocal done
            done += n
            bar.advance(task, n)

        try:
            t0 = time.perf_counter()
            load_engine(err, quiet, [resolved.match])
            text = "Loading the chunk-summary code (compiled once per machine)..."
            with (contextlib.nullcontext() if quiet else
                  status(err, text, describe=lambda elapsed: f"{text} {elapsed:.0f} s")):
                warm_summaries(resolved.spec(out_dir))
            t1 = time.perf_counter()
            with progress_bar(err, quiet) as bar:
                task = bar.add_task(escape(f"{names[0]} vs {names[1]}"), total=n_games)
                outcome = execute(resolved, out_dir, jobs=n_jobs, backend=backend,
                                  scheduler=scheduler, force=force, progress=advance,
                                  command=["targi-sim", *sys.argv[1:]])
            t2 = time.perf_counter()
        except (InputError, UsageError) as exc:
            raise fail(str(exc)) from None
        except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM or SIGHUP (cli/signals.py)
            typer.echo(f"\nInterrupted after {done:,} of {n_games:,} games. Completed chunks "
                       f"are kept in {out_dir}; rerun the same command to resume.", err=True)
            raise typer.Exit(exit_code(exc)) from None
        except OSError as exc:
            reason = "the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or exc)
            raise fail(f"cannot write the run to {out_dir}: {reason}. Completed chunks are "
                        "kept; free space and rerun the same command to resume.") from None

        tally = summarise_run(out_dir, names, outcome.chunks_total)
        console = Console()
        for mismatch in outcome.replayed:
            console.print(f"Replayed {mismatch} (no longer matched its completion marker).",
                          highlight=False, markup=False)
        if outcome.chunks_skipped:
            console.print(f"Resumed: {outcome.chunks_skipped} of {outcome.chunks_total} chunks "
                          "were already complete.", highlight=False)
        render(console, tally, seconds=t2 - t1, setup_seconds=t1 - t0, deck=deck,
               rules=rules, seed=run_seed, games_played=outcome.games_played,
               pairing=resolved.pairing)
        console.print(one_line(tally, outcome, wall=t2 - t0, play=t2 - t1), highlight=False,
                      soft_wrap=True, markup=False)
        console.print(f"Run directory: {out_dir}  (status {outcome.manifest['status']})",
                      highlight=False, markup=False)
        if rate is not None:  # --card-value: the forks go into the finished run directory
            from .card_value import fork_run

            try:
                fork_run(out_dir, rate, n_jobs, force=force, quiet=quiet,
                         strategy_files=(strategy_file,) if strategy_file else ())
            except (InputError, UsageError, DataError) as exc:
                raise fail(str(exc)) from None
            except KeyboardInterrupt as exc:
                typer.echo("\nInterrupted while forking. The run and the forked chunks are "
                           "kept; rerun the same command to resume.", err=True)
                raise typer.Exit(exit_code(exc)) from None
