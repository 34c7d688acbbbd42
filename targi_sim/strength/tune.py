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

Resumable: after each generation the optimiser (a pickle of the CMA object, whose
random source is a seeded numpy Generator inside it), the generation count and
the history are written atomically next to the output (`state_path`); `resume`
continues from there and ends with the same file as an uninterrupted run.

The win rate counts draws as half; a candidate's fitness is its mean rate over
the pool members; intervals treat the seat-swapped pair as the unit
(targi_sim.stats.rates). Usage and the shipped tuned strategies: docs/strategies.md.
"""

from __future__ import annotations

import hashlib
import math
import pickle
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from targi_sim._utils.atomic import atomic_write
from targi_sim.engine import constants as C
from targi_sim.engine.logs import G_WINNER
from targi_sim.game.deck import Deck, load_deck
from targi_sim.game.rules import Rules, load_rules
from targi_sim.play.games import run_batch
from targi_sim.play.match import Match, prepare_match
from targi_sim.play.pairing import DESCRIPTIONS, auto_pairing, game_plan, games_per_deal
from targi_sim.players.strategy import (
    SYMBOL_KEYS,
    SYMBOL_RANGE,
    TUNING_RANGES,
    WEIGHTS,
    Strategy,
    list_strategies,
    load_strategy,
    resolve_strategy,
)
from targi_sim.stats.rates import ClusteredRate, clustered_rate
from targi_sim.stats.sprt import rate

STATE_VERSION = 1
SIGMA0 = 0.15  # initial step size in the normalised cube
DEFAULT_DEALS = 100  # deals per candidate per pool member per generation
DEFAULT_FINAL_DEALS = 1000  # deals per pool member for the final win rates
DEFAULT_CHECK_GAMES = 20_000  # cap of the closing SPRT
SPRT_DELTA = 0.02  # the closing SPRT: rate 50% against 50% +- 2 points
SPRT_BATCH = 1000  # games between two looks of the closing SPRT
DIGITS = 3  # decimals of the weights written to the TOML


class TuneError(ValueError):
    """A tune request that cannot be carried out (one line for the user)."""


@dataclass(frozen=True)
class Param:
    """One tuned weight: its TOML table and key, engine column and search range."""

    table: str  # "weights" or "symbols"
    key: str
    column: int
    low: float
    high: float


def parameter_space() -> list[Param]:
    """Every tuned weight, in a fixed order (the coordinates of the search)."""
    params = [Param("weights", k, col, *TUNING_RANGES[k])  # type: ignore[misc]
              for k, (col, *_rest) in WEIGHTS.items() if TUNING_RANGES.get(k) is not None]
    params += [Param("symbols", s, C.HW_SYMBOL + i, *SYMBOL_RANGE)
               for i, s in enumerate(SYMBOL_KEYS)]
    return params


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
    digest = hashlib.sha256(f"targi-tune\0{purpose}\0{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "little") % 2**31


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


@dataclass(frozen=True)
class TuneConfig:
    """Everything a tune's result depends on (a resume must match it exactly)."""

    strategy: str
    pool: tuple[str, ...]
    budget: int
    seed: int = 0
    deals: int = DEFAULT_DEALS
    popsize: int = 0  # 0: cma's default, 4 + 3 ln(dimension)
    final_deals: int = DEFAULT_FINAL_DEALS
    check_games: int = DEFAULT_CHECK_GAMES
    deck: str = "base"
    rules: str = "default"


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


def default_pool(start: Strategy) -> list[str]:
    """The start itself plus every shipped heuristic strategy and greedy."""
    names = [start.spec]
    for name in list_strategies():
        try:
            s = load_strategy(name)
        except ValueError:
            continue
        if s.kind == C.SK_HEURISTIC or name == "greedy":
            names.append(name)
    return names


def resolve_pool(start: Strategy, pool: Sequence[str] | None) -> list[Strategy]:
    """The pool's strategies, the start first when the default pool is used; members
    with the same parameters as an earlier one are dropped (they would count twice)."""
    specs = list(pool) if pool else default_pool(start)
    out: list[Strategy] = []
    seen: set[str] = set()
    for spec in specs:
        s = resolve_strategy(spec)
        if s.sha256 not in seen:
            seen.add(s.sha256)
            out.append(s)
    if not out:
        raise TuneError("--against needs at least one strategy")
    return out


def check_start(start: Strategy) -> None:
    if start.kind != C.SK_HEURISTIC:
        raise TuneError(f"tune searches heuristic weights; {start.name!r} is of kind "
                        f"{start.kind_name} (tune a heuristic strategy, e.g. balanced)")


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


def state_path(out: Path) -> Path:
    """Where the optimiser state of a tune writing `out` lives (next to it)."""
    return out.with_name(f"{out.name}.tune-state.pkl")


def _fingerprint(config: TuneConfig, start: Strategy, pool: Sequence[Strategy],
                 deck: Deck, rules: Rules) -> dict:
    return {"config": asdict(config), "start": start.sha256,
            "pool": [s.sha256 for s in pool], "deck": deck.sha256,
            "rules": getattr(rules, "sha256", repr(rules.vector.tolist()))}


def _new_optimiser(x0: np.ndarray, config: TuneConfig, sigma: float = SIGMA0):
    import cma

    opts = {"bounds": [0.0, 1.0], "seed": config.seed + 1, "randn": _Randn(config.seed),
            "verbose": -9, "verb_disp": 0, "verb_log": 0, "tolfun": 0, "tolx": 0,
            "tolfunhist": 0, "tolstagnation": 10**9, "maxiter": 10**9}
    if config.popsize:
        opts["popsize"] = config.popsize
    return cma.CMAEvolutionStrategy(list(x0), sigma, opts)


def games_per_generation(popsize: int, members: int, deals: int) -> int:
    return popsize * members * 2 * deals


def default_popsize(dimension: int) -> int:
    """cma's default population size for this many coordinates."""
    return 4 + int(3 * math.log(dimension))


def tune_strategy(
    strategy: str | Strategy,
    *,
    against: Sequence[str] | None = None,
    budget: int = 2_000_000,
    out: str | Path,
    seed: int = 0,
    jobs: int = 1,
    deals: int = DEFAULT_DEALS,
    popsize: int = 0,
    final_deals: int = DEFAULT_FINAL_DEALS,
    check_games: int = DEFAULT_CHECK_GAMES,
    deck: str = "base",
    rules: str = "default",
    resume: bool = False,
    stop_after: int | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: Progress | None = None,
    on_phase: Callable[[str], None] | None = None,
    on_plan: Callable[[int, int, int], None] | None = None,
) -> TuneResult | None:
    """Tune `strategy`'s weights against `against` (default: default_pool) and write the
    result to `out` (a strategy TOML); returns None when `stop_after` generations of
    this call ended it early (the state is saved; `resume=True` continues).
    `on_plan(generations, games per generation, generations already done)` is called
    once before play, `progress` after every generation, `on_phase` before the final
    measurement ("final") and the closing SPRT ("sprt"). `backend` "dask" with
    `scheduler` (an address, or None for a local cluster) plays the games on a Dask
    cluster; the result is the same file as with loky workers.

    Raises TuneError / UsageError / DataError for requests that cannot be carried out.
    """
    start = resolve_strategy(strategy)
    check_start(start)
    if jobs < 1:
        raise TuneError(f"jobs must be at least 1, got {jobs}")
    if deals < 1 or final_deals < 1:
        raise TuneError("deals must be at least 1")
    pool = resolve_pool(start, against)
    deck_obj, rules_obj = load_deck(deck), load_rules(rules)
    space = parameter_space()
    size = popsize or default_popsize(len(space))
    if size < 2:
        raise TuneError(f"the population needs at least 2 candidates, got {size}")
    per_gen = games_per_generation(size, len(pool), deals)
    generations = budget // per_gen
    if generations < 1:
        raise TuneError(f"--budget {budget:,} is too small for one generation: "
                        f"{size} candidates x {len(pool)} pool members x {2 * deals} games "
                        f"= {per_gen:,} games")
    if check_games < 1:
        raise TuneError("check_games must be at least 1")
    out = Path(out)
    if out.suffix != ".toml":
        raise TuneError(f"--out must name a .toml file; got {str(out)!r}")
    if out.exists() and out.is_dir():
        raise TuneError(f"--out {str(out)!r} is a folder")
    if not out.parent.is_dir():
        raise TuneError(f"the folder of --out {str(out)!r} does not exist")
    config = TuneConfig(start.spec, tuple(s.spec for s in pool), budget, seed, deals, size,
                        final_deals, check_games, str(deck), str(rules))
    fp = _fingerprint(config, start, pool, deck_obj, rules_obj)
    spath = state_path(out)
    seeds = streams(seed)

    if resume:
        if not spath.is_file():
            raise TuneError(f"--resume: no saved tune state {str(spath)!r}")
        state = _read_state(spath)
        if state.get("fingerprint") != fp:
            raise TuneError(f"--resume: {str(spath)!r} was saved by a tune with other "
                            "settings (strategy, pool, budget, seed, deck or rules)")
        es, done, history = state["es"], state["generation"], state["history"]
        np.random.set_state(state["np_random"])  # in case cma draws from it anywhere
    else:
        if spath.exists():
            raise TuneError(f"an unfinished tune's state {str(spath)!r} exists: add "
                            "--resume to continue it, or delete the file")
        es, done, history = _new_optimiser(to_unit(start, space), config), 0, []

    matches = [prepare_match((start, member), deck_obj, rules_obj) for member in pool]
    if on_plan is not None:
        on_plan(generations, per_gen, done)
    from targi_sim.runner.dispatch import parallel_pool

    t_played = 0
    with parallel_pool(jobs, backend, scheduler) as parallel:
        while done < generations:
            if stop_after is not None and t_played >= stop_after:
                return None
            gen = run_generation(parallel, es, start, space, matches, seeds["tune"], done,
                                 deals, per_gen)
            history.append(gen)
            done += 1
            t_played += 1
            _save_state(spath, {"version": STATE_VERSION, "fingerprint": fp, "es": es,
                                "generation": done, "history": history,
                                "np_random": np.random.get_state()})
            if progress is not None:
                progress(gen, per_gen)

        if on_phase is not None:
            on_phase("final")
        x_final = np.clip(np.asarray(es.result.xfavorite, dtype=float), 0.0, 1.0)
        tuned = candidate(x_final, start, space, name=out.stem)
        final, start_final = _final_rates(parallel, tuned, start, pool, matches,
                                          seeds["final"], final_deals)
        if on_phase is not None:
            on_phase("sprt")
        sprt = closing_sprt(parallel, jobs, tuned, start, deck_obj, rules_obj, seeds["sprt"],
                            check_games)
    result = TuneResult(tuned, "", done, done * per_gen, final, start_final, sprt, history)
    result.text = render_toml(result, start, pool, config, space)
    result.path = _write_toml(out, result.text)
    result.strategy = load_strategy(out)
    spath.unlink(missing_ok=True)  # finished: nothing left to resume
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
           progress: Progress | None = None, sigma: float = SIGMA0) -> Retuned:
    """Re-tune `start`'s weights for another deck, starting from its own weights (a warm
    start), in memory: no file, no final measurement, no SPRT -- what calibration and
    balance do for every candidate deck. The search is tune_strategy's (same pool, seeds,
    CMA-ES); a budget below one generation returns `start` unchanged. `sigma`: CMA-ES's
    initial step in the unit cube; a small one refines the weights near `start` (what a
    deck a few card edits away needs), the tune's own explores as a new tune would.

    `parallel`: an open joblib.Parallel (loky or Dask), so a caller that re-tunes many
    decks keeps one pool of workers.
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


def _save_state(path: Path, state: dict) -> None:
    atomic_write(path, lambda p: Path(p).write_bytes(pickle.dumps(state)))


def _read_state(path: Path) -> dict:
    """The saved optimiser state (a pickle this program wrote: trusted like a cache)."""
    try:
        state = pickle.loads(path.read_bytes())
    except Exception as exc:  # truncated or foreign file
        raise TuneError(f"--resume: cannot read {str(path)!r} ({type(exc).__name__})") from None
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
        raise TuneError(f"--resume: {str(path)!r} is not a tune state of this version")
    return state


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


__all__ = ["Generation", "Param", "SprtOutcome", "TuneConfig", "TuneError", "TuneResult",
           "candidate", "closing_sprt", "default_pool", "games_per_generation",
           "parameter_space", "play_candidate", "resolve_pool", "state_path", "streams",
           "to_unit", "tune_strategy"]
