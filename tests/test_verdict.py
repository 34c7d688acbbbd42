"""compare's balance verdict: the verdict rule, the objective's terms known by hand on the
report fixture, the same terms from a run's tables as from balance's in-memory play, and
the designer's loop end to end (card 5 made cheaper, compared with the base deck)."""

from __future__ import annotations

import math
import shutil

import numpy as np
import polars as pl
import pytest
from report_fixture import build_fixture, seal
from typer.testing import CliRunner

from targi_sim.cli.app import app
from targi_sim.fairness.settings import Objective
from targi_sim.report.verdict import SCHEMA, balance_change, balance_test, decide, run_terms
from targi_sim.runner.reading import read_run_info as open_run

runner = CliRunner()


def _table(rows: dict[str, tuple[float, float, float]], weights: dict[str, float]):
    """A compare_balance table from term -> (change, lo, hi)."""
    out = []
    for term, (change, lo, hi) in rows.items():
        w = weights.get(term, 1.0)
        side = "better" if hi < 0 else "worse" if lo > 0 else ""
        out.append({"term": term, "before": 0.0, "after": change, "change": change,
                    "change_lo": lo, "change_hi": hi, "weight": w,
                    "decides": side if w > 0 else ""})
    return pl.DataFrame(out, schema=SCHEMA)


ZERO = (0.0, -0.01, 0.01)


@pytest.mark.parametrize("spread,first,rounds,objective,expected", [
    (ZERO, ZERO, ZERO, ZERO, "no clear change: no term of the balance objective moved"),
    ((-0.02, -0.03, -0.01), ZERO, ZERO, ZERO,
     "more balanced: B has the card values of equal-VP cards closer together, and nothing "
     "got worse; weighing the terms, the balance objective (lower is better)"),
    (ZERO, (0.02, 0.01, 0.03), ZERO, ZERO,
     "less balanced: B has the first player's rate further from 50%, and nothing got better"),
    ((0.02, 0.01, 0.03), (0.02, 0.01, 0.03), ZERO, ZERO,
     "less balanced: B has the card values of equal-VP cards further apart and the first "
     "player's rate further from 50%, and nothing got better"),
    # a term without weight never decides
    (ZERO, ZERO, (0.5, 0.4, 0.6), ZERO, "no clear change"),
    # conflicting terms: the objective weighs them
    ((-0.02, -0.03, -0.01), (0.01, 0.005, 0.02), ZERO, (-0.1, -0.15, -0.05),
     "more balanced: B has the card values of equal-VP cards closer together (better) but "
     "the first player's rate further from 50% (worse); weighing the terms, the balance "
     "objective (lower is better) moved by -0.1 (95% interval -0.15 to -0.05)"),
    ((-0.02, -0.03, -0.01), (0.01, 0.005, 0.02), ZERO, (0.1, 0.05, 0.15),
     "less balanced: B has the card values"),
    ((-0.02, -0.03, -0.01), (0.01, 0.005, 0.02), ZERO, (-0.1, -0.2, 0.01),
     "no clear change: B has the card values"),
])
def test_verdict_rule(spread, first, rounds, objective, expected):
    t = _table({"spread": spread, "extremes": ZERO, "first_player": first,
                "tiebreak": ZERO, "rounds": rounds, "objective": objective},
               {"spread": 6.0, "rounds": 0.0})
    assert decide(t).startswith(f"Balance verdict: {expected}")


def test_balance_test_of_bootstrap_draws():
    z, p, var = balance_test(0.02, np.array([0.01, 0.03] * 50))
    se = np.std([0.01, 0.03] * 50, ddof=1)
    assert z == pytest.approx(0.02 / se) and var == pytest.approx(se * se)
    assert p == pytest.approx(math.erfc(abs(z) / math.sqrt(2)))
    assert balance_test(0.0, np.zeros(10))[1] == 1.0  # identical runs: nothing moved
    assert math.isnan(balance_test(0.1, np.array([np.nan]))[1])  # no draws: untested


# ----------------------------------------------------------------- known answers


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    """The report fixture (A) and a copy (B) whose every game went to a tie-break."""
    root = tmp_path_factory.mktemp("verdict")
    a = build_fixture(root / "a")
    b = root / "b"
    shutil.copytree(a, b)
    part = b / "games" / "part-000000.parquet"
    games = pl.read_parquet(part).with_columns(pl.lit("gold").alias("tiebreak"))
    games.write_parquet(part, compression="zstd")
    seal(b)
    return a, b


def test_terms_known_answer_on_the_fixture(fixtures):
    a, b = fixtures
    obj = Objective()
    change = balance_change(open_run(a), open_run(b), obj, count=200)
    rows = {r["term"]: r for r in change.table.iter_rows(named=True)}
    # first player's points: g0 1, g1 0 (seat 0 won, seat 1 first), g2 draw 0.5, g3 1
    assert rows["first_player"]["before"] == pytest.approx(abs(2.5 / 4 - 0.5))
    assert rows["tiebreak"]["before"] == pytest.approx(1 / 4)  # g2 only
    assert rows["tiebreak"]["after"] == pytest.approx(1.0)
    assert rows["rounds"]["before"] == pytest.approx(abs(2 - 12) / 12)
    # acquire rates of the offered cards: card 0 2/2, card 1 1/2, card 2 1/2; only
    # card 0 is beyond a bound (0.9): by 0.1
    assert rows["extremes"]["before"] == pytest.approx(0.1 / 3)
    assert rows["spread"]["before"] == 0.0  # no card played min_plays (200) times
    assert rows["objective"]["before"] == pytest.approx(
        obj.extremes * 0.1 / 3 + obj.first_player * 0.125 + obj.tiebreak * 0.25)
    # paired resamples of the two deals: A's tie-break share is 0, 1/4 or 1/2, B's 1
    assert change.paired and change.deals == (2, 2)
    assert 0.5 <= rows["tiebreak"]["change_lo"] <= rows["tiebreak"]["change_hi"] <= 1.0
    assert rows["tiebreak"]["decides"] == "worse"
    for term in ("spread", "extremes", "first_player", "rounds"):
        assert rows[term]["change"] == rows[term]["change_lo"] == rows[term]["change_hi"] == 0
    assert change.line.startswith("Balance verdict: less balanced: B has more games decided "
                                  "by a tie-break, and nothing got better; weighing the "
                                  "terms, the balance objective (lower is better) moved by +")
    same = balance_change(open_run(a), open_run(a), obj, count=50)
    assert same.line.startswith("Balance verdict: no clear change")
    assert (same.table["change"] == 0).all() and not np.any(same.balance_draws)


def test_compare_of_the_fixture_writes_the_verdict(fixtures, tmp_path):
    from targi_sim.report import compare_runs

    a, b = fixtures
    out = compare_runs(a, b, tmp_path / "cmp", min_n=1)
    md = (out / "report.md").read_text()
    assert "Balance verdict: less balanced: B has more games decided by a tie-break" in md
    assert md.index("## Balance verdict") < md.index("## Significant changes")
    html = (out / "report.html").read_text()
    verdict = html[html.index("<h2 id='balance'>"):html.index("<h2 id='moved'>")]
    assert "<strong>Balance verdict: less balanced: B has more games decided" in verdict
    assert "<code>targi-sim balance</code>" in verdict
    assert "**" not in verdict and "`" not in verdict  # no Markdown left in the HTML
    head = pl.read_parquet(out / "tables" / "compare_headline.parquet")
    balance = head.filter(pl.col("metric") == "Balance").row(0, named=True)
    assert balance["change"] == 0 and balance["p_value"] == 1.0  # tested: no change
    cards = pl.read_parquet(out / "tables" / "compare_cards.parquet")
    assert cards.columns[:5] == ["group", "card_id", "name", "grade_a", "grade_b"]
    row = cards.filter(pl.col("metric") == "Well 2VP: acquire rate").row(0, named=True)
    assert row["card_id"] == 2 and row["name"] == "Well 2VP"


# ----------------------------------------------------------------- run tables = play


def test_terms_from_a_run_equal_balance_in_memory(tmp_path):
    """Seat-swapped pairs cut by chunks of 75 games: the run's tables give the same
    terms as balance's own measurement of the same games, copies pooled alike."""
    from targi_sim.fairness.measure import play_deals
    from targi_sim.fairness.objective import terms
    from targi_sim.game.classes import card_classes
    from targi_sim.play.games import prepare_match
    from targi_sim.play.pairing import plan

    out = tmp_path / "run"
    res = runner.invoke(app, ["run", "-n", "300", "--seed", "5", "--out", str(out), "-q",
                              "--jobs", "1", "--pairing", "seat_swapped",
                              "--chunk-size", "75"])
    assert res.exit_code == 0, res.output
    obj = Objective(min_plays=5)
    from_run = run_terms(open_run(out), obj)
    match = prepare_match(("balanced", "balanced"), "base", "default")
    classes = card_classes(match.deck)
    stats = play_deals(match, plan(300, 5, "seat_swapped"), "seat_swapped", classes).stats()
    in_memory = terms(stats, match.deck, obj, classes=classes)
    assert len(in_memory.card_value) == classes.size == 40
    assert from_run.games == in_memory.games == 300
    assert from_run.eligible.sum() > 5  # the spread compares cards
    for k, v in in_memory.as_dict().items():
        assert from_run.as_dict()[k] == pytest.approx(v, rel=1e-12, abs=1e-15), k
    np.testing.assert_allclose(from_run.card_value, in_memory.card_value, rtol=1e-12)
    np.testing.assert_allclose(from_run.card_se, in_memory.card_se, rtol=1e-9)


# ----------------------------------------------------------------- the designer's loop


def test_cheaper_card_5_compared_with_the_base_deck(tmp_path):
    """The issue: card 5 (Targia 1VP #1) costs 2 pepper instead of 2 pepper + 1 gold;
    both decks play 2,000 games on seed 1, then `compare`."""
    from targi_sim._utils.paths import data_dir

    text = (data_dir() / "decks" / "base.toml").read_text()
    card5 = text.index("# card_id 5: Targia 1VP #1")
    old = "cost = { pepper = 2, gold = 1 }"
    cost = text.index(old, card5)
    cheap = tmp_path / "cheap-targia.toml"
    cheap.write_text(text[:cost] + "cost = { pepper = 2 }" + text[cost + len(old):])
    for name, deck in (("demo", "base"), ("cheap", str(cheap))):
        res = runner.invoke(app, ["run", "-n", "2000", "--seed", "1", "--deck", deck,
                                  "--out", str(tmp_path / name), "-q", "--jobs", "1"])
        assert res.exit_code == 0, res.output
    out = tmp_path / "cmp"
    res = runner.invoke(app, ["compare", str(tmp_path / "demo"), str(tmp_path / "cheap"),
                              "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    at = next(i for i, s in enumerate(lines) if s.startswith("Balance verdict: "))
    line = lines[at]
    for s in lines[at + 1:]:  # the verdict is wrapped to the terminal, continued indented
        if not s.startswith("  "):
            break
        line += " " + s.strip()
    assert line.split(": ")[1] in ("more balanced", "less balanced", "no clear change")
    assert "lower is better" in line
    assert line.rstrip(".") in (out / "report.md").read_text()
    table = pl.read_csv(out / "tables" / "compare_balance.csv")
    assert table.columns[:6] == ["term", "before", "after", "change", "change_lo",
                                 "change_hi"]
    assert table["term"].to_list() == ["spread", "extremes", "first_player", "tiebreak",
                                       "rounds", "objective"]
    assert (table["change_lo"] <= table["change"] + 1e-12).all()
    assert (table["change"] <= table["change_hi"] + 1e-12).all()
    # the Ludii Balance is 1 - 2 * the first_player term, and now has its test
    first = table.filter(pl.col("term") == "first_player").row(0, named=True)
    head = pl.read_parquet(out / "tables" / "compare_headline.parquet")
    balance = head.filter(pl.col("metric") == "Balance").row(0, named=True)
    assert balance["a"] == pytest.approx(1 - 2 * first["before"])
    assert balance["b"] == pytest.approx(1 - 2 * first["after"])
    assert 0 < balance["p_value"] <= 1 and balance["p_holm"] >= balance["p_value"]
    cards = pl.read_parquet(out / "tables" / "compare_cards.parquet")
    row = cards.filter(pl.col("metric") == "Targia 1VP #1: acquire rate").row(0, named=True)
    assert row["card_id"] == 5 and row["b"] > row["a"] + 0.4  # taken three times as often
    assert {"grade_a", "grade_b"} <= set(cards.columns)
