"""Small builders shared by the scenario tests."""

from __future__ import annotations

import polars as pl

from targi_sim.game.rules import load_rules
from targi_sim.play.scenario import Scenario

START = {"salt": 2, "pepper": 2, "dates": 2, "gold": 1, "vp": 4}


def new(deck: str = "base", first: int = 0, seed: int = 0, **overrides) -> Scenario:
    """A fresh position with default rules, optionally overridden."""
    rules = load_rules("default")
    if overrides:
        rules = rules.with_overrides(**overrides)
    return Scenario(deck, rules, seed=seed, first_player=first)


def res(sc: Scenario, p: int) -> dict[str, int]:
    return sc.players[p].resources()


def setres(sc: Scenario, p: int, s=0, pe=0, d=0, g=0, vp=0) -> None:
    sc.players[p].set_resources(salt=s, pepper=pe, dates=d, gold=g, vp=vp)


def trace(sc: Scenario, decision: str | None = None) -> pl.DataFrame:
    t = sc.logs()["trace"]
    if decision is not None:
        t = t.filter(t["decision"] == decision)
    return t


def plus(**delta: int) -> dict[str, int]:
    """The starting resources changed by `delta`."""
    out = dict(START)
    for k, v in delta.items():
        out[k] += v
    return out
