"""Tune a heuristic strategy's weights by play: CMA-ES on the win rate against a pool.

Why CMA-ES (the `cma` package): the objective -- a win rate measured on a finite
number of games -- is noisy and has no gradient, and CMA-ES uses only the ranking
of the candidates within a generation, which is what common random numbers make
trustworthy. The search runs in a normalised cube [0, 1]^d (bounds handled by
cma's boundary transform), mapped linearly onto each weight's tuning range
(targi_sim.players.strategy.TUNING_RANGES, SYMBOL_RANGE); `noise` stays 0, so every
candidate is deterministic.

Common random numbers: in generation g every candidate plays the same games --
against each pool member m, `deals` deals in seat-swapped pairs (each deal twice,
the round-1 first player swapped; targi_sim.play.games.game_plan) with pair ids
(g * members + m) * deals ... on the tuning run seed. Generations get fresh deals;
the final measurement and the closing SPRT use run seeds of their own (disjoint
streams). Every seed derives from `seed`, and a candidate's games are a pure
function of its weights and those seeds, so the result does not depend on `jobs`.

Continued when stopped: after each generation the optimiser (a pickle of the CMA
object, whose random source is a seeded numpy Generator inside it), the generation
count, the history and the settings are written atomically next to the output
(tune_setup.state_path); the same call again continues from there and ends with the
same file as an uninterrupted run.

The win rate counts draws as half; a candidate's fitness is its mean rate over
the pool members; intervals treat the seat-swapped pair as the unit
(targi_sim.stats.rates). Usage and the shipped tuned strategies: docs/strategies.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from targi_sim._utils.atomic import atomic_write
from targi_sim._utils.seeds import derive_seed
from targi_sim.engine import constants as C
from targi_sim.engine.logs import G_WINNER
from targi_sim.game.deck import Deck
from targi_sim.game.rules import Rules
from targi_sim.play.games import run_batch
from targi_sim.play.match import Match, prepare_match
from targi_sim.play.pairing import DESCRIPTIONS, auto_pairing, game_plan, games_per_deal
from targi_sim.players.strategy import (
    SYMBOL_KEYS,
    WEIGHTS,
    Strategy,
    load_strategy,
    resolve_strategy,
)
from targi_sim.stats.rates import ClusteredRate, clustered_rate
from targi_sim.stats.sprt import rate

from .tune_setup import (
    DEFAULT_CHECK_GAMES,
    DEFAULT_DEALS,
    DEFAULT_FINAL_DEALS,
    STATE_VERSION,
    Param,
    TuneConfig,
    TuneError,
    TunePlan,
    check_start,
    default_pool,
    default_popsize,
    games_per_generation,
    load_state,
    parameter_space,
    prepare_tune,
    resolve_pool,
    save_state,
    state_path,
)

SIGMA0 = 0.15  # initial step size in the normalised cube
SPRT_DELTA = 0.02  # the closing SPRT: rate 50% against 50% +- 2 points
SPRT_BATCH = 1000  # games between two looks of the closing SPRT
DIGITS = 3  # decimals of the weights written to the TOML


def to_unit(strategy: Strategy, space: Sequence[Param]) -> np.ndarray:
    """A strategy's weights as a point of the normalised cube (clipped into it)."""
    x = [(float(strategy.params[p.column]) - p.low) / (p.high - p.low) for p in space]
    return np.clip(np.array(x), 0.0, 1.0)


def candidate(x: np.ndarray, start: Strategy, space: Sequence[Param],
              name: str = "candidate") -> Strategy:
    """The heuristic strategy at point x of the cube: start's row with the tuned columns
    replaced (rounded as the TOML will hold them) and noise 0."""
    params = np.array(start.params, dtype=np.float64)
    for p, v in zip(space, np.clip(x, 0.0, 1.0), strict=True):
        params[p.column] = round(p.low + float(v) * (p.high - p.low), DIGITS)
    params[C.HW_NOISE] = 0.0
    return Strategy(name, C.SK_HEURISTIC, params, f"tuned from {start.name}")


def stream_seed(seed: int, purpose: str) -> int:
    """The run seed (0..2^31-1) of one use of the tune seed: "tune", "final", "sprt"."""
    return derive_seed("targi-tune", purpose, seed)


def streams(seed: int) -> dict[str, int]:
    """The three run seeds, guaranteed distinct (so the streams share no game)."""
    out: dict[str, int] = {}
    for purpose in ("tune", "final", "sprt"):
        s, k = stream_seed(seed, purpose), 0
        while s in out.values():
            k += 1
            s = stream_seed(seed, f"{purpose}{k}")
        out[purpose] = s
    return out


@dataclass
class Generation:
    """What one generation found: its best candidate's mean rate and pooled interval."""

    index: int  # 1-based
    best_rate: float
    best_lo: float
    best_hi: float
    mean_rate: float  # the generation's average candidate
    games: int


@dataclass
class SprtOutcome:
    """The closing SPRT of the result against the start (fresh seeds)."""

    verdict: str  # "stronger", "weaker" or "no difference"
    rate: float
    lo: float
    hi: float
    games: int
    capped: bool
    unit: str


@dataclass
class TuneResult:
    """A finished tune: the strategy, its text, the measurements behind its header."""

    strategy: Strategy
    text: str
    generations: int
    games: int  # tuning games (the budget used)
    final: dict[str, ClusteredRate]  # the result against each pool member
    start_final: dict[str, ClusteredRate]  # the start on the same games
    sprt: SprtOutcome
    history: list[Generation] = field(default_factory=list)
    path: Path | None = None


Progress = Callable[[Generation, int], None]  # (generation, games played in it)


def _points(match: Match, row: np.ndarray, plan: tuple) -> np.ndarray:
    """Seat 0's points per seat-swapped pair (0, 0.5, ..., 2) with `row` in seat 0."""
    SP = match.SP.copy()
    SP[0] = row
    G, _ = run_batch(replace(match, SP=SP), *plan, logs=False)
    winner = G[:, G_WINNER]
    pts = (winner == 0) + 0.5 * (winner == -1)
    return pts.reshape(-1, 2).sum(axis=1)


def play_candidate(matches: Sequence[Match], row: np.ndarray,
                   plans: Sequence[tuple]) -> np.ndarray:
    """Pair points of one candidate against every pool member: shape (members, deals).

    A pure function of its arguments: what a worker process computes."""
    return np.stack([_points(m, row, p) for m, p in zip(matches, plans, strict=True)])


def generation_plans(tune_seed: int, g: int, members: int, deals: int) -> list[tuple]:
    """The seat-swapped games of generation g (0-based) against each member."""
    return [game_plan(2 * deals, tune_seed, paired=True, start=2 * deals * (g * members + m))
            for m in range(members)]


def pooled_rate(points: np.ndarray) -> ClusteredRate:
    """The rate over all of a candidate's pairs (each pair is a cluster of two games)."""
    flat = np.asarray(points, dtype=float).ravel()
    return clustered_rate(flat, np.full(flat.shape, 2.0))


class _Randn:
    """cma's normal sampler from a seeded numpy Generator: it pickles with the optimiser,
    so a resumed run draws exactly the numbers an uninterrupted one would."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, *shape: int) -> np.ndarray:
        return self.rng.standard_normal(shape)


def _new_optimiser(x0: np.ndarray, config: TuneConfig, sigma: float = SIGMA0):
    import cma

    opts = {"bounds": [0.0, 1.0], "seed": config.seed + 1, "randn": _Randn(config.seed),
            "verbose": -9, "verb_disp": 0, "verb_log": 0, "tolfun": 0, "tolx": 0,
            "tolfunhist": 0, "tolstagnation": 10**9, "maxiter": 10**9}
    if config.popsize:
        opts["popsize"] = config.popsize
    return cma.CMAEvolutionStrategy(list(x0), sigma, opts)


def tune_strategy(config: TuneConfig | TunePlan | str | Strategy, out: str | Path | None = None,
                  *, jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
                  progress: Progress | None = None,
                  on_phase: Callable[[str], None] | None = None,
                  on_plan: Callable[[int, int, int], None] | None = None,
                  stop_after: int | None = None, **settings: Any) -> TuneResult | None:
    """Tune as `config` asks and write the result to `out` (a strategy TOML); returns
    None when `stop_after` generations of this call ended it early. The optimiser's
    state is saved after every generation next to `out`: the same call again continues
    from it (other settings are refused). `on_plan(generations, games per generation,
    generations already done)` is called once before play, `progress` after every
    generation, `on_phase` before the final measurement ("final") and the closing SPRT
    ("sprt"). `backend` "dask" with `scheduler` (an address, or None for a local
    cluster) plays the games on a Dask cluster: the same file as with loky workers.

    `config` may also be a strategy (name, file or Strategy) with the TuneConfig fields
    as keywords (`against=` for the pool), as in earlier versions. ConfigError names a
    bad setting; UsageError / DataError a bad name or file.
    """
    from targi_sim.runner.dispatch import check_options, parallel_pool

    plan = _plan_of(config, out, settings)
    check_options(jobs, backend, scheduler)
    state = load_state(plan)
    spath = state_path(plan.out)
    if state is None:
        es, done, history = _new_optimiser(to_unit(plan.start, plan.space), plan.config), 0, []
    else:
        es, done, history = state["es"], state["generation"], state["history"]
    if on_plan is not None:
        on_plan(plan.generations, plan.per_gen, done)
    seeds, matches = streams(plan.config.seed), plan.matches
    with parallel_pool(jobs, backend, scheduler) as parallel:
        for played in range(plan.generations - done):
            if stop_after is not None and played >= stop_after:
                return None
            gen = run_generation(parallel, es, plan.start, plan.space, matches, seeds["tune"],
                                 done, plan.config.deals, plan.per_gen)
            history.append(gen)
            done += 1
            save_state(spath, {"version": STATE_VERSION, "settings": plan.settings(),
                               "es": es, "generation": done, "history": history,
                               "np_random": np.random.get_state()})
            if progress is not None:
                progress(gen, plan.per_gen)
        result = _finish(plan, parallel, jobs, es, matches, seeds, done, history, on_phase)
    spath.unlink(missing_ok=True)  # finished: nothing left to continue
    return result


def _plan_of(config, out, settings: dict[str, Any]) -> TunePlan:
    """The plan of a TuneConfig, a TunePlan, or (earlier versions' call) a strategy and
    the config's fields as keywords."""
    if isinstance(config, TunePlan):
        if settings or (out is not None and Path(out) != config.out):
            raise TypeError("tune_strategy: a TunePlan already holds its settings and `out`")
        return config
    if not isinstance(config, TuneConfig):
        pool = settings.pop("against", None)
        config = TuneConfig(config, tuple(pool) if pool else None, **settings)  # type: ignore[arg-type]
    elif settings:
        raise TypeError(f"tune_strategy: unexpected keywords with a TuneConfig: "
                        f"{', '.join(sorted(settings))}")
    return prepare_tune(config, out)


def _finish(plan: TunePlan, parallel, jobs: int, es, matches, seeds, done: int,
            history: list[Generation], on_phase) -> TuneResult:
    """The final measurement, the closing SPRT and the written file."""
    if on_phase is not None:
        on_phase("final")
    x_final = np.clip(np.asarray(es.result.xfavorite, dtype=float), 0.0, 1.0)
    tuned = candidate(x_final, plan.start, plan.space, name=plan.out.stem)
    final, start_final = _final_rates(parallel, tuned, plan.start, plan.pool, matches,
                                      seeds["final"], plan.config.final_deals)
    if on_phase is not None:
        on_phase("sprt")
    sprt = closing_sprt(parallel, jobs, tuned, plan.start, plan.deck, plan.rules,
                        seeds["sprt"], plan.config.check_games)
    result = TuneResult(tuned, "", done, done * plan.per_gen, final, start_final, sprt, history)
    result.text = render_toml(result, plan.start, plan.pool, plan.config, plan.space)
    result.path = _write_toml(plan.out, result.text)
    result.strategy = load_strategy(plan.out)
    return result


def run_generation(parallel, es, start: Strategy, space: Sequence[Param],
                   matches: Sequence[Match], tune_seed: int, g: int, deals: int,
                   per_gen: int) -> Generation:
    """Ask the optimiser for generation g's candidates (0-based), play each against every
    pool member on the generation's common deals, tell it their rates."""
    from joblib import delayed

    X = es.ask()
    rows = [candidate(np.asarray(x), start, space).row() for x in X]
    plans = generation_plans(tune_seed, g, len(matches), deals)
    points = parallel(delayed(play_candidate)(matches, r, plans) for r in rows)
    fitness = [float(p.sum() / (2.0 * p.size)) for p in points]
    es.tell(X, [-f for f in fitness])
    best = int(np.argmax(fitness))
    r = pooled_rate(points[best])
    return Generation(g + 1, fitness[best], r.lo, r.hi, float(np.mean(fitness)), per_gen)


@dataclass
class Retuned:
    """A warm-started re-tune's result: the strategy and what it took."""

    strategy: Strategy
    generations: int
    games: int
    last: Generation | None


def retune(start: str | Strategy, deck: Deck, rules: Rules, *, parallel, budget: int,
           seed: int = 0, deals: int = DEFAULT_DEALS, popsize: int = 0,
           against: Sequence[str] | None = None, name: str | None = None,
           progress: Progress | None = None, sigma: float = SIGMA0,
           on_start: Callable[[int], None] | None = None) -> Retuned:
    """Re-tune `start`'s weights for another deck, starting from its own weights (a warm
    start), in memory: no file, no final measurement, no SPRT -- what calibration and
    balance do for every candidate deck. The search is tune_strategy's (same pool, seeds,
    CMA-ES); a budget below one generation returns `start` unchanged. `sigma`: CMA-ES's
    initial step in the unit cube; a small one refines the weights near `start` (what a
    deck a few card edits away needs), the tune's own explores as a new tune would.

    `parallel`: an open joblib.Parallel (loky or Dask), so a caller that re-tunes many
    decks keeps one pool of workers. `on_start(generations)` is called before the first
    generation, `progress` after each.
    """
    first = resolve_strategy(start)
    check_start(first)
    pool = resolve_pool(first, against)
    space = parameter_space()
    size = popsize or default_popsize(len(space))
    per_gen = games_per_generation(size, len(pool), deals)
    generations = budget // per_gen
    label = name or first.name
    if generations < 1:
        return Retuned(replace(first, name=label), 0, 0, None)
    config = TuneConfig(first.spec, tuple(s.spec for s in pool), budget, seed, deals, size)
    es = _new_optimiser(to_unit(first, space), config, sigma)
    matches = [prepare_match((first, member), deck, rules) for member in pool]
    tune_seed = streams(seed)["tune"]
    gen = None
    if on_start is not None:
        on_start(generations)
    for g in range(generations):
        gen = run_generation(parallel, es, first, space, matches, tune_seed, g, deals, per_gen)
        if progress is not None:
            progress(gen, per_gen)
    x_final = np.clip(np.asarray(es.result.xfavorite, dtype=float), 0.0, 1.0)
    return Retuned(candidate(x_final, first, space, name=label), generations,
                   generations * per_gen, gen)


def retuned_strategy_text(strategy: Strategy, level: str, by: str, budget: int, seed: int,
                          deck_words: str) -> str:
    """A strategy file for `level` re-tuned for a proposed deck by `by` (calibrate,
    balance): a header saying how, its name and kind, its weights."""
    return "\n".join([
        f"# {level} re-tuned for the proposed deck by targi-sim {by} (warm start from "
        f"its own weights, {budget:,} games, seed {seed}).",
        f'name = "{level}"', 'kind = "heuristic"',
        f'description = "{level} re-tuned for the {deck_words} deck"', "",
        *weights_toml(strategy)]) + "\n"


def weights_toml(strategy: Strategy) -> list[str]:
    """The [weights] and [symbols] tables of a heuristic strategy file, as lines."""
    lines = ["[weights]"]
    for key, (col, *_rest) in WEIGHTS.items():
        lines.append(f"{key} = {_num(strategy.params[col])}")
    lines += ["", "[symbols]"]
    for i, sym in enumerate(SYMBOL_KEYS):
        key = sym if sym.replace("_", "").isalnum() else f'"{sym}"'
        lines.append(f"{key} = {_num(strategy.params[C.HW_SYMBOL + i])}")
    return lines


def _final_rates(parallel, tuned: Strategy, start: Strategy, pool: Sequence[Strategy],
                 matches: Sequence[Match], final_seed: int,
                 deals: int) -> tuple[dict[str, ClusteredRate], dict[str, ClusteredRate]]:
    """The result's and the start's rate against each member, on the same fresh deals."""
    from joblib import delayed

    plans = [game_plan(2 * deals, final_seed, paired=True, start=2 * deals * m)
             for m in range(len(pool))]
    both = parallel(delayed(play_candidate)(matches, s.row(), plans) for s in (tuned, start))
    names = [s.name for s in pool]
    return ({n: pooled_rate(p) for n, p in zip(names, both[0], strict=True)},
            {n: pooled_rate(p) for n, p in zip(names, both[1], strict=True)})


def closing_sprt(parallel, jobs: int, tuned: Strategy, start: Strategy, deck: Deck,
                 rules: Rules, seed: int, max_games: int) -> SprtOutcome:
    """Two-sided SPRT (targi_sim.stats.sprt, alpha = beta = 0.05) of "the result scores 50%
    against the start" against 50% +- SPRT_DELTA, on fresh seeds, in batches of whole
    units (pentanomial seat-swapped pairs; single games if the two are identical)."""
    from targi_sim.check.baseline import Expectation
    from targi_sim.check.guard import run_expectation
    from targi_sim.check.playing import Prepared, unit_rate

    pairing = auto_pairing((tuned, start))
    unit = games_per_deal(pairing)
    batch = max(unit, min(SPRT_BATCH, max_games) // unit * unit)
    cap = max(batch, max_games // batch * batch)
    match = prepare_match((tuned, start), deck, rules)
    expectation = Expectation("closing SPRT", "win_rate", tuned.name, start.name, 0.5,
                              SPRT_DELTA, seed=seed, max_games=cap, batch_games=batch)
    result = run_expectation(expectation, parallel, jobs, match=Prepared(match, pairing))
    test, counts, games, capped = result.test, result.counts, result.games, result.capped
    up = next((s for s in test.sides if s.name == "up"), None)
    down = next((s for s in test.sides if s.name == "down"), None)
    if up is not None and up.state == "H1":
        word = "stronger"
    elif down is not None and down.state == "H1":
        word = "weaker"
    else:
        word = "no difference"
    r = unit_rate(counts)
    return SprtOutcome(word, rate(counts), r.lo, r.hi, games, capped, DESCRIPTIONS[pairing])


def _fmt(r: ClusteredRate) -> str:
    return f"{r.rate:.1%} ({r.lo:.1%}-{r.hi:.1%})"


def command_line(config: TuneConfig) -> str:
    """The command that reproduces a tune (defaults left out)."""
    parts = ["targi-sim tune", config.strategy, "--against", ",".join(config.pool),
             "--budget", str(config.budget), "--seed", str(config.seed)]
    if config.deals != DEFAULT_DEALS:
        parts += ["--deals", str(config.deals)]
    if config.final_deals != DEFAULT_FINAL_DEALS:
        parts += ["--final-deals", str(config.final_deals)]
    if config.check_games != DEFAULT_CHECK_GAMES:
        parts += ["--check-games", str(config.check_games)]
    if config.deck != "base":
        parts += ["--deck", config.deck]
    if config.rules != "default":
        parts += ["--rules", config.rules]
    return " ".join(parts)


def render_toml(result: TuneResult, start: Strategy, pool: Sequence[Strategy],
                config: TuneConfig, space: Sequence[Param]) -> str:
    """The strategy file: a header saying how it was tuned (no date: the same command
    writes the same bytes), then name, kind, description, [weights] and [symbols]."""
    import cma

    s = result.strategy
    final_games = 2 * config.final_deals
    sp = result.sprt
    lines = [
        f"# Tuned by targi-sim tune (CMA-ES, cma {cma.__version__}) from {start.name!r}:",
        f"#   {command_line(config)}",
        f"# Searched: {len(space)} weights ([weights] and [symbols]; noise fixed at 0) in "
        "the tuning",
        "# ranges of docs/strategies.md, maximising the mean win rate (draws half) against "
        "the pool",
        f"# {', '.join(p.name for p in pool)}.",
        f"# {result.generations} generations x {config.popsize} candidates x {len(pool)} "
        f"pool members x {2 * config.deals} games",
        f"# (seat-swapped pairs, common random numbers) = {result.games:,} games "
        f"of a {config.budget:,}-game budget;",
        "# the result is the CMA-ES mean after the last generation, weights rounded to "
        f"{DIGITS} decimals.",
        f"# Final win rates on fresh seeds ({final_games:,} games each, 95% interval with "
        "the pair as unit):",
    ]
    width = max(len(p.name) for p in pool)
    for p in pool:
        lines.append(f"#   vs {p.name:<{width}}  {_fmt(result.final[p.name])}   "
                     f"(start {start.name}: {_fmt(result.start_final[p.name])})")
    cap = ", at the game cap" if sp.capped else ""
    lines += [
        f"# Independent SPRT against {start.name} (fresh seeds, {sp.unit}; 50% vs 50% +- "
        f"{SPRT_DELTA:.0%}, alpha = beta = 0.05):",
        f"#   {sp.verdict}{cap}: {sp.rate:.1%} ({sp.lo:.1%}-{sp.hi:.1%}) on {sp.games:,} "
        "games",
        f'name = "{s.name}"',
        'kind = "heuristic"',
        f'description = "tuned from {start.name} by targi-sim tune (seed {config.seed})"',
        "",
        *weights_toml(s),
    ]
    return "\n".join(lines) + "\n"


def _num(v: float) -> str:
    text = f"{round(float(v), DIGITS):.{DIGITS}f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def _write_toml(out: Path, text: str) -> Path:
    """Write atomically; the temporary file must load as a strategy before the rename."""
    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")
        load_strategy(Path(tmp))

    return atomic_write(out, write)


__all__ = ["DEFAULT_CHECK_GAMES", "DEFAULT_DEALS", "DEFAULT_FINAL_DEALS", "Generation",
           "Param", "SprtOutcome", "TuneConfig", "TuneError", "TunePlan", "TuneResult",
           "candidate", "check_start", "closing_sprt", "default_pool", "default_popsize",
           "games_per_generation", "parameter_space", "play_candidate", "prepare_tune",
           "resolve_pool", "retune", "state_path", "streams", "to_unit", "tune_strategy"]
