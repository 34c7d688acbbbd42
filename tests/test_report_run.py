"""`report` on a real small run (the runner's output) is consistent with the raw tables;
and the CLI's error handling (one `Error:` line, exit 2)."""

from __future__ import annotations

import re

import duckdb
import polars as pl
import pytest
from cli_helpers import one_error_line as assert_usage_error
from report_fixture import build_fixture
from typer.testing import CliRunner

from targi_sim.cli.app import app

runner = CliRunner()


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("real") / "run"
    result = runner.invoke(app, ["run", "--games", "2000", "--p0", "balanced", "--p1",
                                 "balanced", "--out", str(out), "--quiet", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def real_report(real_run):
    result = runner.invoke(app, ["report", str(real_run), "--quiet", "--min-n", "100"])
    assert result.exit_code == 0, result.output
    return real_run / "report"


def scalar(run, sql: str):
    con = duckdb.connect()
    for t in ("games", "rounds", "acquisitions", "offers", "raids", "goods"):
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{run}/{t}/*.parquet')")
    return con.execute(sql).fetchone()[0]


def table(report, key) -> pl.DataFrame:
    return pl.read_parquet(report / "tables" / f"{key}.parquet")


def test_card_table_matches_raw_tables(real_run, real_report):
    cards = table(real_report, "cards_tribe")
    assert cards["acquisition_rows"].sum() == scalar(real_run, "SELECT count(*) FROM acquisitions")
    assert cards["acquired"].sum() == scalar(
        real_run, "SELECT count(*) FROM acquisitions WHERE source <> 'hand'")
    assert cards["played_n"].sum() == scalar(
        real_run, "SELECT count(*) FROM acquisitions WHERE outcome = 'played'")
    assert cards["offered_rounds"].sum() == scalar(real_run, "SELECT count(*) FROM offers")
    games = scalar(real_run, "SELECT count(*) FROM games")
    assert cards["acquired_per_game"].sum() == pytest.approx(cards["acquired"].sum() / games)
    # every card acquired from the centre was offered in that game
    assert (cards["taken_games"] <= cards["offered_games"]).all()
    # a symbol's counts are the sum of its cards'
    sym = table(real_report, "cards_symbol")
    assert sym["played_n"].sum() == cards["played_n"].sum()


def test_identical_printed_cards_are_one_row(real_run, real_report):
    """The base deck prints five cards twice (2/3, 14/15, 24/25, 34/35, 41/42): 45 cards,
    40 rows. Cards 14 and 15 are one row whose counts are the two copies' from the raw
    tables, added."""
    cards = table(real_report, "cards_tribe")
    assert cards.height == 40 and cards["copies"].sum() == 45
    assert cards.filter(pl.col("copies") == 2)["card_ids"].to_list() == [
        "2, 3", "14, 15", "24, 25", "34, 35", "41, 42"]
    assert 15 not in cards["card_id"].to_list()
    k = cards.filter(pl.col("card_id") == 14).row(0, named=True)
    assert (k["name"], k["copies"], k["card_ids"]) == ("Camel Rider 1VP #1, #2", 2, "14, 15")
    both = "card_id IN (14, 15)"
    assert k["offered_rounds"] == scalar(real_run, f"SELECT count(*) FROM offers WHERE {both}")
    assert k["offered_games"] == scalar(
        real_run, f"SELECT count(DISTINCT (game_id, card_id)) FROM offers WHERE {both}")
    assert k["acquired"] == scalar(
        real_run, f"SELECT count(*) FROM acquisitions WHERE {both} AND source <> 'hand'")
    assert k["played_n"] == scalar(
        real_run, f"SELECT count(*) FROM acquisitions WHERE {both} AND outcome = 'played'")
    # the grades rank the 40 rows, not the 45 cards
    assert cards["grade_z"].drop_nans().drop_nulls().len() <= 40


def test_a_class_interval_counts_each_pair_once(real_run, real_report):
    """WR played of cards 14 and 15 pooled: per deal the players who played either copy
    and their points (from the raw rows), the deal as the cluster. Pooling the copies'
    rows as if they were separate deals would give another interval (here 2% wider)."""
    from targi_sim.stats.rates import ClusterSums, clustered_rate, rate_of

    per = duckdb.connect().sql(f"""
        SELECT g.pair_id, a.card_id, count(*) AS n,
               sum(CASE WHEN g.winner = a.player THEN 1.0 WHEN g.winner = -1 THEN 0.5
                        ELSE 0 END) AS x
        FROM read_parquet('{real_run}/acquisitions/*.parquet') a
        JOIN read_parquet('{real_run}/games/*.parquet') g USING (game_id)
        WHERE a.outcome = 'played' AND a.card_id IN (14, 15) GROUP BY ALL""").pl()
    deal = per.group_by("pair_id").agg(pl.col("x").sum(), pl.col("n").sum())
    pooled = clustered_rate(deal["x"].to_numpy(), deal["n"].to_numpy())
    copies = [per.filter(pl.col("card_id") == c) for c in (14, 15)]
    naive = rate_of(sum((ClusterSums.of(f["x"].to_numpy(), f["n"].to_numpy()) for f in copies),
                        ClusterSums.of([], [])))
    k = table(real_report, "cards_tribe").filter(pl.col("card_id") == 14).row(0, named=True)
    assert k["played_wr"] == pytest.approx(pooled.rate) == pytest.approx(naive.rate)
    assert k["played_wr_se"] == pytest.approx(pooled.se, rel=1e-9)
    assert naive.se != pytest.approx(pooled.se, rel=1e-3)  # the two copies share deals


def test_other_tables_match_raw_tables(real_run, real_report):
    games = scalar(real_run, "SELECT count(*) FROM games")
    v = {r["metric"]: r for r in table(real_report, "viability").iter_rows(named=True)}
    assert v["AdvantageP1"]["n"] == games
    fp = scalar(real_run, "SELECT avg(CASE WHEN winner = first_player THEN 1.0 "
                          "WHEN winner = -1 THEN 0.5 ELSE 0 END) FROM games")
    assert v["AdvantageP1"]["value"] == pytest.approx(fp)
    border = table(real_report, "cards_border")
    assert border["placements"].sum() == scalar(
        real_run, "SELECT sum((targi_card_1 > 0)::INT + (targi_card_2 > 0)::INT "
                  "+ (targi_card_3 > 0)::INT) FROM rounds")
    assert table(real_report, "cards_goods")["taken"].sum() == scalar(
        real_run, "SELECT count(*) FROM goods")
    assert table(real_report, "raids_payments")["n"].sum() == scalar(
        real_run, "SELECT count(*) FROM raids")
    gap = table(real_report, "score_gap")
    assert gap.filter(pl.col("round") == 1)["n"][0] == games
    seat = table(real_report, "strategies_by_seat")
    assert seat["n"].sum() == 2 * games
    # the amulet alternates: round r's first player is the round-1 first player iff r is odd
    assert scalar(real_run, "SELECT count(*) FROM rounds r JOIN games g USING (game_id) "
                            "WHERE r.is_first <> ((r.player = g.first_player) = (r.round % 2 = 1))"
                  ) == 0
    html = (real_report / "report.html").read_text()
    assert "Elo needs at least two strategies" in html


def test_cli_errors(tmp_path):
    assert_usage_error(runner.invoke(app, ["report", str(tmp_path / "nope")]), "does not exist")
    (tmp_path / "plain").mkdir()
    assert_usage_error(runner.invoke(app, ["report", str(tmp_path / "plain")]),
                       "not a run directory")
    inc = build_fixture(tmp_path / "inc", status="incomplete")
    assert_usage_error(runner.invoke(app, ["report", str(inc)]), "not complete")
    ok = build_fixture(tmp_path / "ok")
    assert_usage_error(runner.invoke(app, ["report", str(ok), "--min-n", "lots"]), "--min-n")
    other = build_fixture(tmp_path / "other", strategies=("A", "C"))
    assert_usage_error(runner.invoke(app, ["compare", str(ok), str(other)]),
                       "--allow-different-strategies")
    assert_usage_error(runner.invoke(app, ["compare", str(ok), str(ok), "--correction", "x"]),
                       "--correction")


def test_cli_report_and_compare(tmp_path, monkeypatch):
    ok = build_fixture(tmp_path / "ok")
    r = runner.invoke(app, ["report", str(ok), "--out", str(tmp_path / "rep"), "-q",
                            "--min-n", "1"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "rep" / "report.html").is_file()
    r = runner.invoke(app, ["compare", str(ok), str(ok), "-q", "--correction", "bh"])
    assert r.exit_code == 0, r.output
    assert "No single metric moved significantly (p adj < 0.05, Benjamini-Hochberg)" in r.output
    assert (tmp_path / "compare-ok-vs-ok" / "report.md").is_file()
    # both name their output as the user would type it, relative to where they ran
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["compare", "ok", "ok", "-q"])
    assert r.exit_code == 0, r.output
    assert r.output.rstrip().endswith(": compare-ok-vs-ok/report.html"), r.output
    assert "Examples" in runner.invoke(app, ["report", "--help"]).output
    help_text = " ".join(runner.invoke(app, ["compare", "--help"]).output.split())
    assert "Examples" in help_text
    assert "Choosing the number of games" in help_text and "1-point change" in help_text


@pytest.mark.parametrize("pairing,deff", [("seat_swapped", 2.0), ("auto", 1.0)])
def test_a_a_comparison_of_balanced_mirrors_flags_nothing(tmp_path, pairing, deff):
    """The issue's A/A reproducer: two balanced-vs-balanced runs of 20,000 games, seeds 0
    and 1. In seat-swapped pairs (each pair one game twice; the layout before one game
    per deal) compare flagged 2 metrics after Holm and 5 after Benjamini-Hochberg. With
    the pair as the unit: none, the per-card and first-player design effects about 2;
    and none with the default layout (one game per deal, design effects about 1)."""
    from targi_sim.report import compare_runs
    from targi_sim.report.metrics import two_proportion_test

    a, b = tmp_path / "a", tmp_path / "b"
    for out, seed in ((a, "0"), (b, "1")):
        res = runner.invoke(app, ["run", "-n", "20000", "--seed", seed, "--out", str(out),
                                  "--quiet", "--jobs", "1", "--pairing", pairing])
        assert res.exit_code == 0, res.output
    out = compare_runs(a, b, tmp_path / "cmp")
    every = pl.concat([table(out, k) for k in ("compare_headline", "compare_symbols",
                                                "compare_cards")], how="diagonal")
    # 142 rate tests (3 per class of identical cards: 40 classes; 3 per symbol; 7
    # headline) + Balance (tested by the balance verdict); mean rounds: always 12
    assert int(every["p_value"].is_not_nan().sum()) == 143
    assert (every["p_holm"].drop_nans() >= 0.05).all()
    assert (every["p_bh"].drop_nans() >= 0.05).all()
    cards = every.filter(pl.col("group") == "cards_tribe")
    acquire = cards.filter(pl.col("metric").str.ends_with("acquire rate"))["deff_a"]
    played = cards.filter(pl.col("metric").str.ends_with("WR played"))["deff_a"]
    assert acquire.median() == pytest.approx(deff, abs=0.1)
    assert played.median() == pytest.approx(deff, abs=0.15)
    row = every.filter(pl.col("metric") == "first player rate").row(0, named=True)
    naive, _ = two_proportion_test(row["a"] * row["n_a"], row["n_a"], row["b"] * row["n_b"],
                                   row["n_b"])
    assert naive / row["z"] == pytest.approx(deff**0.5, abs=0.15)


def test_mirror_run_reads_at_a_glance(real_run, real_report):
    """The issue's mirror-run reproducers (balanced vs balanced): the first-player table
    repeated one row three times, the strategy matrix was an empty table with headers
    only, the game-length plot was one bar; the report now opens with its Findings and
    shows the card forest plot."""
    assert table(real_report, "first_player")["scope"].to_list() == ["all games"]
    html = (real_report / "report.html").read_text()
    assert "id='strategy_matrix'" not in html
    assert (real_report / "tables" / "strategy_matrix.csv").is_file()  # still written
    # one bar is no plot: the plot is drawn only when games differ in length or ending
    # (the re-derived balanced's mirror ends by a full display about once in 1,000 games)
    games = pl.read_parquet(real_run / "games" / "*.parquet")
    one_shape = games["rounds"].n_unique() == 1 and games["end_reason"].n_unique() == 1
    assert ("No game-length plot: every game lasted 12 rounds" in html) == one_shape
    assert (real_report / "plots" / "game_length.png").exists() != one_shape
    assert (real_report / "plots" / "cards_forest.png").stat().st_size > 10_000
    assert html.index("id='findings'") < html.index("id='overview'")
    md = (real_report / "report.md").read_text()
    assert "- First player: the round-1 first player wins" in md
    assert "of games, draws counted as half (n = " in md
    # the excess over the grade model is a difference of rates: percentage points
    assert re.search(r"\| [+-]\d+\.\d pts \([+-]\d+\.\d to [+-]\d+\.\d\) \|", md)
    # grades are VP- and cost-adjusted: the excess is orthogonal to printed VP over the
    # graded cards (weighted), so VP no longer sets the grade
    cards = table(real_report, "cards_tribe").filter(pl.col("grade").is_not_null())
    w = 1 / cards["played_wr_se"] ** 2
    assert abs(float((w * cards["played_wr_excess"] * cards["vp"]).sum())) < 1e-6 * float(
        (w * cards["vp"]).sum())
