"""`targi-sim ladder`: a thin layer over targi_sim.strength.ladder."""

from __future__ import annotations

import time

import typer

from .common import backend_option, scheduler_option
from .helptext import epilog

LADDER_EPILOG = epilog("""\
Examples:

  targi-sim ladder                                   # the default rungs, 20,000 games a run

  targi-sim ladder --rungs random,greedy,balanced --games 5000

  targi-sim ladder --deck ./my-deck.toml --out runs/ladder-my-deck

Plays each rung against itself (a mirror run) and against the rung below (a cross run,
the stronger rung in seat 0), plus the top against the bottom, all on the same deals
(the same --seed), each into an ordinary run directory under OUT/runs/ (rerun the same
command to resume; `targi-sim report` works on each). Runs with a search seat play
--search-games games (montecarlo-tuned plays 10-20 games/s a core, expert about 1: the
default ladder takes about 20 minutes on 2 cores). Then writes OUT/report/report.html
(and .md, tables): skill depth (each rung's win rate against the rung below, with 95%
intervals), the luck index (the bottom rung's share of points against the top), the
game shape in each mirror, and the stability of conclusions (first player, raid impact,
every symbol's and card's grade per rung) with a flag on each one that changes sign, or
grade by two letters or more, between the two strongest rungs.
""")


def register(app: typer.Typer) -> None:
    @app.command(epilog=LADDER_EPILOG)
    def ladder(
        rungs: list[str] = typer.Option(  # noqa: B008 - typer's idiom
            ["random,greedy,balanced,tuned,montecarlo-tuned,expert"], "--rungs",
            metavar="A,B,...",
            help="Strategies from weakest to strongest (names or files), at least two; "
                 "comma-separated or repeated."),
        games: str = typer.Option("20000", "--games", "-n", metavar="N",
                                  help="Games per run; 1e4 and 10_000 work."),
        search_games: str = typer.Option(
            "400", "--search-games", metavar="N",
            help="Games of a run with a search seat (montecarlo-tuned, expert; at most "
                 "--games)."),
        seed: str = typer.Option("0", "--seed", metavar="SEED", help="Seed of every run."),
        jobs: str = typer.Option("0", "--jobs", "-j", metavar="J",
                                 help="Worker processes (0: every CPU)."),
        out: str | None = typer.Option(None, "--out", metavar="DIR",
                                       help="Output folder (default runs/ladder-seed<S>)."),
        deck: str = typer.Option("base", "--deck", metavar="NAME|FILE", help="Deck."),
        rules: str = typer.Option("default", "--rules", metavar="NAME|FILE", help="Rules."),
        force: bool = typer.Option(False, "--force",
                                   help="Replace runs in OUT that were played differently."),
        backend: str = backend_option(),
        scheduler: str | None = scheduler_option(),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    ) -> None:
        """Skill ladder: do balance conclusions hold at every level of play?"""
        import os

        from rich.console import Console

        from targi_sim import DataError, InputError, UsageError
        from targi_sim.strength.ladder import plan_ladder, run_ladder

        from .common import fail, progress_bar
        from .parse import ParseError, parse_games, parse_seed, parse_whole_number, split_names
        from .report import shown
        from .signals import exit_code

        try:
            names = split_names(rungs)
            n_games = parse_games(games)
            n_search = parse_whole_number(search_games, "--search-games", 2, 10**7)
            run_seed = parse_seed(seed)
            n_jobs = parse_whole_number(jobs, "--jobs", 0, 4096) or (os.cpu_count() or 1)
            plan = plan_ladder(names, n_games, n_search)
            from targi_sim.runner.dispatch import check_options

            check_options(n_jobs, backend, scheduler)
        except ParseError as exc:
            raise fail(str(exc)) from None
        except (UsageError, DataError, InputError, ValueError) as exc:
            raise fail(str(exc)) from None
        out_dir = out or f"runs/ladder-seed{run_seed}"
        err = Console(stderr=True)
        t0 = time.perf_counter()
        try:
            with progress_bar(err, quiet) as bar:
                tasks = {r.key: bar.add_task(r.key, total=r.games) for r in plan}

                def step(key: str, done: int, total: int) -> None:
                    if key not in tasks:  # the luck-index replays of a cross match
                        tasks[key] = bar.add_task(key, total=total)
                    bar.update(tasks[key], completed=done)

                result = run_ladder(names, out_dir, games=n_games, search_games=n_search,
                                    seed=run_seed, deck=deck, rules=rules, jobs=n_jobs,
                                    force=force, progress=step, backend=backend,
                                    scheduler=scheduler)
        except (InputError, UsageError, DataError) as exc:
            raise fail(str(exc)) from None
        except KeyboardInterrupt as exc:
            typer.echo(f"\nInterrupted; completed chunks are kept in {out_dir}/runs; rerun "
                       "the same command to resume.", err=True)
            raise typer.Exit(exit_code(exc)) from None
        depth = result.tables["skill_depth"].filter("adjacent")
        for r in depth.iter_rows(named=True):
            typer.echo(f"{r['rung']} vs {r['against']}: {r['win_rate']:.1%} "
                       f"({r['win_rate_lo']:.1%}..{r['win_rate_hi']:.1%}, {r['games']:,} games)")
        for r in result.tables["luck_index"].iter_rows(named=True):
            typer.echo(f"luck index ({r['bottom']} against {r['top']}): {r['luck_index']:.3f}")
        typer.echo(f"{len(result.flags)} conclusion(s) change between the two strongest rungs "
                   f"(compared: the first player's rate, {result.compared['symbol']} "
                   f"symbol(s) and {result.compared['card']} card(s) graded at both)")
        for f in result.flags[:10]:
            typer.echo(f"  {f}")
        typer.echo(f"ladder written in {time.perf_counter() - t0:.1f} s: "
                   f"{shown(result.out / 'report')}/report.html")
