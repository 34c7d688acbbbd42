"""`targi-sim check init`: measure a deck and write a baseline file ready to commit
(targi_sim.check.init_baseline). Exit codes: 0 written, 2 bad input, 130 on Ctrl-C."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

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
    sub.command(epilog=INIT_EPILOG)(init)
    return typer.main.get_command(sub)


Deck = Annotated[str, typer.Option("--deck", metavar="DECK",
                                   help="Deck name or .toml path to measure.")]
Out = Annotated[Path, typer.Option(
    "--out", "-o", metavar="FILE", help="Baseline file to write (refused if it exists, "
    "unless --force; missing folders are made).")]
Strategies = Annotated[list[str], typer.Option(
    "--strategies", metavar="A,B", help="Strategies whose mirrors are measured (names or "
    "paths), comma-separated or repeated.")]
Rules = Annotated[str, typer.Option("--rules", metavar="RULES",
                                    help="Rules name or .toml path.")]
Games = Annotated[str, typer.Option("--games", metavar="N",
                                    help="Games measured per expectation.")]
MaxGames = Annotated[str, typer.Option(
    "--max-games", metavar="N",
    help="The check's game cap per expectation (deck_drift: its fixed number of games).")]
BatchGames = Annotated[str, typer.Option(
    "--batch-games", metavar="N", help="Games between two looks of a test (even).")]
Kinds = Annotated[str, typer.Option("--kinds", metavar="K,K",
                                    help="Kinds of expectation to write, comma-separated.")]
Jobs = Annotated[str, typer.Option("--jobs", "-j", metavar="J|auto",
                                   help="Worker processes (auto: every CPU).")]
Force = Annotated[bool, typer.Option("--force", help="Overwrite an existing --out.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
ALL_KINDS = ",".join(INIT_KINDS)


def init(deck: Deck, out: Out, strategies: Strategies = ["balanced"],  # noqa: B006
         rules: Rules = "default", games: Games = "1e5", max_games: MaxGames = "40000",
         batch_games: BatchGames = "1000", kinds: Kinds = ALL_KINDS,
         jobs: Jobs = "auto", force: Force = False, quiet: Quiet = False) -> None:
    """Measure a deck and write a baseline file for `targi-sim check`."""
    from targi_sim._utils.atomic import atomic_write_text
    from targi_sim.check.init_baseline import InitConfig, init_baseline, prepare_init
    from targi_sim.check.playing import prepare, worker_pool

    from .common import load_engine, progress_bar, stops, usage_errors
    from .parse import parse_check_jobs, parse_whole_number, split_names

    with usage_errors(init):
        n_jobs = parse_check_jobs(jobs)
        config = InitConfig(
            deck=deck, strategies=tuple(split_names(strategies)), rules=rules,
            games=parse_whole_number(games, "--games", 2, 2**31),
            max_games=parse_whole_number(max_games, "--max-games", 2, 2**31),
            batch_games=parse_whole_number(batch_games, "--batch-games", 2, 1_000_000),
            kinds=tuple(k.strip() for k in kinds.split(",") if k.strip()))
        plan = prepare_init(config, out, force)
    err = Console(stderr=True)
    with stops("Interrupted; no file written.", f"cannot write {out}", init):
        load_engine(err, quiet, [prepare(e).match for e in plan[:1]])
        with worker_pool(n_jobs) as parallel, progress_bar(err, quiet) as bar:
            def progress(name, total):
                task = bar.add_task(f"measure {name}", total=total)
                return lambda n, t=task: bar.advance(t, n)

            text, results, skipped = init_baseline(config, out, parallel, progress=progress)
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out, text)
    console = Console()
    for note in skipped:
        console.print(f"not guarded: {escape(note)}", highlight=False)
    console.print(f"wrote {escape(str(out))}: {len(results)} expectations. Check it with "
                  f"`targi-sim check {escape(str(out))}` and commit it.", highlight=False)
