"""The calibration search: which economy of the space makes play, at every level, look
like the targets -- with the strong levels re-tuned for each candidate deck.

How (docs/calibrate.md):
- **Optuna** (TPE, one categorical choice per parameter) proposes economies; the
  deck's current economy is the first candidate. Each trial's sampler is seeded from
  (seed, trial number), so a resumed search proposes what an uninterrupted one would.
- **Re-tuned players:** every level in `retune` is re-tuned on the candidate deck by
  targi_sim.strength.tune.retune, warm-started from the level's own weights.
- **Common random numbers:** every candidate is measured on the same deals (the
  "measure" stream of the seed); the final comparison uses fresh ones ("validate").
- **Racing:** the levels that are not re-tuned are measured first; a candidate whose
  miss on them alone already exceeds the best complete candidate's is dropped before
  its (costly) re-tunes, and so is a simplification step they alone already reject
  (rejected_early: exact, the whole validation would reject it too).
- **Objective:** the sum over targets of the squared miss (targets.Target.miss), so a
  candidate inside every band scores 0.
- **Continued when rerun:** trials live in an Optuna journal file in the output folder
  (searches.journal); the same call after a kill at any moment continues from the last
  finished trial, and a call with other settings is refused.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from targi_sim._utils.seeds import derive_seed
from targi_sim.errors import ConfigError, InputError
from targi_sim.game.deck import Deck, load_deck
from targi_sim.game.rules import Rules, load_rules
from targi_sim.players.strategy import Strategy, follow_retuned
from targi_sim.searches import (
    SETTINGS_FILE,
    check_bounds,
    claim_settings,
    moving_levels,
    open_study,
    resolve_levels,
    settings_of,
)
from targi_sim.strength.tune import Generation, retune

from .figures import FIGURES
from .measure import LevelShape, measure_levels
from .space import Space, economy, load_space, parse_value, value_key
from .targets import Estimate, Targets, load_targets, targets_from_playtest

DEFAULT_SPACE = "economy-space"
DEFAULT_TARGETS = "real-game-shape"
DEFAULT_LEVELS = ("balanced", "tuned")
DEFAULT_TRIALS = 100
DEFAULT_DEALS = 1000
DEFAULT_RETUNE_BUDGET = 300_000
# the search measures candidates with the levels' own weights: its ranking only chooses
# what the validation re-tunes (docs/calibrate.md step 2)
DEFAULT_SEARCH_RETUNE_BUDGET = 0
DEFAULT_VALIDATE_DEALS = 4000
DEFAULT_VALIDATE_RETUNES = 4  # independent re-tunes per validated economy (the unit)
DEFAULT_FINALISTS = 6
# while some target is missed, a simplification step may cost this much objective (0: no
# worse); it never un-meets a target. One unit of miss is a whole target's miss for some
# figures (a full display: 0% against 2%), so the default trades none.
DEFAULT_SLACK = 0.0
STUDY = "calibration"
CONFIG_FILE = SETTINGS_FILE  # the settings the folder's calibration was started with


class CalibrationError(InputError):
    """A calibration request that cannot be carried out (one line for the user)."""


@dataclass(frozen=True)
class CalibrationConfig:
    """Everything a calibration's result depends on (a continued one must match it).
    `levels`: as typed (a tree search plays its level budget); `retune` None: every
    heuristic level after the first."""

    deck: str = "base"
    rules: str = "default"
    space: str = DEFAULT_SPACE
    targets: str = DEFAULT_TARGETS
    playtest: str | None = None
    playtest_level: str | None = None
    levels: tuple[str, ...] = DEFAULT_LEVELS
    retune: tuple[str, ...] | None = None  # None: every heuristic level after the first
    trials: int = DEFAULT_TRIALS
    deals: int = DEFAULT_DEALS
    retune_budget: int = DEFAULT_RETUNE_BUDGET
    search_retune_budget: int | None = DEFAULT_SEARCH_RETUNE_BUDGET  # None: retune_budget
    validate_deals: int = DEFAULT_VALIDATE_DEALS
    validate_retunes: int = DEFAULT_VALIDATE_RETUNES
    finalists: int = DEFAULT_FINALISTS
    seed: int = 0
    simplify_slack: float = DEFAULT_SLACK


@dataclass
class Candidate:
    """One economy measured: its choice, objective and per-level figures."""

    number: int
    choice: dict[str, Any]
    objective: float
    raced: bool = False
    figures: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    weights: dict[str, list[float]] = field(default_factory=dict)
    seconds: float = 0.0
    repeat_of: int | None = None


@dataclass
class Calibration:
    """A finished calibration: every candidate, the validated finalists, the proposal."""

    config: CalibrationConfig
    space: Space
    targets: Targets
    candidates: list[Candidate]
    validated: list[Candidate]  # the current economy, the finalists, the simplification steps
    proposal: Candidate | None  # None: the current economy stays (choose_proposal)
    strategies: dict[int, dict[str, Strategy]]  # validated candidate -> level -> player
    seconds: float
    out: Path
    deck: Deck  # the deck and rules calibrated (the proposal edits them)
    rules: Rules
    levels: tuple[str, ...] = ()  # as played: a tree search with its level budget
    simplified: tuple[int, ...] = ()  # validated economies measured as simplification steps


TrialProgress = Callable[[int, int, Candidate], None]  # (done, total, candidate)
RetuneProgress = Callable[[str, int, int], None]  # (level, generation, generations)
Phase = Callable[[str, int], None]  # the phase's name and its number of economies (at most)


def stream(seed: int, purpose: str) -> int:
    """A run seed (0..2^31-1) for one use of the calibration seed."""
    return derive_seed("targi-calibrate", purpose, seed)


def objective_of(targets: Targets, figures: dict[str, dict[str, Estimate]],
                 levels: Sequence[str] | None = None) -> float:
    """Sum of squared misses over the targets of `levels` (all when None)."""
    total = 0.0
    for t in targets.targets:
        if levels is not None and t.level not in levels:
            continue
        est = figures.get(t.level, {}).get(t.figure)
        total += t.miss(est.value if est is not None else float("nan")) ** 2
    return total


@dataclass(frozen=True)
class Inputs:
    """What a calibration reads before it plays: the deck and rules, the checked space and
    targets, the level strategies and the names of those re-tuned per candidate, and the
    levels as typed (a tree search with its level budget)."""

    deck: Deck
    rules: Rules
    space: Space
    targets: Targets
    strategies: list[Strategy]
    retuned: list[str]
    levels: tuple[str, ...] = ()

    def matches(self) -> list:
        """Each level's mirror match on the calibrated deck (what the engine must load)."""
        from targi_sim.play.match import prepare_match

        return [prepare_match((s, s), self.deck, self.rules) for s in self.strategies]

    def settings(self, config: CalibrationConfig) -> dict[str, Any]:
        """What a continued calibration must share with the one that started the folder."""
        # the search's budget as played: the validation's budget and None are one setting,
        # written None (as folders written before the default was 0 hold it)
        same = search_budget(config) == config.retune_budget
        config = replace(config, search_retune_budget=None if same else search_budget(config))
        return settings_of(config, deck_sha256=self.deck.sha256,
                           rules_sha256=getattr(self.rules, "sha256", None),
                           strategies_sha256=[s.sha256 for s in self.strategies])


BOUNDS = {"trials": (1, 100_000), "deals": (1, 10_000_000), "retune_budget": (0, 10**10),
          "search_retune_budget": (0, 10**10),
          "validate_deals": (1, 10_000_000), "validate_retunes": (1, 64),
          "finalists": (0, 100), "seed": (0, 2**31 - 1)}


def load_inputs(config: CalibrationConfig) -> Inputs:
    """Check `config` and load every input once (ConfigError names a bad field;
    UsageError / DataError a bad name or file)."""
    check_bounds(config, BOUNDS)
    deck, rules = load_deck(config.deck), load_rules(config.rules)
    levels = resolve_levels(config.levels, config.retune)
    strategies, retuned = list(levels.strategies), list(levels.retuned)
    names = [s.name for s in strategies]
    space = load_space(config.space, deck, rules)
    targets = load_targets(config.targets, names)
    if config.playtest:
        level = config.playtest_level or names[-1]
        if level not in names:
            raise ConfigError("playtest_level", f"{level!r} is not one of `levels` "
                                                f"({', '.join(names)})")
        play = targets_from_playtest(config.playtest, level)
        kept = tuple(t for t in targets.targets
                     if not (t.level == level and any(p.figure == t.figure
                                                      for p in play.targets)))
        targets = Targets(f"{targets.name} + {play.name}", kept + play.targets, targets.path)
    return Inputs(deck, rules, space, targets, strategies, retuned, levels.specs)


# ------------------------------------------------------------------- evaluation
class Evaluator:
    """Measures candidates on one deck family with one pool of workers."""

    def __init__(self, config: CalibrationConfig, inputs: Inputs, parallel,
                 on_retune: RetuneProgress | None = None) -> None:
        self.config = config
        self.deck, self.rules, self.space = inputs.deck, inputs.rules, inputs.space
        self.targets, self.strategies = inputs.targets, inputs.strategies
        self.retuned = inputs.retuned
        self.names = [s.name for s in self.strategies]
        self.parallel = parallel
        self.on_retune = on_retune

    def _fixed_levels(self) -> list[str]:
        """Levels measurable before any re-tune (they and the level below are fixed)."""
        moving = moving_levels(self.names, self.strategies, self.retuned)
        return [n for i, n in enumerate(self.names)
                if i not in moving and not (i > 0 and i - 1 in moving)]

    def players(self, deck: Deck, rules: Rules, retune_seed: int, budget: int
                ) -> tuple[list[Strategy], dict[str, list[float]]]:
        players = list(self.strategies)
        weights: dict[str, list[float]] = {}
        for i, n in enumerate(self.names):
            if n not in self.retuned:
                continue

            def progress(gen: Generation, per_gen: int, n=n) -> None:
                if self.on_retune is not None:
                    self.on_retune(n, gen.index, budget // per_gen)

            def start(gens: int, n=n) -> None:
                if self.on_retune is not None:
                    self.on_retune(n, 0, gens)

            result = retune(self.strategies[i], deck, rules, parallel=self.parallel,
                            budget=budget, seed=retune_seed, name=n, progress=progress,
                            on_start=start)
            players[i] = result.strategy
            weights[n] = [float(x) for x in result.strategy.params]
        return follow_retuned(players, self.strategies), weights

    def racing_levels(self) -> list[str]:
        """The levels measured before the re-tunes when a candidate is raced (none when
        every level is fixed, or every level moves)."""
        fixed = self._fixed_levels()
        return fixed if len(fixed) < len(self.names) else []

    def _economy(self, number: int, choice: dict[str, Any]) -> tuple[Deck, Rules]:
        deck, rules, _ = economy(self.space, choice, self.deck, self.rules,
                                 f"{self.deck.name}-candidate-{number}")
        return deck, rules

    def _measure_fixed(self, deck: Deck, rules: Rules, measure_seed: int, deals: int
                       ) -> dict[str, dict[str, Estimate]]:
        """The racing levels measured on one seed's deals (evaluate's and screening's)."""
        return _figs(measure_levels(self.strategies, self.names, deck, rules, deals=deals,
                                    seed=measure_seed, parallel=self.parallel,
                                    only=self.racing_levels()))

    def fixed_figures(self, number: int, choice: dict[str, Any], *, seeds: Sequence[int],
                      deals: int) -> list[dict[str, dict[str, Estimate]]]:
        """The racing levels' figures on each seed's deals: what evaluate measures of them,
        to the bit, without any re-tune (the economy built once)."""
        deck, rules = self._economy(number, choice)
        return [self._measure_fixed(deck, rules, s, deals) for s in seeds]

    def evaluate(self, number: int, choice: dict[str, Any], *, measure_seed: int,
                 retune_seed: int, deals: int, best: float = math.inf,
                 race: bool = True, retune_budget: int | None = None,
                 known: dict[str, dict[str, Estimate]] | None = None
                 ) -> tuple[Candidate, list[Strategy]]:
        """One economy measured (`retune_budget` None: the configured one). `known`: the
        racing levels' figures on these deals, already measured (fixed_figures)."""
        t0 = time.perf_counter()
        deck, rules = self._economy(number, choice)
        figures: dict[str, dict[str, Estimate]] = dict(known or {})
        fixed = self.racing_levels()
        if race and fixed:
            if not known:
                figures.update(self._measure_fixed(deck, rules, measure_seed, deals))
            partial = objective_of(self.targets, figures, fixed)
            if partial > best:
                return Candidate(number, choice, partial, True, figures, {},
                                 time.perf_counter() - t0), list(self.strategies)
        budget = self.config.retune_budget if retune_budget is None else retune_budget
        players, weights = self.players(deck, rules, retune_seed, budget)
        rest = [n for n in self.names if n not in figures]
        shapes = measure_levels(players, self.names, deck, rules, deals=deals,
                                seed=measure_seed, parallel=self.parallel, only=rest)
        figures.update(_figs(shapes))
        cand = Candidate(number, choice, objective_of(self.targets, figures), False, figures,
                         weights, time.perf_counter() - t0)
        return cand, players


def _figs(shapes: dict[str, LevelShape]) -> dict[str, dict[str, Estimate]]:
    return {lv: dict(s.figures) for lv, s in shapes.items()}


# ------------------------------------------------------------------- persistence
def _candidate_attrs(c: Candidate) -> dict[str, Any]:
    return {"figures": {lv: {f: list(asdict(e).values()) for f, e in fs.items()}
                        for lv, fs in c.figures.items()},
            "weights": c.weights, "raced": c.raced, "seconds": c.seconds,
            "repeat_of": c.repeat_of}


def _candidate_from_trial(trial, space: Space) -> Candidate:
    a = trial.user_attrs
    choice = {p.path: parse_value(trial.params[p.path]) for p in space.parameters}
    figures = {lv: {f: Estimate(v[0], v[1], v[2], int(v[3])) for f, v in fs.items()}
               for lv, fs in a.get("figures", {}).items()}
    return Candidate(int(a.get("candidate", trial.number)), choice, float(trial.value),
                     bool(a.get("raced")), figures, a.get("weights", {}),
                     float(a.get("seconds", 0.0)), a.get("repeat_of"))


def settings_defaults() -> dict[str, Any]:
    """How a setting missing from a folder's settings reads: as its default when the
    folder was written -- for search_retune_budget, which came later, None (the search
    re-tuned like the validation)."""
    return settings_of(CalibrationConfig(search_retune_budget=None))


def _open_study(out: Path, config: CalibrationConfig, inputs: Inputs):
    """The folder's study: a new one, or the one a calibration with the same settings
    left there (continued); other settings are refused."""
    claim_settings(out, inputs.settings(config), "calibration", settings_defaults(),
                   CalibrationError)
    return open_study(out, STUDY, direction="minimize")


def search_budget(config: CalibrationConfig) -> int:
    """Games of each re-tune in the search (the validation's: `retune_budget`)."""
    return (config.retune_budget if config.search_retune_budget is None
            else config.search_retune_budget)


def _sampler(seed: int, number: int):
    import optuna

    return optuna.samplers.TPESampler(seed=stream(seed, f"trial{number}"), multivariate=True,
                                      n_startup_trials=10)


# ------------------------------------------------------------------- the search
def calibrate(config: CalibrationConfig, out: str | Path, *, jobs: int = 1,
              backend: str = "loky", scheduler: str | None = None,
              on_trial: TrialProgress | None = None, on_retune: RetuneProgress | None = None,
              on_phase: Phase | None = None, on_plan: Callable[[int, int], None] | None = None,
              stop_after: int | None = None, inputs: Inputs | None = None
              ) -> Calibration | None:
    """Run a calibration into `out`, or continue the one with the same settings there (a
    kill loses at most the candidate being measured); None when `stop_after` trials of
    this call ended it early (a test's stand-in for Ctrl-C). `inputs`:
    load_inputs(config), when the caller has already loaded and checked them."""
    import optuna

    from targi_sim.runner.dispatch import check_options, parallel_pool

    check_options(jobs, backend, scheduler)
    inputs = inputs or load_inputs(config)
    space, targets = inputs.space, inputs.targets
    out = Path(out)
    t0 = time.perf_counter()
    study = _open_study(out, config, inputs)
    _fail_unfinished(study)
    measure_seed, validate_seed = stream(config.seed, "measure"), stream(config.seed,
                                                                          "validate")
    distributions = {p.path: optuna.distributions.CategoricalDistribution(
        [value_key(v) for v in p.values]) for p in space.parameters}
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    if on_plan is not None:
        on_plan(config.trials, len(done))
    played = 0
    with parallel_pool(jobs, backend, scheduler) as parallel:
        ev = Evaluator(config, inputs, parallel, on_retune)
        def measure(trial, done) -> Candidate:
            """One trial: a repeat reuses its twin's measurement, else play."""
            choice = {p.path: parse_value(trial.params[p.path]) for p in space.parameters}
            best = min((t.value for t in done if not t.user_attrs.get("raced")),
                       default=math.inf)
            repeat = next((t for t in done if t.params == trial.params
                           and not t.user_attrs.get("raced")), None)
            # a candidate's number is its place among the finished trials: a trial
            # left unfinished by a kill (marked failed) does not shift the numbers
            number = len(done)
            if repeat is not None:
                cand = _candidate_from_trial(repeat, space)
                cand.repeat_of, cand.number, cand.seconds = cand.number, number, 0.0
            else:
                cand, _ = ev.evaluate(number, choice, measure_seed=measure_seed,
                                      retune_seed=config.seed, deals=config.deals, best=best,
                                      retune_budget=search_budget(config))
            trial.set_user_attr("candidate", number)
            for k, v in _candidate_attrs(cand).items():
                trial.set_user_attr(k, v)
            study.tell(trial, cand.objective)
            return cand

        while len(done) < config.trials:
            if stop_after is not None and played >= stop_after:
                return None
            study.sampler = _sampler(config.seed, len(done))
            if not done:
                study.enqueue_trial({p: value_key(v) for p, v in space.current().items()})
            cand = measure(study.ask(distributions), done)
            done = _complete(study)
            played += 1
            if on_trial is not None:
                on_trial(len(done), config.trials, cand)
        candidates = [_candidate_from_trial(t, space) for t in done]
        chosen = _to_validate(candidates, config)
        if on_phase is not None:
            on_phase("validate", len(chosen))
        def validated_one(v: Candidate) -> None:
            if on_trial is not None:
                on_trial(len(candidates), config.trials, v)

        validated, players = _validate(ev, chosen, config, validate_seed, validated_one)
        steps: list[int] = []  # validated as simplification steps, in order

        def measure_fresh(choice: dict[str, Any],
                          rejected: Callable[[Candidate], bool]) -> Candidate:
            """A simplification step, measured like the finalists (fresh deals, fresh
            re-tunes) but raced: stopped before its re-tunes when its fixed levels already
            reject it; an economy already validated is not played again."""
            key = _key(choice)
            known = next((v for v in validated if _key(v.choice) == key), None)
            if known is not None:
                return known
            twin = next((c for c in candidates if _key(c.choice) == key), None)
            # an economy the search never measured gets the next number after its own
            number = (twin.number if twin is not None else
                      len(candidates) + sum(n >= len(candidates) for n in steps))
            v, players[number] = _validate_one(ev, number, choice, config, validate_seed,
                                               rejected)
            validated.append(v)
            steps.append(number)
            validated_one(v)
            return v

        start = start_of_simplification(validated, targets)
        simplify(space, start, validated[0].choice, measure_fresh, targets,
                 config.simplify_slack,
                 None if on_phase is None else lambda n: on_phase("simplify", n))
    proposal = choose_proposal(validated, targets, config.simplify_slack)
    return Calibration(config, space, targets, candidates, validated, proposal, players,
                       time.perf_counter() - t0, out, inputs.deck, inputs.rules,
                       inputs.levels, tuple(steps))


# ------------------------------------------------------------------- the proposal rule
def met_targets(targets: Targets, c: Candidate) -> frozenset[int]:
    """The targets (by index) `c` meets (Target.met)."""
    return frozenset(i for i, t in enumerate(targets.targets)
                     if t.met(c.figures.get(t.level, {}).get(t.figure)))


def meets_all(targets: Targets, c: Candidate) -> bool:
    return len(met_targets(targets, c)) == len(targets.targets)


def start_of_simplification(validated: list[Candidate], targets: Targets) -> Candidate:
    """Where simplification starts: the validated economy with the fewest changes among
    those that meet every target; when none does, the smallest miss (then the fewest
    changes). validated[0] is the current economy; a step stopped before its re-tunes
    (raced: its objective only a lower bound) is never chosen."""
    current = validated[0].choice
    whole = [c for c in validated if not c.raced]
    fit = [c for c in whole if meets_all(targets, c)]
    if fit:
        return min(fit, key=lambda c: (changed(c, current), round(c.objective, 9), c.number))
    return min(whole, key=lambda c: (round(c.objective, 9), changed(c, current), c.number))


def choose_proposal(validated: list[Candidate], targets: Targets,
                    slack: float = DEFAULT_SLACK) -> Candidate | None:
    """The rule that never trades a met target for simplicity: among the validated
    economies that meet every target (Target.met), the one with the fewest
    changes (then the smaller objective); when none meets all, the smallest miss, then
    the fewest changes among those within `slack` of it that meet every target it meets
    (the slack absorbs the noise of re-tuned players). None when that is the current
    economy (validated[0])."""
    current = validated[0].choice
    top = start_of_simplification(validated, targets)
    if meets_all(targets, top):
        best = top
    else:
        keep = met_targets(targets, top)
        close = [c for c in validated if not c.raced and c.objective <= top.objective + slack
                 and met_targets(targets, c) >= keep]
        best = min(close, key=lambda c: (changed(c, current), round(c.objective, 9),
                                         c.number))
    return None if changed(best, current) == 0 else best


def simplify(space: Space, start: Candidate, current: dict[str, Any],
             measure: Callable[[dict[str, Any], Callable[[Candidate], bool]], Candidate],
             targets: Targets, slack: float = 0.0,
             on_pass: Callable[[int], None] | None = None) -> dict[str, Any]:
    """From the validated economy `start`, put each changed value (in the space's order)
    back to its `current` reading, measured like a finalist, and keep the step only when
    every target met so far stays met on the validation deals -- and, while some target
    is missed, the objective stays within `slack` of start's (the slack does not
    accumulate). A step rejected in one pass is tried again in the next, after a later
    step was kept (a value may be needed only while another is still moved), until a
    pass keeps nothing. The proposal then moves only the values the targets need.

    `measure(choice, rejected)`: the step validated; `rejected(partial)` tells it when
    the levels it measured first already reject the step (then it may stop there and
    return it raced: a raced step is never kept). `on_pass(n)`: a pass begins that
    tries n values. Returns the simplified economy."""
    choice, met = dict(start.choice), met_targets(targets, start)
    limit = start.objective + slack
    kept, first = True, True
    while kept:
        kept = False
        moved = [p for p in space.parameters
                 if value_key(choice[p.path]) != value_key(current[p.path])]
        if (moved or first) and on_pass is not None:
            on_pass(len(moved))
        first = False
        for p in moved:
            step = measure({**choice, p.path: current[p.path]},
                           lambda part, met=met: rejected_early(targets, met, limit, part))
            if keeps_step(targets, met, limit, step):
                choice, met, kept = dict(step.choice), met_targets(targets, step), True
    return choice


def keeps_step(targets: Targets, met: frozenset[int], limit: float, step: Candidate) -> bool:
    """simplify's rule for one validated step: every target met so far stays met, and
    every target is met or the objective is within `limit`. A raced step (stopped
    before its re-tunes: rejected_early) is not kept."""
    return (not step.raced and met_targets(targets, step) >= met
            and (meets_all(targets, step) or step.objective <= limit))


def rejected_early(targets: Targets, met: frozenset[int], limit: float,
                   partial: Candidate) -> bool:
    """Whether a simplification step measured at some levels only (`partial.figures`)
    is rejected whatever its other levels show: it misses a target of those levels that
    was met so far, or it misses one (so it cannot meet every target) and its objective
    on those levels alone -- a lower bound of the whole, a sum of squares -- is already
    above `limit`. Exact: the full measurement would reject it too."""
    missed = {i for i, t in enumerate(targets.targets) if t.level in partial.figures
              and not t.met(partial.figures[t.level].get(t.figure))}
    return bool(missed & met) or (bool(missed) and partial.objective > limit)


def _key(choice: dict[str, Any]) -> str:
    return json.dumps({p: value_key(v) for p, v in choice.items()}, sort_keys=True)


def _complete(study) -> list:
    import optuna

    return [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]


def _fail_unfinished(study) -> None:
    """Trials a killed process left running or queued are marked failed: the search
    proposes (or queues) them again, numbered by finished trials only, so a resumed
    search proposes what an uninterrupted one would."""
    import optuna

    for t in study.trials:
        if t.state in (optuna.trial.TrialState.RUNNING, optuna.trial.TrialState.WAITING):
            study._storage.set_trial_state_values(t._trial_id, optuna.trial.TrialState.FAIL)


def changed(c: Candidate, current: dict[str, Any]) -> int:
    """How many values of the economy differ from the current one."""
    return sum(value_key(v) != value_key(current.get(p)) for p, v in c.choice.items())


def rank(c: Candidate, current: dict[str, Any]) -> tuple:
    """Best first: the smaller objective; on a tie, fewer changed values (a designer
    should move no more uncertain values than the targets need), then the earlier."""
    return (round(c.objective, 9), changed(c, current), c.number)


def finalists(candidates: Sequence[Candidate], k: int) -> list[Candidate]:
    """The k best distinct economies that were measured in full (not raced out);
    candidates[0] is the current economy (rank's tie-break)."""
    seen: set[str] = set()
    out = []
    current = candidates[0].choice if candidates else {}
    for c in sorted(candidates, key=lambda c: rank(c, current)):
        key = _key(c.choice)
        if c.raced or key in seen:
            continue
        seen.add(key)
        out.append(c)
        if len(out) == k:
            break
    return out


def _validate_one(ev: Evaluator, number: int, choice: dict[str, Any],
                  config: CalibrationConfig, seed: int,
                  screen: Callable[[Candidate], bool] | None = None
                  ) -> tuple[Candidate, dict[str, Strategy]]:
    """One economy validated: `validate_retunes` independent re-tunes, each measured on
    its share of `validate_deals` fresh deals. The re-tune is the unit of every figure's
    interval: a re-tuned player is one draw of the strong level, and the figures of one
    draw share it (one re-tune's full-display share ranged 0.2-4.5% over seeds for one
    economy: docs/calibrate.md).

    `screen(partial)`: the levels that are never re-tuned are measured first, on every
    draw's deals (the very figures the whole validation would give them); when `screen`
    says that alone decides the economy's fate, it is returned raced, without re-tunes."""
    k = config.validate_retunes
    deals = -(-config.validate_deals // k)
    blocks = [stream(seed, f"block{r}") for r in range(k)]
    known: list[dict[str, dict[str, Estimate]] | None] = [None] * k
    screened = 0.0
    if screen is not None and ev.racing_levels():
        t0 = time.perf_counter()
        known = ev.fixed_figures(number, choice, seeds=blocks, deals=deals)
        figures = _pooled(known, k)
        screened = time.perf_counter() - t0
        partial = Candidate(number, choice,
                            objective_of(ev.targets, figures, ev.racing_levels()), True,
                            figures, {}, screened)
        if screen(partial):
            return partial, dict(zip(ev.names, ev.strategies, strict=True))
    draws = [ev.evaluate(number, choice, measure_seed=b,
                         retune_seed=stream(config.seed, f"validate-retune{r}"),
                         deals=deals, race=False, known=known[r])
             for r, b in enumerate(blocks)]
    v, ps = draws[0]  # the first re-tune's players are the ones written out
    if k > 1:
        figures = _pooled([d.figures for d, _ in draws], k)
        v = Candidate(number, choice, objective_of(ev.targets, figures), False, figures,
                      v.weights, sum(d.seconds for d, _ in draws))
    v.seconds += screened
    return v, dict(zip(ev.names, ps, strict=True))


def _pooled(draws: Sequence[dict[str, dict[str, Estimate]]], k: int
            ) -> dict[str, dict[str, Estimate]]:
    """Each figure over the validation's draws (over_draws); one draw's own figures when
    there is one."""
    if k == 1:
        return draws[0]
    return {lv: {f: over_draws([d[lv][f] for d in draws], share=FIGURES[f].unit == "share")
                 for f in fs} for lv, fs in draws[0].items()}


def over_draws(estimates: Sequence[Estimate], share: bool = False) -> Estimate:
    """A figure over independent draws (re-tunes, each on as many deals): their mean, and
    a t interval on the draws' values (Student's t, scipy), so the spread between draws
    -- not only the deals' -- sets its width. Units: the draws. `share`: the interval
    is cut to 0..1."""
    import numpy as np
    from scipy import stats

    values = np.array([e.value for e in estimates], dtype=float)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = float(values.mean())
    if len(values) < 2:
        return Estimate(mean, estimates[0].lo, estimates[0].hi, 1)
    se = float(values.std(ddof=1)) / math.sqrt(len(values))
    lo, hi = ((mean, mean) if se == 0 else
              stats.t.interval(0.95, len(values) - 1, loc=mean, scale=se))
    if share:
        lo, hi = max(0.0, lo), min(1.0, hi)
    return Estimate(mean, float(lo), float(hi), len(values))


def _to_validate(candidates: list[Candidate], config: CalibrationConfig) -> list[Candidate]:
    """The economies the validation measures: the current one and the finalists."""
    chosen = [candidates[0]]
    chosen += [c for c in finalists(candidates, config.finalists + 2)
               if all(c.choice != x.choice for x in chosen)][:config.finalists]
    return chosen


def _validate(ev: Evaluator, chosen: list[Candidate], config: CalibrationConfig,
              seed: int, on_done: Callable[[Candidate], None] | None = None
              ) -> tuple[list[Candidate], dict[int, dict[str, Strategy]]]:
    """The `chosen` economies (`_to_validate`: the current one and the finalists),
    validated."""
    out, players = [], {}
    for c in chosen:
        v, players[c.number] = _validate_one(ev, c.number, c.choice, config, seed)
        out.append(v)
        if on_done is not None:
            on_done(v)
    return out, players


__all__ = ["CONFIG_FILE", "Calibration", "CalibrationConfig", "CalibrationError",
           "Candidate", "Evaluator", "Inputs", "calibrate", "changed", "choose_proposal",
           "finalists", "keeps_step", "load_inputs", "meets_all", "met_targets",
           "objective_of", "rank", "over_draws", "rejected_early", "search_budget", "simplify",
           "start_of_simplification", "stream"]
