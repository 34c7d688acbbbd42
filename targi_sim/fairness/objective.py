"""The balance objective: weighted terms computed from a deck's cluster sums.

Each term is in rate units. The card-value spread is debiased: the observed variance
of card values within a group of equal printed VP includes each value's sampling
variance, which is subtracted (a method-of-moments estimate of the true between-card
variance), so a candidate measured on fewer games does not look worse for that alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from targi_sim.game.classes import CardClasses
from targi_sim.game.deck import Deck

from .measure import DeckStats
from .settings import Objective

UNMEASURED = 1.0  # the spread of a candidate that compares fewer cards than the base deck
TERMS = ("spread", "extremes", "first_player", "tiebreak", "rounds")


@dataclass(frozen=True)
class Terms:
    """A deck's balance terms and the per-card values behind them."""

    spread: float
    extremes: float
    first_player: float  # |rate - 0.5|
    tiebreak: float
    rounds: float  # |mean rounds - target| / 12
    first_rate: float
    mean_rounds: float
    card_value: np.ndarray
    card_se: np.ndarray
    acquire: np.ndarray
    eligible: np.ndarray  # cards in the spread (played at least min_plays times)
    games: int  # games measured

    def total(self, obj: Objective, changed: int = 0) -> float:
        return (obj.spread * self.spread + obj.extremes * self.extremes
                + obj.first_player * self.first_player + obj.tiebreak * self.tiebreak
                + obj.rounds * self.rounds + obj.change * changed)

    def as_dict(self) -> dict[str, float]:
        return {t: float(getattr(self, t)) for t in TERMS} | {
            "first_rate": self.first_rate, "mean_rounds": self.mean_rounds}


def unit_vp(deck: Deck, classes: CardClasses | None) -> np.ndarray:
    """The printed VP of each measured unit: a card, or a class's (shared) VP."""
    return deck.tribe_vp if classes is None else deck.tribe_vp[classes.first()]


def comparisons(groups: np.ndarray, eligible: np.ndarray) -> int:
    """Degrees of freedom of the spread: sum over VP groups of (compared cards - 1)."""
    _, k = np.unique(groups[eligible], return_counts=True)
    return int(np.clip(k - 1, 0, None).sum())


Compared = tuple  # (mask of the base deck's compared cards, its comparisons, min plays a game)


def compared_cards(deck: Deck, base: Terms, min_plays: int,
                   classes: CardClasses | None = None) -> Compared:
    """The base deck's compared cards, how many comparisons they make, and the play rate
    (plays a game) that `min_plays` plays is in the base measurement: a candidate
    measured on fewer or more games must keep each compared card played at that rate,
    or the card counts as unmeasured."""
    return (base.eligible.copy(), comparisons(unit_vp(deck, classes), base.eligible),
            min_plays / max(base.games, 1))


def debiased_spread(values: np.ndarray, se: np.ndarray, groups: np.ndarray,
                    eligible: np.ndarray) -> float:
    """sqrt of the pooled within-group between-card variance, sampling noise removed."""
    num = den = 0.0
    for g in np.unique(groups[eligible]):
        sel = eligible & (groups == g)
        k = int(sel.sum())
        if k < 2:
            continue
        observed = float(np.var(values[sel], ddof=1))
        noise = float(np.mean(se[sel] ** 2))
        num += (k - 1) * max(0.0, observed - noise)
        den += k - 1
    return float(np.sqrt(num / den)) if den else float("nan")


def card_value(stats: DeckStats, value: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, its standard error, its observations) per unit for the objective's `value`:
    play_win (win rate of the players who played it), acquire (share of offers taken) or
    causal (win effect of taking it at a forked decision)."""
    rate, se = stats.cards[value].rate()
    return rate, se, stats.cards[value].values["n"]


def terms(stats: DeckStats, deck: Deck, obj: Objective,
          cards: Compared | None = None, classes: CardClasses | None = None,
          value: str | None = None) -> Terms:
    """The deck's terms, over card classes when `classes` is given (the stats pooled alike)
    and on `value` (default: the objective's). `cards`: the cards the spread compares, how
    many comparisons they made in the base deck and the play rate they must keep
    (compared_cards), fixed across candidates, so that a candidate cannot look balanced by
    making a card so rare that its value is all noise (which the debiasing would then
    subtract), by leaving it unplayed, or by moving cards out of their VP group until
    nothing is left to compare: each gives the worst spread."""
    groups = unit_vp(deck, classes)
    acq_rate, _ = stats.cards["acquire"].rate()
    val, se, plays = card_value(stats, value or obj.value)
    eligible = (plays >= obj.min_plays) & np.isfinite(se)
    if cards is not None:
        eligible, need, rate = cards[0].copy(), cards[1], cards[2]
        measured = np.all(np.isfinite(val[eligible]) & np.isfinite(se[eligible])
                          & (plays[eligible] >= rate * stats.games))
        if not measured or comparisons(groups, eligible) < need:
            spread = UNMEASURED
        else:
            spread = debiased_spread(val, se, groups, eligible)
    else:
        spread = debiased_spread(val, se, groups, eligible)
    offered = np.isfinite(acq_rate)
    a = acq_rate[offered]
    extremes = float(np.mean(np.clip(obj.never - a, 0, None) + np.clip(a - obj.always, 0, None))
                     ) if a.size else 0.0
    game_rate, _ = stats.game.rate()
    first, tiebreak, rounds = (float(v) for v in game_rate)
    return Terms(spread=0.0 if np.isnan(spread) else spread, extremes=extremes,
                 first_player=abs(first - 0.5), tiebreak=tiebreak,
                 rounds=abs(rounds - obj.rounds_target) / 12.0, first_rate=first,
                 mean_rounds=rounds, card_value=val, card_se=se, acquire=acq_rate,
                 eligible=eligible, games=stats.games)
