"""targi-sim calibrate: the space and target files (every mistake one line naming file,
key and what is allowed), the playtest CSV (known answers), the shape figures of a
hand-built set of games (known answers), the objective, and a tiny search that must
resume to the same result, not depend on --jobs, and write its report."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from targi_sim.calibrate import load_space, load_targets
from targi_sim.calibrate.measure import (
    C_CARD0,
    C_CARD1,
    C_CARDS0,
    C_CARDS1,
    C_FIRST,
    C_FULL,
    C_ROUNDS,
    C_ROW0,
    C_ROW1,
    C_TOK0,
    C_TOK1,
    C_UNIT,
    C_WINNER,
    N_COLS,
    cross_figure,
    mirror_figures,
)
from targi_sim.calibrate.search import (
    CalibrationConfig,
    Candidate,
    calibrate,
    choose_proposal,
    finalists,
    keeps_step,
    meets_all,
    met_targets,
    objective_of,
    rejected_early,
    simplify,
)
from targi_sim.calibrate.targets import Estimate, Target, Targets, playtest_figures, read_playtest
from targi_sim.cli.app import app
from targi_sim.errors import DataError
from targi_sim.game.deck import load_deck
from targi_sim.game.rules import load_rules
from tests.cli_helpers import kill_after_trials, one_error_line

runner = CliRunner()
LEVELS = ["balanced", "tuned"]


@pytest.fixture(scope="module")
def base():
    return load_deck("base"), load_rules("default")


def write(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def space_text(*parameters: tuple[str, str]) -> str:
    """A space file of (path, TOML values) parameters, each with a test source."""
    return "".join(f'[[parameter]]\npath = "{path}"\nvalues = {values}\nsource = "t"\n'
                   for path, values in parameters)


GOLD_VP = ("border.Silversmith.trades[1].get_amount", "[1, 2]")
SILVER_TIMES = ("border.Silversmith.times", '["any", 1]')


# ----------------------------------------------------------------- space file
def test_shipped_space_loads_with_the_current_economy_inside(base):
    sp = load_space("economy-space", *base)
    assert len(sp.parameters) >= 8
    cur = sp.current()
    assert cur["border.Silversmith.trades[1].get_amount"] == 1  # calibrated
    assert cur["border.Merchant.times"] == "any"
    for p in sp.parameters:
        assert p.current in p.values and p.source


def test_space_adds_the_current_value_when_left_out(tmp_path, base):
    f = write(tmp_path, "s.toml", '[[parameter]]\npath = "border.Silversmith.trades[1]'
              '.get_amount"\nvalues = [1, 3]\nsource = "test"\n')
    (p,) = load_space(f, *base).parameters
    assert p.values == (1, 3) and p.current == 1
    f = write(tmp_path, "s2.toml", '[[parameter]]\npath = "border.Silversmith.trades[1]'
              '.get_amount"\nvalues = [2, 3]\nsource = "test"\n')
    (p,) = load_space(f, *base).parameters
    assert p.values == (1, 2, 3) and p.current == 1


@pytest.mark.parametrize("body, needles", [
    ('[[parameter]]\npath = "border.Nowhere.times"\nvalues = [1]\nsource = "x"\n',
     ["s.toml", "parameter 1", "path", "names nothing"]),
    ('[[parameter]]\npath = "border.Silversmith.times"\nvalues = []\nsource = "x"\n',
     ["s.toml", "values", "is empty"]),
    ('[[parameter]]\npath = "border.Silversmith.times"\nvalues = [0]\nsource = "x"\n',
     ["s.toml", "values", "refuses", "times"]),
    ('[[parameter]]\npath = "border.Silversmith.times"\nvalues = [1]\n',
     ["s.toml", "source", "missing"]),
    ('[[parameter]]\npath = "border.Silversmith.times"\nvalues = [1]\nsource = "x"\n'
     'step = 2\n', ["s.toml", "step", "not a known field"]),
    ('[[parameter]]\npath = "rules.raid_unpaid"\nvalues = ["maybe"]\nsource = "x"\n',
     ["s.toml", "values", "maybe"]),
    ('[[parameter]]\npath = "border.Silversmith.times"\nvalues = 3\nsource = "x"\n',
     ["s.toml", "values", "a list"]),
    ('name = "x"\n', ["s.toml", "parameter", "missing"]),
])
def test_a_bad_space_file_is_one_error_naming_file_and_key(tmp_path, base, body, needles):
    f = write(tmp_path, "s.toml", body)
    with pytest.raises(DataError) as exc:
        load_space(f, *base)
    for n in needles:
        assert n in str(exc.value), (n, str(exc.value))


# ----------------------------------------------------------------- target file
def test_shipped_targets_expand_star_over_levels():
    t = load_targets("real-game-shape", LEVELS)
    levels = {(x.level, x.figure) for x in t.targets}
    assert ("balanced", "card_point_share") in levels and ("tuned", "card_point_share") in levels
    assert ("balanced", "beats_previous") not in levels  # nothing below the first level
    assert all(x.source for x in t.targets)


@pytest.mark.parametrize("body, needles", [
    ('[[target]]\nlevel = "expert"\nfigure = "rounds"\nmin = 1\nsource = "x"\n',
     ["t.toml", "level", "expert", "balanced"]),
    ('[[target]]\nlevel = "tuned"\nfigure = "fun"\nmin = 1\nsource = "x"\n',
     ["t.toml", "figure", "card_point_share"]),
    ('[[target]]\nlevel = "tuned"\nfigure = "rounds"\nsource = "x"\n',
     ["t.toml", "min", "band"]),
    ('[[target]]\nlevel = "tuned"\nfigure = "rounds"\nmin = 5\nmax = 4\nsource = "x"\n',
     ["t.toml", "max", "below min"]),
    ('[[target]]\nlevel = "tuned"\nfigure = "rounds"\nmin = "a"\nsource = "x"\n',
     ["t.toml", "min", "wrong type"]),
    ('[[target]]\nlevel = "balanced"\nfigure = "beats_previous"\nmin = 0.6\nsource = "x"\n',
     ["t.toml", "beats_previous", "first level"]),
    ('[[target]]\nlevel = "tuned"\nfigure = "rounds"\nmin = 1\nscale = 0\nsource = "x"\n',
     ["t.toml", "scale", "> 0"]),
])
def test_a_bad_target_file_is_one_error_naming_file_and_key(tmp_path, body, needles):
    f = write(tmp_path, "t.toml", body)
    with pytest.raises(DataError) as exc:
        load_targets(f, LEVELS)
    for n in needles:
        assert n in str(exc.value), (n, str(exc.value))


def test_miss_is_zero_inside_the_band_and_scaled_outside():
    t = Target("tuned", "card_point_share", 0.5, 0.8, 0.05, "x")
    assert t.miss(0.6) == 0 and t.miss(0.5) == 0
    assert t.miss(0.4) == pytest.approx(2.0) and t.miss(0.9) == pytest.approx(2.0)
    assert t.miss(float("nan")) == 10.0


def test_objective_sums_squared_misses():
    targets = Targets("x", (Target("a", "rounds", 10, None, 1.0, "s"),
                            Target("b", "rounds", None, 5, 0.5, "s")))
    figs = {"a": {"rounds": Estimate(8, 7, 9, 10)}, "b": {"rounds": Estimate(6, 5, 7, 10)}}
    assert objective_of(targets, figs) == pytest.approx(2.0 ** 2 + 2.0 ** 2)
    assert objective_of(targets, figs, ["a"]) == pytest.approx(4.0)


# ----------------------------------------------------------------- playtest CSV
PLAYTEST = """game_id,player,first_player,winner,card_vp,row_bonus,token_vp,cards,end_reason,rounds
1,0,1,1,20,4,6,11,display_full,11
1,1,0,0,10,0,10,7,display_full,11
2,0,0,0.5,12,0,8,6,final_raid,12
2,1,1,0.5,14,2,4,8,final_raid,12
3,0,1,0,6,0,14,4,final_raid,12
3,1,0,1,16,2,4,9,final_raid,12
"""


def test_playtest_figures_known_answers(tmp_path):
    est = playtest_figures(read_playtest(write(tmp_path, "p.csv", PLAYTEST)))
    cards = 20 + 4 + 10 + 0 + 12 + 0 + 14 + 2 + 6 + 0 + 16 + 2
    tokens = 6 + 10 + 8 + 4 + 14 + 4
    assert est["card_point_share"].value == pytest.approx(cards / (cards + tokens))
    assert est["display_full_share"].value == pytest.approx(1 / 3)
    assert est["cards_per_player"].value == pytest.approx((11 + 7 + 6 + 8 + 4 + 9) / 6)
    assert est["rounds"].value == pytest.approx((11 + 12 + 12) / 3)
    # the first player won game 1, drew game 2, lost game 3
    assert est["first_player_rate"].value == pytest.approx(0.5)
    assert est["card_point_share"].units == 3
    assert est["card_point_share"].lo < est["card_point_share"].value < \
        est["card_point_share"].hi


@pytest.mark.parametrize("text, needles", [
    ("game_id,player\n1,0\n", ["p.csv", "header", "first_player", "missing"]),
    (PLAYTEST.replace("display_full,11\n1,1", "full,11\n1,1", 1),
     ["p.csv", "row 2", "end_reason", "display_full"]),
    (PLAYTEST.replace("1,0,1,1,20", "1,0,1,1,lots", 1), ["p.csv", "row 2", "card_vp",
                                                          "a number"]),
    (PLAYTEST.replace("1,0,1,1,20", "1,0,1,2,20", 1), ["p.csv", "winner"]),
    (PLAYTEST.splitlines()[0] + "\n", ["p.csv", "no games"]),
])
def test_a_bad_playtest_file_is_one_error_naming_row_and_column(tmp_path, text, needles):
    with pytest.raises(DataError) as exc:
        read_playtest(write(tmp_path, "p.csv", text))
    for n in needles:
        assert n in str(exc.value), (n, str(exc.value))


# ----------------------------------------------------------------- shape figures
def _rows(games: list[dict]) -> np.ndarray:
    out = np.zeros((len(games), N_COLS))
    for i, g in enumerate(games):
        for col, v in g.items():
            out[i, col] = v
    return out


def test_mirror_figures_known_answers():
    # deal 0: two games (a pair); deal 1: one game
    rows = _rows([
        {C_UNIT: 0, C_FIRST: 0, C_WINNER: 0, C_FULL: 1, C_ROUNDS: 10, C_CARD0: 10, C_ROW0: 2,
         C_TOK0: 4, C_CARD1: 6, C_ROW1: 0, C_TOK1: 8, C_CARDS0: 12, C_CARDS1: 7},
        {C_UNIT: 0, C_FIRST: 1, C_WINNER: 0, C_FULL: 0, C_ROUNDS: 12, C_CARD0: 4, C_ROW0: 0,
         C_TOK0: 12, C_CARD1: 4, C_ROW1: 0, C_TOK1: 8, C_CARDS0: 3, C_CARDS1: 3},
        {C_UNIT: 1, C_FIRST: 0, C_WINNER: -1, C_FULL: 0, C_ROUNDS: 12, C_CARD0: 0, C_ROW0: 0,
         C_TOK0: 10, C_CARD1: 0, C_ROW1: 0, C_TOK1: 10, C_CARDS0: 0, C_CARDS1: 0},
    ])
    f = mirror_figures(rows)
    card = 10 + 2 + 6 + 4 + 4
    assert f["card_point_share"].value == pytest.approx(card / (card + 4 + 8 + 12 + 8 + 20))
    assert f["display_full_share"].value == pytest.approx(1 / 3)
    assert f["cards_per_player"].value == pytest.approx((12 + 7 + 3 + 3) / 6)
    assert f["rounds"].value == pytest.approx(34 / 3)
    # first player won game 0, lost game 1 (seat 0 won, seat 1 started), drew game 2
    assert f["first_player_rate"].value == pytest.approx(0.5)
    assert f["card_point_share"].units == 2  # deals, not games


def test_cross_figure_counts_seat_zero_per_pair():
    rows = _rows([{C_UNIT: 0, C_WINNER: 0}, {C_UNIT: 0, C_WINNER: 0},
                  {C_UNIT: 1, C_WINNER: 1}, {C_UNIT: 1, C_WINNER: -1}])
    e = cross_figure(rows)
    assert e.value == pytest.approx(2.5 / 4) and e.units == 2


# ----------------------------------------------------------------- the search
TINY = dict(trials=3, deals=60, retune_budget=17_000, validate_deals=80, validate_retunes=2,
            finalists=1, seed=4)


def _tiny_space(tmp_path):
    return str(write(tmp_path, "space.toml", space_text(GOLD_VP, SILVER_TIMES)))


def _summary(cal) -> list:
    return [(c.number, json.dumps(c.choice, sort_keys=True), round(c.objective, 9), c.raced)
            for c in cal.candidates] + [("v", c.number, round(c.objective, 9))
                                        for c in cal.validated]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cal")
    config = CalibrationConfig(space=_tiny_space(tmp), **TINY)
    return config, calibrate(config, tmp / "a", jobs=1), tmp


def test_tiny_search_measures_current_first_and_validates(tiny_run):
    config, cal, _ = tiny_run
    assert len(cal.candidates) == 3
    assert cal.candidates[0].choice == {"border.Silversmith.trades[1].get_amount": 1,
                                        "border.Silversmith.times": "any"}
    assert cal.validated[0].choice == cal.candidates[0].choice
    for c in cal.validated:
        assert set(c.figures) == {"balanced", "tuned"}
        assert "beats_previous" in c.figures["tuned"]
        assert not math.isnan(c.objective)
    # the retuned level carries its weights; the fixed one does not
    assert "tuned" in cal.validated[0].weights and "balanced" not in cal.validated[0].weights


def test_search_resumes_to_the_same_result_and_ignores_jobs(tiny_run):
    config, cal, tmp = tiny_run
    assert calibrate(config, tmp / "b", jobs=2, stop_after=1) is None
    phases = []
    resumed = calibrate(config, tmp / "b", jobs=2,  # the same call continues
                        on_phase=lambda name, n: phases.append((name, n)))
    assert _summary(resumed) == _summary(cal)
    # each phase announces how many economies it measures (simplification: at most),
    # which gives its progress bar a total and an ETA
    steps = len(resumed.simplified)
    assert phases[0] == ("validate", len(resumed.validated) - steps)
    assert [p for p, _ in phases][:2] == ["validate", "simplify"]  # then a phase a pass
    assert set(p for p, _ in phases[1:]) == {"simplify"}
    assert sum(n for _, n in phases[1:]) >= steps


def test_resume_with_other_settings_is_refused(tiny_run):
    from targi_sim.calibrate.search import CalibrationError

    config, _, tmp = tiny_run
    other = CalibrationConfig(**{**config.__dict__, "deals": 61})
    with pytest.raises(CalibrationError, match=r"other settings \(`deals`\)"):
        calibrate(other, tmp / "a")


@pytest.mark.parametrize("written", ["missing", "null"])
def test_a_folder_whose_search_re_tuned_is_not_continued_with_the_new_default(
        tiny_run, written):
    """A folder written before the setting existed (missing) or while its default was
    the validation's budget (null): its search re-tuned like its validation, and
    continuing it with no re-tunes in the search would mix two kinds of candidate."""
    from targi_sim.calibrate.search import CalibrationError

    config, _, tmp = tiny_run
    saved = json.loads((tmp / "a" / "config.json").read_text(encoding="utf-8"))
    assert saved["search_retune_budget"] == 0  # the tiny run's, the default
    del saved["search_retune_budget"]
    if written == "null":
        saved["search_retune_budget"] = None
    old = tmp / f"old-{written}"
    old.mkdir()
    (old / "config.json").write_text(json.dumps(saved), encoding="utf-8")
    with pytest.raises(CalibrationError, match="search_retune_budget"):
        calibrate(config, old)
    # it continues with the search re-tuned like the validation, however that is written
    for budget in (None, config.retune_budget):
        again = CalibrationConfig(**{**config.__dict__, "search_retune_budget": budget})
        assert calibrate(again, old, stop_after=0) is None


@pytest.mark.parametrize("search_budget", [0, None])
def test_the_search_can_re_tune_on_its_own_budget_and_the_validation_keeps_its_own(
        tiny_run, monkeypatch, search_budget):
    """--search-retune-budget: the candidates' re-tunes in the search play that many games
    (0, the default: the level's own weights; None: as the validation's), every
    validation re-tune --retune-budget's."""
    from targi_sim.calibrate import search

    config, cal, tmp = tiny_run
    budgets: list[tuple[str, int]] = []
    phase = ["search"]
    players = search.Evaluator.players

    def spy(self, deck, rules, retune_seed, budget):
        budgets.append((phase[0], budget))
        return players(self, deck, rules, retune_seed, budget)

    def on_phase(name, n):
        phase[0] = name

    monkeypatch.setattr(search.Evaluator, "players", spy)
    assert CalibrationConfig().search_retune_budget == 0  # the documented default
    cheap = CalibrationConfig(**{**config.__dict__, "search_retune_budget": search_budget})
    again = calibrate(cheap, tmp / f"search-{search_budget}", jobs=1, on_phase=on_phase)
    assert {b for p, b in budgets if p == "search"} == \
        {config.retune_budget if search_budget is None else 0}
    assert {b for p, b in budgets if p != "search"} == {config.retune_budget}
    assert len([p for p, _ in budgets if p != "search"]) == \
        len(again.validated) * config.validate_retunes


def test_finalists_skip_raced_and_repeated_candidates():
    cs = [Candidate(0, {"a": 1}, 5.0), Candidate(1, {"a": 2}, 1.0, raced=True),
          Candidate(2, {"a": 3}, 2.0), Candidate(3, {"a": 3}, 2.0),
          Candidate(4, {"a": 4}, 3.0)]
    assert [c.number for c in finalists(cs, 2)] == [2, 4]


# ----------------------------------------------------------------- the proposal rule
# two targets at one level: a share >= 0.02 (full display) and a count >= 6 (cards)
RULE_TARGETS = Targets("t", (Target("tuned", "display_full_share", 0.02, None, 0.02, "s"),
                             Target("tuned", "cards_per_player", 6.0, None, 1.0, "s")))


def _cand(number: int, choice: dict, full: tuple, cards: tuple) -> Candidate:
    """A validated economy with the two figures as (value, lo, hi)."""
    figs = {"tuned": {"display_full_share": Estimate(*full, 4000),
                      "cards_per_player": Estimate(*cards, 4000)}}
    return Candidate(number, choice, objective_of(RULE_TARGETS, figs), figures=figs)


def test_a_target_is_met_when_its_estimate_lies_in_the_band_whatever_its_interval():
    t = Target("tuned", "display_full_share", 0.02, None, 0.02, "s")
    assert t.met(Estimate(0.03, 0.025, 0.035, 4))
    assert t.met(Estimate(0.02, 0.0, 0.04, 4))  # on the edge: in the band
    assert not t.met(Estimate(0.017, 0.0, 0.9, 4))  # a wide interval does not meet it
    assert not t.met(Estimate(float("nan"), float("nan"), float("nan"), 0))
    assert not t.met(None)


def test_a_validated_figure_is_the_mean_over_re_tunes_with_a_t_interval_on_them():
    """Known answer: two re-tunes' shares 1% and 3% -> 2%, half-width t(0.975, 1) x 1% =
    12.706%, cut to 0..1; the re-tunes are the units. One draw keeps its own interval."""
    from targi_sim.calibrate.search import over_draws

    e = over_draws([Estimate(0.01, 0.0, 0.02, 4000), Estimate(0.03, 0.02, 0.04, 4000)],
                   share=True)
    assert e.value == pytest.approx(0.02) and e.units == 2
    assert e.lo == 0.0 and e.hi == pytest.approx(0.02 + 12.7062047 * 0.01, rel=1e-6)
    same = over_draws([Estimate(12.0, 11.0, 13.0, 9)] * 3)
    assert (same.value, same.lo, same.hi) == (12.0, 12.0, 12.0)
    one = over_draws([Estimate(0.5, 0.4, 0.6, 9)])
    assert (one.lo, one.hi, one.units) == (0.4, 0.6, 1)


def test_an_economy_that_meets_every_target_is_never_replaced_by_a_simpler_miss():
    """The planted case of the issue: candidate 77 (three changes) meets every target on
    fresh deals; candidate 106 (two changes) misses the full display (0.0%) by one unit
    of miss -- within the old rule's slack, which proposed it. The rule proposes 77."""
    cur = _cand(0, {"a": 1, "b": 1, "c": 1}, (0.0, 0.0, 0.0), (5.0, 4.9, 5.1))
    c77 = _cand(77, {"a": 2, "b": 2, "c": 2}, (0.039, 0.034, 0.046), (8.95, 8.8, 9.1))
    c106 = _cand(106, {"a": 2, "b": 2, "c": 1}, (0.0, 0.0, 0.0), (7.05, 6.9, 7.2))
    assert c106.objective == pytest.approx(1.0)  # one unit: inside a slack of 1.0
    assert meets_all(RULE_TARGETS, c77) and not meets_all(RULE_TARGETS, c106)
    for order in ([cur, c106, c77], [cur, c77, c106]):
        assert choose_proposal(order, RULE_TARGETS, slack=1.0).number == 77
        assert choose_proposal(order, RULE_TARGETS, slack=100.0).number == 77


def test_among_economies_that_fit_the_fewest_changes_win():
    cur = _cand(0, {"a": 1, "b": 1}, (0.0, 0.0, 0.0), (5.0, 4.9, 5.1))
    two = _cand(1, {"a": 2, "b": 2}, (0.05, 0.04, 0.06), (9.0, 8.9, 9.1))
    one = _cand(2, {"a": 2, "b": 1}, (0.021, 0.015, 0.027), (6.5, 6.4, 6.6))
    assert choose_proposal([cur, two, one], RULE_TARGETS).number == 2
    # the current economy fits: nothing is proposed
    fit_cur = _cand(0, {"a": 1, "b": 1}, (0.03, 0.02, 0.04), (7.0, 6.9, 7.1))
    assert choose_proposal([fit_cur, two, one], RULE_TARGETS) is None


def test_when_none_fits_the_smallest_miss_then_the_fewest_changes_keeping_its_met_targets():
    cur = _cand(0, {"a": 1, "b": 1}, (0.0, 0.0, 0.0), (3.0, 2.9, 3.1))  # misses both
    best = _cand(1, {"a": 2, "b": 2}, (0.0, 0.0, 0.0), (6.5, 6.4, 6.6))  # meets cards
    near = _cand(2, {"a": 2, "b": 1}, (0.0, 0.0, 0.0), (6.2, 6.1, 6.3))  # same miss, 1 change
    loses = _cand(3, {"a": 1, "b": 2}, (0.008, 0.005, 0.011), (5.0, 4.9, 5.1))  # trades cards
    assert choose_proposal([cur, best, near, loses], RULE_TARGETS, slack=1.0).number == 2
    assert choose_proposal([cur, best, loses], RULE_TARGETS, slack=10.0).number == 1
    assert choose_proposal([cur, _cand(1, {"a": 2, "b": 2}, (0.0, 0.0, 0.0),
                                       (2.0, 1.9, 2.1))], RULE_TARGETS) is None


def test_simplify_puts_back_a_value_only_while_every_met_target_stays_met(tmp_path, base):
    """From an economy that fits, each changed value goes back to its current reading
    only if the step still meets every target; a step that loses one is not kept, however
    small its miss."""
    sp = load_space(write(tmp_path, "s.toml", space_text(
        GOLD_VP, SILVER_TIMES, ("border.Merchant.times", '["any", 2]'))), *base)
    gold, silver, merchant = (p.path for p in sp.parameters)
    cur = sp.current()
    start = _cand(1, {gold: 2, silver: 1, merchant: 2}, (0.03, 0.02, 0.04), (8.0, 7.9, 8.1))
    asked = []

    def measure(choice, rejected):
        asked.append(dict(choice))
        if choice[gold] != 2:  # the gold rate makes the cards: reverting it misses by 0.5
            return _cand(9, choice, (0.03, 0.02, 0.04), (5.5, 5.4, 5.6))
        return _cand(9, choice, (0.025, 0.02, 0.03), (7.0, 6.9, 7.1))

    got = simplify(sp, start, cur, measure, RULE_TARGETS, slack=1.0)
    assert got == {gold: 2, silver: "any", merchant: "any"}
    assert asked[0] == {gold: 1, silver: 1, merchant: 2} and len(asked) == 4
    assert asked[3] == {gold: 1, silver: "any", merchant: "any"}  # the second pass's retry


def test_simplify_tries_a_rejected_step_again_after_a_later_one_is_kept(tmp_path, base):
    """The case measured on the token economy: putting the Merchant's trades back missed
    while the Silversmith's were still moved, and was never tried again once they were
    put back -- so the simplest fit was never validated. A pass that keeps a step is
    followed by another, until a pass keeps nothing."""
    sp = load_space(write(tmp_path, "s.toml", space_text(
        GOLD_VP, SILVER_TIMES, ("border.Merchant.times", '["any", 2]'))), *base)
    gold, silver, merchant = (p.path for p in sp.parameters)
    cur = sp.current()
    start = _cand(1, {gold: 2, silver: 1, merchant: 2}, (0.03, 0.02, 0.04), (8.0, 7.9, 8.1))
    asked, passes = [], []

    def measure(choice, rejected):
        asked.append(dict(choice))
        fits = choice[gold] == 2 and (choice[silver] == 1 or choice[merchant] == "any")
        return _cand(9, choice, *(((0.025, 0.02, 0.03), (7.0, 6.9, 7.1)) if fits else
                                  ((0.0, 0.0, 0.0), (7.0, 6.9, 7.1))))

    got = simplify(sp, start, cur, measure, RULE_TARGETS, on_pass=passes.append)
    assert got == {gold: 2, silver: "any", merchant: "any"}
    assert asked == [{gold: 1, silver: 1, merchant: 2},        # pass 1: gold needed,
                     {gold: 2, silver: "any", merchant: 2},    # silver too (for now),
                     {gold: 2, silver: 1, merchant: "any"},    # merchant is not: kept
                     {gold: 1, silver: 1, merchant: "any"},    # pass 2: gold still needed,
                     {gold: 2, silver: "any", merchant: "any"},  # silver no longer: kept
                     {gold: 1, silver: "any", merchant: "any"}]  # pass 3 keeps nothing
    assert passes == [3, 2, 1]


def test_simplify_without_a_fit_keeps_a_step_within_the_slack_that_keeps_the_met_targets(
        tmp_path, base):
    sp = load_space(write(tmp_path, "s.toml", space_text(SILVER_TIMES)), *base)
    (p,) = sp.parameters
    start = _cand(1, {p.path: 1}, (0.0, 0.0, 0.0), (6.5, 6.4, 6.6))  # misses full by 1 unit
    step = _cand(2, {p.path: "any"}, (0.0, 0.0, 0.0), (6.2, 6.1, 6.3))
    assert simplify(sp, start, {p.path: "any"}, lambda c, r: step, RULE_TARGETS,
                    slack=0.0) == {p.path: "any"}  # no worse: kept
    worse = _cand(2, {p.path: "any"}, (0.0, 0.0, 0.0), (5.0, 4.9, 5.1))  # loses cards
    assert simplify(sp, start, {p.path: "any"}, lambda c, r: worse, RULE_TARGETS,
                    slack=100.0) == {p.path: 1}


# racing the simplification: a step whose fixed level breaks a met target stops early
TWO_LEVELS = Targets("t2", (
    Target("balanced", "card_point_share", 0.5, None, 0.1, "s"),
    Target("balanced", "first_player_rate", 0.4, 0.6, 0.1, "s"),
    Target("tuned", "first_player_rate", 0.4, 0.6, 0.1, "s"),
    Target("tuned", "display_full_share", 0.02, None, 0.02, "s"),
    Target("tuned", "cards_per_player", 6.0, None, 1.0, "s")))
_FIGS = {"balanced": ("card_point_share", "first_player_rate"),
         "tuned": ("first_player_rate", "display_full_share", "cards_per_player")}


def _two_level(number: int, choice: dict, values: dict, raced: bool = False) -> Candidate:
    """A validated economy from {(level, figure): value}; `raced`: balanced only, as a
    step stopped before its re-tunes is."""
    levels = ("balanced",) if raced else ("balanced", "tuned")
    figs = {lv: {f: Estimate(values[lv, f], values[lv, f], values[lv, f], 4)
                 for f in _FIGS[lv]} for lv in levels}
    return Candidate(number, choice, objective_of(TWO_LEVELS, figs, list(levels)), raced,
                     figs)


def test_a_step_whose_fixed_level_breaks_a_met_target_is_rejected_before_its_retunes():
    v = {("balanced", "card_point_share"): 0.45, ("balanced", "first_player_rate"): 0.5,
         ("tuned", "first_player_rate"): 0.5, ("tuned", "display_full_share"): 0.03,
         ("tuned", "cards_per_player"): 8.0}
    partial = _two_level(5, {}, v, raced=True)
    assert partial.objective == pytest.approx(0.25)  # (0.05 / 0.1) ** 2
    assert rejected_early(TWO_LEVELS, frozenset({0, 3}), 10.0, partial)  # card share was met
    # not met so far: only the objective bound can reject it
    assert not rejected_early(TWO_LEVELS, frozenset({3}), 10.0, partial)
    assert rejected_early(TWO_LEVELS, frozenset({3}), 0.2, partial)
    # a fixed level inside every band decides nothing
    fine = _two_level(6, {}, {**v, ("balanced", "card_point_share"): 0.6}, raced=True)
    assert not rejected_early(TWO_LEVELS, frozenset({0, 1, 2, 3, 4}), 0.0, fine)
    # a raced step is never kept, whatever its (partial) figures say
    assert not keeps_step(TWO_LEVELS, frozenset(), 10.0, fine)


_value_of = {"card_point_share": st.floats(0.0, 1.0), "first_player_rate": st.floats(0.3, 0.7),
             "display_full_share": st.floats(0.0, 0.05), "cards_per_player": st.floats(3, 9)}


@settings(max_examples=400, deadline=None)
@given(data=st.data(), met=st.sets(st.integers(0, 4)), limit=st.floats(0.0, 30.0))
def test_rejecting_early_never_rejects_a_step_the_whole_validation_would_keep(data, met,
                                                                               limit):
    """Exactness: whenever the fixed level alone rejects a step, the step measured at
    every level is rejected by simplify's rule too -- so racing changes no answer."""
    values = {(lv, f): data.draw(_value_of[f]) for lv, fs in _FIGS.items() for f in fs}
    met = frozenset(met)
    if rejected_early(TWO_LEVELS, met, limit, _two_level(1, {}, values, raced=True)):
        assert not keeps_step(TWO_LEVELS, met, limit, _two_level(1, {}, values))


def test_a_raced_simplification_proposes_what_the_whole_validation_proposes(tmp_path, base):
    """The planted case of the retrying simplification, with a fixed level: putting the
    gold rate back breaks balanced's card share (met by the start). A measure that stops
    such steps before their re-tunes simplifies to the same economy, and stops exactly
    the steps the whole validation rejects for that reason."""
    sp = load_space(write(tmp_path, "s.toml", space_text(
        GOLD_VP, SILVER_TIMES, ("border.Merchant.times", '["any", 2]'))), *base)
    gold, silver, merchant = (p.path for p in sp.parameters)

    def figures(choice) -> dict:
        fits = choice[gold] == 2 and (choice[silver] == 1 or choice[merchant] == "any")
        return {("balanced", "card_point_share"): 0.6 if choice[gold] == 2 else 0.4,
                ("balanced", "first_player_rate"): 0.5, ("tuned", "first_player_rate"): 0.5,
                ("tuned", "display_full_share"): 0.03 if fits else 0.0,
                ("tuned", "cards_per_player"): 8.0}

    start = _two_level(1, {gold: 2, silver: 1, merchant: 2}, figures(
        {gold: 2, silver: 1, merchant: 2}))
    runs = {}
    for racing in (False, True):
        retuned, stopped = [], []

        def measure(choice, rejected, racing=racing, retuned=retuned, stopped=stopped):
            partial = _two_level(9, choice, figures(choice), raced=True)
            if racing and rejected(partial):
                stopped.append(dict(choice))
                return partial
            retuned.append(dict(choice))
            return _two_level(9, choice, figures(choice))

        got = simplify(sp, start, sp.current(), measure, TWO_LEVELS)
        runs[racing] = (got, retuned, stopped)
    (whole, retuned_all, _), (raced, retuned_some, stopped) = runs[False], runs[True]
    assert raced == whole == {gold: 2, silver: "any", merchant: "any"}
    assert stopped == [c for c in retuned_all if c[gold] != 2] and len(stopped) == 3
    assert retuned_some == [c for c in retuned_all if c[gold] == 2]
    for c in stopped:  # each one the whole validation rejected
        assert not keeps_step(TWO_LEVELS, met_targets(TWO_LEVELS, start), start.objective,
                              _two_level(9, c, figures(c)))


def test_a_step_stopped_early_carries_the_fixed_figures_its_whole_validation_has(tiny_run):
    """On the engine: a validation stopped before its re-tunes (the screen says reject)
    reports for the fixed level the very figures, to the bit, of the whole validation of
    the same economy; a screen that rejects nothing validates as before."""
    from targi_sim.calibrate.search import Evaluator, _validate_one, load_inputs, stream
    from targi_sim.runner.dispatch import parallel_pool

    config, cal, _ = tiny_run
    whole = cal.validated[0]  # the current economy: validated in full, never raced
    with parallel_pool(1, "loky", None) as parallel:
        ev = Evaluator(config, load_inputs(config), parallel)
        seed = stream(config.seed, "validate")
        stopped, players = _validate_one(ev, 0, whole.choice, config, seed, lambda p: True)
        again, _ = _validate_one(ev, 0, whole.choice, config, seed, lambda p: False)
    assert stopped.raced and set(stopped.figures) == {"balanced"} and not stopped.weights
    assert stopped.figures["balanced"] == whole.figures["balanced"]
    assert stopped.objective <= whole.objective
    assert players["tuned"] is ev.strategies[1]  # not re-tuned
    assert not again.raced and again.figures == whole.figures
    assert again.objective == whole.objective and again.weights == whole.weights


def test_on_a_tie_fewer_changes_rank_first():
    cs = [Candidate(0, {"a": 1, "b": 1}, 5.0), Candidate(1, {"a": 2, "b": 2}, 0.0),
          Candidate(2, {"a": 2, "b": 1}, 0.0)]
    assert [c.number for c in finalists(cs, 2)] == [2, 1]


def test_write_calibration_report_and_proposal(tiny_run):
    from targi_sim.calibrate.output import targets_table, write_calibration

    _, cal, _ = tiny_run
    written = {p.name for p in write_calibration(cal)}
    assert {"report.html", "report.md", "candidates.csv", "targets.csv"} <= written
    t = targets_table(cal)
    assert set(t["economy"]) >= {"current"}
    assert (t["miss"] >= 0).all()
    md = (cal.out / "report" / "report.md").read_text()
    assert "of the points from cards" in md and "decided by" in md
    if cal.proposal is not None:
        text = (cal.out / "proposal.toml").read_text()
        assert "# Changes" in text
        load_deck(cal.out / "proposal.toml")


def test_the_report_lists_the_economies_that_fit_and_the_header_names_no_unwritten_file(
        tiny_run, tmp_path):
    from dataclasses import replace

    from targi_sim.calibrate.output import build_report, fits_text, proposal_deck_text

    _, cal, _ = tiny_run
    gold, silver = (p.path for p in cal.space.parameters)
    cur = _cand(0, cal.validated[0].choice, (0.0, 0.0, 0.0), (5.0, 4.9, 5.1))
    a = _cand(1, {gold: 2, silver: "any"}, (0.03, 0.02, 0.04), (8.0, 7.9, 8.1))
    b = _cand(2, {gold: 2, silver: 1}, (0.05, 0.04, 0.06), (9.0, 8.9, 9.1))
    fake = replace(cal, targets=RULE_TARGETS, validated=[cur, a, b], proposal=a,
                   simplified=(), out=tmp_path)
    text = " ".join(fits_text(fake))
    assert "2 validated economies meet every target" in text
    assert f"They share: {gold} = 2." in text
    assert f'They differ in: {silver} ("any" in 1, 1 in 2)' in text
    assert any(s.key == "fits" for s in build_report(fake).sections)
    head = proposal_deck_text(fake, a)
    assert "proposal-rules.toml" not in head  # no rules setting changed: none is written
    assert f"{gold}: 1 -> 2" in head


def test_seeds_agree_or_say_which_readings_are_left_open(tiny_run):
    from dataclasses import replace

    from targi_sim.calibrate.seeds import agreement, agreement_text

    _, cal, _ = tiny_run
    gold, silver = (p.path for p in cal.space.parameters)
    cur = _cand(0, cal.validated[0].choice, (0.0, 0.0, 0.0), (5.0, 4.9, 5.1))
    a = _cand(1, {gold: 2, silver: "any"}, (0.03, 0.02, 0.04), (8.0, 7.9, 8.1))
    b = _cand(2, {gold: 2, silver: 1}, (0.05, 0.04, 0.06), (9.0, 8.9, 9.1))

    def on_seed(seed, validated, proposal):
        return replace(cal, config=replace(cal.config, seed=seed), targets=RULE_TARGETS,
                       validated=validated, proposal=proposal, simplified=())

    same = agreement([on_seed(0, [cur, a], a), on_seed(1, [cur, a], a)])
    assert same.agree and set(same.decided.values()) == {"2", '"any"'} and not same.open_
    split = agreement([on_seed(0, [cur, a], a), on_seed(1, [cur, b], b)])
    assert not split.agree and list(split.open_.values()) == [['"any"', "1"]]
    words = " ".join(agreement_text(split))
    assert "different economies" in words and "Left open by the targets" in words
    assert "= 2" in words  # the gold rate is decided


# ----------------------------------------------------------------- command line
@pytest.mark.parametrize("args, needles", [
    (["--budget", "0"], ["--budget"]),
    (["--budget", "many"], ["--budget"]),
    (["--deals", "-3"], ["--deals"]),
    (["--levels", "balanced,nobody"], ["nobody"]),
    (["--retune", "greedy"], ["--retune", "greedy"]),
    (["--space", "missing-space.toml"], ["missing-space.toml", "not found"]),
    (["--targets", "nope"], ["target file", "nope"]),
    (["--playtest-level", "expert", "--playtest", "x.csv"], ["--playtest-level", "expert"]),
    (["--playtest", "x.csv"], ["x.csv", "not found"]),
])
def test_cli_bad_input_is_one_error_line(args, needles, tmp_path):
    result = runner.invoke(app, ["calibrate", "--out", str(tmp_path / "o"), *args])
    one_error_line(result, *needles)


def test_cli_seeds_calibrates_each_seed_and_compares_them(tmp_path):
    space = _tiny_space(tmp_path)
    out = tmp_path / "o"
    args = ["calibrate", "--space", space, "--budget", "2", "--deals", "40",
            "--retune-budget", "0", "--validate-deals", "40", "--finalists", "1",
            "--seeds", "3,4", "--out", str(out), "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    first_table = (out / "seeds.csv").read_text()
    for s in (3, 4):
        assert (out / f"seed{s}" / "report" / "report.html").is_file()
    assert (out / "seeds" / "report.html").is_file() and (out / "seeds.csv").is_file()
    assert "Seeds 3, 4:" in result.output and "seeds compared:" in result.output
    again = runner.invoke(app, args)  # the same command: both seeds read back, not replayed
    assert again.exit_code == 0, again.output
    assert again.output.count("finished before") == 2
    assert (out / "seeds.csv").read_text() == first_table


@pytest.mark.parametrize("args, needles", [
    (["--seeds", "1,1"], ["--seeds", "two or more different seeds"]),
    (["--seeds", "1,x"], ["--seeds"]),
    (["--seeds", "1,2", "--seed", "5"], ["--seed or --seeds"]),
])
def test_cli_bad_seeds_are_one_error_line(args, needles, tmp_path):
    result = runner.invoke(app, ["calibrate", "--out", str(tmp_path / "o"), *args])
    one_error_line(result, *needles)


def test_cli_tiny_calibration_writes_report(tmp_path):
    space = _tiny_space(tmp_path)
    out = tmp_path / "o"
    args = ["calibrate", "--space", space, "--budget", "2", "--deals", "40",
            "--retune-budget", "0", "--validate-deals", "40", "--finalists", "1",
            "--out", str(out), "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert (out / "report" / "report.html").is_file()
    assert "calibrate" in result.output and "report:" in result.output
    again = runner.invoke(app, [*args, "--deals", "41"])  # other settings into the same --out
    one_error_line(again, "other settings (--deals)", "continue it")


def test_a_dask_cluster_gives_the_same_calibration(tiny_run):
    """Two external `dask worker` processes: every candidate and the validation equal
    the loky run's."""
    from tests.dask_cluster import dask_cluster

    config, cal, tmp = tiny_run
    with dask_cluster(tmp) as address:
        remote = calibrate(config, tmp / "dask", backend="dask", scheduler=address)
    assert _summary(remote) == _summary(cal)


def test_kill_9_loses_nothing_and_resume_gives_the_uninterrupted_result(tmp_path):
    """A real SIGKILL of the command while it measures; the same command again ends with
    the same candidates and proposal as a run never stopped."""
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "targi-sim"
    space = _tiny_space(tmp_path)
    args = [str(exe), "calibrate", "--space", space, "--budget", "4", "--deals", "200",
            "--retune-budget", "17000", "--validate-deals", "100", "--validate-retunes", "2",
            "--finalists", "1",
            "--seed", "8", "-q"]
    # the uninterrupted run in this process (the same command; a process of its own would
    # only add an import and an engine load); the killed one must be a process
    whole = runner.invoke(app, [*args[1:], "--out", str(tmp_path / "whole")])
    assert whole.exit_code == 0, whole.output
    out = tmp_path / "killed"
    kill_after_trials([*args, "--out", str(out)], out / "study.journal", 2)
    assert not (out / "candidates.csv").exists()
    from tests.cli_helpers import assert_steady_progress, piped

    again = piped([*args[1:-1], "--out", str(out)])  # not quiet: its progress in a log
    assert_steady_progress(again)

    def table(d):
        import polars as pl

        return pl.read_csv(d / "candidates.csv").drop("seconds")

    assert table(out).equals(table(tmp_path / "whole"))
    assert (out / "targets.csv").read_text() == (tmp_path / "whole" / "targets.csv").read_text()


@pytest.mark.parametrize("kind, body, needles", [
    ("--space", '[[parameter]]\npath = "border.Silversmith.times"\nvalues = []\nsource = "x"\n',
     ["bad.toml", "values", "is empty"]),
    ("--targets", '[[target]]\nlevel = "tuned"\nfigure = "fun"\nmin = 1\nsource = "x"\n',
     ["bad.toml", "figure", "card_point_share"]),
    ("--playtest", "game_id,player\n1,0\n", ["bad.toml", "first_player", "missing"]),
])
def test_cli_malformed_files_are_one_error_line(tmp_path, kind, body, needles):
    f = write(tmp_path, "bad.toml", body)
    result = runner.invoke(app, ["calibrate", kind, str(f), "--out", str(tmp_path / "o")])
    one_error_line(result, *needles)
    assert not (tmp_path / "o").exists()  # nothing written before the inputs are checked


def test_the_progress_view_shows_each_simplification_pass_as_its_own_bar():
    """Each pass announces the values it tries; the view replaces the pass's bar and says
    which pass it is, so a second pass is never read as a bar that ran past its total."""
    from cli.calibrate import CalibrationView

    class Bar:
        def __init__(self):
            self.tasks, self.removed = {}, []

        def add_task(self, description, total, **_):
            self.tasks[len(self.tasks)] = (description, total)
            return len(self.tasks) - 1

        def update(self, task, **_):
            pass

        def remove_task(self, task):
            self.removed.append(task)

    bar = Bar()
    view = CalibrationView(bar)
    view.plan(100, 0)
    for phase, n in (("validate", 7), ("simplify", 5), ("simplify", 4), ("simplify", 1)):
        view.phase(phase, n)
    assert list(bar.tasks.values())[1:] == [
        ("validating finalists", 7), ("simplifying the proposal", 5),
        ("simplifying the proposal (pass 2)", 4), ("simplifying the proposal (pass 3)", 1)]
    assert bar.removed == [1, 2, 3]
