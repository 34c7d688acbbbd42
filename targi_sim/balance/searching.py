"""The search: Optuna's TPE sampler over small card edits, raced on common random numbers.

Every candidate deck plays the same deals, block after block (common random numbers,
so two candidates differ by their edits, not by their luck). After each block the
candidate's objective so far is reported to Optuna's successive-halving pruner, which
stops candidates that are out of contention: only those still in it get more games.
The study lives in an append-only journal file (Optuna's JournalStorage) in the
output folder, so a stopped search resumes
where it stopped; each trial reseeds the sampler from (seed, trial number), so a
resumed search proposes what an uninterrupted one would have.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from targi_sim.balance.measure import DeckStats, measure, with_deck
from targi_sim.balance.objective import Terms, compared_cards, terms
from targi_sim.balance.settings import Settings
from targi_sim.balance.space import (
    Edits,
    apply_edits,
    edits_from_deltas,
    edits_key,
    problem,
    value_of,
)
from targi_sim.errors import InputError
from targi_sim.game.deck import COST_KEYS, Deck
from targi_sim.play.match import Match, prepare_match
from targi_sim.play.pairing import games_per_deal, plan, resolve_pairing
from targi_sim.players.strategy import resolve_strategy

CHUNK_DEALS = 1000  # deals per worker task: fixed, so results do not depend on --jobs
NONE = "-"


def stream_seed(seed: int, purpose: str) -> int:
    """A run seed (0..2^31-1) for one use of the balance seed: "search", "validate"."""
    digest = hashlib.sha256(f"targi-balance\0{purpose}\0{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "little") % 2**31


@dataclass(frozen=True)
class BalanceConfig:
    """Everything a search's result depends on (a resume must match it exactly)."""

    deck: str = "base"
    rules: str = "default"
    strategies: tuple[str, ...] = ("balanced",)
    budget: int = 8_000_000
    block_deals: int = 20_000
    blocks: int = 3
    seed: int = 0
    validate_deals: int = 60_000
    resamples: int = 1000  # paired-bootstrap resamples of the validation


@dataclass
class Candidate:
    """One evaluated proposal."""

    number: int
    edits: Edits
    value: float
    terms: list[Terms]
    blocks: int
    pruned: bool = False


@dataclass
class SearchState:
    trials: int = 0
    games: int = 0
    best: Candidate | None = None
    base: Candidate | None = None
    history: list[tuple[int, int, float]] = field(default_factory=list)  # trial, games, best
    seen: dict[str, float | None] = field(default_factory=dict)  # edits -> value (None: pruned)
    cards: list[int] = field(default_factory=list)  # the cards the search may edit


Progress = Callable[[SearchState, int], None]  # state, budget


class Evaluator:
    """Plays candidate decks on the search's common deals, through a joblib pool."""

    def __init__(self, config: BalanceConfig, settings: Settings, parallel, jobs: int) -> None:
        self.config, self.settings = config, settings
        self.parallel, self.jobs = parallel, jobs
        strategies = [resolve_strategy(s) for s in config.strategies]
        self.matches: list[Match] = [prepare_match((s, s), config.deck, config.rules)
                                     for s in strategies]
        self.pairings = [resolve_pairing("auto", [s, s]) for s in strategies]
        self.deck: Deck = self.matches[0].deck
        self.seed = stream_seed(config.seed, "search")
        self.compared: list | None = None  # per match: the base's compared cards

    def block_games(self, m: int) -> int:
        return self.config.block_deals * games_per_deal(self.pairings[m])

    def _tasks(self, deck: Deck, block: int, seed: int, deals: int) -> list[tuple]:
        tasks = []
        for m, match in enumerate(self.matches):
            gpd = games_per_deal(self.pairings[m])
            mm = with_deck(match, deck)
            for lo in range(0, deals, CHUNK_DEALS):
                k = min(CHUNK_DEALS, deals - lo)
                start = (block * deals + lo) * gpd
                tasks.append((m, mm, plan(k * gpd, seed, self.pairings[m], start=start),
                              self.pairings[m]))
        return tasks

    def play_block(self, deck: Deck, block: int) -> list[DeckStats]:
        """Each match's stats of block `block` of the search deals (chunk order fixed)."""
        from joblib import delayed

        tasks = self._tasks(deck, block, self.seed, self.config.block_deals)
        if self.jobs == 1:
            results = [measure(mm, p, pr) for _, mm, p, pr in tasks]
        else:
            results = self.parallel(delayed(measure)(mm, p, pr) for _, mm, p, pr in tasks)
        out: list[DeckStats | None] = [None] * len(self.matches)
        for (m, *_), r in zip(tasks, results, strict=True):
            out[m] = r if out[m] is None else out[m] + r
        return out  # type: ignore[return-value]

    def terms_of(self, deck: Deck, stats: Sequence[DeckStats]) -> list[Terms]:
        fixed = self.compared
        return [terms(s, deck, self.settings.objective, None if fixed is None else fixed[m])
                for m, s in enumerate(stats)]

    def value(self, ts: Sequence[Terms], changed: int) -> float:
        obj = self.settings.objective
        return float(np.mean([t.total(obj, changed) for t in ts]))


def suggest(trial, deck: Deck, cards: Sequence[int], settings: Settings) -> Edits:
    """A proposal from the trial: up to max_changes slots, each a card (or none) and
    its fields' deltas; deltas that would leave the space are repaired (clipped to
    cost >= 0, cost decreases undone below the minimum total)."""
    space = settings.space
    deltas: dict[int, dict[str, int]] = {}
    choices = [NONE] + [str(c) for c in cards]
    for s in range(space.max_changes):
        pick = trial.suggest_categorical(f"slot{s}", choices)
        if pick == NONE:
            continue
        card = int(pick)
        deltas[card] = {f: trial.suggest_int(f"card{card}.{f}", -space.step, space.step)
                        for f in space.fields}
    return repair(deck, deltas, settings)


def repair(deck: Deck, deltas: dict[int, dict[str, int]], settings: Settings) -> Edits:
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
    edits = edits_from_deltas(deck, fixed)
    why = problem(deck, edits, space)
    if why is not None:  # cannot happen after the repair; keep the search honest if it does
        raise AssertionError(why)
    return edits


def deviations(deck: Deck, base: Terms) -> np.ndarray:
    """Each card's value minus its VP group's mean value (NaN if not measured)."""
    dev = np.full(deck.n_tribe, np.nan)
    for g in np.unique(deck.tribe_vp):
        sel = base.eligible & (deck.tribe_vp == g)
        if sel.sum() >= 2:
            dev[sel] = base.card_value[sel] - base.card_value[sel].mean()
    return dev


def single_edits(deck: Deck, dev: np.ndarray, cards: Sequence[int], settings: Settings,
                 on_top: dict[int, dict[str, int]] | None = None
                 ) -> list[dict[int, dict[str, int]]]:
    """Every one-field, one-step edit of a candidate card in the direction its value
    asks for (`dev`: its value minus its VP group's mean; a card above the mean gets
    dearer or loses a VP, one below gets cheaper or gains a VP), furthest cards first,
    each added to the edits `on_top` (the incumbent of a forward round)."""
    space = settings.space
    on_top = on_top or {}
    order = sorted((c for c in cards if np.isfinite(dev[c])), key=lambda c: (-abs(dev[c]), c))
    if len(on_top) >= space.max_changes:
        order = [c for c in order if c in on_top]
    start = edits_key(repair(deck, on_top, settings))
    out = []
    for c in order:
        sign = 1 if dev[c] > 0 else -1  # too strong: dearer / fewer VP
        for f in space.fields:
            if on_top.get(c, {}).get(f):
                continue
            deltas = {k: dict(v) for k, v in on_top.items()}
            deltas.setdefault(c, {})[f] = -sign if f == "vp" else sign
            if edits_key(repair(deck, deltas, settings)) != start:  # a step the space allows
                out.append(deltas)
    return out


def combinations(deck: Deck, singles: Sequence[tuple[float, dict[int, dict[str, int]]]],
                 settings: Settings) -> list[dict[int, dict[str, int]]]:
    """Greedy combinations of the screened single edits that beat the base: the best
    edit of each card, best cards first, 2..max_changes of them."""
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


def trial_params(deltas: dict[int, dict[str, int]], settings: Settings) -> dict:
    """Optuna parameters that make `suggest` return these deltas (for enqueue_trial)."""
    params: dict = {}
    cards = list(deltas)[: settings.space.max_changes]
    for s in range(settings.space.max_changes):
        params[f"slot{s}"] = str(cards[s]) if s < len(cards) else NONE
    for c in cards:
        for f in settings.space.fields:
            params[f"card{c}.{f}"] = int(deltas[c].get(f, 0))
    return params


def fingerprint(config: BalanceConfig, settings: Settings, deck: Deck) -> str:
    text = repr((asdict(config), settings.text, deck.sha256))
    return hashlib.sha256(text.encode()).hexdigest()


def candidate_cards(deck: Deck, base: Terms, settings: Settings) -> list[int]:
    """The cards the search may edit: not frozen, and (with `candidates` > 0) only the
    ones furthest from their VP group's mean value in the base measurement."""
    frozen = settings.space.frozen_ids(deck, settings.path)
    free = [c for c in range(deck.n_tribe) if c not in frozen]
    k = settings.space.candidates
    if not k or k >= len(free):
        return free
    dev = np.zeros(deck.n_tribe)
    for g in np.unique(deck.tribe_vp):
        sel = base.eligible & (deck.tribe_vp == g)
        if sel.sum() >= 2:
            dev[sel] = np.abs(base.card_value[sel] - base.card_value[sel].mean())
    ranked = sorted(free, key=lambda c: (-dev[c], c))
    return sorted(ranked[:k])


def measure_full(ev: Evaluator, deck: Deck) -> tuple[list[Terms], int]:
    """A deck's terms over every block of the search deals, and the games played."""
    stats = None
    for b in range(ev.config.blocks):
        block = ev.play_block(deck, b)
        stats = block if stats is None else [a + c for a, c in zip(stats, block, strict=True)]
    return ev.terms_of(deck, stats), sum(s.games for s in stats)


def pool_width(jobs: int, backend: str) -> int:
    """The Evaluator's `jobs`: 1 plays in this process; a Dask cluster is always used."""
    return max(jobs, 2) if backend == "dask" else jobs


def search(config: BalanceConfig, settings: Settings, out: Path, *, jobs: int = 1,
           resume: bool = False, progress: Progress | None = None,
           stop_after: int | None = None, backend: str = "loky",
           scheduler: str | None = None) -> SearchState:
    """Run (or resume) the search in `out`; returns the state with the best candidate.

    The base deck is measured first on the same deals (it is candidate 0, outside the
    study: its measurement chooses the candidate cards and the starting proposals)."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    from targi_sim.runner.dispatch import parallel_pool

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    db = out / "study.journal"
    if db.exists() and not resume:
        raise InputError(f"{str(out)!r} already holds a balance search; pass --resume to "
                         "continue it or choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    with parallel_pool(jobs, backend, scheduler) as parallel:
        ev = Evaluator(config, settings, parallel, pool_width(jobs, backend))
        deck = ev.deck
        fp = fingerprint(config, settings, deck)
        study = optuna.create_study(
            storage=JournalStorage(JournalFileBackend(str(db))), study_name="balance",
            direction="minimize", load_if_exists=True,
            pruner=optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3))
        saved = study.user_attrs.get("fingerprint")
        if saved is None:
            study.set_user_attr("fingerprint", fp)
        elif saved != fp:
            raise InputError(f"--resume: {str(db)!r} was written by a search with other "
                             "settings, deck, strategies or budget; use another --out")
        base_terms, base_games = measure_full(ev, deck)
        ev.compared = [compared_cards(deck, t, settings.objective.min_plays)
                       for t in base_terms]
        base = Candidate(-1, {}, ev.value(base_terms, 0), base_terms, config.blocks)
        state = _replay(study, deck, ev, base, base_games)
        cards = candidate_cards(deck, base_terms[0], settings)
        state.cards = cards
        if not study.user_attrs.get("screened"):
            for d in single_edits(deck, deviations(deck, base_terms[0]), cards, settings):
                study.enqueue_trial(trial_params(d, settings), user_attrs={"stage": "single"})
            study.set_user_attr("screened", True)
        if progress is not None:
            progress(state, config.budget)
        while state.games < config.budget:
            if stop_after is not None and state.trials >= stop_after:
                break
            if not study.user_attrs.get("combined") and not _waiting(study):
                for d in combinations(deck, _single_gains(study, base.value), settings):
                    study.enqueue_trial(trial_params(d, settings),
                                        user_attrs={"stage": "combination"})
                study.set_user_attr("combined", True)
            elif not study.user_attrs.get("rounds_done") and not _waiting(study):
                _forward_round(study, deck, cards, settings, state)
            study.sampler = optuna.samplers.TPESampler(
                seed=stream_seed(config.seed, f"tpe{len(study.trials)}"), n_startup_trials=10)
            trial = study.ask()
            edits = suggest(trial, deck, cards, settings)
            state.games += _evaluate(study, trial, edits, deck, ev, state)
            state.trials += 1
            state.history.append((state.trials, state.games, state.best.value))
            if progress is not None:
                progress(state, config.budget)
    return state


def _forward_round(study, deck: Deck, cards: Sequence[int], settings: Settings,
                   state: SearchState) -> None:
    """Greedy forward selection: every single edit on top of the best candidate so far,
    directions from that candidate's own card values; rounds stop when one finds
    nothing better than the incumbent it started from."""
    r = int(study.user_attrs.get("round", 0))
    started_at = study.user_attrs.get("round_value")
    if started_at is not None and state.best.value >= float(started_at):
        study.set_user_attr("rounds_done", True)
        return
    best = state.best
    on_top = {c: {f: v - value_of(deck, c, f) for f, v in new.items()}
              for c, new in best.edits.items()}
    dev = deviations(apply_edits(deck, best.edits), best.terms[0])
    proposals = [d for d in single_edits(deck, dev, cards, settings, on_top)
                 if edits_key(repair(deck, d, settings)) not in state.seen]
    study.set_user_attr("round", r + 1)
    study.set_user_attr("round_value", best.value)
    if not proposals:
        study.set_user_attr("rounds_done", True)
    for d in proposals:
        study.enqueue_trial(trial_params(d, settings), user_attrs={"stage": f"round{r + 1}"})


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


def _evaluate(study, trial, edits: Edits, deck: Deck, ev: Evaluator, state: SearchState) -> int:
    """Race one candidate block by block; returns the games it played."""
    from optuna.trial import TrialState

    key = edits_key(edits)
    trial.set_user_attr("edits", key)
    if key in state.seen:  # the same deck on the same deals: the same result, no games
        value = state.seen[key]
        trial.set_user_attr("games", 0)
        if value is None:
            study.tell(trial, state=TrialState.PRUNED)
        else:
            study.tell(trial, value)
        return 0
    cand_deck = apply_edits(deck, edits)
    stats: list[DeckStats] | None = None
    games = 0
    for b in range(ev.config.blocks):
        block = ev.play_block(cand_deck, b)
        games += sum(s.games for s in block)
        stats = block if stats is None else [a + c for a, c in zip(stats, block, strict=True)]
        ts = ev.terms_of(cand_deck, stats)
        value = ev.value(ts, len(edits))
        trial.report(value, b)
        if b < ev.config.blocks - 1 and trial.should_prune():
            trial.set_user_attr("games", games)
            study.tell(trial, state=TrialState.PRUNED)
            state.seen[key] = None
            return games
    trial.set_user_attr("games", games)
    trial.set_user_attr("terms", [t.as_dict() for t in ts])
    study.tell(trial, value)
    state.seen[key] = value
    if value < state.best.value:
        state.best = Candidate(trial.number, edits, value, ts, ev.config.blocks)
    return games


def _replay(study, deck: Deck, ev: Evaluator, base: Candidate, base_games: int
            ) -> SearchState:
    """The state of a (possibly resumed) study: games spent, the history, and the best
    candidate (its terms measured again on the common deals: exact, and cheap)."""
    from optuna.trial import TrialState

    state = SearchState(games=base_games, best=base, base=base)
    state.history.append((0, base_games, base.value))
    best = None
    for t in study.trials:
        if t.state == TrialState.RUNNING:  # interrupted mid-race: gone, not counted
            study.tell(t.number, state=TrialState.FAIL)
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
        edits = parse_key(best.user_attrs["edits"])
        d = apply_edits(deck, edits)
        terms_, _ = measure_full(ev, d)
        state.best = Candidate(best.number, edits, float(best.value), terms_, ev.config.blocks)
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
