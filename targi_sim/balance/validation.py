"""Validation on fresh seeds: the base deck and the proposal play the same new deals at
every level (each re-tuned level re-tuned for each deck with a fresh seed), and a
paired bootstrap over deals (the independent unit; fairness/bootstrap.py) gives each
change its 95% interval: every level's balance terms, the causal card-value spread
(forked play), the game-level rates, every class's value. The game's shape at each level
(calibrate's figures) must keep every target of the targets file the base deck meets:
balance may not buy fairness by turning the game back into a token race.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from targi_sim.balance.searching import CHUNK_DEALS, Evaluator, combine, stream_seed
from targi_sim.fairness.bootstrap import interval, resamples
from targi_sim.fairness.measure import PerDeal, play_deals
from targi_sim.fairness.objective import TERMS, Terms, compared_cards, terms
from targi_sim.game.deck import Deck
from targi_sim.game.rules import Rules
from targi_sim.play.match import Match
from targi_sim.play.pairing import games_per_deal, plan
from targi_sim.players.strategy import Strategy

# progress(phase, done, total): phase "retune" counts re-tunes, "play" games of both
# decks, "bootstrap" resamples
ValidationProgress = Callable[[str, int, int], None]
ALL = "all levels"


@dataclass
class Side:
    """One deck as validated: its deck, rules and each level's player."""

    deck: Deck
    rules: Rules
    players: list[Strategy]
    changed: int = 0


@dataclass
class Validation:
    deals: int  # per level
    games: int  # per deck
    table: pl.DataFrame  # level, term, base, proposal, change, lo, hi, verdict
    cards: pl.DataFrame  # per level and class: values base/proposal, change, lo, hi
    base: list[Terms]
    proposal: list[Terms]
    levels: tuple[str, ...] = ()
    compared: dict[str, int] = field(default_factory=dict)  # level -> classes compared
    shape: pl.DataFrame | None = None  # level, figure, band, base, proposal, met flags
    accepted: bool = True
    reasons: list[str] = field(default_factory=list)  # why not accepted


def _concat(parts: list[PerDeal]) -> PerDeal:
    keys = parts[0].x
    return PerDeal(np.concatenate([p.deal_ids for p in parts]),
                   {k: np.concatenate([p.x[k] for p in parts]) for k in keys},
                   {k: np.concatenate([p.n[k] for p in parts]) for k in keys})


def _play(ev: Evaluator, matches: Sequence[Match], seed: int, deals: int,
          tick: Callable[[int], None]) -> list[PerDeal]:
    """Per-deal sums of each level on `deals` common deals, with forks for the causal
    value; tick(games) after each round of chunks (as many chunks as workers)."""
    from joblib import delayed

    rate = ev.settings.objective.fork_rate
    out = []
    for m, mm in enumerate(matches):
        gpd, pairing = games_per_deal(ev.pairings[m]), ev.pairings[m]
        plans = [plan(min(CHUNK_DEALS, deals - lo) * gpd, seed, pairing, start=lo * gpd)
                 for lo in range(0, deals, CHUNK_DEALS)]
        parts: list[PerDeal] = []
        step = max(1, ev.jobs)
        for i in range(0, len(plans), step):
            group = plans[i:i + step]
            args = [(mm, p, pairing, ev.classes, rate) for p in group]
            if ev.jobs == 1:
                parts += [play_deals(*a) for a in args]
            else:
                parts += ev.parallel(delayed(play_deals)(*a) for a in args)
            tick(sum(len(p[0]) for p in group))  # a plan: (seeds, firsts, ids)
        out.append(_concat(parts))
    return out


def _level_terms(ev: Evaluator, stats, deck: Deck, fixed, causal_fixed, changed: int
                 ) -> dict[str, float]:
    """One level's terms, rates, objective and causal spread."""
    obj = ev.settings.objective
    t = terms(stats, deck, obj, fixed, ev.classes)
    c = terms(stats, deck, obj, causal_fixed, ev.classes, value="causal")
    d = {k: float(getattr(t, k)) for k in TERMS}
    d["causal_spread"] = float(c.spread)
    d["first_rate"], d["mean_rounds"] = t.first_rate, t.mean_rounds
    d["objective"] = float(t.total(obj, changed))
    return d


def _rows(ev: Evaluator, stats_a, stats_b, base: Side, prop: Side, fixed, cfixed
          ) -> dict[str, dict[str, float]]:
    """(level -> term -> value) for base and proposal, and the combined objective."""
    out = {}
    for side, stats in (("base", stats_a), ("proposal", stats_b)):
        s = side == "base"
        deck, changed = (base.deck, 0) if s else (prop.deck, prop.changed)
        per = {lv: _level_terms(ev, st, deck, f, cf, changed)
               for lv, st, f, cf in zip(ev.levels, stats, fixed, cfixed, strict=True)}
        per[ALL] = {"objective": combine(ev.settings, ev.levels,
                                         [per[lv]["objective"] for lv in ev.levels])}
        out[side] = per
    return out


def shape_check(ev: Evaluator, base: Side, prop: Side, seed: int
                ) -> tuple[pl.DataFrame | None, list[str]]:
    """Each target of the validation's targets file at each level, for both decks; the
    targets the base meets and the proposal misses."""
    from targi_sim.calibrate.measure import measure_levels
    from targi_sim.calibrate.targets import load_targets

    v = ev.settings.validation
    if not v.targets or v.shape_deals < 1:
        return None, []
    targets = load_targets(v.targets, list(ev.levels), strict=False)

    def figure(side: Side) -> Callable[[str, str], float]:
        shapes = measure_levels(side.players, list(ev.levels), side.deck, side.rules,
                                deals=v.shape_deals, seed=seed, parallel=ev.parallel)

        def value(level: str, name: str) -> float:
            e = shapes[level].figures.get(name) if level in shapes else None
            return e.value if e is not None else float("nan")
        return value

    fig_a, fig_b = figure(base), figure(prop)
    rows, lost = [], []
    for t in targets.targets:
        va, vb = fig_a(t.level, t.figure), fig_b(t.level, t.figure)
        met_a, met_b = t.miss(va) == 0, t.miss(vb) == 0
        rows.append({"level": t.level, "figure": t.figure, "band": t.band(), "base": va,
                     "proposal": vb, "base_met": met_a, "proposal_met": met_b})
        if met_a and not met_b:
            lost.append(f"{t.level} {t.figure} {vb:.3g} leaves its band {t.band()} "
                        f"(base {va:.3g})")
    return pl.DataFrame(rows), lost


def validate(ev: Evaluator, base: Side, prop: Side, deals: int,
             progress: ValidationProgress | None = None) -> Validation:
    """Play both decks on fresh common deals and bootstrap the paired differences."""
    obj = ev.settings.objective
    seed = stream_seed(ev.config.seed, "validate")
    total = 2 * deals * sum(games_per_deal(p) for p in ev.pairings)
    played = 0

    def tick(games: int) -> None:
        nonlocal played
        played += games
        if progress is not None:
            progress("play", played, total)

    a = _play(ev, ev.matches_for(base.deck, base.rules, base.players), seed, deals, tick)
    b = _play(ev, ev.matches_for(prop.deck, prop.rules, prop.players), seed, deals, tick)
    for pa, pb in zip(a, b, strict=True):
        assert np.array_equal(pa.deal_ids, pb.deal_ids)  # the same deals, in order
    base_stats = [p.stats() for p in a]
    # the proposal is held to the same classes at the same play (fork) rates
    fixed = [compared_cards(base.deck, terms(st, base.deck, obj, classes=ev.classes),
                            obj.min_plays, ev.classes) for st in base_stats]
    cfixed = [compared_cards(base.deck, terms(st, base.deck, obj, classes=ev.classes,
                                              value="causal"),
                             ev.settings.validation.min_forks, ev.classes)
              for st in base_stats]
    # forks too few for a fixed causal comparison: compare whatever each deck has
    ta = [terms(st, base.deck, obj, f, ev.classes) for st, f in zip(base_stats, fixed,
                                                                     strict=True)]
    tb = [terms(p.stats(), prop.deck, obj, f, ev.classes) for p, f in zip(b, fixed,
                                                                          strict=True)]
    point = _rows(ev, base_stats, [p.stats() for p in b], base, prop, fixed, cfixed)
    keys = [(lv, k) for lv in (*ev.levels, ALL) for k in point["base"][lv]]
    diffs: dict[tuple[str, str], list[float]] = {k: [] for k in keys}
    card_diffs: list[list[np.ndarray]] = [[] for _ in ev.levels]
    causal_diffs: list[list[np.ndarray]] = [[] for _ in ev.levels]
    total_resamples, done = ev.config.resamples, 0
    for batch in resamples(a, b, np.random.default_rng(seed), total_resamples):
        for xs, ys in batch:
            r = _rows(ev, xs, ys, base, prop, fixed, cfixed)
            for lv, k in keys:
                diffs[lv, k].append(r["proposal"][lv][k] - r["base"][lv][k])
            for m, (x, y) in enumerate(zip(xs, ys, strict=True)):
                vx, _ = x.cards[obj.value].rate()
                vy, _ = y.cards[obj.value].rate()
                cx, _ = x.cards["causal"].rate()
                cy, _ = y.cards["causal"].rate()
                card_diffs[m].append(vy - vx)
                causal_diffs[m].append(cy - cx)
        done += len(batch)
        if progress is not None:
            progress("bootstrap", done, total_resamples)
    rows = []
    for lv, k in keys:
        lo_, hi_ = interval(diffs[lv, k])
        va, vb = point["base"][lv][k], point["proposal"][lv][k]
        rows.append({"level": lv, "term": k, "base": va, "proposal": vb, "change": vb - va,
                     "lo": float(lo_), "hi": float(hi_), "verdict": _verdict(k, lo_, hi_)})
    table = pl.DataFrame(rows)
    cards = pl.concat([_class_rows(ev, lv, base_stats[m], b[m].stats(), base, prop,
                                   card_diffs[m], causal_diffs[m])
                       for m, lv in enumerate(ev.levels)])
    shape, lost = shape_check(ev, base, prop, stream_seed(ev.config.seed, "shape"))
    reasons = [f"{r['level']}: the objective got worse "
               f"({r['change']:+.4f}, 95% {r['lo']:+.4f}..{r['hi']:+.4f})"
               for r in rows if r["term"] == "objective" and r["verdict"] == "worse"]
    reasons += [f"game shape: {x}" for x in lost]
    compared = {lv: int(t.eligible.sum()) for lv, t in zip(ev.levels, ta, strict=True)}
    return Validation(deals, deals * sum(games_per_deal(p) for p in ev.pairings), table,
                      cards, ta, tb, tuple(ev.levels), compared, shape, not reasons, reasons)


def _class_rows(ev: Evaluator, level: str, sa, sb, base: Side, prop: Side,
                diffs: list[np.ndarray], causal: list[np.ndarray]) -> pl.DataFrame:
    """One row per class at one level: its value and causal value in both decks, the
    changes' bootstrap intervals."""
    obj = ev.settings.objective
    va, _ = sa.cards[obj.value].rate()
    vb, _ = sb.cards[obj.value].rate()
    ca, _ = sa.cards["causal"].rate()
    cb, _ = sb.cards["causal"].rate()
    with warnings.catch_warnings():  # classes never played have no value: NaN, said so
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanpercentile(np.array(diffs), [2.5, 97.5], axis=0)
        clo, chi = np.nanpercentile(np.array(causal), [2.5, 97.5], axis=0)
    cl = ev.classes
    first = cl.first()
    return pl.DataFrame({
        "level": [level] * cl.size, "card_id": first,
        "card_ids": [", ".join(str(c) for c in m) for m in cl.members],
        "copies": cl.copies(), "name": list(cl.names),
        "vp": base.deck.tribe_vp[first], "vp_new": prop.deck.tribe_vp[first],
        "value_base": va, "value_proposal": vb, "change": vb - va, "lo": lo, "hi": hi,
        "causal_base": ca, "causal_proposal": cb, "causal_change": cb - ca,
        "causal_lo": clo, "causal_hi": chi})


def _verdict(term: str, lo: float, hi: float) -> str:
    """Lower is better for every term and the objective; the two rates are facts."""
    if term in ("first_rate", "mean_rounds"):
        return "moved" if lo > 0 or hi < 0 else "no clear change"
    if hi < 0:
        return "improved"
    if lo > 0:
        return "worse"
    return "no clear change"
