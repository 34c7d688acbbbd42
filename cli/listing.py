"""What ships and what runs it: `decks`, `rules`, `strategies` (list, show, check) and
`version`.
"""

from __future__ import annotations

import platform

import typer
from rich.console import Console

import targi_sim
from targi_sim import DataError, UsageError, available_strategies, list_decks, list_rules

from .common import fail
from .helptext import epilog
from .parse import ParseError, parse_seed


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


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
    from targi_sim.players.strategy import list_plugin_files, load_strategy

    from .strategies import list_line

    names = available_strategies()
    plugins = list_plugin_files()
    width = max([len(n) for n in names] + [len(p.stem) for p in plugins] + [14])
    typer.echo(f"Strategies in {data_dir() / 'strategies'}:")
    for name in names:
        try:
            typer.echo(list_line(name, load_strategy(name), width))
        except (DataError, UsageError) as exc:
            typer.echo(f"  {name:<{width}} (does not load: {exc})")
    for path in plugins:  # Python files: play by name too
        try:
            s = load_strategy(path)
            typer.echo(f"{list_line(path.stem, s, width)} ({path.name})")
        except (DataError, UsageError) as exc:
            typer.echo(f"  {path.stem:<{width}} (does not load: {exc})")


@strategies_app.command("show")
def strategies_show(
    name: str = typer.Argument(..., metavar="NAME|FILE",
                               help="Shipped strategy name or path to a strategy .toml file."),
) -> None:
    """Print a strategy's kind, description, file and every parameter by name."""
    from targi_sim.errors import InputError
    from targi_sim.players.strategy import resolve_strategy

    from .strategies import show

    try:
        strategy = resolve_strategy(name)  # NAME@N: a search strategy with another budget
    except (UsageError, DataError, InputError) as exc:
        raise fail(str(exc)) from None
    show(Console(), strategy)



CHECK_EPILOG = epilog("""\
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
""")


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
        raise fail(str(exc)) from None
    for line in describe(report):
        typer.echo(line)
    raise typer.Exit(0 if report.passed else 1)


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
