"""targi-sim calibrate: the space and target files (every mistake one line naming file,
key and what is allowed), the playtest CSV (known answers), the shape figures of a
hand-built set of games (known answers), the objective, and a tiny search that must
resume to the same result, not depend on --jobs, and write its report."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
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
    calibrate,
    finalists,
    objective_of,
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
TINY = dict(trials=3, deals=60, retune_budget=17_000, validate_deals=80, finalists=1, seed=4)


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
    resumed = calibrate(config, tmp / "b", jobs=2)  # the same call continues
    assert _summary(resumed) == _summary(cal)


def test_resume_with_other_settings_is_refused(tiny_run):
    from targi_sim.calibrate.search import CalibrationError

    config, _, tmp = tiny_run
    other = CalibrationConfig(**{**config.__dict__, "deals": 61})
    with pytest.raises(CalibrationError, match=r"other settings \(`deals`\)"):
        calibrate(other, tmp / "a")


def test_finalists_skip_raced_and_repeated_candidates():
    from targi_sim.calibrate.search import Candidate

    cs = [Candidate(0, {"a": 1}, 5.0), Candidate(1, {"a": 2}, 1.0, raced=True),
          Candidate(2, {"a": 3}, 2.0), Candidate(3, {"a": 3}, 2.0),
          Candidate(4, {"a": 4}, 3.0)]
    assert [c.number for c in finalists(cs, 2)] == [2, 4]


def test_simplify_puts_back_every_value_the_objective_does_not_need(tmp_path, base):
    """Objective: only the Silversmith's gold rate matters (2 is best; the deck has 1);
    the other two changes of the best candidate go back to their current readings."""
    from targi_sim.calibrate.search import Candidate, simplify

    sp = load_space(write(tmp_path, "s.toml", space_text(
        GOLD_VP, SILVER_TIMES, ("border.Merchant.times", '["any", 2]'))), *base)
    gold, silver, merchant = (p.path for p in sp.parameters)
    cur = sp.current()
    best = {gold: 2, silver: 1, merchant: 2}
    asked = []

    def objective(choice):
        asked.append(dict(choice))
        return 0.0 if choice[gold] == 2 else 9.0

    cands = [Candidate(0, cur, 9.0), Candidate(1, best, 0.0)]
    assert simplify(sp, cands, objective) == {gold: 2, silver: "any", merchant: "any"}
    assert asked[0] == {gold: 1, silver: 1, merchant: 2}  # reverting gold: worse, kept
    assert len(asked) == 3


def test_simplify_accepts_a_step_within_the_slack_of_the_best(tmp_path, base):
    from targi_sim.calibrate.search import Candidate, simplify

    sp = load_space(write(tmp_path, "s.toml", space_text(SILVER_TIMES)), *base)
    (p,) = sp.parameters
    cands = [Candidate(0, {p.path: "any"}, 9.0), Candidate(1, {p.path: 1}, 0.0)]
    assert simplify(sp, cands, lambda c: 0.5, slack=0.0) == {p.path: 1}
    assert simplify(sp, cands, lambda c: 0.5, slack=1.0) == {p.path: "any"}


def test_proposal_is_the_simplest_close_to_the_best():
    from targi_sim.calibrate.search import Candidate, choose_proposal

    cur = Candidate(0, {"a": 1, "b": 1}, 9.0)
    two = Candidate(1, {"a": 2, "b": 2}, 0.2)
    one = Candidate(2, {"a": 2, "b": 1}, 0.9)
    assert choose_proposal([cur, two, one], 1.0).number == 2
    assert choose_proposal([cur, two, one], 0.5).number == 1
    assert choose_proposal([cur, Candidate(1, {"a": 2, "b": 2}, 9.5)], 1.0) is None


def test_on_a_tie_fewer_changes_rank_first():
    from targi_sim.calibrate.search import Candidate

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
            "--retune-budget", "17000", "--validate-deals", "100", "--finalists", "1",
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
