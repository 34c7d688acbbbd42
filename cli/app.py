"""The `targi-sim` command line: a thin layer over the targi_sim Python API.

Commands: run (play many games into a run directory, print a summary), tune (CMA-ES on a
heuristic strategy's weights), balance (propose the fewest card changes toward a
balanced deck), tournament (every pair of
strategies; win-rate matrix and Elo), strategies [show], decks, rules, version.
User mistakes (bad numbers, unknown names, malformed data files) print one
`Error: ...` line on stderr and exit with code 2; Ctrl-C exits with 130, SIGTERM
with 143 and SIGHUP with 129 (cli/signals.py).
"""

from __future__ import annotations

import platform
import time

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column
from rich.text import Text

import targi_sim
from targi_sim import (
    DataError,
    StrategyError,
    UsageError,
    available_strategies,
    list_decks,
    list_rules,
)

from . import signals
from .parse import ParseError, parse_games, parse_seed

EXIT_USAGE = 2

app = typer.Typer(
    name="targi-sim",
    help="Simulate the 2-player card game Targi with a compiled engine.",
    epilog="Start with: targi-sim run --help",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print one `Error:` line on stderr; the caller raises the returned Exit."""
    typer.echo(f"Error: {message}", err=True)
    return typer.Exit(code)


class _GamesPerSecond(ProgressColumn):
    """Games per second since the task started: chunks land in bursts, so a rate over
    the recent past jumps (111,102 then 12,774); the mean since the start does not."""

    def render(self, task: Task) -> Text:
        return Text(f"{_mean_rate(task):,.0f} games/s" if _mean_rate(task) else "-- games/s",
                    style="cyan")


class _Eta(ProgressColumn):
    """Time left at the mean rate since the start (the same rate as _GamesPerSecond)."""

    def render(self, task: Task) -> Text:
        rate = _mean_rate(task)
        if task.finished:
            return Text("ETA 0:00:00", style="progress.remaining")
        if not rate or task.total is None:
            return Text("ETA -:--:--", style="progress.remaining")
        left = int((task.total - task.completed) / rate)
        return Text(f"ETA {left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}",
                    style="progress.remaining")


def _mean_rate(task: Task) -> float | None:
    elapsed = task.finished_time if task.finished else task.elapsed
    if not task.completed or not elapsed:
        return None
    return task.completed / elapsed


def load_engine(console: Console, quiet: bool, matches: list) -> None:
    """Load the compiled engine builds these matches need; a build not compiled yet on
    this machine is compiled, showing the time so far and the expected total (the last
    first compile here, or the documented figure: targi_sim.play.builds)."""
    import threading

    from targi_sim.play.builds import build_of, estimate_seconds, is_compiled, warm_up

    builds: dict[str, object] = {}
    for m in matches:
        builds.setdefault(build_of(m), m)
    for build, m in builds.items():
        if quiet or is_compiled(m):
            if quiet:
                warm_up(m)
            else:
                with console.status("Loading the compiled engine..."):
                    warm_up(m)
            continue
        expect = estimate_seconds(m)
        t0 = time.perf_counter()

        def say(elapsed: float, expect: float = expect, build: str = build) -> str:
            if elapsed <= expect:
                left = f"about {expect - elapsed:.0f} s left"
            else:
                left = f"longer than the {expect:.0f} s expected"
            return (f"Compiling the engine ({build} build; once per machine and version, "
                    f"then cached): {elapsed:.0f} s, {left}")

        with console.status(say(0.0)) as status:
            stop = threading.Event()

            def tick(status=status, stop=stop, t0=t0, say=say) -> None:
                while not stop.wait(1.0):
                    status.update(say(time.perf_counter() - t0))

            ticker = threading.Thread(target=tick, daemon=True)
            ticker.start()
            try:
                warm_up(m)
            finally:
                stop.set()
                ticker.join()
        console.print(f"Compiled the engine's {build} build in {time.perf_counter() - t0:.0f} s "
                      "(cached for next time).", highlight=False)


def _progress(console: Console, quiet: bool, get_time=None) -> Progress:
    """The progress bar: fits an 80-column terminal on one line (the description is
    cut with an ellipsis, the bar takes what is left); games/s and ETA from the mean
    rate since the start. `get_time`: a clock for tests."""
    return Progress(
        TextColumn("[progress.description]{task.description}",
                   table_column=Column(max_width=22, no_wrap=True, overflow="ellipsis")),
        BarColumn(bar_width=None, table_column=Column(ratio=1, min_width=8)),
        MofNCompleteColumn(),
        _GamesPerSecond(),
        TimeElapsedColumn(),
        _Eta(),
        console=console,
        disable=quiet,
        expand=True,
        get_time=get_time,
    )


def _register_commands() -> None:
    """Commands that live in their own modules (each adds itself to the app)."""
    from . import balance, card_value, check, ladder, play, replay, report, run, tune
    from . import sweep as sweep_command

    run.register(app)
    replay.register(app)
    report.register(app)
    check.register(app)
    play.register(app)
    ladder.register(app)
    tune.register(app)
    card_value.register(app)
    sweep_command.register(app)
    balance.register(app)


_register_commands()


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


@app.command()
def decks() -> None:
    """List the decks that ship with targi-sim (use one with `run --deck NAME`).

    To make your own, copy a shipped file (`targi-sim decks` prints where they
    live), change a card, and pass the path: `run --deck ./my-deck.toml`.
    """
    from targi_sim import load_deck
    from targi_sim._utils.paths import data_dir

    typer.echo(f"Decks in {data_dir() / 'decks'}:")
    for name in list_decks():
        try:
            d = load_deck(name)
            typer.echo(f"  {name:<22} {d.n_tribe} tribe, {d.n_goods} goods cards. "
                       f"{_first_line(d.description)}")
        except DataError as exc:
            typer.echo(f"  {name:<22} (does not load: {exc})")


@app.command()
def rules() -> None:
    """List the rules files that ship with targi-sim (use one with `run --rules NAME`).

    Variants name a `base` and override only the settings they change.
    """
    from targi_sim import load_rules
    from targi_sim._utils.paths import data_dir

    typer.echo(f"Rules in {data_dir() / 'rules'}:")
    for name in list_rules():
        try:
            r = load_rules(name)
            typer.echo(f"  {name:<26} {_first_line(r.description)}")
        except (DataError, UsageError) as exc:
            typer.echo(f"  {name:<26} (does not load: {exc})")


strategies_app = typer.Typer(
    help="List the shipped strategies, or show one's parameters (`strategies show NAME`).",
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.add_typer(strategies_app, name="strategies")


@strategies_app.callback(invoke_without_command=True)
def strategies(ctx: typer.Context) -> None:
    """List the shipped strategies: name, kind, description.

    Use one with `run --p0 NAME` or `tournament --strategies a,b`; every
    command that takes a strategy name also takes a path to a strategy .toml
    file. `targi-sim strategies show NAME` prints its parameters.
    """
    if ctx.invoked_subcommand is not None:
        return
    from targi_sim._utils.paths import data_dir
    from targi_sim.players.strategy import load_strategy

    from .strategies import list_line

    typer.echo(f"Strategies in {data_dir() / 'strategies'}:")
    for name in available_strategies():
        try:
            typer.echo(list_line(name, load_strategy(name)))
        except (DataError, UsageError) as exc:
            typer.echo(f"  {name:<14} (does not load: {exc})")
    from targi_sim.players.strategy import list_plugin_files

    for path in list_plugin_files():
        try:
            s = load_strategy(path)
            typer.echo(f"  {path.name:<14} {s.kind_name:<11} {s.description} (use its path)")
        except (DataError, UsageError) as exc:
            typer.echo(f"  {path.name:<14} (does not load: {exc})")


@strategies_app.command("show")
def strategies_show(
    name: str = typer.Argument(..., metavar="NAME|FILE",
                               help="Shipped strategy name or path to a strategy .toml file."),
) -> None:
    """Print a strategy's kind, description, file and every parameter by name."""
    from targi_sim.players.strategy import load_strategy

    from .strategies import show

    try:
        strategy = load_strategy(name)
    except (UsageError, DataError) as exc:
        raise _fail(str(exc)) from None
    show(Console(), strategy)


CHECK_EPILOG = """\
Examples:

  targi-sim strategies check balanced

  targi-sim strategies check ./my-strategy.toml --games 50

  targi-sim strategies check ./my_policy.py --opponent random --redeals 5

At each of the strategy's decisions, everything its player cannot know (deck
order, face-down centre cards, an opponent's hand card drawn face down, the
opponent's random stream) is re-dealt several times and the strategy is asked
again with the same own state; any changed answer read hidden information.
Exit code 0 when no decision changed, 1 when some did (docs/strategies.md,
Fair play).
"""


@strategies_app.command("check", epilog=CHECK_EPILOG)
def strategies_check(
    name: str = typer.Argument(..., metavar="NAME|FILE",
                               help="Shipped strategy name, .toml file or .py strategy."),
    games: str = typer.Option("20", "--games", "-n", metavar="N",
                              help="Games to play (the strategy alternates seats)."),
    redeals: str = typer.Option("3", "--redeals", metavar="K",
                                help="Re-deals of the hidden information per decision."),
    opponent: str = typer.Option("balanced", "--opponent", metavar="NAME|FILE",
                                 help="The other seat's strategy."),
    seed: str = typer.Option("0", "--seed", metavar="SEED", help="Seed of the games."),
) -> None:
    """Prove a strategy does not peek: re-deal what its player cannot know, ask again."""
    from targi_sim.audits.fairplay import check_no_peeking, describe

    from .parse import parse_whole_number

    try:
        n_games = parse_whole_number(games, "--games", 1, 100_000)
        n_redeals = parse_whole_number(redeals, "--redeals", 1, 100)
        run_seed = parse_seed(seed)
        report = check_no_peeking(name, opponent=opponent, games=n_games, redeals=n_redeals,
                                  seed=run_seed)
    except (ParseError, UsageError, DataError, ValueError) as exc:
        raise _fail(str(exc)) from None
    for line in describe(report):
        typer.echo(line)
    raise typer.Exit(0 if report.passed else 1)


TOURNAMENT_EPILOG = """\
Examples:

  targi-sim tournament --strategies random,greedy,balanced --games 2000

  targi-sim tournament --strategies balanced,blocker,./my-strategy.toml --games 1e4 --jobs 4

  targi-sim tournament --strategies balanced,montecarlo --games 200 --out runs/mc

Every pair of strategies plays N games (rounded up to even): half with each
strategy in seat 0, both halves on the same seeds, each half in seat-swapped
pairs (two deterministic strategies: all N games in one seat order, since the
other would replay them relabelled). Intervals treat the deal as the unit. The
Elo fit is tested (deviance, df, p); a poor fit says to trust the matrix.
Results do not depend on --jobs. Writes matrix and elo tables as Parquet and
CSV into --out (default runs/tournament-<timestamp>, plus -2, -3, ... if that
folder exists).
"""


@app.command(epilog=TOURNAMENT_EPILOG)
def tournament(
    strategies: list[str] = typer.Option(  # noqa: B008 - typer's idiom
        ..., "--strategies", "-s", metavar="A,B,...",
        help="Strategy names or .toml paths (at least two), comma-separated or repeated.",
    ),
    games: str = typer.Option(
        "2000", "--games", "-n", metavar="N",
        help="Games per pair of strategies (rounded up to even); 1e4 and 10_000 work.",
    ),
    seed: str = typer.Option("0", "--seed", metavar="SEED", help="Tournament seed, 0..2147483647."),
    jobs: str = typer.Option("1", "--jobs", "-j", metavar="J", help="Worker processes."),
    out: str | None = typer.Option(
        None, "--out", metavar="DIR", help="Output folder (default runs/tournament-<timestamp>).",
    ),
    deck: str = typer.Option("base", "--deck", metavar="NAME|FILE", help="Deck name or file."),
    rules: str = typer.Option("default", "--rules", metavar="NAME|FILE",
                              help="Rules name or file."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar; tables only."),
    strategy_file: str | None = typer.Option(
        None, "--strategy-file", metavar="FILE.py",
        help="A compiled strategy plugin (docs/strategy-plugins.md) whose NAME may then be "
             "used in --strategies (a path works too).",
    ),
) -> None:
    """Round-robin tournament: win-rate matrix with 95% intervals and Elo ratings."""
    from datetime import datetime
    from pathlib import Path

    from targi_sim import load_deck, load_rules
    from targi_sim.players.strategy import register_plugin, resolve_strategy
    from targi_sim.strength.tournament import check_names, even_games, run_tournament, warm_up

    from .tournament import claim_default_out_dir, parse_jobs, parse_strategy_list, render

    started = datetime.now()

    try:
        if strategy_file:
            register_plugin(strategy_file)
        names = parse_strategy_list(strategies)
        n_games = parse_games(games)
        run_seed = parse_seed(seed)
        n_jobs = parse_jobs(jobs)
        resolved = [resolve_strategy(n) for n in names]
        deck_obj, rules_obj = load_deck(deck), load_rules(rules)
        check_names(resolved)
    except (ParseError, UsageError, DataError, ValueError) as exc:
        raise _fail(str(exc)) from None
    out_dir = Path(out) if out else None
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise _fail(f"--out {str(out_dir)!r} exists and is not a folder")

    err = Console(stderr=True)
    n_pairs = len(resolved) * (len(resolved) - 1) // 2
    total = n_pairs * even_games(n_games)
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        bar.advance(task, n)

    try:
        t0 = time.perf_counter()
        load_engine(err, quiet, warm_up(resolved, deck_obj, rules_obj))
        t1 = time.perf_counter()
        with _progress(err, quiet) as bar:
            task = bar.add_task(f"{n_pairs} pairs", total=total)
            result = run_tournament(resolved, n_games, seed=run_seed, jobs=n_jobs,
                                    deck=deck_obj, rules=rules_obj, progress=advance)
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM or SIGHUP (cli/signals.py)
        typer.echo(f"\nInterrupted after {done:,} of {total:,} games; nothing written.",
                   err=True)
        raise typer.Exit(signals.exit_code(exc)) from None
    try:
        out_dir = out_dir or claim_default_out_dir(started)  # claimed only once there is data
        result.write(out_dir)
    except OSError as exc:
        raise _fail(f"cannot write to {out_dir or 'runs/'}: {exc}") from None
    render(Console(), result, setup_seconds=t1 - t0, out_dir=out_dir)


@app.command()
def version() -> None:
    """Print the targi-sim version and the versions of the libraries it runs on."""
    import numba
    import numpy

    from targi_sim.engine import cache_dir

    typer.echo(
        f"targi-sim {targi_sim.__version__} (python {platform.python_version()}, "
        f"numba {numba.__version__}, numpy {numpy.__version__})"
    )
    typer.echo(f"compile cache: {cache_dir()}")




def main() -> None:
    """Console-script entry point (after cli/launch.py has imported this module)."""
    signals.install()
    try:
        app()
    except KeyboardInterrupt as exc:  # e.g. a stop before a command took over
        typer.echo("\nInterrupted.", err=True)
        raise SystemExit(signals.exit_code(exc)) from None
    except StrategyError as exc:  # a strategy misbehaved in play: one line, exit code 1
        typer.echo(f"Error: {exc}", err=True)
        raise SystemExit(1) from None
    except SystemExit as exc:
        stop = _stray_stop(exc)
        if stop is not None:
            typer.echo("\nInterrupted.", err=True)
            raise SystemExit(signals.exit_code(stop)) from None
        raise


def _stray_stop(exc: SystemExit) -> KeyboardInterrupt | None:
    """The stop behind a silent exit: typer turns a KeyboardInterrupt that no command
    handler caught into `Exit(130) from` it, printing nothing. A command's own
    `typer.Exit(...) from None`, after its own message, has no such cause."""
    exit_ = exc.__context__
    cause = getattr(exit_, "__cause__", None)
    return cause if isinstance(cause, KeyboardInterrupt) else None


if __name__ == "__main__":
    main()
