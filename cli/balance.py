"""`targi-sim balance`: propose card cost and VP changes toward a balanced deck
(targi_sim.balance). Parses the options into a BalanceConfig, calls the library and
prints; bad input is one `Error:` line and exit code 2; Ctrl-C keeps the Optuna study,
and rerunning the same command continues it."""

from __future__ import annotations

import shlex
import sys
import time
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from . import options
from .helptext import epilog

BALANCE_EPILOG = epilog("""\
Examples:

  targi-sim balance --deck base --jobs 2 --out balance/base

  targi-sim balance --levels balanced,tuned --jobs 2        # balanced at two levels

  targi-sim balance --levels balanced,tuned --economy economy-space --jobs 2

  targi-sim balance --deck ./my-deck.toml --strategies balanced,greedy --max-changes 4

The search (Optuna's TPE sampler) proposes edits of at most --max-changes classes of
identical printed tribe cards (an edit changes every copy): each class's printed VP
and its cost in each good and gold may move by one; with --economy (or `economy` in
the settings file) the open economy values of a calibration space file may change
too (data/balance/default.toml: the space, which cards are frozen or meant to differ,
and the objective's weighted terms — the card-value spread among classes of equal VP,
cards never or always taken, the first-player rate's distance from 50%, tie-breaks,
game length, and a penalty per change). Each level of --levels plays mirror matches;
every heuristic level after the first is re-tuned for each candidate deck (warm
start, --retune-budget games) before it is measured, and the levels' objectives
combine into one (the worst level by default). Every candidate plays the same deals
(common random numbers) block by block, and candidates out of contention stop early
(successive halving); with re-tuned levels, the fixed levels play first and a
candidate they already score no better than the best stops before its re-tunes (it
cannot win). The best proposal is written as FOLDER/proposal.toml, every
changed field commented with its old value, and confirmed on fresh seeds: base and
proposal play the same new deals at every level, and FOLDER/validation.md (and .html)
gives every term's change per level with a 95% paired-bootstrap interval over deals,
the causal card-value spread from forked play, and the game shape against the
calibration targets. Rerunning a stopped command continues its search
(docs/balance.md).
""")


def register(app: typer.Typer) -> None:
    app.command(epilog=BALANCE_EPILOG)(balance)


def _opt(flag: str, text: str, metavar: str = "N", *short: str):
    return typer.Option(flag, *short, metavar=metavar, help=text)


Strategies = Annotated[list[str], _opt(
    "--strategies", "Fixed players whose mirror matches measure each candidate (never "
    "re-tuned; default balanced); comma-separated or repeated.", "A,B,...", "-s")]
Levels = Annotated[list[str], _opt(
    "--levels", "Levels of play, weakest first: each heuristic level after the first is "
    "re-tuned for every candidate deck (e.g. balanced,tuned).", "A,B,...", "-l")]
RetuneBudget = Annotated[str, _opt("--retune-budget", "Games of each re-tune of a --levels "
                                   "level.", "GAMES")]
RetuneStep = Annotated[str, _opt(
    "--retune-step", "First step of each re-tune in the unit cube of weights (0.001..0.5): "
    "small refines near the level's weights; the tune's own is 0.15.", "SIGMA")]
Economy = Annotated[str | None, _opt(
    "--economy", "A calibration space file (e.g. economy-space) whose values the search may "
    "change too (default: the settings file's `economy`, none).", "NAME|FILE")]
MaxChanges = Annotated[str | None, _opt(
    "--max-changes", "Most changes a proposal may make: classes of identical cards plus "
    "economy values (default: the settings file's, 6).")]
Budget = Annotated[str | None, _opt(
    "--budget", "Search games in all, re-tunes included (validation not included); default "
    "8e6, or 1e7 when --levels re-tunes a level.", "GAMES", "-n")]
Objective = Annotated[str | None, _opt(
    "--objective", "Settings file: objective weights and search space (default "
    "data/balance/default.toml).", "FILE.toml")]
Out = Annotated[str | None, _opt("--out", "Output folder (default balance/<deck>).", "FOLDER")]
BlockDeals = Annotated[str, _opt("--block-deals", "Deals per block of the race.")]
Blocks = Annotated[str, _opt("--blocks", "Blocks a candidate plays unless pruned.")]
ValidateDeals = Annotated[str, _opt("--validate-deals",
                                    "Fresh deals per match for the validation.")]
FLAGS = {"retune_sigma": "--retune-step"}


def balance(deck: options.Deck = "base", strategies: Strategies = [],  # noqa: B006
            levels: Levels = [], retune_budget: RetuneBudget = "300000",  # noqa: B006
            retune_step: RetuneStep = "0.04", economy: Economy = None,
            max_changes: MaxChanges = None, budget: Budget = None,
            objective: Objective = None, out: Out = None, seed: options.Seed = "0",
            jobs: options.Jobs = "1", block_deals: BlockDeals = "20000",
            blocks: Blocks = "3", validate_deals: ValidateDeals = "60000",
            rules: options.Rules = "default", resume: options.Resume = False,
            backend: options.Backend = "loky", scheduler: options.Scheduler = None,
            quiet: options.Quiet = False, stop_after: options.StopAfter = None) -> None:
    """Propose the fewest card changes that balance a deck, confirmed on fresh seeds."""
    from pathlib import Path

    from targi_sim.balance import BalanceConfig, balance_deck, prepare_balance
    from targi_sim.runner.dispatch import check_options

    from .common import load_engine, progress_bar, stops, usage_errors
    from .parse import ParseError, names_or_none, parse_fraction, parse_jobs, parse_seed

    with usage_errors(balance, FLAGS):
        if strategies and levels:
            raise ParseError("give --levels or --strategies, not both")
        whole = _whole_numbers(BalanceConfig.BOUNDS, budget=budget, block_deals=block_deals,
                               blocks=blocks, validate_deals=validate_deals,
                               retune_budget=retune_budget, max_changes=max_changes)
        config = BalanceConfig(
            deck=deck, rules=rules, seed=parse_seed(seed), objective=objective,
            strategies=names_or_none(strategies, "--strategies") or ("balanced",),
            levels=names_or_none(levels, "--levels"), economy=economy,
            retune_sigma=parse_fraction(retune_step, "--retune-step", 0.001, 0.5), **whole)
        n_jobs, plan = parse_jobs(jobs), prepare_balance(config)
        check_options(n_jobs, backend, scheduler)
    out_path = Path(out) if out else Path("balance") / Path(plan.deck.name).stem
    err, t0 = Console(stderr=True), time.perf_counter()
    view = BalanceView(progress_bar(err, quiet), plan.config.budget)
    command = "targi-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    with stops(view.stopped(out_path), f"cannot write into {str(out_path)!r}", balance, FLAGS):
        load_engine(err, quiet, plan.matches())
        with view.bar:
            result = balance_deck(plan, out_path, jobs=n_jobs, command=command,
                                  stop_after=stop_after, backend=backend, scheduler=scheduler,
                                  **view.callbacks())
    if result is None:
        typer.echo("Stopped early; rerun the same command to continue.")
        return
    show_result(result, plan, time.perf_counter() - t0)


def _whole_numbers(bounds: dict[str, tuple[int, int]], **texts: str | None) -> dict[str, int]:
    """The whole-number options given (left out: the config's default), parsed against
    the config's bounds."""
    from .parse import parse_bounded

    return {f: parse_bounded(t, "--" + f.replace("_", "-"), bounds[f])
            for f, t in texts.items() if t is not None}


class BalanceView:
    """The progress of a balance search: the search's games, each re-tune nested in it,
    then the validation's re-tunes, games and resamples, each a task of its own."""

    def __init__(self, bar, budget: int) -> None:
        self.bar, self.budget = bar, budget
        self.phases: dict[str, int] = {}
        self.task = self.current = None
        from .common import NestedRetunes

        self.retunes = NestedRetunes(bar)

    def callbacks(self) -> dict:
        """The library's callbacks; the search's task starts here (with the bar)."""
        self.task = self.current = self.bar.add_task("searching", total=self.budget,
                                                     unit="games")
        return {"progress": self.search, "validation_progress": self.validation,
                "on_retune": self.retune_step}

    def search(self, state, total: int) -> None:
        best = state.best
        what = (f"candidate {state.trials}  best {best.value:.4f} "
                f"({len(best.edits)} change{'s' if len(best.edits) != 1 else ''})"
                if best else f"candidate {state.trials}")
        self.bar.update(self.task, completed=min(state.games, total), description=what)

    def validation(self, phase: str, done: int, total: int) -> None:
        """Validation has its own tasks (the re-tunes, games of both decks, then the
        resamples), so its elapsed time and ETA are its own and not the search's."""
        if phase not in self.phases:
            self.bar.update(self.task, completed=self.budget)  # the search has ended
            label, unit = {"retune": ("re-tuning for validation", "decks"),
                           "play": ("validating on fresh seeds", "games"),
                           "bootstrap": ("bootstrap over deals", "resamples")}[phase]
            self.phases[phase] = self.current = self.bar.add_task(label, total=total,
                                                                  unit=unit)
        self.bar.update(self.phases[phase], completed=done)

    def retune_step(self, level: str, gen: int, gens: int) -> None:
        self.retunes.step(self.current, level, gen, gens)

    @staticmethod
    def stopped(out) -> str:
        return (f"Interrupted; the finished candidates are kept in "
                f"{str(out / 'study.journal')!r}: rerun the same command to continue.")


def show_result(result, plan, seconds: float) -> None:
    """The changes, each level's spread and first-player rate on fresh seeds, the verdict
    and the files."""
    console = Console()
    val, v = result.validation, result.validation.table
    console.print(f"[bold]balance[/bold] {escape(plan.deck.name)}: {result.state.trials} "
                  f"candidates, {result.state.games:,} games, {seconds:.0f} s; "
                  f"{len(_changes(result))} change(s)", highlight=False)
    for r in _changes(result).iter_rows(named=True):
        console.print(f"  {escape(r['what'])}", highlight=False)
    for lv in val.levels:
        spread = v.filter((v["level"] == lv) & (v["term"] == "spread")).row(0, named=True)
        fp = v.filter((v["level"] == lv) & (v["term"] == "first_rate")).row(0, named=True)
        console.print(f"{escape(lv)} on fresh seeds ({val.deals:,} deals): card-value spread "
                      f"{spread['base']:.4f} -> {spread['proposal']:.4f} ({spread['verdict']}"
                      f"; {val.compared.get(lv, 0)} classes compared), first-player rate "
                      f"{fp['base']:.1%} -> {fp['proposal']:.1%}", highlight=False)
    verdict = "accepted" if val.accepted else "NOT accepted: " + "; ".join(val.reasons)
    console.print(f"verdict: {escape(verdict)}", highlight=False)
    console.print(f"written: {escape(str(result.paths['proposal']))}, "
                  f"{escape(str(result.paths['summary']))}", highlight=False)


def _changes(result):
    """One row per change: a class ('Camel Rider 1VP #1, #2 (cards 14, 15): salt 0 -> 1')
    or an economy value, from the result's changes table."""
    import polars as pl

    what: dict[str, list[str]] = {}
    for r in result.changes.iter_rows(named=True):
        if not r["card_ids"]:
            what[r["field"]] = [f"-> {r['new']}"]
            continue
        label = r["name"] if "," not in r["card_ids"] else f"{r['name']} (cards {r['card_ids']})"
        what.setdefault(f"{label}:", []).append(f"{r['field']} {r['old']} -> {r['new']}")
    return pl.DataFrame({"what": [f"{k} {', '.join(v)}" for k, v in what.items()]},
                        schema={"what": pl.Utf8})
