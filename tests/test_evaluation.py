"""The evaluation a cut playout ends with (players/evaluation.py): the fit recovers a
planted model, a match fits it on its own deck, deterministically, and a strategy file
may fix it instead."""

from __future__ import annotations

import numpy as np
import pytest

from targi_sim.engine.constants import (
    MC_EVAL_GOLD,
    MC_EVAL_GOODS,
    MC_EVAL_SCALE,
    MC_EVAL_SCALE_ROUND,
)
from targi_sim.play.match import prepare_match
from targi_sim.players.evaluation import Positions, fit_positions, mirror_positions
from targi_sim.players.strategy import load_strategy

EVAL = [MC_EVAL_GOLD, MC_EVAL_GOODS, MC_EVAL_SCALE, MC_EVAL_SCALE_ROUND]


def test_the_fit_recovers_a_planted_model():
    """Positions drawn from a known model: gold worth 1.5 VP, a good 0.5, the win a
    logistic of the margin over 1.0 + 0.25 x rounds left."""
    rng = np.random.default_rng(7)
    n = 200_000
    rounds = rng.integers(1, 12, n).astype(float)
    margin, gold, goods = (rng.normal(0, s, n) for s in (4.0, 2.0, 3.0))
    estimate = margin + 1.5 * gold + 0.5 * goods
    final = estimate + rng.normal(0, 3.0, n)
    p_win = 1 / (1 + np.exp(-estimate / (1.0 + 0.25 * (12 - rounds))))
    winner = np.where(rng.random(n) < p_win, 0, 1)
    pos = Positions(rounds, margin, gold, goods, final, winner, np.arange(n), n)
    fit = fit_positions(pos)
    assert fit.gold == pytest.approx(1.5, abs=0.03)
    assert fit.goods == pytest.approx(0.5, abs=0.03)
    assert fit.scale == pytest.approx(1.0, abs=0.1)
    assert fit.scale_round == pytest.approx(0.25, abs=0.03)


def test_a_match_fits_the_experts_evaluation_on_its_own_deck():
    base = prepare_match(("expert", "tuned")).SP
    again = prepare_match(("tuned", "expert")).SP
    token = prepare_match(("expert", "tuned"), "base-token-economy").SP
    assert np.isfinite(base[0, EVAL]).all() and (base[0, EVAL] > 0).all()
    assert np.array_equal(base[0, EVAL], again[1, EVAL])  # a function of deck and rules
    # the token economy trades goods for gold at another rate: a gold is worth otherwise
    assert abs(token[0, MC_EVAL_GOLD] - base[0, MC_EVAL_GOLD]) > 0.05
    assert not np.isnan(prepare_match(("expert-placements", "tuned")).SP[0, EVAL]).any()


def test_the_fit_describes_the_rollout_strategys_games():
    """On the base deck a gold ahead is worth about one VP at the end and a good about a
    third (tuned's mirror); the positions are those of finished rounds."""
    m = prepare_match(("expert", "tuned"))
    pos = mirror_positions(m.D, m.R, m.SP, m.PB, 0, games=400, seed=5)
    assert pos.round.min() == 1 and pos.round.max() <= 13
    assert 0.6 < m.SP[0, MC_EVAL_GOLD] < 1.8 and 0.1 < m.SP[0, MC_EVAL_GOODS] < 0.7
    assert len(np.unique(pos.game)) == 400


def test_a_strategy_file_may_fix_the_evaluation(tmp_path):
    path = tmp_path / "fixed.toml"
    path.write_text('kind = "montecarlo"\nbase = "tuned"\nsearch = "ismcts"\n'
                    "rollout_rounds = 1\neval_gold = 2.0\neval_goods = 0.5\n"
                    "eval_scale = 1.5\neval_scale_round = 0.1\n")
    SP = prepare_match((str(path), "tuned")).SP
    assert list(SP[0, EVAL]) == [2.0, 0.5, 1.5, 0.1]
    assert load_strategy(path).settings()["eval_gold"] == 2.0
