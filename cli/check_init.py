"""`targi-sim check init`: measure a deck and write a baseline file ready to commit
(targi_sim.check.init_baseline). Exit codes: 0 written, 2 bad input, 130 on Ctrl-C."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from targi_sim.check.init_baseline import INIT_KINDS

from .helptext import CONTEXT, epilog

INIT_EPILOG = epilog("""\
Examples:

  targi-sim check init --deck my-deck.toml --out baselines/my-deck.toml

  targi-sim check init --deck my-deck.toml --strategies tuned,balanced --games 2e5 --out b.toml

Writes, for each strategy's mirror on the deck: the first player's rate, the game
shape (mean rounds, full-display share, mean score, tie-break share), each raid's
mean VP-equivalent loss and a deck_drift guard over every tribe card; with two or
more strategies also each one's win rate against the next. Values are measured on
--games games each; tolerances are what the test detects at --max-games; alpha is
split over the expectations. Then: `targi-sim check baselines/my-deck.toml`, and
`--update` after a deliberate change. See docs/check.md and docs/ci.md.
""")


def init_command():
    """The click command of `check init` (cli/check.py dispatches to it)."""
    sub = typer.Typer(add_completion=False, rich_markup_mode=None, context_settings=CONTEXT)

    @sub.command(epilog=INIT_EPILOG)
    def init(
        deck: str = typer.Option(..., "--deck", metavar="DECK",
                                 help="Deck name or .toml path to measure."),
        out: Path = typer.Option(..., "--out", "-o", metavar="FILE",  # noqa: B008
                                 help="Baseline file to write (refused if it exists, "
                                      "unless --force; missing folders are made)."),
        strategies: list[str] = typer.Option(  # noqa: B008 - typer's idiom
            ["balanced"], "--strategies", metavar="A,B",
            help="Strategies whose mirrors are measured (names or paths), "
                 "comma-separated or repeated."),
        rules: str = typer.Option("default", "--rules", metavar="RULES",
                                  help="Rules name or .toml path."),
        games: str = typer.Option("1e5", "--games", metavar="N",
                                  help="Games measured per expectation."),
        max_games: str = typer.Option("40000", "--max-games", metavar="N",
                                      help="The check's game cap per expectation "
                                           "(deck_drift: its fixed number of games)."),
        batch_games: str = typer.Option("1000", "--batch-games", metavar="N",
                                        help="Games between two looks of a test (even)."),
        kinds: str = typer.Option(",".join(INIT_KINDS), "--kinds", metavar="K,K",
                                  help="Kinds of expectation to write, comma-separated."),
        jobs: str = typer.Option("auto", "--jobs", "-j", metavar="J|auto",
                                 help="Worker processes (auto: every CPU)."),
        force: bool = typer.Option(False, "--force", help="Overwrite an existing --out."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    ) -> None:
        """Measure a deck and write a baseline file for `targi-sim check`."""
        from targi_sim import DataError, UsageError
        from targi_sim._utils.atomic import atomic_write_text
        from targi_sim.check.init_baseline import InitConfig, init_baseline
        from targi_sim.check.playing import worker_pool

        from .common import fail, progress_bar
        from .parse import ParseError, parse_check_jobs, parse_whole_number, split_names
        from .signals import exit_code

        try:
            n_jobs = parse_check_jobs(jobs)
            n_games = parse_whole_number(games, "--games", 2, 2**31)
            cap = parse_whole_number(max_games, "--max-games", 2, 2**31)
            batch = parse_whole_number(batch_games, "--batch-games", 2, 1_000_000)
            if batch % 2:
                raise ParseError(f"--batch-games must be even (whole seat-swapped pairs); "
                                 f"got {batch_games!r}")
            if cap < batch:
                raise ParseError(f"--max-games ({cap}) must be at least --batch-games ({batch})")
            names = tuple(split_names(strategies))
            if not names:
                raise ParseError("--strategies must name at least one strategy")
            if out.exists() and not force:
                raise ParseError(f"--out {out}: the file exists; use --force to overwrite it")
            if out.is_dir():
                raise ParseError(f"--out {out}: is a folder; give a file name")
            # missing folders are made on writing; an existing file in their place is refused
            found = next(p for p in out.absolute().parents if p.exists())
            if not found.is_dir():
                raise ParseError(f"--out {out}: {found} is a file, not a folder")
            chosen = tuple(k.strip() for k in kinds.split(",") if k.strip())
            bad = [k for k in chosen if k not in INIT_KINDS]
            if bad or not chosen:
                raise ParseError(f"--kinds must be a comma-separated list of "
                                 f"{', '.join(INIT_KINDS)}; got {kinds!r}")
            config = InitConfig(deck=deck, strategies=names, rules=rules, games=n_games,
                                max_games=cap, batch_games=batch, kinds=chosen)
        except ParseError as exc:
            raise fail(str(exc)) from None

        err, console = Console(stderr=True), Console()
        try:
            from targi_sim.check.init_baseline import planned
            from targi_sim.check.playing import prepare
            from targi_sim.game.deck import load_deck
            from targi_sim.game.rules import load_rules
            from targi_sim.players.strategy import resolve_strategy

            from .common import load_engine

            for name in names:  # named in the message as typed, before any measuring
                resolve_strategy(name)
            load_rules(rules)
            plan = planned(config, load_deck(deck))
            load_engine(err, quiet, [prepare(e).match for e in plan[:1]])
            with worker_pool(n_jobs) as parallel, progress_bar(err, quiet) as bar:
                def progress(name, total):
                    task = bar.add_task(f"measure {name}", total=total)
                    return lambda n, t=task: bar.advance(t, n)

                text, results, skipped = init_baseline(config, out, parallel,
                                                       progress=progress)
        except (UsageError, DataError, ValueError) as exc:
            raise fail(str(exc)) from None
        except KeyboardInterrupt as exc:
            typer.echo("\nInterrupted; no file written.", err=True)
            raise typer.Exit(exit_code(exc)) from None
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(out, text)
        except OSError as exc:
            raise fail(f"cannot write {out}: {exc}") from None
        for note in skipped:
            console.print(f"not guarded: {escape(note)}", highlight=False)
        console.print(f"wrote {escape(str(out))}: {len(results)} expectations. Check it with "
                      f"`targi-sim check {escape(str(out))}` and commit it.", highlight=False)

    return typer.main.get_command(sub)
