"""targi-sim balance at every level: card classes in the search space, levels re-tuned
per candidate, economy values from a calibration space file, the causal card value,
the levels' combination, and the one-line errors of the new options."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from typer.testing import CliRunner

from targi_sim.balance import BalanceConfig, balance_deck, load_settings
from targi_sim.balance.searching import cannot_win, combine, fixed_first_levels, repair
from targi_sim.balance.space import expand, problem, split_classes
from targi_sim.cli.app import app
from targi_sim.engine import forks as drv
from targi_sim.errors import InputError
from targi_sim.fairness.measure import PerDeal, add_forks
from targi_sim.game.classes import card_classes
from targi_sim.game.deck import load_deck
from targi_sim.searches import resolve_levels
from tests.cli_helpers import one_error_line

runner = CliRunner()
ONE_GENERATION = 16_800  # tuned's re-tune: 12 candidates x 7 opponents x 100 deals x 2
LEVELS = BalanceConfig(strategies=("balanced", "tuned"), retuned=("tuned",),
                       retune_budget=ONE_GENERATION, budget=100_000, block_deals=2_000,
                       blocks=2, validate_deals=300, seed=5, resamples=100)


@pytest.fixture(scope="module")
def base():
    return load_deck("base")


# ----------------------------------------------------------------- classes


def test_an_edit_of_a_class_changes_every_copy(base):
    classes = card_classes(base)
    s = load_settings()
    edits = repair(base, {14: {"dates": 1}}, s, classes)  # Camel Rider 1VP #1 and #2
    assert set(edits) == {14, 15} and edits[14] == edits[15]
    assert split_classes(edits, classes) == []
    assert problem(base, {14: {"dates": 1}}, s.space, classes) == (
        "the copies of Camel Rider 1VP #1, #2 (cards 14, 15) would differ")
    # six classes with copies count as six changes, not twelve cards
    six = expand({c: {"gold": int(base.tribe_cost[c, 3]) + 1}
                  for c in (2, 14, 24, 34, 41, 0)}, classes)
    assert len(six) == 11 and problem(base, six, s.space, classes) is None


def test_distinct_copies_may_differ(tmp_path, base):
    p = tmp_path / "obj.toml"
    p.write_text('[space]\ndistinct = ["Camel Rider 1VP #2"]\n')
    s = load_settings(p)
    classes = card_classes(base, s.space.distinct_ids(base, p))
    assert repair(base, {14: {"dates": 1}}, s, classes) == {14: {"dates": 1}}


# ----------------------------------------------------------------- levels and combination


def test_levels_retune_every_heuristic_level_after_the_first():
    levels = resolve_levels(("balanced", "tuned"))
    assert (levels.specs, levels.retuned_specs) == (("balanced", "tuned"), ("tuned",))
    levels = resolve_levels(("random", "greedy"))
    assert (levels.specs, levels.retuned_specs) == (("random", "greedy"), ())
    with pytest.raises(InputError, match="repeats"):
        resolve_levels(("tuned", "tuned"))


def test_worst_level_by_default_or_a_weighted_mean(tmp_path):
    s = load_settings()
    assert combine(s, ("balanced", "tuned"), [0.1, 0.3]) == pytest.approx(0.3)
    p = tmp_path / "obj.toml"
    p.write_text('[objective]\ncombine = "mean"\nlevel_weights = { tuned = 3 }\n')
    w = load_settings(p)
    assert combine(w, ("balanced", "tuned"), [0.1, 0.3]) == pytest.approx((0.1 + 0.9) / 4)


def test_racing_plays_the_fixed_levels_first_only_when_they_bound_the_value():
    from targi_sim.players.strategy import resolve_strategy

    bal, tuned, mc = (resolve_strategy(n) for n in ("balanced", "tuned", "montecarlo-tuned"))
    levels = ("balanced", "tuned")
    assert fixed_first_levels(levels, [bal, tuned], ("tuned",), "worst") == [0]
    assert fixed_first_levels(levels, [bal, tuned], ("tuned",), "mean") == []  # no bound
    assert fixed_first_levels(levels, [bal, tuned], (), "worst") == []  # nothing to save
    # a search level whose rollouts play the re-tuned level follows its re-tune
    three = ("balanced", "tuned", "montecarlo-tuned")
    assert fixed_first_levels(three, [bal, tuned, mc], ("tuned",), "worst") == [0]
    # a candidate stops only when it cannot beat the best (a strictly lower value)
    assert cannot_win(0.20, 0.20) and cannot_win(0.21, 0.20) and not cannot_win(0.19, 0.20)


# ----------------------------------------------------------------- causal value


def test_forks_become_per_deal_causal_sums():
    """Two deals (seat-swapped pairs: games 0-1 and 2-3); card 1 forked twice in deal 0
    (a win taken vs a loss left: +1; a draw vs a win: -1/2), card 0 once in deal 1."""
    F = np.zeros((3, drv.F_SIZE), dtype=np.int64)
    F[:, drv.F_GAME] = [0, 1, 3]
    F[:, drv.F_CARD] = [1, 1, 0]
    F[:, drv.F_POINTS_TAKE] = [2, 1, 2]
    F[:, drv.F_POINTS_ALT] = [0, 2, 2]
    zeros = np.zeros((2, 2))
    pd = PerDeal(np.array([0, 1]), {"causal": zeros, "play_win": zeros},
                 {"causal": zeros, "play_win": zeros})
    out = add_forks(pd, F, "seat_swapped")
    assert out.x["causal"].tolist() == [[0.0, 0.5], [0.0, 0.0]]
    assert out.n["causal"].tolist() == [[0.0, 2.0], [1.0, 0.0]]


# ----------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def levels_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("levels") / "run"
    return balance_deck(LEVELS, out, jobs=2), out


def test_a_levels_search_retunes_and_validates_every_level(levels_run, base):
    result, out = levels_run
    val = result.validation
    assert val.levels == ("balanced", "tuned")
    assert set(val.table["level"]) == {"balanced", "tuned", "all levels"}
    assert {"spread", "causal_spread", "first_player", "objective"} <= set(val.table["term"])
    assert set(val.compared) == {"balanced", "tuned"} and min(val.compared.values()) > 0
    classes = card_classes(base)
    assert val.cards.height == 2 * classes.size  # a row per level and class
    assert val.cards.filter(val.cards["card_ids"] == "14, 15").height == 2
    from targi_sim.players.strategy import resolve_strategy

    # the re-tuned weights for the proposed deck load as a strategy
    assert resolve_strategy(str(out / "proposal-tuned.toml")).name == "tuned"
    assert val.shape is not None and set(val.shape["level"]) == {"balanced", "tuned"}
    # every candidate that was re-tuned (the base and those not raced out first) paid
    # a re-tune; a raced-out one paid only its balanced blocks
    trials = _trials(out)
    retuned = [t for t in trials if "weights" in t.user_attrs]
    raced = [t for t in trials if "weights" not in t.user_attrs and t.user_attrs.get("games")]
    assert result.state.games >= (len(retuned) + 1) * ONE_GENERATION
    assert raced and all(t.user_attrs["games"] < ONE_GENERATION for t in raced)
    md = (out / "validation.md").read_text()
    assert "**tuned**" in md and "re-tuned for each candidate" in (
        out / "proposal.toml").read_text()


def _trials(out):
    from optuna.trial import TrialState

    from targi_sim.searches import open_study

    return [t for t in open_study(out, "balance").trials
            if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]


def test_racing_drops_only_candidates_that_cannot_win(levels_run, tmp_path, monkeypatch):
    """The known answer: every candidate measured in full (no racing, re-tuned first).
    A candidate raced out had a full value at least the best's when it was dropped,
    and a candidate measured in both searches has the same value in both (a level's
    games are the same alone or beside the other)."""
    from targi_sim.balance import searching

    _, out = levels_run
    monkeypatch.setattr(searching, "fixed_first_levels", lambda *a: [])
    balance_deck(LEVELS, tmp_path / "full", jobs=2)
    full = {t.user_attrs["edits"]: t.value for t in _trials(tmp_path / "full")
            if t.value is not None and "weights" in t.user_attrs}
    checked = both = 0
    for t in _trials(out):
        key = t.user_attrs["edits"]
        if key not in full:
            continue
        if "best_then" in t.user_attrs and "weights" not in t.user_attrs:  # raced out
            assert full[key] >= t.user_attrs["best_then"]
            assert t.user_attrs["bound"] <= full[key] + 1e-12
            checked += 1
        elif t.value is not None and "weights" in t.user_attrs:
            assert t.value == full[key]
            both += 1
    assert checked >= 1 and both >= 1


def test_a_levels_search_does_not_depend_on_jobs(levels_run, tmp_path):
    result, _ = levels_run
    one = balance_deck(LEVELS, tmp_path / "one", jobs=1)
    assert one.state.history == result.state.history
    assert one.edits == result.edits
    assert one.validation.table.equals(result.validation.table)


def test_economy_values_join_the_space(tmp_path, base):
    space = tmp_path / "space.toml"
    space.write_text('[[parameter]]\npath = "border.Silversmith.trades[1].get_amount"\n'
                     'values = [1, 2]\nsource = "t"\n')
    settings = dataclasses.replace(load_settings(), space=dataclasses.replace(
        load_settings().space, economy=str(space)))
    config = dataclasses.replace(LEVELS, strategies=("balanced",), retuned=(),
                                 budget=3000, seed=8)
    result = balance_deck(config, tmp_path / "out", settings=settings)
    text = (tmp_path / "out" / "proposal.toml").read_text()
    if result.economy:  # the search kept the Silversmith change: the deck says so
        assert "Economy values changed" in text
        assert result.proposal.trade_get_amount.tolist() != base.trade_get_amount.tolist()
    else:
        assert "Economy values changed" not in text
    study = (tmp_path / "out" / "study.journal").read_text()
    assert "econ:border.Silversmith.trades[1].get_amount" in study


def test_cli_errors_of_the_new_options(tmp_path):
    out = ["--out", str(tmp_path / "b")]
    r = runner.invoke(app, ["balance", "--levels", "balanced,nobody", *out])
    one_error_line(r, "nobody")
    r = runner.invoke(app, ["balance", "--levels", "balanced,tuned", "--strategies",
                            "greedy", *out])
    one_error_line(r, "--levels or --strategies")
    bad = tmp_path / "space.toml"
    bad.write_text('[[parameter]]\npath = "border.Nowhere.times"\nvalues = [1]\n'
                   'source = "x"\n')
    r = runner.invoke(app, ["balance", "--economy", str(bad), *out])
    one_error_line(r, str(bad), "path")
    obj = tmp_path / "obj.toml"
    obj.write_text('[validation]\ntargets = "no-such-targets"\n')
    r = runner.invoke(app, ["balance", "--objective", str(obj), *out])
    one_error_line(r, "no-such-targets")
    obj.write_text('[objective]\nlevel_weights = { tuned = -1 }\n')
    r = runner.invoke(app, ["balance", "--objective", str(obj), *out])
    one_error_line(r, str(obj), "level_weights")
    r = runner.invoke(app, ["balance", "--retune-budget", "-5", *out])
    one_error_line(r, "--retune-budget")
    r = runner.invoke(app, ["balance", "--retune-step", "nan", *out])
    one_error_line(r, "--retune-step")
