"""The search: Optuna's TPE sampler over small card edits, raced on common random numbers.

Every candidate deck plays the same deals, block after block (common random numbers,
so two candidates differ by their edits, not by their luck). After each block the
candidate's objective so far is reported to Optuna's successive-halving pruner, which
stops candidates that are out of contention: only those still in it get more games.
The study lives in an append-only journal file (Optuna's JournalStorage) in the
output folder, so a stopped search resumes
where it stopped; each trial reseeds the sampler from (seed, trial number), so a
resumed search proposes what an uninterrupted one would have.

A proposal edits card classes (identical printed cards change together:
targi_sim.game.classes) and, when the settings name an economy space file (the format
of `calibrate`), that file's trade tables and rules values. Each level of play is a
mirror match; a level listed in `retuned` is re-tuned for every candidate deck (a warm
start from its own weights: strength.tune.retune) before it is measured, so a strong
level plays each deck as a strong player of that deck would. The levels' objectives
combine into one: the worst level's by default.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from targi_sim._utils.seeds import derive_seed
from targi_sim.balance.config import BalanceConfig, BalancePlan
from targi_sim.balance.space import (
    Edits,
    apply_edits,
    edits_from_deltas,
    edits_key,
    expand,
    problem,
    value_of,
)
from targi_sim.errors import InputError
from targi_sim.fairness.measure import DeckStats, measure
from targi_sim.fairness.objective import Terms, compared_cards, terms
from targi_sim.fairness.settings import Settings
from targi_sim.game.classes import CardClasses, card_classes
from targi_sim.game.deck import COST_KEYS, Deck
from targi_sim.game.rules import Rules
from targi_sim.play.match import Match, prepare_match
from targi_sim.play.pairing import games_per_deal, plan, resolve_pairing
from targi_sim.players.strategy import Strategy, follow_retuned, resolve_strategy
from targi_sim.searches import claim_settings, moving_levels, open_study

CHUNK_DEALS = 1000  # deals per worker task: fixed, so results do not depend on --jobs
NONE = "-"


def stream_seed(seed: int, purpose: str) -> int:
    """A run seed (0..2^31-1) for one use of the balance seed: "search", "validate"."""
    return derive_seed("targi-balance", purpose, seed)


@dataclass
class Candidate:
    """One evaluated proposal: card edits (every copy of a class listed) and the economy
    values it changes (path -> new value)."""

    number: int
    edits: Edits
    value: float
    terms: list[Terms]
    blocks: int
    pruned: bool = False
    economy: dict[str, Any] = field(default_factory=dict)
    weights: dict[str, list[float]] = field(default_factory=dict)  # re-tuned levels'


@dataclass
class SearchState:
    trials: int = 0
    games: int = 0
    best: Candidate | None = None
    base: Candidate | None = None
    history: list[tuple[int, int, float]] = field(default_factory=list)  # trial, games, best
    seen: dict[str, float | None] = field(default_factory=dict)  # key -> value (None: pruned)
    cards: list[int] = field(default_factory=list)  # the classes (first cards) it may edit


Progress = Callable[[SearchState, int], None]  # state, budget
RetuneProgress = Callable[[str, int, int], None]  # level, generation, generations


class Evaluator:
    """Plays candidate decks on the search's common deals, through a joblib pool."""

    def __init__(self, config: BalanceConfig, settings: Settings, parallel, jobs: int,
                 on_retune: RetuneProgress | None = None,
                 plan: BalancePlan | None = None) -> None:
        """`plan`: the inputs prepare_balance loaded (else loaded here by name)."""
        self.config, self.settings = config, settings
        self.parallel, self.jobs = parallel, jobs
        self.on_retune = on_retune
        self.levels = tuple(config.strategies)
        self.strategies: list[Strategy] = (
            list(plan.strategies) if plan is not None
            else [resolve_strategy(s) for s in config.strategies])
        deck, rules = (plan.deck, plan.rules) if plan is not None else (config.deck,
                                                                         config.rules)
        self.matches: list[Match] = [prepare_match((s, s), deck, rules)
                                     for s in self.strategies]
        self.pairings = [resolve_pairing("auto", [s, s]) for s in self.strategies]
        self.deck: Deck = self.matches[0].deck
        self.rules: Rules = self.matches[0].rules
        space = settings.space
        self.classes = card_classes(self.deck, space.distinct_ids(self.deck, settings.path))
        self.economy_space = None
        if space.economy:
            from targi_sim.calibrate.space import load_space

            self.economy_space = load_space(space.economy, self.deck, self.rules)
        self.seed = stream_seed(config.seed, "search")
        self.compared: list | None = None  # per level: the base's compared classes
        self.fork_rate = (settings.objective.fork_rate
                          if settings.objective.value == "causal" else 0.0)
        self.fixed_first = fixed_first_levels(self.levels, self.strategies, config.retuned,
                                              settings.objective.combine)

    def block_games(self, m: int) -> int:
        return self.config.block_deals * games_per_deal(self.pairings[m])

    def deck_for(self, edits: Edits, econ: dict[str, Any], label: str) -> tuple[Deck, Rules]:
        """The candidate's deck and rules: the economy values, then the card edits."""
        deck, rules = self.deck, self.rules
        if econ:
            from targi_sim.calibrate.space import economy

            choice = self.economy_space.current() | econ
            deck, rules, _ = economy(self.economy_space, choice, deck, rules, label)
        return apply_edits(deck, edits), rules

    def players(self, deck: Deck, rules: Rules, seed: int,
                weights: dict[str, list[float]] | None = None
                ) -> tuple[list[Strategy], dict[str, list[float]], int]:
        """Each level's player on this deck: the re-tuned levels re-tuned (or rebuilt from
        known `weights`); returns the players, the re-tuned weights and the games spent."""
        from targi_sim.strength.tune import retune

        players, out, games = list(self.strategies), {}, 0
        for i, name in enumerate(self.levels):
            if name not in self.config.retuned:
                continue
            if weights is not None and name in weights:
                players[i] = replace(self.strategies[i], params=np.asarray(weights[name]))
            else:
                r = retune(self.strategies[i], deck, rules, parallel=self.parallel,
                           budget=self.config.retune_budget, seed=seed, name=name,
                           sigma=self.config.retune_sigma, **self._retune_progress(name))
                players[i], games = r.strategy, games + r.games
            out[name] = [float(x) for x in players[i].params]
        return follow_retuned(players, self.strategies), out, games

    def _retune_progress(self, name: str) -> dict:
        """retune's callbacks reporting to on_retune(level, generation, generations)."""
        report = self.on_retune
        if report is None:
            return {}
        gens = [0]

        def start(n: int) -> None:
            gens[0] = n
            report(name, 0, n)

        return {"on_start": start,
                "progress": lambda gen, _per_gen: report(name, gen.index, gens[0])}

    def matches_for(self, deck: Deck, rules: Rules, players: Sequence[Strategy]) -> list[Match]:
        return [prepare_match((p, p), deck, rules) for p in players]

    def _tasks(self, matches: Sequence[Match], block: int, seed: int, deals: int,
               levels: Sequence[int] | None = None) -> list[tuple]:
        """(position in `matches`, match, plan, pairing) per chunk; `levels`: the level
        each match plays (default: matches[m] is level m)."""
        tasks = []
        for m, match in enumerate(matches):
            pairing = self.pairings[m if levels is None else levels[m]]
            gpd = games_per_deal(pairing)
            for lo in range(0, deals, CHUNK_DEALS):
                k = min(CHUNK_DEALS, deals - lo)
                start = (block * deals + lo) * gpd
                tasks.append((m, match, plan(k * gpd, seed, pairing, start=start), pairing))
        return tasks

    def play_block(self, matches: Sequence[Match], block: int,
                   levels: Sequence[int] | None = None) -> list[DeckStats]:
        """Each level's stats of block `block` of the search deals (chunk order fixed);
        `levels`: the levels `matches` play, when not all of them. A level's games and
        stats are the same whether it plays alone or beside the others."""
        from joblib import delayed

        tasks = self._tasks(matches, block, self.seed, self.config.block_deals, levels)
        args = [(mm, p, pr, self.classes, self.fork_rate) for _, mm, p, pr in tasks]
        if self.jobs == 1:
            results = [measure(*a) for a in args]
        else:
            results = self.parallel(delayed(measure)(*a) for a in args)
        out: list[DeckStats | None] = [None] * len(matches)
        for (m, *_), r in zip(tasks, results, strict=True):
            out[m] = r if out[m] is None else out[m] + r
        return out  # type: ignore[return-value]

    def terms_of(self, deck: Deck, stats: Sequence[DeckStats],
                 levels: Sequence[int] | None = None) -> list[Terms]:
        """Each level's terms (`levels`: the levels `stats` belong to, when not all)."""
        fixed = self.compared
        at = range(len(stats)) if levels is None else levels
        return [terms(s, deck, self.settings.objective, None if fixed is None else fixed[m],
                      self.classes)
                for m, s in zip(at, stats, strict=True)]

    def value(self, ts: Sequence[Terms], changed: int,
              levels: Sequence[int] | None = None) -> float:
        """The levels' terms as one value (`levels`: the levels `ts` belong to, when not
        all: with "worst", those levels' bound on the full value)."""
        names = self.levels if levels is None else [self.levels[m] for m in levels]
        return combine(self.settings, names, [t.total(self.settings.objective, changed)
                                              for t in ts])

    def changed(self, edits: Edits, econ: dict[str, Any]) -> int:
        """Changes of a proposal: edited classes plus changed economy values."""
        return len({int(self.classes.of_card[c]) for c in edits}) + len(econ)


def fixed_first_levels(levels: Sequence[str], strategies: Sequence[Strategy],
                       retuned: Sequence[str], how: str) -> list[int]:
    """The levels a candidate plays before its re-tunes (racing): those no re-tune moves
    (searches.moving_levels), when the levels combine by the worst -- then their worst
    objective bounds the candidate's from below. Empty (no racing) when nothing is
    re-tuned or the levels are averaged."""
    moving = moving_levels(levels, strategies, retuned)
    if not moving or how != "worst":
        return []
    return [m for m in range(len(levels)) if m not in moving]


def combine(settings: Settings, levels: Sequence[str], values: Sequence[float]) -> float:
    """The levels' objectives as one: the worst (default) or their weighted mean."""
    obj = settings.objective
    if obj.combine == "worst" or len(values) == 1:
        return float(max(values))
    w = np.array([obj.weight(lv) for lv in levels])
    if w.sum() <= 0:
        return float(np.mean(values))
    return float(np.dot(w, values) / w.sum())


ECON = "econ:"  # Optuna parameter prefix of an economy value


def suggest(trial, ev: Evaluator, cards: Sequence[int]) -> tuple[Edits, dict[str, Any]]:
    """A proposal from the trial: the economy values (if the space has them), then up to
    max_changes slots, each a class (by its first card) or none and its fields' deltas;
    deltas that would leave the space are repaired (clipped to cost >= 0, cost decreases
    undone below the minimum total); slots beyond max_changes minus the economy's
    changes are ignored."""
    from targi_sim.calibrate.space import parse_value, value_key

    settings, space = ev.settings, ev.settings.space
    econ: dict[str, Any] = {}
    if ev.economy_space is not None:
        for prm in ev.economy_space.parameters:
            pick = trial.suggest_categorical(ECON + prm.path,
                                             [value_key(v) for v in prm.values])
            if pick != value_key(prm.current):
                econ[prm.path] = parse_value(pick)
    deltas: dict[int, dict[str, int]] = {}
    choices = [NONE] + [str(c) for c in cards]
    for slot in range(space.max_changes):
        pick = trial.suggest_categorical(f"slot{slot}", choices)
        if pick == NONE:
            continue
        card = int(pick)
        deltas[card] = {f: trial.suggest_int(f"card{card}.{f}", -space.step, space.step)
                        for f in space.fields}
    room = max(0, space.max_changes - len(econ))
    kept = dict(list(((c, d) for c, d in deltas.items() if any(d.values())))[:room])
    return repair(ev.deck, kept, settings, ev.classes), econ


def repair(deck: Deck, deltas: dict[int, dict[str, int]], settings: Settings,
           classes: CardClasses | None = None) -> Edits:
    """The edits of `deltas` (per class, by its first card) on every copy of each class,
    repaired into the space."""
    space = settings.space
    fixed: dict[int, dict[str, int]] = {}
    for card, d in deltas.items():
        d = {f: max(v, -value_of(deck, card, f)) for f, v in d.items()}  # values >= 0
        if "vp" in d and value_of(deck, card, "vp") + d["vp"] < space.min_vp:
            d["vp"] = 0  # no card loses its last VPs below the minimum
        total = sum(value_of(deck, card, k) + d.get(k, 0) for k in COST_KEYS)
        if total < space.min_total_cost:
            d = {f: (0 if f in COST_KEYS and v < 0 else v) for f, v in d.items()}
        fixed[card] = d
    edits = expand(edits_from_deltas(deck, fixed), classes)
    why = problem(deck, edits, space, classes)
    if why is not None:  # cannot happen after the repair; keep the search honest if it does
        raise AssertionError(why)
    return edits


def class_deviations(classes: CardClasses, base: Terms, vp: np.ndarray) -> np.ndarray:
    """Each class's value minus its VP group's mean value (NaN if not measured); `vp` the
    classes' printed VP."""
    dev = np.full(classes.size, np.nan)
    for g in np.unique(vp):
        sel = base.eligible & (vp == g)
        if sel.sum() >= 2:
            dev[sel] = base.card_value[sel] - base.card_value[sel].mean()
    return dev


def deviations(deck: Deck, base: Terms, classes: CardClasses) -> np.ndarray:
    """Per card: its class's value minus its VP group's mean value (NaN if unmeasured)."""
    vp = deck.tribe_vp[classes.first()]
    return class_deviations(classes, base, vp)[classes.of_card]


def single_edits(deck: Deck, dev: np.ndarray, cards: Sequence[int], settings: Settings,
                 on_top: dict[int, dict[str, int]] | None = None,
                 classes: CardClasses | None = None) -> list[dict[int, dict[str, int]]]:
    """Every one-field, one-step edit of a candidate class (by its first card) in the
    direction its value asks for (`dev`: its value minus its VP group's mean; a class
    above the mean gets dearer or loses a VP, one below gets cheaper or gains a VP),
    furthest first, each added to the edits `on_top` (the incumbent of a forward round;
    keyed by first cards)."""
    space = settings.space
    on_top = on_top or {}
    order = sorted((c for c in cards if np.isfinite(dev[c])), key=lambda c: (-abs(dev[c]), c))
    if len(on_top) >= space.max_changes:
        order = [c for c in order if c in on_top]
    start = edits_key(repair(deck, on_top, settings, classes))
    out = []
    for c in order:
        sign = 1 if dev[c] > 0 else -1  # too strong: dearer / fewer VP
        for f in space.fields:
            if on_top.get(c, {}).get(f):
                continue
            deltas = {k: dict(v) for k, v in on_top.items()}
            deltas.setdefault(c, {})[f] = -sign if f == "vp" else sign
            if edits_key(repair(deck, deltas, settings, classes)) != start:  # allowed
                out.append(deltas)
    return out


def combinations(singles: Sequence[tuple[float, dict[int, dict[str, int]]]],
                 settings: Settings) -> list[dict[int, dict[str, int]]]:
    """Greedy combinations of the screened single edits that beat the base: the best
    edit of each class, best first, 2..max_changes of them."""
    best_per_card: dict[int, tuple[float, dict[str, int]]] = {}
    for gain, deltas in sorted(singles, key=lambda x: -x[0]):
        (card, d), = deltas.items()
        if gain > 0 and card not in best_per_card:
            best_per_card[card] = (gain, d)
    ranked = list(best_per_card.items())
    out = []
    for k in range(2, min(settings.space.max_changes, len(ranked)) + 1):
        out.append({c: d for c, (_, d) in ranked[:k]})
    return out


def trial_params(deltas: dict[int, dict[str, int]], settings: Settings,
                 ev: Evaluator | None = None, econ: dict[str, Any] | None = None) -> dict:
    """Optuna parameters that make `suggest` return these deltas and economy values (the
    current ones where `econ` says nothing): for enqueue_trial."""
    from targi_sim.calibrate.space import value_key

    params: dict = {}
    if ev is not None and ev.economy_space is not None:
        for prm in ev.economy_space.parameters:
            params[ECON + prm.path] = value_key((econ or {}).get(prm.path, prm.current))
    cards = list(deltas)[: settings.space.max_changes]
    for slot in range(settings.space.max_changes):
        params[f"slot{slot}"] = str(cards[slot]) if slot < len(cards) else NONE
    for c in cards:
        for f in settings.space.fields:
            params[f"card{c}.{f}"] = int(deltas[c].get(f, 0))
    return params


def candidate_cards(ev: Evaluator, base: Terms) -> list[int]:
    """The classes (by first card) the search may edit: none of their copies frozen, and
    (with `candidates` > 0) only the ones furthest from their VP group's mean value in
    the base measurement."""
    deck, settings, classes = ev.deck, ev.settings, ev.classes
    frozen = settings.space.frozen_ids(deck, settings.path)
    free = [m[0] for m in classes.members if not frozen.intersection(m)]
    k = settings.space.candidates
    if not k or k >= len(free):
        return free
    dev = np.abs(np.nan_to_num(deviations(deck, base, classes), nan=0.0))
    ranked = sorted(free, key=lambda c: (-dev[c], c))
    return sorted(ranked[:k])


def measure_full(ev: Evaluator, deck: Deck, matches: Sequence[Match]) -> tuple[list[Terms], int]:
    """A deck's terms over every block of the search deals, and the games played."""
    stats = None
    for b in range(ev.config.blocks):
        block = ev.play_block(matches, b)
        stats = block if stats is None else [a + c for a, c in zip(stats, block, strict=True)]
    return ev.terms_of(deck, stats), sum(s.games for s in stats)


def pool_width(jobs: int, backend: str) -> int:
    """The Evaluator's `jobs`: 1 plays in this process; a Dask cluster is always used."""
    return max(jobs, 2) if backend == "dask" else jobs


def proposal_key(edits: Edits, econ: dict[str, Any]) -> str:
    """A canonical text for a proposal (the cache key of a candidate)."""
    from targi_sim.calibrate.space import value_key

    if not econ:
        return edits_key(edits)
    return edits_key(edits) + "|" + ";".join(f"{k}={value_key(v)}"
                                             for k, v in sorted(econ.items()))


def parse_proposal_key(key: str) -> tuple[Edits, dict[str, Any]]:
    """proposal_key's inverse."""
    from targi_sim.calibrate.space import parse_value

    cards, _, econ = key.partition("|")
    out = {}
    for part in econ.split(";") if econ else []:
        k, _, v = part.partition("=")
        out[k] = parse_value(v)
    return parse_key(cards), out


def retune_seed(config: BalanceConfig, purpose: str = "search") -> int:
    """One re-tune seed for every candidate of a search: common random numbers."""
    return stream_seed(config.seed, f"retune-{purpose}")


def open_balance_study(out: Path, plan: BalancePlan):
    """The search's Optuna study in `out`, created or continued: rerunning the same
    command continues a stopped search (as `run` and `sweep` do); a folder holding a
    search with other settings is refused, naming them."""
    import optuna

    from targi_sim.searches.journal import JOURNAL_FILE, SETTINGS_FILE

    if (out / JOURNAL_FILE).exists() and not (out / SETTINGS_FILE).exists():
        raise InputError(f"{str(out)!r} holds a balance search of an earlier version (no "
                         f"{SETTINGS_FILE}); choose another `out` (or delete the folder)")
    claim_settings(out, plan.record(), "balance search")
    return open_study(out, "balance", direction="minimize",
                      pruner=optuna.pruners.SuccessiveHalvingPruner(min_resource=1,
                                                                    reduction_factor=3))


def search(plan: BalancePlan, out: Path, *, jobs: int = 1,
           progress: Progress | None = None, stop_after: int | None = None,
           backend: str = "loky", scheduler: str | None = None,
           on_retune: RetuneProgress | None = None) -> SearchState:
    """Run (or continue) the search in `out`; returns the state with the best candidate.

    The base deck is measured first on the same deals (it is candidate 0, outside the
    study: its measurement chooses the candidate classes and the starting proposals)."""
    import optuna

    from targi_sim.runner.dispatch import parallel_pool

    config, settings = plan.config, plan.settings
    with parallel_pool(jobs, backend, scheduler) as parallel:
        ev = Evaluator(config, settings, parallel, pool_width(jobs, backend), on_retune, plan)
        deck = ev.deck
        study = open_balance_study(out, plan)
        players, weights, tune_games = ev.players(deck, ev.rules, retune_seed(config))
        base_terms, base_games = measure_full(ev, deck, ev.matches_for(deck, ev.rules, players))
        ev.compared = [compared_cards(deck, t, settings.objective.min_plays, ev.classes)
                       for t in base_terms]
        base = Candidate(-1, {}, ev.value(base_terms, 0), base_terms, config.blocks,
                         weights=weights)
        state = _replay(study, ev, base, base_games + tune_games)
        cards = candidate_cards(ev, _reference(base_terms, settings))
        state.cards = cards
        if not study.user_attrs.get("screened"):
            dev = deviations(deck, _reference(base_terms, settings), ev.classes)
            for d in single_edits(deck, dev, cards, settings, classes=ev.classes):
                study.enqueue_trial(trial_params(d, settings, ev),
                                    user_attrs={"stage": "single"})
            study.set_user_attr("screened", True)
        if progress is not None:
            progress(state, config.budget)
        while state.games < config.budget:
            if stop_after is not None and state.trials >= stop_after:
                break
            if not study.user_attrs.get("combined") and not _waiting(study):
                for d in combinations(_single_gains(study, base.value), settings):
                    study.enqueue_trial(trial_params(d, settings, ev),
                                        user_attrs={"stage": "combination"})
                study.set_user_attr("combined", True)
            elif not study.user_attrs.get("rounds_done") and not _waiting(study):
                _forward_round(study, ev, cards, state)
            # seeded by the trials so far less those a kill interrupted (failed on
            # resume), so a search killed mid-candidate draws what an uninterrupted one would
            study.sampler = optuna.samplers.TPESampler(
                seed=stream_seed(config.seed, f"tpe{_counted(study)}"), n_startup_trials=10)
            trial = study.ask()
            edits, econ = suggest(trial, ev, cards)
            state.games += _evaluate(study, trial, edits, econ, ev, state)
            state.trials += 1
            state.history.append((state.trials, state.games, state.best.value))
            if progress is not None:
                progress(state, config.budget)
    return state


def _reference(ts: Sequence[Terms], settings: Settings) -> Terms:
    """The level whose class values steer the screening: the worst level (highest
    objective) among those comparing at least two classes, else the first."""
    usable = [t for t in ts if int(t.eligible.sum()) >= 2]
    if not usable:
        return ts[0]
    return max(usable, key=lambda t: t.total(settings.objective))


def _forward_round(study, ev: Evaluator, cards: Sequence[int], state: SearchState) -> None:
    """Greedy forward selection: every single edit on top of the best candidate so far
    (its economy kept), directions from that candidate's own class values; rounds stop
    when one finds nothing better than the incumbent it started from."""
    deck, settings = ev.deck, ev.settings
    r = int(study.user_attrs.get("round", 0))
    started_at = study.user_attrs.get("round_value")
    if started_at is not None and state.best.value >= float(started_at):
        study.set_user_attr("rounds_done", True)
        return
    best = state.best
    firsts = set(int(c) for c in ev.classes.first())
    on_top = {c: {f: v - value_of(deck, c, f) for f, v in new.items()}
              for c, new in best.edits.items() if c in firsts}
    cand_deck, _ = ev.deck_for(best.edits, best.economy, "incumbent")
    dev = deviations(cand_deck, _reference(best.terms, settings), ev.classes)
    proposals = [d for d in single_edits(deck, dev, cards, settings, on_top, ev.classes)
                 if proposal_key(repair(deck, d, settings, ev.classes), best.economy)
                 not in state.seen]
    study.set_user_attr("round", r + 1)
    study.set_user_attr("round_value", best.value)
    if not proposals:
        study.set_user_attr("rounds_done", True)
    for d in proposals:
        study.enqueue_trial(trial_params(d, settings, ev, best.economy),
                            user_attrs={"stage": f"round{r + 1}"})


def _counted(study) -> int:
    """Trials of every state but FAIL (a killed candidate's trial; its replacement, if it
    was planned, is enqueued again and counted)."""
    from optuna.trial import TrialState

    return sum(t.state != TrialState.FAIL for t in study.get_trials(deepcopy=False))


def _waiting(study) -> bool:
    """True while enqueued trials are still to be run."""
    from optuna.trial import TrialState

    return any(t.state == TrialState.WAITING for t in study.get_trials(deepcopy=False))


def _single_gains(study, base_value: float) -> list[tuple[float, dict[int, dict[str, int]]]]:
    """(objective gain over the base, deltas) of every completed screening trial."""
    from optuna.trial import TrialState

    out = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if t.user_attrs.get("stage") == "single":
            out.append((base_value - float(t.value), deltas_of(t.params)))
    return out


def deltas_of(params: dict) -> dict[int, dict[str, int]]:
    """The non-zero deltas a trial's parameters ask for (the inverse of trial_params)."""
    out: dict[int, dict[str, int]] = {}
    for key, pick in params.items():
        if key.startswith("slot") and pick != NONE:
            card = int(pick)
            d = {k.split(".", 1)[1]: int(v) for k, v in params.items()
                 if k.startswith(f"card{card}.") and int(v) != 0}
            if d:
                out[card] = d
    return out


def _evaluate(study, trial, edits: Edits, econ: dict[str, Any], ev: Evaluator,
              state: SearchState) -> int:
    """Race one candidate block by block; returns the games it played.

    Levels that are not re-tuned play first (ev.fixed_first): once their worst objective
    reaches the best candidate's value the candidate cannot win -- its value is the worst
    level's, on the same deals as the best's -- and it stops before its costly re-tunes.
    Then the re-tuned levels are re-tuned and play their blocks."""
    from optuna.trial import TrialState

    key = proposal_key(edits, econ)
    trial.set_user_attr("edits", key)
    if key in state.seen:  # the same deck on the same deals: the same result, no games
        value = state.seen[key]
        trial.set_user_attr("games", 0)
        if value is None:
            study.tell(trial, state=TrialState.PRUNED)
        else:
            study.tell(trial, value)
        return 0
    cand_deck, rules = ev.deck_for(edits, econ, f"candidate-{trial.number}")
    changed = ev.changed(edits, econ)
    first = ev.fixed_first
    rest = [m for m in range(len(ev.levels)) if m not in first]
    stats: dict[int, DeckStats] = {}
    games = 0
    if first:
        def bound() -> tuple[float, list[Terms]]:
            ts = ev.terms_of(cand_deck, [stats[m] for m in first], first)
            return ev.value(ts, changed, first), ts

        matches = ev.matches_for(cand_deck, rules, [ev.strategies[m] for m in first])
        games, pruned, (low, _) = _play_blocks(trial, ev, matches, first, stats, 0, bound)
        if not pruned:
            trial.set_user_attr("bound", low)
            trial.set_user_attr("best_then", state.best.value)
        if pruned or cannot_win(low, state.best.value):
            return _pruned(study, trial, key, state, games)
    players, weights, tune_games = ev.players(cand_deck, rules, retune_seed(ev.config))
    trial.set_user_attr("weights", weights)

    def full() -> tuple[float, list[Terms]]:
        ts = ev.terms_of(cand_deck, [stats[m] for m in range(len(ev.levels))])
        return ev.value(ts, changed), ts

    matches = ev.matches_for(cand_deck, rules, [players[m] for m in rest])
    played, pruned, (value, ts) = _play_blocks(trial, ev, matches, rest, stats,
                                               ev.config.blocks if first else 0, full)
    games += tune_games + played
    if pruned:
        return _pruned(study, trial, key, state, games)
    trial.set_user_attr("games", games)
    trial.set_user_attr("terms", [t.as_dict() for t in ts])
    study.tell(trial, value)
    state.seen[key] = value
    if value < state.best.value:
        state.best = Candidate(trial.number, edits, value, ts, ev.config.blocks,
                               economy=econ, weights=weights)
    return games


def _play_blocks(trial, ev: Evaluator, matches: Sequence[Match], levels: Sequence[int],
                 stats: dict[int, DeckStats], first_step: int,
                 score: Callable[[], tuple[float, list[Terms]]]
                 ) -> tuple[int, bool, tuple[float, list[Terms]]]:
    """Play `levels` (`matches` their matches) block by block into `stats`; after each
    block report score()'s value to the pruner at step first_step + block. Returns (games,
    pruned by successive halving, the last score)."""
    games = 0
    for b in range(ev.config.blocks):
        block = ev.play_block(matches, b, levels)
        games += sum(s.games for s in block)
        for m, s in zip(levels, block, strict=True):
            stats[m] = s if b == 0 else stats[m] + s
        scored = score()
        trial.report(scored[0], first_step + b)
        if b < ev.config.blocks - 1 and trial.should_prune():
            return games, True, scored
    return games, False, scored


def cannot_win(bound: float, best: float) -> bool:
    """A candidate whose value is at least `bound` cannot beat the best's `best` (a
    strictly lower value is needed to replace it)."""
    return bound >= best


def _pruned(study, trial, key: str, state: SearchState, games: int) -> int:
    from optuna.trial import TrialState

    trial.set_user_attr("games", games)
    study.tell(trial, state=TrialState.PRUNED)
    state.seen[key] = None
    return games


def _replay(study, ev: Evaluator, base: Candidate, base_games: int) -> SearchState:
    """The state of a (possibly resumed) study: games spent, the history, and the best
    candidate (its terms measured again on the common deals with its stored re-tuned
    weights: exact, and cheap)."""
    from optuna.trial import TrialState

    state = SearchState(games=base_games, best=base, base=base)
    state.history.append((0, base_games, base.value))
    best = None
    for t in study.trials:
        if t.state == TrialState.RUNNING:  # interrupted mid-race: not counted, and a
            study.tell(t.number, state=TrialState.FAIL)  # planned one is planned again
            if "fixed_params" in t.system_attrs:
                study.enqueue_trial(t.system_attrs["fixed_params"],
                                    user_attrs={"stage": t.user_attrs.get("stage", "")})
            continue
        if t.state not in (TrialState.COMPLETE, TrialState.PRUNED):
            continue
        state.trials += 1
        state.games += int(t.user_attrs.get("games", 0))
        done = t.state == TrialState.COMPLETE
        state.seen[t.user_attrs["edits"]] = float(t.value) if done else None
        if done and t.value < (best.value if best is not None else base.value):
            best = t
        state.history.append((state.trials, state.games,
                              float(best.value) if best is not None else base.value))
    if best is not None:
        edits, econ = parse_proposal_key(best.user_attrs["edits"])
        deck, rules = ev.deck_for(edits, econ, f"candidate-{best.number}")
        weights = best.user_attrs.get("weights", {})
        players, _, _ = ev.players(deck, rules, retune_seed(ev.config), weights)
        terms_, _ = measure_full(ev, deck, ev.matches_for(deck, rules, players))
        state.best = Candidate(best.number, edits, float(best.value), terms_, ev.config.blocks,
                               economy=econ, weights=weights)
    return state


def parse_key(key: str) -> Edits:
    """The inverse of space.edits_key."""
    if key == "-":
        return {}
    out: Edits = {}
    for part in key.split(";"):
        card, fields = part.split(":")
        out[int(card)] = {f: int(v) for f, v in (x.split("=") for x in fields.split(","))}
    return out
