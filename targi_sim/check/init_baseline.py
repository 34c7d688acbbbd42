"""`targi-sim check init`: measure a designer's own deck and write its baseline file.

Why: a designer who keeps a deck in git wants every change to it checked, without
writing 45 card expectations by hand or guessing tolerances. For each strategy's
mirror on the deck this writes the first player's rate, the game shape (mean
rounds, full-display and tie-break shares, mean score), every raid's mean loss and
one deck_drift guard over every tribe card; with two or more strategies also each
one's win rate against the next. Each value is measured as `--update` measures
(on a seed stream the check never plays). Tolerances are the move each test
detects at the chosen game cap: for a sequential expectation the minimum detectable
effect of a fixed-sample test on cap / 1.5 games (the cap is 1.5 times the
fixed-sample size, as baseline.default_cap makes it) but at least 0.5 rate points or
0.05 of a mean's units (raid losses and rounds barely vary between deals), for
deck_drift every card's (check.drift.tolerance). alpha is split over the file's expectations
(Bonferroni), so an unchanged deck fails a check with probability <= alpha overall.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import NormalDist

from targi_sim.check.baseline import (
    CAP_FACTOR,
    Expectation,
    Measured,
    _toml_value,
    cards_text,
    derived_seed,
)
from targi_sim.check.metrics import SHAPE_METRICS, UNITS
from targi_sim.errors import ConfigError
from targi_sim.game.deck import load_deck
from targi_sim.searches import check_whole

FILE_SEED = 20261202
INIT_KINDS = ("win_rate", "first_player_rate", "game_shape", "raid_loss", "deck_drift")
DEFAULT_GAMES = 100_000  # measured games per expectation
DEFAULT_CAP = 40_000  # the check's game cap per expectation (deck_drift: its fixed games)
RATE_STEP, MEAN_STEP = 0.001, 0.01  # tolerances rounded up to 0.1 points / 0.01 units
RATE_FLOOR, MEAN_FLOOR = 0.005, 0.05  # tolerances at least 0.5 points / 0.05 units


@dataclass(frozen=True)
class InitConfig:
    """What `check init` measures and how."""

    deck: str
    strategies: tuple[str, ...] = ("balanced",)
    rules: str = "default"
    games: int = DEFAULT_GAMES
    max_games: int = DEFAULT_CAP
    batch_games: int = 1000
    alpha: float = 0.05
    beta: float = 0.05
    seed: int = FILE_SEED
    kinds: tuple[str, ...] = INIT_KINDS  # which kinds to write


def planned(config: InitConfig, deck) -> list[Expectation]:
    """The expectations the file will hold (values still to be measured)."""
    out: list[Expectation] = []
    raids = sorted({int(r) for r in deck.raid_number if r > 0})

    def add(name: str, kind: str, s: str, o: str, **fields) -> None:
        out.append(Expectation(name=name, kind=kind, strategy=s, opponent=o, rate=0.5,
                               tolerance=0.01, deck=config.deck, rules=config.rules,
                               max_games=config.max_games, batch_games=config.batch_games,
                               alpha=config.alpha, beta=config.beta, index=len(out),
                               **fields))

    for a, b in zip(config.strategies, config.strategies[1:], strict=False):
        add(f"{a} against {b}", "win_rate", a, b)
    for s in config.strategies:
        add(f"first-player rate, mirror {s}", "first_player_rate", s, s)
        for metric in SHAPE_METRICS:
            add(f"{metric}, mirror {s}", "game_shape", s, s, metric=metric)
        for r in raids:
            add(f"raid {r} loss, mirror {s}", "raid_loss", s, s, metric="vp_lost_mean", raid=r)
        add(f"deck drift, mirror {s}", "deck_drift", s, s)
    return [replace(e, seed=derived_seed(config.seed, e.name)) for e in out
            if e.kind in config.kinds]


def sequential_tolerance(m: Measured, e: Expectation) -> float:
    """The move a fixed-sample two-sided test on max_games / 1.5 games detects with power
    1 - beta at e.alpha, from the measured standard error (rounded up)."""
    z = NormalDist().inv_cdf
    se = m.se * math.sqrt(m.games / (e.max_games / CAP_FACTOR))
    mde = (z(1 - e.alpha / 2) + z(1 - e.beta)) * (se if math.isfinite(se) else 0.0)
    step = MEAN_STEP if e.is_mean else RATE_STEP
    tol = math.ceil(mde / step - 1e-9) * step
    return max(tol, MEAN_FLOOR if e.is_mean else RATE_FLOOR)


def _spec_text(spec: str, out_dir: Path) -> str:
    """A deck, rules or strategy as written in the file: names stay, paths become
    relative to the baseline file's folder (baseline files resolve them so)."""
    if not (spec.endswith((".toml", ".py")) or "/" in spec or os.sep in spec):
        return spec
    return Path(os.path.relpath(Path(spec).resolve(), out_dir.resolve())).as_posix()


def render(config: InitConfig, out: Path, results: list[tuple[Expectation, Measured]],
           skipped: list[str]) -> str:
    """The baseline file's text."""
    from targi_sim.check.metrics import DESCRIPTIONS

    lines = [
        "# Baselines for `targi-sim check`, written by `targi-sim check init` (docs/check.md,",
        "# docs/ci.md). Commit this file beside the deck; after a deliberate change rerun",
        f"# `targi-sim check {out.as_posix()} --update` and commit the diff with its reason.",
        f"# Measured on {config.games:,} games an expectation; tolerances: the move each test",
        f"# detects at its cap of {config.max_games:,} games; alpha {config.alpha:g} split over "
        f"the {len(results)} expectations.",
    ]
    lines += [f"# not guarded: {s}" for s in skipped]
    alpha = config.alpha / max(1, len(results))
    lines += [
        f"description = {_toml_value('Balance of deck ' + Path(config.deck).stem)}",
        f"seed = {config.seed}",
        "",
        "[defaults]",
        f"deck = {_toml_value(_spec_text(config.deck, out.parent))}",
        f"rules = {_toml_value(_spec_text(config.rules, out.parent))}",
        f"batch_games = {config.batch_games}",
        f"max_games = {config.max_games}",
        f"alpha = {alpha:.6g}",
        f"beta = {config.beta:g}",
    ]
    for e, m in results:
        lines += ["", "[[expectation]]", f"name = {_toml_value(e.name)}",
                  f"kind = {_toml_value(e.kind)}",
                  f"strategy = {_toml_value(_spec_text(e.strategy, out.parent))}"]
        if e.opponent != e.strategy:
            lines.append(f"opponent = {_toml_value(_spec_text(e.opponent, out.parent))}")
        if e.metric and e.kind != "deck_drift":
            lines.append(f"metric = {_toml_value(e.metric)}  # {DESCRIPTIONS[e.metric]}")
        if e.raid:
            lines.append(f"raid = {e.raid}")
        if e.kind == "deck_drift":
            lines.append(cards_text(m.cards, m.games).rstrip("\n"))
            continue
        tol = sequential_tolerance(m, e)
        if e.is_mean:
            lines.append(f"mean = {m.rate:.3f}  # measured on {m.games:,} games, "
                         f"95% CI {m.ci_low:.3f}..{m.ci_high:.3f}")
            lines.append(f"tolerance = {tol:.2f}  # {UNITS[e.metric]}")
        else:
            lines.append(f"rate = {min(99.99, max(0.01, 100 * m.rate)):.2f}  # measured on "
                         f"{m.games:,} games, 95% CI {100 * m.ci_low:.2f}..{100 * m.ci_high:.2f}")
            lines.append(f"tolerance = {100 * tol:.1f}  # rate points")
    return "\n".join(lines) + "\n"


def degenerate(e: Expectation, m: Measured) -> str | None:
    """Why a measured rate cannot be guarded (0% or 100%: nothing to compare), or None."""
    if e.kind == "deck_drift" or e.is_mean:
        return None
    if m.rate <= 0.0 or m.rate >= 1.0:
        return f"{e.name}: {100 * m.rate:.0f}% of {m.games:,} games"
    return None


def prepare_init(config: InitConfig, out: str | Path, force: bool = False
                 ) -> list[Expectation]:
    """Check `config` and the file to write (ConfigError names a bad field or `out`),
    load the deck, rules and strategies (named as typed) and return the planned
    expectations, before any game is played."""
    from targi_sim.game.rules import load_rules
    from targi_sim.players.strategy import resolve_strategy

    _check_numbers(config)
    if not config.strategies:
        raise ConfigError("strategies", "must name at least one strategy")
    bad = [k for k in config.kinds if k not in INIT_KINDS]
    if bad or not config.kinds:
        raise ConfigError("kinds", f"must be a comma-separated list of {', '.join(INIT_KINDS)}; "
                                   f"got {','.join(config.kinds)!r}")
    _check_out(Path(out), force)
    for name in config.strategies:
        resolve_strategy(name)
    load_rules(config.rules)
    return planned(config, load_deck(config.deck))


def _check_numbers(config: InitConfig) -> None:
    check_whole("games", config.games, 2, 2**31)
    check_whole("max_games", config.max_games, 2, 2**31)
    check_whole("batch_games", config.batch_games, 2, 1_000_000)
    if config.batch_games % 2:
        raise ConfigError("batch_games", f"must be even (whole seat-swapped pairs); got "
                                         f"{config.batch_games}")
    if config.max_games < config.batch_games:
        raise ConfigError("max_games", f"({config.max_games}) must be at least `batch_games` "
                                       f"({config.batch_games})")


def _check_out(out: Path, force: bool) -> None:
    if out.exists() and not force:
        raise ConfigError("out", f"{out}: the file exists; use `force` to overwrite it")
    if out.is_dir():
        raise ConfigError("out", f"{out}: is a folder; give a file name")
    # missing folders are made on writing; an existing file in their place is refused
    found = next(p for p in out.absolute().parents if p.exists())
    if not found.is_dir():
        raise ConfigError("out", f"{out}: {found} is a file, not a folder")


def init_baseline(config: InitConfig, out: str | Path, parallel=None, *, jobs: int = 1,
                  progress=None) -> tuple[str, list[tuple[Expectation, Measured]], list[str]]:
    """Measure every planned expectation and return (file text, results, skipped); the
    caller writes the text to `out` (paths in it are relative to out's folder).

    `parallel`: an open targi_sim.check.playing.worker_pool (else one of `jobs` workers is opened).
    `progress(name, total)` is called before each expectation and returns a callable
    taking the games just played (or None). Raises DataError/UsageError for a bad deck,
    rules or strategy before any game is played.
    """
    from targi_sim.check.guard import measure
    from targi_sim.check.playing import prepare, worker_pool
    from targi_sim.game.deck import load_deck

    if parallel is None:
        with worker_pool(jobs) as pool:
            return init_baseline(config, out, pool, progress=progress)

    out = Path(out)
    deck = load_deck(config.deck)
    plan = planned(config, deck)
    if not plan:
        raise ValueError("nothing to measure: `kinds` win_rate needs two or more `strategies`")
    prepared = [prepare(e) for e in plan]
    plan = [replace(e, alpha=config.alpha / len(plan)) for e in plan]
    results, skipped = [], []
    for e, p in zip(plan, prepared, strict=True):
        step = progress(e.name, config.games) if progress is not None else None
        m = measure(e, config.games, parallel, match=p, progress=step)
        why = degenerate(e, m)
        if why:
            skipped.append(why)
            continue
        results.append((e, m))
    if not results:
        raise ValueError("nothing to guard: every measured rate was 0% or 100%")
    return render(config, out, results, skipped), results, skipped


__all__ = ["DEFAULT_CAP", "DEFAULT_GAMES", "INIT_KINDS", "InitConfig", "init_baseline", "planned",
           "render", "sequential_tolerance"]
