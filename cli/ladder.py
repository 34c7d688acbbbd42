"""`targi-sim ladder`: parses the options, calls targi_sim.strength.ladder and prints;
rerunning the same command resumes (complete runs and chunks are kept)."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from . import options
from .helptext import epilog

LADDER_EPILOG = epilog("""\
Examples:

  targi-sim ladder                                   # the default rungs, 20,000 games a run

  targi-sim ladder --rungs random,greedy,balanced --games 5000

  targi-sim ladder --deck ./my-deck.toml --out runs/ladder-my-deck

  targi-sim ladder --rungs greedy,balanced --games 4000 --width 1   # rates to +-1 point

  targi-sim ladder --rungs random,greedy --games 2000 --fixed   # every run all its games

Plays each rung against itself (a mirror run) and against the rung below (a cross run,
the stronger rung in seat 0), plus the top against the bottom, all on the same deals
(the same --seed), each into an ordinary run directory under OUT/runs/ (rerun the same
command to resume; `targi-sim report` works on each). A mirror plays --games games
(--search-games with a search seat: montecarlo-tuned plays 10-20 games/s a core,
expert about 1). A cross run plays until its win rate's 95% interval (the deal as unit)
is within --width points either side, looking every twentieth of its games, or until
it has played them all: by default the width a fixed run of that many games gives at a
50% rate (+-0.7 points for 20,000 games, +-4.9 for 400), so a one-sided rung stops
early and no interval is wider than the fixed run's widest; --fixed plays them all.
Prints the games each cross run used. Then writes OUT/report/report.html
(and .md, tables): skill depth (each rung's win rate against the rung below, with 95%
intervals), the luck index (the bottom rung's share of points against the top), the
game shape in each mirror, and the stability of conclusions (first player, raid impact,
every symbol's and card's grade per rung) with a flag on each one that changes sign, or
grade by two letters or more, between the two strongest rungs and between the top rung
and the strongest rung that does not search; each grade move is tested (Holm over the
cards): significant, or the noise of two finite runs.
""")


def register(app: typer.Typer) -> None:
    app.command(epilog=LADDER_EPILOG)(ladder)


Rungs = Annotated[list[str], typer.Option(
    "--rungs", metavar="A,B,...", help="Strategies from weakest to strongest (names or "
    "files), at least two; comma-separated or repeated.")]
Games = Annotated[str, typer.Option("--games", "-n", metavar="N",
                                    help="Games per run; 1e4 and 10_000 work.")]
SearchGames = Annotated[str, typer.Option(
    "--search-games", metavar="N", help="Games of a run with a search seat "
    "(montecarlo-tuned, expert; at most --games).")]
Seed = Annotated[str, typer.Option("--seed", metavar="SEED", help="Seed of every run.")]
Jobs = Annotated[str, typer.Option("--jobs", "-j", metavar="J",
                                   help="Worker processes (0: every CPU).")]
Out = Annotated[str | None, typer.Option(
    "--out", metavar="DIR", help="Output folder (default runs/ladder-seed<S>).")]
Force = Annotated[bool, typer.Option(
    "--force", help="Replace runs in OUT that were played differently.")]
Width = Annotated[str, typer.Option(
    "--width", metavar="POINTS", help="Stop a cross run when its 95% interval is within "
    "this many percentage points either side (auto: the widest a fixed run of its games "
    "gives).")]
Fixed = Annotated[bool, typer.Option(
    "--fixed", help="Every run plays all its games (no stopping).")]
DEFAULT_RUNGS = "random,greedy,balanced,tuned,montecarlo-tuned,expert"


def ladder(rungs: Rungs = [DEFAULT_RUNGS], games: Games = "20000",  # noqa: B006
           search_games: SearchGames = "400", seed: Seed = "0", jobs: Jobs = "0",
           out: Out = None, deck: options.Deck = "base", rules: options.Rules = "default",
           force: Force = False, width: Width = "auto", fixed: Fixed = False,
           backend: options.Backend = "loky", scheduler: options.Scheduler = None,
           quiet: options.Quiet = False) -> None:
    """Skill ladder: do balance conclusions hold at every level of play?"""
    from rich.console import Console

    from targi_sim.strength.ladder import plan_ladder, run_ladder

    from .common import progress_bar, stops, usage_errors
    from .parse import parse_games, parse_seed, parse_whole_number, split_names, sweep_jobs

    with usage_errors(ladder):
        names = split_names(rungs)
        n_games = parse_games(games)
        n_search = parse_whole_number(search_games, "--search-games", 2, 10**7)
        run_seed = parse_seed(seed)
        plan = plan_ladder(names, n_games, n_search)
        n_jobs = sweep_jobs(jobs, backend, scheduler, cap=False)
        half_width = parse_width(width)
    out_dir = out or f"runs/ladder-seed{run_seed}"
    t0 = time.perf_counter()
    with (stops(f"Interrupted; completed chunks are kept in {out_dir}/runs; rerun the same "
                "command to resume.", command=ladder),
          progress_bar(Console(stderr=True), quiet) as bar):
        tasks = {r.key: bar.add_task(r.key, total=r.games) for r in plan}

        def step(key: str, done: int, total: int) -> None:
            if key not in tasks:  # the luck-index replays of a cross match
                tasks[key] = bar.add_task(key, total=total)
            bar.update(tasks[key], completed=done)

        result = run_ladder(names, out_dir, games=n_games, search_games=n_search, seed=run_seed,
                            deck=deck, rules=rules, jobs=n_jobs, force=force, progress=step,
                            backend=backend, scheduler=scheduler, stop=not fixed,
                            half_width=half_width)
    show_ladder(result, time.perf_counter() - t0)


def parse_width(text: str) -> float | None:
    """--width in percentage points as a fraction; None for auto."""
    from .parse import parse_fraction

    if text.strip().lower() == "auto":
        return None
    return parse_fraction(text, "--width", 0.01, 50.0) / 100


def show_ladder(result, seconds: float) -> None:
    """Skill depth (with the games each cross run used), the luck index, the conclusions
    that change, the report."""
    from .report import shown

    depth = result.tables["skill_depth"].filter("adjacent")
    for r in depth.iter_rows(named=True):
        used = (f"{r['games']:,} games" if r["games"] >= r["games_cap"] else
                f"{r['games']:,} of {r['games_cap']:,} games: narrow enough")
        typer.echo(f"{r['rung']} vs {r['against']}: {r['win_rate']:.1%} "
                   f"({r['win_rate_lo']:.1%}..{r['win_rate_hi']:.1%}, {used})")
    for r in result.tables["luck_index"].iter_rows(named=True):
        typer.echo(f"luck index ({r['bottom']} against {r['top']}): {r['luck_index']:.3f}")
    for (lower, upper), counts in zip(result.pairs, result.compared.values(), strict=True):
        typer.echo(f"conclusions compared between {lower} and {upper}: the first player's "
                   f"rate, {counts['symbol']} symbol(s) and {counts['card']} card(s) graded "
                   "at both")
    typer.echo(f"{len(result.flags)} conclusion(s) change (a grade moved by two letters or "
               "more: significant, or the noise of two finite runs)")
    for f in result.flags[:10]:
        typer.echo(f"  {f}")
    typer.echo(f"ladder written in {seconds:.1f} s: {shown(result.out / 'report')}"
               "/report.html")
