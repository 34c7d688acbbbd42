"""`targi-sim check` beyond win rates (issue 19): the new kinds' metrics on the hand-built
fixture (known answers), the paired-normal test, deck_drift's Holm decision, baseline
files validated field by field, `check init`, `--update` of means and card lists, the
JUnit XML (parsed with a real parser) and Markdown outputs, and the CI workflow of
docs/ci.md run as shell steps on a temporary git repository.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cli_helpers import one_error_line
from report_fixture import build_fixture
from typer.testing import CliRunner

from targi_sim._utils.paths import data_dir
from targi_sim.check.baseline import CardBaseline, load_baseline
from targi_sim.check.drift import card_tests, tolerance
from targi_sim.check.guard import run_expectation
from targi_sim.check.metrics import SHAPE_METRICS, Target, estimate, stats_of
from targi_sim.check.output import junit_xml, summary_markdown
from targi_sim.check.playing import worker_pool
from targi_sim.cli.app import app
from targi_sim.stats.sprt import FAIL, H0, H1, PASS, TwoSidedSprt, llr_gaussian

approx = pytest.approx
runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
BASE_DECK = data_dir() / "decks" / "base.toml"
# tribe card 5 ("Targia 1VP #1") made free and worth 3 VP more
HEAD6 = "[[tribe]]  # card_id 5: Targia 1VP #1\n"
CARD6 = HEAD6 + 'symbol = "Targia"\nvp = 1\ncost = { pepper = 2, gold = 1 }'
CHEAP6 = HEAD6 + 'symbol = "Targia"\nvp = 4\ncost = {}'


# ------------------------------------------------------------------ known answers


@pytest.fixture(scope="module")
def fixture_tables(tmp_path_factory):
    run = build_fixture(tmp_path_factory.mktemp("fixture") / "run")
    games = pl.read_parquet(run / "games" / "part-000000.parquet")
    tables = {t: pl.read_parquet(run / t / "part-000000.parquet")
              for t in ("acquisitions", "offers", "raids")}
    return games, tables


def _value(target, fixture_tables):
    games, tables = fixture_tables
    return float(estimate(stats_of(target, games, tables, "seat_swapped"))[0])


def test_card_and_symbol_rates_match_the_reports_hand_worked_values(fixture_tables):
    # tests/test_report.py works these out by hand: acquire 1, 1/2, 1/2; played WR
    # 0.75 (2 players), 1.0, 0.0; Targia (cards 0 and 1) played 2.5 / 3, acquired 3 / 4
    games, tables = fixture_tables
    sums = stats_of(Target("deck_drift", "", (0, 1, 2)), games, tables, "seat_swapped")
    est, _ = estimate(sums)
    assert est[:, 0].tolist() == approx([1.0, 0.5, 0.5])
    assert est[:, 1].tolist() == approx([0.75, 1.0, 0.0])
    assert sums[0, 1, 2] == 2  # played_n of card 0
    assert _value(Target("card_rate", "played_wr", (0, 1), pooled=True),
                  fixture_tables) == approx(2.5 / 3)
    assert _value(Target("card_rate", "acquire_rate", (0, 1), pooled=True),
                  fixture_tables) == approx(3 / 4)
    assert _value(Target("card_rate", "played_wr", (2,)), fixture_tables) == approx(0.0)


def test_raid_loss_and_game_shape_known_answers(fixture_tables):
    # raid 1: 8 player-raids, VP 1 x4, goods 1 x4 at the fallback 0.5 VP -> 6 / 8;
    # raid 4 (game 3): none + 3 VP to the opponent, 1 gold at 2 VP -> 5 / 2
    assert _value(Target("raid_loss", "vp_lost_mean", raid=1), fixture_tables) == approx(0.75)
    assert _value(Target("raid_loss", "vp_lost_mean", raid=4), fixture_tables) == approx(2.5)
    games, tables = fixture_tables
    # scores 10+7+9+8+5+5+6+8 = 58 over 8 player-games; every game 2 rounds
    assert _value(Target("game_shape", "score_mean"), fixture_tables) == approx(58 / 8)
    assert _value(Target("game_shape", "rounds_mean"), fixture_tables) == approx(2.0)
    # shares are pentanomial unit counts: pair 0 both display_full (4), pair 1 one (2);
    # tie-breaks: pair 0 none, pair 1 the draw
    full = stats_of(Target("game_shape", "display_full_share"), games, tables, "seat_swapped")
    tie = stats_of(Target("game_shape", "tiebreak_share"), games, tables, "seat_swapped")
    assert full.tolist() == [0, 0, 1, 0, 1] and tie.tolist() == [1, 0, 1, 0, 0]
    assert set(SHAPE_METRICS) == {"rounds_mean", "display_full_share", "score_mean",
                                  "tiebreak_share"}


def test_paired_normal_sprt_on_means():
    # LLR of N(s1, v) over N(s0, v) at the estimate: (s1 - s0)(2x - s0 - s1) / (2 v)
    assert llr_gaussian(10.5, 0.01, 10.0, 11.0) == approx(0.0)
    assert llr_gaussian(11.0, 0.04, 10.0, 11.0) == approx(1.0 * 1.0 / 0.08)
    assert llr_gaussian(12.0, math.nan, 10.0, 11.0) == 0.0  # no variance yet: no evidence
    assert llr_gaussian(12.0, 0.0, 12.0, 12.5) == -math.inf  # every unit equal, at s0
    test = TwoSidedSprt(12.0, 0.5, low=-math.inf, high=math.inf)
    assert [s.p1 for s in test.sides] == [12.5, 11.5]  # a mean may leave (0, 1)
    assert test.update_normal(12.02, 0.01) == PASS
    moved = TwoSidedSprt(12.0, 0.5, low=-math.inf, high=math.inf)
    assert moved.update_normal(12.6, 0.01) == FAIL
    assert [s.state for s in moved.sides] == [H1, H0]
    with pytest.raises(ValueError, match="between 0 and 1"):
        TwoSidedSprt(12.0, 0.5)  # a rate still must lie in (0, 1)


def _sums(values: list[tuple[float, float]], units: int = 400) -> np.ndarray:
    """Sums (cards, 2, 6) of units each with one trial and a 0/1 outcome, at the given
    (acquire, played) rates."""
    out = np.zeros((len(values), 2, 6))
    for k, pair in enumerate(values):
        for j, p in enumerate(pair):
            x = round(p * units)
            out[k, j] = [units, x, units, x, x, units]
    return out


def test_deck_drift_holm_names_the_moved_card_by_card_id_and_name():
    from statsmodels.stats.multitest import multipletests

    names = ("Targia 3VP #1", "Well 2VP #1", "Oasis 4VP #1")
    base = [CardBaseline(k, n, {"acquire_rate": (0.5, 0.01, 0.10),
                                "played_wr": (0.5, 0.01, 0.10)})
            for k, n in enumerate(names)]
    base.append(CardBaseline(3, "Camp 1VP #1", {"acquire_rate": (0.5, 0.01, 0.1)}))
    e = replace(load_baseline(ROOT / "data" / "baselines" / "default.toml").expectations[0],
                kind="deck_drift", cards=tuple(base))
    # card_id 1 acquired 80% of the time instead of 50%; card_id 2 moved 3 points (< half the
    # 10-point tolerance): significant perhaps, but not a failure
    d = card_tests(_sums([(0.5, 0.5), (0.8, 0.5), (0.53, 0.5)], units=4000), names, e)
    assert [t.label for t in d.failures] == ["card_id 1 (Well 2VP #1)"]
    assert d.failed_labels() == ["card_id 1 (Well 2VP #1)",
                                 "card_id 3 (Camp 1VP #1, not in the deck)"]
    assert len(d.tests) == 6 and d.failed
    expected = multipletests([t.p for t in d.tests], alpha=e.alpha, method="holm")[1]
    assert [t.p_holm for t in d.tests] == approx(list(expected))
    t = next(t for t in d.tests if t.card_id == 1 and t.metric == "acquire_rate")
    # z uses both standard errors: the check's (binomial here) and the baseline's
    se = math.sqrt(0.8 * 0.2 / 4000)
    assert t.se == approx(se, rel=1e-3)
    assert t.p == approx(math.erfc(abs(0.3 / math.hypot(se, 0.01)) / math.sqrt(2)), rel=1e-6)
    # a deck with a renamed card (its VP changed) is still card_id 1
    renamed = card_tests(_sums([(0.5, 0.5), (0.8, 0.5), (0.5, 0.5), (0.5, 0.5)], 4000),
                         (*names[:1], "Well 5VP #1", *names[2:], "Camp 1VP #1"), e)
    assert renamed.failed_labels() == ["card_id 1 (Well 5VP #1, was Well 2VP #1)"]
    quiet = card_tests(_sums([(0.5, 0.5)] * 4, 4000), (*names, "Camp 1VP #1"), e)
    assert not quiet.failed and quiet.new_cards == []
    few = card_tests(_sums([(0.9, 0.9)] * 4, units=10), (*names, "Camp 1VP #1"), e)
    assert not few.tests and len(few.untested) == 7  # under MIN_UNITS: not tested
    assert few.untested[0].startswith("card_id 0 (Targia 3VP #1) acquire_rate: 10 units")
    grown = card_tests(_sums([(0.5, 0.5)] * 5, 4000), (*names, "Camp 1VP #1", "Well 9VP #1"), e)
    assert grown.new_cards == ["card_id 4 (Well 9VP #1)"]


def test_tolerances_are_the_minimum_detectable_effect():
    from statistics import NormalDist

    from targi_sim.check.init_baseline import sequential_tolerance

    z = NormalDist().inv_cdf
    mde = (z(1 - 0.05 / (2 * 90)) + z(0.95)) * math.hypot(0.01, 0.005)
    assert tolerance(0.01, 0.005, 90, 0.05, 0.05) == approx(math.ceil(mde * 1000) / 1000)
    e = replace(load_baseline(ROOT / "data" / "baselines" / "default.toml").expectations[2],
                max_games=30_000, alpha=0.01, beta=0.05)
    from targi_sim.check.baseline import Measured

    m = Measured(rate=0.6, ci_low=0.59, ci_high=0.61, games=200_000, se=0.002)
    se_fixed = 0.002 * math.sqrt(200_000 / 20_000)  # at cap / 1.5 games
    want = (z(1 - 0.005) + z(0.95)) * se_fixed
    assert sequential_tolerance(m, e) == approx(math.ceil(want * 1000) / 1000)


# ------------------------------------------------------------------ baseline files


def _exp(**fields) -> str:
    lines = [f"{k} = {v}" for k, v in fields.items() if v is not None]
    return "[[expectation]]\nname = \"x\"\nstrategy = \"greedy\"\n" + "\n".join(lines) + "\n"


CARD = {"kind": '"card_rate"', "metric": '"acquire_rate"', "card": "2", "rate": "40.0",
        "tolerance": "5.0"}


@pytest.mark.parametrize("text,needles", [
    (_exp(**{**CARD, "metric": '"taste"'}), ["'metric'", "'acquire_rate'", "'played_wr'"]),
    (_exp(**{**CARD, "card": None}), ["'card'", "either `card`", "or `symbol`"]),
    (_exp(**{**CARD, "symbol": '"Well"'}), ["'card'", "not both"]),
    (_exp(**{**CARD, "card": None, "symbol": '"Tent"'}), ["'symbol'", "'Oasis'"]),
    (_exp(**{**CARD, "card": "45"}), ["'card'", "(got 45)", "card_id 0..44 (the deck's",
                                      "or a card name", "not a card of deck 'base'"]),
    (_exp(**{**CARD, "card": "-1"}), ["'card'", "card_id 0..63", "or a card name",
                                      "out of range"]),
    (_exp(**{**CARD, "card": "2.5"}), ["'card'", "card_id 0..63", "wrong type"]),
    (_exp(**{**CARD, "card": '"Targia 9VP #1"'}), ["'card'", "card_id 0..44 or a card name",
                                                   "0 'Targia 3VP #1'"]),
    (_exp(**{**CARD, "mean": "3.0"}), ["'mean'", "this metric is a rate"]),
    (_exp(**{**CARD, "raid": "2"}), ["'raid'", "is not a field of kind 'card_rate'"]),
    (_exp(kind='"game_shape"', metric='"rounds_mean"', rate="50.0", tolerance="1"),
     ["'rate'", "`mean` (rounds)"]),
    (_exp(kind='"game_shape"', metric='"rounds_mean"', mean="11.5"), ["'tolerance'",
                                                                     "is missing"]),
    (_exp(kind='"raid_loss"', raid="5", mean="2.0", tolerance="0.1"), ["'raid'", "1..4"]),
    (_exp(kind='"raid_loss"', mean="2.0", tolerance="0.1"), ["'raid'", "is missing"]),
    (_exp(kind='"deck_drift"'), ["'cards'", "is missing"]),
    (_exp(kind='"deck_drift"', cards="[]"), ["'cards'", "check init"]),
    (_exp(kind='"deck_drift"', cards='[{ card_id = 64, name = "a" }]'),
     ["'cards[0].card_id'", "0..63"]),
    (_exp(kind='"deck_drift"',
          cards='[{ card_id = 1, name = "a" }, { card_id = 1, name = "b" }]'),
     ["'cards[1].card_id'", "each card_id once"]),
    (_exp(kind='"deck_drift"', cards='[{ number = 6, name = "a" }]'),  # counted from 1
     ["'cards[0].number'", "an old field (counted from 1)", "card_id = number - 1"]),
    (_exp(kind='"deck_drift"', cards='[{ card_id = 1, name = "a", acquire_rate = 40.0 }]'),
     ["'cards[0].acquire_rate_se'", "is missing"]),
    (_exp(kind='"deck_drift"', cards='[{ card_id = 1, name = "a", colour = 1 }]'),
     ["'cards[0].colour'", "is not a known field", "played_wr_tolerance"]),
    (_exp(kind='"deck_drift"', rate="40.0", cards='[{ card_id = 1, name = "a" }]'),
     ["'rate'", "is not a field of kind 'deck_drift'"]),
])
def test_bad_new_kind_fields_exit_2_naming_file_field_and_allowed_values(tmp_path, text,
                                                                         needles):
    path = tmp_path / "broken.toml"
    path.write_text(text, encoding="utf-8")
    line = one_error_line(runner.invoke(app, ["check", str(path), "--quiet"]), *needles)
    assert str(path) in line and "expectation 'x'" in line


def test_card_rate_card_is_the_card_id_or_the_name_and_is_named_with_both(tmp_path):
    """`card = 5` is card_id 5 (counting from 0, as in the run tables and the deck's
    `# card_id 5: Targia 1VP #1` comment); the name picks the same card; what the check
    prints and writes names it `card_id 5 (Targia 1VP #1)`."""
    from targi_sim.check.playing import CheckResult, prepare

    path = tmp_path / "cards.toml"
    path.write_text(_exp(**CARD).replace('"x"', '"by id"').replace("card = 2", "card = 5")
                    + _exp(**{**CARD, "card": '"Targia 1VP #1"'}).replace('"x"', '"by name"'),
                    encoding="utf-8")
    by_id, by_name = load_baseline(path).expectations
    assert by_id.card == 5 and by_name.card == "Targia 1VP #1"
    names = load_deck_names()
    for e in (by_id, by_name):
        assert prepare(e).target.cards == (5,)
        assert e.describe(names).startswith("mirror greedy: card_id 5 (Targia 1VP #1)'s "
                                            "acquire rate")
    assert "card_id 5's" in by_id.describe()  # before the deck is known: the id alone
    result = CheckResult(by_id, PASS, TwoSidedSprt(0.4, 0.05), np.zeros(0, dtype=np.int64),
                         0, False, card_names=names)
    assert "card_id 5 (Targia 1VP #1)" in junit_xml([(path, [result])])


def load_deck_names() -> tuple[str, ...]:
    from targi_sim.game.deck import load_deck

    names = load_deck("base").tribe_names
    assert names[5] == "Targia 1VP #1" and f"# card_id 5: {names[5]}" in HEAD6
    return tuple(names)


# ------------------------------------------------------------------ runs, outputs, update

SMALL = """\
# a comment --update must keep
seed = 5

[defaults]
batch_games = 400
max_games = 2000
deck = "{deck}"

[[expectation]]
name = "well acquire rate"
kind = "card_rate"
strategy = "greedy"
symbol = "Well"
metric = "acquire_rate"
rate = {well}   # old note
tolerance = 10.0

[[expectation]]
name = "mean score"
kind = "game_shape"
strategy = "greedy"
metric = "score_mean"
mean = 30.0
tolerance = 0.5

[[expectation]]
name = "drift"
kind = "deck_drift"
strategy = "greedy"
max_games = 1200
# 2 tribe cards measured on 1 games
cards = [
  {{ card_id = 5, name = "Targia 1VP #1", acquire_rate = {card6}, {rest} }},
  {{ card_id = 6, name = "Targia 1VP #2", acquire_rate = 50.0, {rest} }},
]
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The small file run once on the base deck: its results and the measured values."""
    folder = tmp_path_factory.mktemp("small")
    path = folder / "small.toml"
    rest = "acquire_rate_se = 1.0, acquire_rate_tolerance = 10.0"
    path.write_text(SMALL.format(deck=BASE_DECK.as_posix(), well=50.0, card6=50.0, rest=rest),
                    encoding="utf-8")
    baseline = load_baseline(path)
    with worker_pool(1) as parallel:
        results = [run_expectation(e, parallel, 1) for e in baseline.expectations]
    return path, results


def test_new_kinds_decide_on_real_games(small):
    _, (well, score, drift) = small
    assert well.sums is not None and well.test.sides[0].p1 == approx(0.6)
    assert score.verdict == FAIL and 5 < score.rate < 29  # a greedy mirror scores ~14, not 30
    assert drift.games == 1200 and drift.drift is not None
    labels = drift.drift.failed_labels()
    # both cards were written as 50%: whichever is far from it fails, by card_id and name
    for t in drift.drift.tests:
        assert t.failed == (t.p_holm < 0.05 and abs(t.moved) > 0.05), t
    assert all(label in ("card_id 5 (Targia 1VP #1)", "card_id 6 (Targia 1VP #2)")
               for label in labels), labels
    assert len(drift.drift.new_cards) == 43


def test_new_kinds_do_not_depend_on_jobs(small):
    path, results = small
    well, _, drift = load_baseline(path).expectations
    with worker_pool(2) as parallel:
        two = [run_expectation(e, parallel, 2) for e in (well, drift)]
    for one, other in zip((results[0], results[2]), two, strict=True):
        assert (one.verdict, one.games, one.capped) == (other.verdict, other.games,
                                                        other.capped)
    assert results[0].sums.tolist() == two[0].sums.tolist()
    assert [s.llr for s in results[0].test.sides] == [s.llr for s in two[0].test.sides]
    assert [(t.card_id, t.metric, t.measured, t.p_holm) for t in results[2].drift.tests] == \
        [(t.card_id, t.metric, t.measured, t.p_holm) for t in two[1].drift.tests]


def test_jobs_default_to_auto_under_ci(monkeypatch):
    from targi_sim.cli.check import default_jobs
    from targi_sim.cli.parse import parse_check_jobs

    for value, want in (("true", "auto"), ("1", "auto"), ("", "1"), ("false", "1")):
        monkeypatch.setenv("CI", value)
        assert default_jobs() == want, value
    monkeypatch.delenv("CI")
    assert default_jobs() == "1"
    assert parse_check_jobs("auto") == (os.cpu_count() or 1)


def test_junit_xml_and_summary_markdown_parse_and_carry_the_figures(small):
    path, results = small
    text = junit_xml([(path, results)], seconds=1.5)
    root = ET.fromstring(text)
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["well acquire rate", "mean score", "drift"]
    assert root.get("tests") == "3" and suite.get("failures") == str(
        sum(not r.passed for r in results))
    score = cases[1].find("failure")
    assert score is not None and score.get("type") == "game_shape"
    message = score.get("message")
    for needle in ("measured", "95% CI", "expected 30.000 VP", "LLR up", "LLR down", "games"):
        assert needle in message, needle
    assert f"{results[1].rate:.3f}" in message
    if not results[2].passed:
        assert all(label in cases[2].find("failure").get("message")
                   for label in results[2].drift.failed_labels())
    assert cases[0].find("system-out").text.startswith("mirror greedy: symbol Well")
    md = summary_markdown([(path, results)], 1.5)
    table = [line for line in md.splitlines() if line.startswith("|")]
    assert len(table) == 2 + 3 and table[0].startswith("| | expectation | expected")
    assert "❌ | mean score | 30.000 VP ± 0.5 VP" in md


def test_update_rewrites_means_rates_and_the_card_list_only(small, tmp_path):
    path = tmp_path / "u.toml"
    shutil.copy(small[0], path)
    before = path.read_text(encoding="utf-8")
    result = runner.invoke(app, ["check", str(path), "--update", "--update-games", "1200",
                                 "--quiet", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    after = path.read_text(encoding="utf-8")
    assert "# a comment --update must keep" in after and "tolerance = 0.5" in after
    assert re.search(r"^rate = \d+\.\d\d  # measured on 1,200 games, 95% CI", after, re.M)
    assert re.search(r"^mean = \d+\.\d{3}  # measured on 1,200 games, 95% CI", after, re.M)
    assert re.search(r"^# 45 tribe cards measured on 1,200 games", after, re.M)
    assert re.search(r'^  \{ card_id = 0, name = "Targia 3VP #1", ', after, re.M)
    assert "number =" not in after
    (_, _, drift) = load_baseline(path).expectations
    assert len(drift.cards) == 45
    assert [c.card_id for c in drift.cards] == list(range(45))
    assert drift.cards[5].values["acquire_rate"][2] == approx(0.10)  # a kept tolerance
    assert before.count("\n") < after.count("\n")
    assert not list(tmp_path.glob(".*.tmp"))


def test_check_command_outputs_and_bad_output_paths(small, tmp_path):
    path, _ = small
    xml, md = tmp_path / "r.xml", tmp_path / "r.md"
    result = runner.invoke(app, ["check", str(path), "--quiet", "--jobs", "1",
                                 "--junit-xml", str(xml), "--summary-md", str(md)])
    assert result.exit_code == 1, result.output  # the mean score is wrong
    assert ET.parse(xml).getroot().get("tests") == "3"
    assert md.read_text(encoding="utf-8").startswith("### targi-sim check:")
    one_error_line(runner.invoke(app, ["check", str(path), "--junit-xml",
                                       str(tmp_path / "no" / "r.xml")]),
                   "--junit-xml", "does not exist")
    one_error_line(runner.invoke(app, ["check", str(path), "--summary-md", str(tmp_path)]),
                   "--summary-md", "is a folder")
    one_error_line(runner.invoke(app, ["check", str(path), "--jobs", "many"]), "--jobs")
    assert runner.invoke(app, ["check", "--help"]).exit_code == 0


def test_check_init_help_and_bad_input(tmp_path):
    result = runner.invoke(app, ["check", "init", "--help"])
    assert result.exit_code == 0
    for needle in ("--deck", "--strategies", "--out", "--max-games", "--kinds", "Examples:"):
        assert needle in result.output, needle
    out = tmp_path / "b.toml"
    one_error_line(runner.invoke(app, ["check", "init", "--deck", "base", "--out", str(out),
                                       "--kinds", "vibes"]), "--kinds", "deck_drift")
    one_error_line(runner.invoke(app, ["check", "init", "--deck", "nope", "--out", str(out),
                                       "--quiet"]), "nope", "base")
    one_error_line(runner.invoke(app, ["check", "init", "--deck", "base", "--out", str(out),
                                       "--batch-games", "999"]), "--batch-games", "even")
    one_error_line(runner.invoke(app, ["check", "init", "--deck", "base", "--out", str(out),
                                       "--strategies", "balanced,champion", "--quiet"]),
                   "'champion'", "tuned")
    out.write_text("x", encoding="utf-8")
    one_error_line(runner.invoke(app, ["check", "init", "--deck", "base", "--out", str(out)]),
                   "--force")


# ------------------------------------------------------------------ docs/ci.md, end to end


def _ci_steps() -> list[str]:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    block = text.split("<!-- ci-steps: begin -->")[1].split("<!-- ci-steps: end -->")[0]
    body = block.split("```bash\n")[1].split("```")[0]
    return [line for line in body.splitlines() if line.strip()]


def _yaml_blocks() -> list[str]:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


def test_both_workflows_run_the_tested_shell_steps():
    yaml = pytest.importorskip("yaml")
    steps = _ci_steps()
    github, gitlab = (yaml.safe_load(b) for b in _yaml_blocks())
    job = github["jobs"]["check"]["steps"]
    scripts = {"github": "\n".join(s.get("run", "") for s in job),
               "gitlab": "\n".join(gitlab["balance"]["script"])}
    for where, script in scripts.items():
        lines = [line.strip() for line in script.splitlines()]
        at = [lines.index(step) for step in steps]  # every step, in order
        assert at == sorted(at), where
    assert any("actions/cache" in s.get("uses", "") for s in job)
    assert "numba" in scripts["github"] and "targi-sim" in scripts["github"]
    uploads = [s for s in job if "upload-artifact" in s.get("uses", "")]
    assert uploads and "targi-check.xml" in uploads[0]["with"]["path"]
    assert "report/" in uploads[0]["with"]["path"]
    assert gitlab["balance"]["artifacts"]["reports"]["junit"] == "targi-check.xml"
    assert ".targi-sim-cache" in gitlab["balance"]["cache"]["paths"]


GITIGNORE = ".targi-sim-cache/\ntargi-check.xml\ntargi-check.md\ntargi-check-reports/\n"


def _sh(cmd: list[str] | str, cwd: Path, env: dict, check: bool = True):
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                            shell=isinstance(cmd, str), timeout=300)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_ci_steps_on_a_git_repository_fail_a_much_cheaper_card_and_pass_a_comment(tmp_path):
    exe = shutil.which("targi-sim", path=str(Path(os.sys.executable).parent))
    if exe is None or shutil.which("git") is None:
        pytest.skip("needs git and the installed targi-sim of this environment")
    repo = tmp_path / "designer"
    (repo / "baselines").mkdir(parents=True)
    env = {**os.environ, "PATH": f"{Path(exe).parent}{os.pathsep}{os.environ['PATH']}",
           "CI": "", "GIT_AUTHOR_NAME": "d", "GIT_AUTHOR_EMAIL": "d@example.org",
           "GIT_COMMITTER_NAME": "d", "GIT_COMMITTER_EMAIL": "d@example.org"}
    # the compile cache the workflow restores: here the suite's own (linked, not copied)
    from targi_sim.engine import cache_dir

    cache = cache_dir()
    (repo / ".targi-sim-cache").mkdir()
    (repo / ".targi-sim-cache" / cache.name).symlink_to(cache, target_is_directory=True)
    deck = BASE_DECK.read_text(encoding="utf-8")
    assert CARD6 in deck
    (repo / "my-deck.toml").write_text(deck, encoding="utf-8")
    (repo / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    _sh(["git", "init", "-q"], repo, env)
    _sh(["targi-sim", "check", "init", "--deck", "my-deck.toml", "--out",
         "baselines/my-deck.toml", "--kinds", "deck_drift", "--games",
         "1000", "--max-games", "1000", "--batch-games", "500", "--jobs", "1", "--quiet"],
        repo, env)
    _sh("git add -A && git commit -qm 'deck and baseline'", repo, env)
    script = "set -e\n" + "\n".join(_ci_steps()) + "\n"

    (repo / "my-deck.toml").write_text(deck.replace(HEAD6, HEAD6[:-1] + ", a comment edited\n"))
    _sh("git commit -qam 'a comment'", repo, env)
    passed = _sh(["bash", "-c", script], repo, env, check=False)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "1 of 1 expectations passed" in passed.stdout
    assert ET.parse(repo / "targi-check.xml").getroot().get("failures") == "0"
    assert not (repo / "targi-check-reports").exists()

    (repo / "my-deck.toml").write_text(deck.replace(CARD6, CHEAP6), encoding="utf-8")
    _sh("git commit -qam 'card_id 5: free and 3 VP more'", repo, env)
    failed = _sh(["bash", "-c", script], repo, env, check=False)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    root = ET.parse(repo / "targi-check.xml").getroot()
    drift = next(c for c in root.iter("testcase") if c.get("name").startswith("deck drift"))
    message = drift.find("failure").get("message")
    assert "card_id 5 (Targia 4VP #1, was Targia 1VP #1)" in message, message
    assert "card_id 5 (Targia 4VP #1" in failed.stdout  # the summary table, printed by the step
    assert "#6" not in message
    reports = list((repo / "targi-check-reports").glob("*/report/report.html"))
    assert any("deck-drift" in str(p) for p in reports), reports
    moved = next((repo / "targi-check-reports").glob("deck-drift*/against-baseline.md"))
    assert "card_id 5 (Targia 4VP #1, was Targia 1VP #1)" in moved.read_text()  # what moved
