"""`targi-sim replay`: one game, from a run directory or from a seed, round by round."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from .helptext import epilog

REPLAY_EPILOG = epilog("""\
Examples:

  targi-sim replay runs/balanced-vs-balanced-100000-seed0 --game 17

  targi-sim replay --seed 42 --p0 balanced --p1 random

  targi-sim replay --seed 42 --p0 greedy --p1 random --first 1 --deck ./my-deck.toml

  targi-sim replay runs/balanced-vs-balanced-100000-seed0 --game 17 --html game17.html

With --html the game is written as one self-contained HTML page (board, hands,
displays, every decision with a step button, the score by round) instead of printed.

From a run directory the game is replayed from its seed with the deck, rules and
strategies stored in the run's manifest, and checked against the rows the run
logged (the last line says whether they match).
""")


def register(app: typer.Typer) -> None:
    """Add the `replay` command to the app."""
    app.command(epilog=REPLAY_EPILOG)(replay)


RunDir = Annotated[str | None, typer.Argument(
    metavar="[RUN_DIR]", help="A run directory written by `targi-sim run`.")]
GameId = Annotated[str | None, typer.Option("--game", "-g", metavar="ID",
                                            help="Game id within the run (0-based).")]
Seed = Annotated[str | None, typer.Option(
    "--seed", metavar="SEED", help="Replay the game with this seed (no run needed).")]
P0 = Annotated[str, typer.Option("--p0", metavar="NAME|FILE",
                                 help="Seat 0 strategy (with --seed).")]
P1 = Annotated[str, typer.Option("--p1", metavar="NAME|FILE",
                                 help="Seat 1 strategy (with --seed).")]
First = Annotated[str, typer.Option("--first", metavar="0|1",
                                    help="Seat that starts round 1 (with --seed).")]
Deck = Annotated[str, typer.Option("--deck", metavar="NAME|FILE", help="Deck (with --seed).")]
Rules = Annotated[str, typer.Option("--rules", metavar="NAME|FILE",
                                    help="Rules (with --seed).")]
StrategyFiles = Annotated[list[str] | None, typer.Option(
    "--strategy-file", metavar="FILE.py", help="The .py strategy a run's seat played (repeat "
    "for two); its code must be the code the run recorded. Loading it runs it.")]
Html = Annotated[str | None, typer.Option(
    "--html", metavar="FILE", help="Write the game as a self-contained HTML page (a "
    "step-by-step viewer) instead of printing it.")]


def replay(run_dir: RunDir = None, game: GameId = None, seed: Seed = None,
           p0: P0 = "balanced", p1: P1 = "balanced", first: First = "0",
           deck: Deck = "base", rules: Rules = "default",
           strategy_file: StrategyFiles = None, html: Html = None) -> None:
    """Print one game round by round: board, decisions, raids, holdings, final score."""
    from .common import usage_errors
    from .replay_text import render_game

    console = Console(soft_wrap=True)
    with usage_errors(replay):
        record, title, diffs = replayed(run_dir, game, seed, p0, p1, first, deck, rules,
                                        tuple(strategy_file or ()))
    if html is not None:
        from .replay_html import write_html

        write_html(console, record, title, html)
    else:
        render_game(console, record, record.final_state.deck, title)
    notes(console, record)
    if diffs is not None:
        if diffs:
            console.print("[red]The replay differs from the logged game:[/red] "
                          + "; ".join(diffs), highlight=False)
            raise typer.Exit(1)
        console.print("Replay matches the run's logged rows for this game "
                      "(games, rounds, acquisitions, offers, raids, goods).", highlight=False)


def replayed(run_dir, game, seed, p0, p1, first, deck, rules, strategy_files):
    """(record, title, differences from the logged rows or None): a run's game, or a
    game played from a seed."""
    from targi_sim import play_game
    from targi_sim.runner.replay import logged_differences, logged_rows, replay_logged_game

    from .parse import ParseError, parse_whole_number

    if run_dir is not None:
        if seed is not None:
            raise ParseError("give either RUN_DIR with --game, or --seed; not both")
        if game is None:
            raise ParseError("--game ID is needed with a run directory")
        game_id = parse_whole_number(game, "--game", 0, 2**40)
        record, ref = replay_logged_game(run_dir, game_id, strategy_files)
        return record, f"Game {game_id} of {run_dir}", logged_differences(record,
                                                                          logged_rows(ref))
    if seed is None:
        raise ParseError("give a run directory and --game ID, or --seed SEED")
    if first not in ("0", "1"):
        raise ParseError(f"--first must be 0 or 1; got {first!r}")
    s = parse_whole_number(seed, "--seed", 0, 2**63 - 1)
    record = play_game(s, (p0, p1), deck=deck, rules=rules, first_player=int(first))
    return record, f"Game with seed {s}", None


def notes(console: Console, record) -> None:
    """What the record could not show: a full decision log, answers the engine refused."""
    from targi_sim.play.games import MAX_TRACE_ROWS

    if record.trace.height >= MAX_TRACE_ROWS:  # the decision log is full: rows were dropped
        console.print(f"Note: only the first {MAX_TRACE_ROWS:,} decisions of this game are "
                      "shown (its deck lets a game make more).", highlight=False, markup=False)
    for p, count in enumerate(record.illegal_answers):
        if count:
            console.print(f"Note: seat {p} ({record.strategies[p]}) answered {count} "
                          "decision(s) with an option it was not offered; the engine played "
                          "the first option instead.", highlight=False, markup=False)
