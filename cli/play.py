"""`targi-sim play`: a person plays against a strategy, in the terminal or (--browser) in a
local web page whose games are kept as a run directory (cli/play_browser.py).

A designer's way to feel a variant before simulating it: the board as the replay draws
it, the options numbered, the other seat's moves narrated. It is a targi_sim.play.session
game with the person's seat decided from the keyboard (or the page).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from .helptext import epilog

PLAY_EPILOG = epilog("""\
Examples:

  targi-sim play                                # you (seat 0) against balanced

  targi-sim play --vs greedy --seat 1 --seed 7

  targi-sim play --vs balanced --deck ./my-deck.toml --rules raid-pay-what-they-have

  targi-sim play --browser --vs expert@20     # in a web page

  targi-sim play --browser --deck ./my-deck.toml --out runs/mine --no-open

In the terminal: at each of your decisions, type the number of an option (Enter takes
option 0), `b` to see the board again, or `q` to stop. The other seat's moves are
printed as they happen. A game is a pure function of the seed: the same seed and the
same answers replay the same game.

With --browser: a local server (127.0.0.1 only) serves a page with the board, your
hand, display and resources, the bot's holdings, each legal option as a button (or a
click on the border card) and the bot's moves one by one. The URL, with its random
token, is the one line printed on stdout. You are seat 0; the seat starting round 1
alternates between games. Each finished game is added to the run directory --out
(default runs/playtest-<deck>): `targi-sim report`, `compare`, `replay` and
`calibrate --playtest DIR` read it. Every answer is saved at once: stop with Ctrl-C
at any time and the unfinished game goes on where it was next time. Game k of the
directory is dealt as `targi-sim run --seed S --pairing one_per_deal` deals its game
k. For an existing directory, --vs, --deck, --rules and --seed default to its own
(giving other ones is an error: choose another --out). docs/play.md.
""")

SEAT_MARK = ("A", "B")
CELL_W = 14  # 5 columns of 14 + borders = 76 characters: fits an 80-column terminal


def board_lines(view) -> list[str]:
    """The 5x5 board of a View: border cards with robber (R) and Targis (A/B), the
    centre's face-up cards (or 'face down') with tribe markers."""
    from .replay_text import BOARD_POS

    grid = [["" for _ in range(5)] for _ in range(5)]
    for b in view.border:
        r, c = BOARD_POS[b.position + 1]
        mark = (" R" if b.robber else "") + (f" {SEAT_MARK[b.targi]}" if b.targi is not None
                                             else "")
        grid[r][c] = f"{b.position + 1:>2} {b.name}"[: CELL_W - len(mark)] + mark
    for cell in view.centre:
        r, c = cell.index // 3 + 1, cell.index % 3 + 1
        if cell.kind == "empty":
            text = "(empty)"
        elif not cell.face_up:
            text = f"{cell.kind}, face down"
        else:
            text = cell.card.name
        mark = f" {SEAT_MARK[cell.marker]}" if cell.marker is not None else ""
        grid[r][c] = text[: CELL_W - len(mark)] + mark
    line = "+" + "+".join("-" * CELL_W for _ in range(5)) + "+"
    out = [line]
    for r in range(5):
        out.append("|" + "|".join(f"{grid[r][c]:<{CELL_W}}" for c in range(5)) + "|")
        out.append(line)
    return out


def holdings_line(label: str, h) -> str:
    r = h.resources
    hand = h.hand
    hand_text = ("no hand card" if hand is None else "hand: unseen card" if isinstance(hand, str)
                 else f"hand: {hand.name}")
    rows = " / ".join(", ".join(c.name for c in row) or "-" for row in h.display)
    return (f"{label}: {r['salt']} salt, {r['pepper']} pepper, {r['dates']} dates, "
            f"{r['gold']} gold, {r['vp']} VP; {hand_text}; display {rows}")


def register(app: typer.Typer) -> None:
    """Add the `play` command to the app."""
    app.command(epilog=PLAY_EPILOG)(play)


Vs = Annotated[str | None, typer.Option(
    "--vs", metavar="NAME|FILE", help="The other seat's strategy (default balanced).")]
Seat = Annotated[str | None, typer.Option(
    "--seat", metavar="0|1", help="Your seat (terminal; default 0).")]
Seed = Annotated[str | None, typer.Option(
    "--seed", metavar="SEED", help="Seed of the game (default 0); with --browser, of the "
    "directory's games: game k is dealt from (SEED, k).")]
First = Annotated[str | None, typer.Option(
    "--first", metavar="0|1", help="Seat that starts round 1 (terminal; default 0).")]
Deck = Annotated[str | None, typer.Option("--deck", metavar="NAME|FILE",
                                          help="Deck (default base).")]
Rules = Annotated[str | None, typer.Option("--rules", metavar="NAME|FILE",
                                           help="Rules (default default).")]
Browser = Annotated[bool, typer.Option(
    "--browser", help="Play in a local web page; keep the games as a run directory.")]
Out = Annotated[str | None, typer.Option(
    "--out", metavar="DIR",
    help="(--browser) The run directory of your games (default runs/playtest-<deck>).")]
Port = Annotated[str | None, typer.Option(
    "--port", metavar="P", help="(--browser) Port on 127.0.0.1 (default 0: a free one).")]
NoOpen = Annotated[bool, typer.Option(
    "--no-open", help="(--browser) Do not open a browser; only print the URL.")]


def play(vs: Vs = None, seat: Seat = None, seed: Seed = None, first: First = None,
         deck: Deck = None, rules: Rules = None, browser: Browser = False, out: Out = None,
         port: Port = None, no_open: NoOpen = False) -> None:
    """Play a game against a strategy, in the terminal or in a web page (--browser)."""
    from targi_sim.play.session import new_game

    from .common import fail, usage_errors
    from .parse import parse_seed, parse_whole_number

    if browser:
        if seat is not None or first is not None:
            raise fail("--seat and --first are for the terminal game: with --browser you "
                       "are seat 0 and the first player alternates between games")
        from .play_browser import play_in_browser

        play_in_browser(vs=vs, deck=deck, rules=rules, seed=seed, out=out,
                        port=port if port is not None else "0", no_open=no_open, command=play)
        return
    if out is not None or port is not None or no_open:
        raise fail("--out, --port and --no-open go with --browser")
    with usage_errors(play):
        me = parse_whole_number(seat or "0", "--seat", 0, 1)
        first_player = parse_whole_number(first or "0", "--first", 0, 1)
        seats: dict[str, str | None] = {"p0": None, "p1": None}
        seats["p1" if me == 0 else "p0"] = vs or "balanced"
        game = new_game(parse_seed(seed or "0"), **seats, deck=deck or "base",
                        rules=rules or "default", first_player=first_player)
    TerminalGame(game, me).play(first_player)


class TerminalGame:
    """One game with a person at seat `me`: the board when a round starts, the other
    seat's moves narrated, the person's options numbered and read from the keyboard."""

    def __init__(self, game, me: int) -> None:
        from .replay_text import Narrator

        self.game, self.me = game, me
        self.console = Console(highlight=False, soft_wrap=True)
        self.deck = game.match.deck
        self.narrator = Narrator(self.deck)
        self.bot = game.match.strategies[1 - me]
        self.shown = 0

    def play(self, first_player: int) -> None:
        me, bot, game = self.me, escape(self.bot), self.game
        self.console.print(f"You are seat {me} ({SEAT_MARK[me]}); {bot} is seat {1 - me} "
                           f"({SEAT_MARK[1 - me]}). Seat {first_player} starts round 1.")
        last_round = 0
        while not game.is_over:
            self.narrate()
            if game.view(me).round != last_round:
                last_round = game.view(me).round
                self.show_board()
            game.apply(self.ask(game.decision))
        self.narrate()
        scores, w = game.scores, game.winner
        result = "a draw" if w == -1 else ("you win" if w == me else f"{bot} wins")
        self.console.print(f"\nGame over after round {game.view(me).round}: you "
                           f"{scores[me]}, {bot} {scores[1 - me]}: {result}.")

    def narrate(self) -> None:
        """The other seat's decisions since the last call."""
        history = self.game.history()
        for row in history[self.shown:]:
            if row["player"] != self.me:
                self.console.print(f"  {escape(self.bot)}: " + escape(self.narrator.decision(
                    row["decision"], row["choice"], row["context"], {})))
        self.shown = len(history)

    def show_board(self) -> None:
        view, bot = self.game.view(self.me), escape(self.bot)
        self.console.print(f"\nRound {view.round}; robber on {view.robber + 1} "
                           f"{escape(self.deck.border_names[view.robber])}; "
                           f"{'you are' if view.i_am_first else bot + ' is'} first.")
        for line in board_lines(view):
            self.console.print(escape(line))
        self.console.print(escape(holdings_line("you", view.me)))
        self.console.print(escape(holdings_line(self.bot, view.opponent)))

    def ask(self, d) -> int:
        """The person's option: a number (Enter: 0), `b` shows the board, `q` stops."""
        self.console.print(f"\nYour decision: {d.type}")
        for i, option in enumerate(d.options):
            self.console.print(f"  {i}: {escape(option.text)}")
        while True:
            try:
                answer = input("> ").strip().lower() or "0"
            except EOFError:
                answer = "q"
            if answer == "q":
                self.console.print("Stopped.")
                raise typer.Exit(0)
            if answer == "b":
                self.show_board()
            elif answer.isdigit() and int(answer) < len(d.options):
                return int(answer)
            else:
                self.console.print(f"Type a number from 0 to {len(d.options) - 1}, b or q.")
