"""Validation on fresh seeds: the base deck and the proposal play the same new deals,
and a paired bootstrap over deals (the independent unit; balance/bootstrap.py) gives
each change its 95% interval — the balance terms, the game-level rates and every card's value."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from targi_sim.balance.bootstrap import interval, resamples
from targi_sim.balance.measure import PerDeal, play_deals, with_deck
from targi_sim.balance.objective import TERMS, Terms, compared_cards, terms
from targi_sim.balance.searching import CHUNK_DEALS, Evaluator, stream_seed
from targi_sim.balance.settings import Objective
from targi_sim.game.deck import Deck
from targi_sim.play.pairing import games_per_deal, plan

# progress(phase, done, total): phase "play" counts games of both decks, "bootstrap"
# counts resamples
ValidationProgress = Callable[[str, int, int], None]


@dataclass
class Validation:
    deals: int  # per match
    games: int  # per deck
    table: pl.DataFrame  # term, base, proposal, change, lo, hi, verdict
    cards: pl.DataFrame  # per card: value base/proposal, change, lo, hi
    base: list[Terms]
    proposal: list[Terms]


def _concat(parts: list[PerDeal]) -> PerDeal:
    keys = parts[0].x
    return PerDeal(np.concatenate([p.deal_ids for p in parts]),
                   {k: np.concatenate([p.x[k] for p in parts]) for k in keys},
                   {k: np.concatenate([p.n[k] for p in parts]) for k in keys})


def _play(ev: Evaluator, deck: Deck, seed: int, deals: int,
          tick: Callable[[int], None]) -> list[PerDeal]:
    """Per-deal sums of each match on `deals` common deals; tick(games) after each
    round of chunks (as many chunks as workers at a time, in order)."""
    from joblib import delayed

    out = []
    for m, match in enumerate(ev.matches):
        gpd, pairing = games_per_deal(ev.pairings[m]), ev.pairings[m]
        mm = with_deck(match, deck)
        plans = [plan(min(CHUNK_DEALS, deals - lo) * gpd, seed, pairing, start=lo * gpd)
                 for lo in range(0, deals, CHUNK_DEALS)]
        parts: list[PerDeal] = []
        step = max(1, ev.jobs)
        for i in range(0, len(plans), step):
            group = plans[i:i + step]
            if ev.jobs == 1:
                parts += [play_deals(mm, p, pairing) for p in group]
            else:
                parts += ev.parallel(delayed(play_deals)(mm, p, pairing) for p in group)
            tick(sum(len(p[0]) for p in group))  # a plan: (seeds, firsts, ids)
        out.append(_concat(parts))
    return out


def _summary(ts: list[Terms], obj: Objective, changed: int) -> dict[str, float]:
    """The mean over matches of each term, the two rates and the objective."""
    d = {t: float(np.mean([getattr(x, t) for x in ts])) for t in TERMS}
    d["first_rate"] = float(np.mean([x.first_rate for x in ts]))
    d["mean_rounds"] = float(np.mean([x.mean_rounds for x in ts]))
    d["objective"] = float(np.mean([x.total(obj, changed) for x in ts]))
    return d


def validate(ev: Evaluator, base_deck: Deck, proposal: Deck, changed: int,
             deals: int, progress: ValidationProgress | None = None) -> Validation:
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

    a, b = _play(ev, base_deck, seed, deals, tick), _play(ev, proposal, seed, deals, tick)
    for pa, pb in zip(a, b, strict=True):
        assert np.array_equal(pa.deal_ids, pb.deal_ids)  # the same deals, in order
    base_stats = [p.stats() for p in a]
    # the proposal is held to the same cards at the same play rates
    fixed = [compared_cards(base_deck, terms(st, base_deck, obj), obj.min_plays)
             for st in base_stats]
    ta = [terms(st, base_deck, obj, f) for st, f in zip(base_stats, fixed, strict=True)]
    tb = [terms(p.stats(), proposal, obj, f) for p, f in zip(b, fixed, strict=True)]
    sa, sb = _summary(ta, obj, 0), _summary(tb, obj, changed)
    diffs: dict[str, list[float]] = {k: [] for k in sa}
    card_diffs = []
    total_resamples, done = ev.config.resamples, 0
    for batch in resamples(a, b, np.random.default_rng(seed), total_resamples):
        for xs, ys in batch:
            ra = [terms(x, base_deck, obj, f) for x, f in zip(xs, fixed, strict=True)]
            rb = [terms(y, proposal, obj, f) for y, f in zip(ys, fixed, strict=True)]
            xa, xb = _summary(ra, obj, 0), _summary(rb, obj, changed)
            for k in diffs:
                diffs[k].append(xb[k] - xa[k])
            card_diffs.append(np.mean([y.card_value - x.card_value
                                       for x, y in zip(ra, rb, strict=True)], axis=0))
        done += len(batch)
        if progress is not None:
            progress("bootstrap", done, total_resamples)
    rows = []
    for k in sa:
        lo_, hi_ = interval(diffs[k])
        rows.append({"term": k, "base": sa[k], "proposal": sb[k], "change": sb[k] - sa[k],
                     "lo": float(lo_), "hi": float(hi_), "verdict": _verdict(k, lo_, hi_)})
    cd = np.array(card_diffs)
    va = np.mean([x.card_value for x in ta], axis=0)
    vb = np.mean([x.card_value for x in tb], axis=0)
    with warnings.catch_warnings():  # cards never played have no value: NaN, said so
        warnings.simplefilter("ignore", RuntimeWarning)
        clo, chi = np.nanpercentile(cd, [2.5, 97.5], axis=0)
    cards = pl.DataFrame({
        "card_id": np.arange(base_deck.n_tribe), "name": list(base_deck.tribe_names),
        "vp": base_deck.tribe_vp, "vp_new": proposal.tribe_vp,
        "value_base": va, "value_proposal": vb, "change": vb - va, "lo": clo, "hi": chi})
    return Validation(deals, deals * sum(games_per_deal(p) for p in ev.pairings),
                      pl.DataFrame(rows), cards, ta, tb)


def _verdict(term: str, lo: float, hi: float) -> str:
    """Lower is better for every term and the objective; the two rates are facts."""
    if term in ("first_rate", "mean_rounds"):
        return "moved" if lo > 0 or hi < 0 else "no clear change"
    if hi < 0:
        return "improved"
    if lo > 0:
        return "worse"
    return "no clear change"
