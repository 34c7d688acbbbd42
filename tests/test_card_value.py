"""Causal card value by forked play (issue 16, part 2): the fork driver leaves the game it
forks from unchanged, forks are pure functions of (game, decision), the known answers
(a card's VP raised by 3; two cards with identical stats), the deal-clustered interval,
grades, the run-directory table (resume, refusals) and the report section."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
import statsmodels.api as sm
from cli_helpers import one_error_line
from typer.testing import CliRunner

import targi_sim
from targi_sim.cardvalue.forks import FORKS_SCHEMA, check_forkable, forks_table, play_forks
from targi_sim.cardvalue.values import clustered_effects, values_of
from targi_sim.cli.app import app
from targi_sim.errors import InputError
from targi_sim.play.games import run_batch
from targi_sim.play.match import prepare_match
from targi_sim.play.pairing import SEAT_SWAPPED, plan
from targi_sim.report import plots
from targi_sim.report.card_value import section as card_value_section
from targi_sim.runner.classes import tribe_cards
from targi_sim.runner.reading import read_run_info
from targi_sim.runner.tables import cards_table
from targi_sim.stats.grades import grade_by_z as grade_values

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
BOOSTED = 2  # "Targia 2VP #1"; card 3 ("Targia 2VP #2") has identical stats in base.toml


def _forks(match, n, seed, rate=1.0, start=0):
    seeds, first, ids = plan(n, seed, SEAT_SWAPPED, start=start)
    G, F = play_forks(match, seeds, first, ids, rate)
    return G, F, pl.from_arrow(forks_table(F, SEAT_SWAPPED, match.deck.tribe_symbol))


def _cards(match) -> pl.DataFrame:
    return (pl.from_arrow(cards_table(match.deck)).filter(pl.col("card_type") == "tribe")
            .select(pl.col("card_id").cast(pl.Int64), "name", "symbol",
                    pl.col("vp").cast(pl.Int64)))


def _plus3_deck(tmp: Path) -> Path:
    """base.toml with card BOOSTED's VP raised from 2 to 5 (nothing else changed)."""
    text = (ROOT / "data/decks/base.toml").read_text(encoding="utf-8")
    at = text.index("[[tribe]]  # card_id 2: Targia 2VP #1\n")
    vp = text.index("vp = 2", at)
    text = text[:vp] + "vp = 5" + text[vp + len("vp = 2"):]
    path = tmp / "plus3.toml"
    path.write_text(text.replace('name = "base"', 'name = "plus3"', 1), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def greedy_values(tmp_path_factory):
    """Card values of greedy vs greedy on base and on the +3 VP deck, the same 3,000 games."""
    deck = _plus3_deck(tmp_path_factory.mktemp("deck"))
    out = {}
    for name, d in (("base", "base"), ("plus3", str(deck))):
        m = prepare_match(("greedy", "greedy"), deck=d)
        _, _, forks = _forks(m, 3000, 1)
        out[name] = values_of(forks.with_columns(pl.col("symbol").cast(pl.String)), _cards(m))
    return out


# ------------------------------------------------------------------ the driver


@pytest.mark.parametrize("strategies", [("random", "random"), ("greedy", "random")])
def test_forking_leaves_the_games_unchanged(strategies):
    m = prepare_match(strategies)
    seeds, first, ids = plan(300, 5, SEAT_SWAPPED)
    G, F = play_forks(m, seeds, first, ids, 1.0)
    plain, _ = run_batch(m, seeds, first, ids, logs=False)
    assert np.array_equal(G, plain)
    assert F.shape[0] > 300 * 3  # every take-or-not decision forked at rate 1


def test_a_fork_is_a_function_of_its_game_and_decision_alone():
    """Sampling fewer decisions, or cutting the games into other batches, gives the same
    rows for the forks that remain: no fork changes the game or another fork."""
    m = prepare_match(("random", "greedy"))
    _, _, every = _forks(m, 200, 9)
    _, _, half = _forks(m, 200, 9, rate=0.5)
    _, _, tail = _forks(m, 100, 9, start=100)
    keys = ["game_id", "decision"]
    assert 0.35 * every.height < half.height < 0.65 * every.height
    assert half.join(every, on=keys, how="anti").height == 0
    assert every.join(half, on=keys, how="semi").sort(keys).equals(half.sort(keys))
    assert every.filter(pl.col("game_id") >= 100).equals(tail)
    assert set(every["source"].cast(pl.String).unique()) <= {"centre", "tribal_expansion"}
    assert every["options"].min() >= 2  # a take and a not-take option at least


def test_the_branches_are_played_on_the_copied_streams(tmp_path):
    """Random play ignores VP, so on a deck whose only change is +3 VP on one card each
    branch of each fork plays exactly the same moves from the same copied streams: its
    length is unchanged, and its score margin moves by exactly 0 or +-3 (+3 in every take
    branch of that card, which ends in the player's display)."""
    keys = ["game_id", "decision"]
    _, _, a = _forks(prepare_match(("random", "random")), 150, 3)
    _, _, b = _forks(prepare_match(("random", "random"), deck=str(_plus3_deck(tmp_path))),
                     150, 3)
    both = a.join(b, on=keys, suffix="_plus")
    assert both.height == a.height == b.height
    for col in ("card_id", "round", "player", "options", "rounds_take", "rounds_alt"):
        assert both[col].equals(both[f"{col}_plus"], check_names=False), col
    for branch in ("take", "alt"):
        moved = both[f"margin_{branch}_plus"] - both[f"margin_{branch}"]
        assert set(moved.unique().to_list()) <= {-3, 0, 3}
    boosted = both.filter(pl.col("card_id") == BOOSTED)
    assert boosted.height > 10
    assert ((boosted["margin_take_plus"] - boosted["margin_take"]) == 3).all()


def test_known_answer_raising_one_cards_vp_by_3_raises_its_value_only(greedy_values):
    base, plus = greedy_values["base"], greedy_values["plus3"]
    d = base.select("card_id", "n_forks").with_columns(
        (plus["value"] - base["value"]).alias("dv"),
        (plus["margin"] - base["margin"]).alias("dm"),
        (plus["se"] ** 2 + base["se"] ** 2).sqrt().alias("sd"))
    boosted = d.filter(pl.col("card_id") == BOOSTED).row(0, named=True)
    assert boosted["n_forks"] > 500
    assert boosted["dv"] / boosted["sd"] > 4  # win-probability effect up (measured z = 9)
    assert 2.0 < boosted["dm"] < 4.0  # score-margin effect up by about the 3 VP
    others = d.filter(pl.col("card_id") != BOOSTED)
    assert (others["dv"] / others["sd"]).abs().max() < 3  # 44 others: none moved
    assert abs(others["dv"].mean()) < 0.01


def test_known_answer_identical_cards_get_the_same_value(greedy_values):
    v = greedy_values["base"].filter(pl.col("card_id").is_in([BOOSTED, BOOSTED + 1]))
    a, b = v.rows(named=True)
    assert (a["symbol"], a["vp"]) == (b["symbol"], b["vp"])
    assert min(a["n_forks"], b["n_forks"]) > 500
    assert a["ci_low"] <= b["ci_high"] and b["ci_low"] <= a["ci_high"]  # intervals overlap
    # ... while a card worth 3 VP more (the +3 deck) is far outside both
    boosted = greedy_values["plus3"].filter(pl.col("card_id") == BOOSTED).row(0, named=True)
    assert boosted["ci_low"] > max(a["ci_high"], b["ci_high"])


def test_interpreted_engine_gives_the_same_forks():
    """NUMBA_DISABLE_JIT=1 runs the fork driver as plain Python, with identical rows."""
    m = prepare_match(("random", "greedy"))
    _, F, _ = _forks(m, 2, 11)
    code = ("import json; from targi_sim.play.games import prepare_match;"
            "from targi_sim.play.pairing import plan; from targi_sim.cardvalue.forks import "
            "play_forks; m = prepare_match(('random', 'greedy'));"
            "s, f, i = plan(2, 11, 'seat_swapped'); G, F = play_forks(m, s, f, i, 1.0);"
            "print(json.dumps(F.tolist()))")
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=240, check=True)
    assert np.array_equal(np.array(json.loads(out.stdout.strip().splitlines()[-1])), F)


def test_search_and_python_seats_are_refused_with_one_line():
    with pytest.raises(InputError, match="Monte Carlo"):
        check_forkable(prepare_match(("montecarlo", "random")))
    py = prepare_match((str(ROOT / "data/strategies/oasis-first.py"), "random"))
    with pytest.raises(InputError, match="oasis-first"):
        check_forkable(py)


# ------------------------------------------------------------------ statistics


def test_value_interval_is_clustered_by_deal_as_statsmodels_computes_it():
    forks = pl.DataFrame({
        "pair_id": [0, 0, 1, 2, 2, 2, 3, 4],
        "card_id": [7] * 8,
        "result_take": [1.0, 1.0, 0.5, 1.0, 0.0, 1.0, 0.0, 1.0],
        "result_alt": [0.0, 0.0, 0.5, 0.0, 0.0, 1.0, 1.0, 0.0],
        "margin_take": [5, 3, 0, 2, -1, 4, -6, 1],
        "margin_alt": [0, 1, 0, 0, -1, 2, 2, -1],
    })
    got = clustered_effects(forks, ("card_id",)).row(0, named=True)
    y = (forks["result_take"] - forks["result_alt"]).to_numpy()
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster",
                                         cov_kwds={"groups": forks["pair_id"].to_numpy()})
    assert (got["n_forks"], got["n_deals"]) == (8, 5)
    assert got["value"] == pytest.approx(3 / 8)  # effects 1, 1, 0, 1, 0, 0, -1, 1
    assert got["se"] == pytest.approx(float(fit.bse[0]))
    assert got["ci_low"] == pytest.approx(3 / 8 - 1.959964 * float(fit.bse[0]), abs=1e-6)
    m = (forks["margin_take"] - forks["margin_alt"]).to_numpy().astype(float)
    fit_m = sm.OLS(m, np.ones_like(m)).fit(cov_type="cluster",
                                           cov_kwds={"groups": forks["pair_id"].to_numpy()})
    assert got["margin"] == pytest.approx(m.mean())
    assert got["margin_se"] == pytest.approx(float(fit_m.bse[0]))


def test_grades_are_z_scores_of_value_among_cards_with_enough_forks():
    df = pl.DataFrame({"card": ["a", "b", "c", "d"], "value": [0.1, 0.0, -0.1, 0.9],
                       "se": [0.01, 0.01, 0.01, 0.01], "n_forks": [100, 100, 100, 3]})
    g = grade_values(df, min_forks=10)
    assert g["value_z"].to_list()[:3] == pytest.approx([1.0, 0.0, -1.0])
    assert g["value_grade"].to_list() == ["B", "C", "D", None]  # a step per third of an sd


# ------------------------------------------------------------------ run directory and CLI


@pytest.fixture(scope="module")
def forked_run(tmp_path_factory):
    """A 400-game random-vs-greedy run with forks (--card-value, two chunks) and the
    same run without."""
    root = tmp_path_factory.mktemp("runs")
    common = ["run", "--games", "400", "--p0", "random", "--p1", "greedy", "--chunk-size",
              "200", "--jobs", "1", "--quiet"]
    plain = runner.invoke(app, [*common, "--out", str(root / "plain")])
    assert plain.exit_code == 0, plain.output
    forked = runner.invoke(app, [*common, "--out", str(root / "forked"), "--card-value",
                                 "--fork-rate", "0.5"])
    assert forked.exit_code == 0, forked.output
    return root / "plain", root / "forked", forked.output


def test_run_with_card_value_writes_the_same_games_and_a_forks_table(forked_run):
    plain, forked, output = forked_run
    for table in ("games", "rounds", "acquisitions", "offers", "raids", "goods"):
        for part in sorted((plain / table).glob("part-*.parquet")):
            assert part.read_bytes() == (forked / table / part.name).read_bytes(), part
    assert not (plain / "forks").exists()
    parts = sorted((forked / "forks").glob("part-*.parquet"))
    assert [p.name for p in parts] == ["part-000000.parquet", "part-000001.parquet"]
    assert pq.read_schema(parts[0]).equals(FORKS_SCHEMA)
    assert "Causal value of taking each card" in output


def test_card_values_public_function(forked_run):
    _, forked, _ = forked_run
    v = targi_sim.card_values(forked)
    assert v.columns[:14] == ["card_id", "name", "copies", "card_ids", "symbol", "vp",
                              "n_forks", "n_deals", "value", "ci_low", "ci_high", "margin",
                              "margin_ci_low", "margin_ci_high"]
    # one row per class of identical printed cards: 45 cards, 40 classes
    assert v.height == 40 and v["copies"].sum() == 45
    assert v["n_forks"].sum() == pl.read_parquet(forked / "forks" / "*.parquet").height
    ok = v.filter(pl.col("n_forks") > 1)
    assert ((ok["ci_low"] <= ok["value"]) & (ok["value"] <= ok["ci_high"])).all()
    assert targi_sim.symbol_values(forked)["n_forks"].sum() == v["n_forks"].sum()
    assert set(targi_sim.round_values(forked)["round"].to_list()) <= set(range(1, 40))


def test_card_values_pool_the_forks_of_identical_copies(forked_run):
    """Cards 14 and 15 print the same: one row whose value is the mean effect over the
    forks of either copy, its interval clustered by deal as statsmodels computes it on
    those forks; per card (no classes) the two copies' forks add up to it."""
    _, forked, _ = forked_run
    every = pl.read_parquet(forked / "forks" / "*.parquet")
    forks = every.filter(pl.col("card_id").is_in([14, 15]))
    assert forks["card_id"].n_unique() == 2 and forks["pair_id"].n_unique() >= 5
    k = targi_sim.card_values(forked).filter(pl.col("card_id") == 14).row(0, named=True)
    assert (k["name"], k["copies"], k["card_ids"]) == ("Camel Rider 1VP #1, #2", 2, "14, 15")
    assert (k["n_forks"], k["n_deals"]) == (forks.height, forks["pair_id"].n_unique())
    y = (forks["result_take"] - forks["result_alt"]).cast(pl.Float64).to_numpy()
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster",
                                         cov_kwds={"groups": forks["pair_id"].to_numpy()})
    assert k["value"] == pytest.approx(y.mean())
    assert k["se"] == pytest.approx(float(fit.bse[0]))
    per_card = values_of(every.with_columns(pl.col("symbol").cast(pl.String)),
                         tribe_cards(read_run_info(forked)))
    assert per_card.height == 45 and per_card["copies"].max() == 1
    assert per_card.filter(pl.col("card_id").is_in([14, 15]))["n_forks"].sum() == k["n_forks"]


def test_card_value_resumes_and_replays_a_changed_part(forked_run):
    _, forked, _ = forked_run
    parts = {p.name: p.read_bytes() for p in (forked / "forks").glob("part-*.parquet")}
    again = runner.invoke(app, ["card-value", str(forked), "--fork-rate", "0.5", "--jobs", "1",
                                "--quiet"])
    assert again.exit_code == 0, again.output
    assert "already complete" in again.output
    (forked / "forks" / "part-000001.parquet").write_bytes(b"garbage")
    fixed = runner.invoke(app, ["card-value", str(forked), "--fork-rate", "0.5", "--quiet"])
    assert fixed.exit_code == 0, fixed.output
    assert "Resumed: 1 of 2 chunks" in fixed.output
    assert {p.name: p.read_bytes() for p in (forked / "forks").glob("part-*.parquet")} == parts


def test_card_value_on_a_dask_cluster_writes_the_same_forks(forked_run, tmp_path):
    """Two external `dask worker` processes fork a copy of the plain run: every forks
    part equals the one the local run wrote."""
    import shutil

    from tests.dask_cluster import dask_cluster

    plain, forked, _ = forked_run
    copy = tmp_path / "copy"
    shutil.copytree(plain, copy)
    with dask_cluster(tmp_path) as address:
        r = runner.invoke(app, ["card-value", str(copy), "--fork-rate", "0.5", "--backend",
                                "dask", "--scheduler", address, "--quiet"])
    assert r.exit_code == 0, r.output
    local = {p.name: p.read_bytes() for p in (forked / "forks").glob("part-*.parquet")}
    remote = {p.name: p.read_bytes() for p in (copy / "forks").glob("part-*.parquet")}
    assert remote == local and len(local) == 2


def test_card_value_refusals_are_one_error_line(forked_run, tmp_path):
    plain, forked, _ = forked_run
    one_error_line(runner.invoke(app, ["card-value", str(forked), "--fork-rate", "0.25"]),
                   "--fork-rate 0.5", "--force")
    for bad in ("0", "1.5", "abc", "nan"):
        one_error_line(runner.invoke(app, ["card-value", str(plain), "--fork-rate", bad]),
                       "--fork-rate")
    one_error_line(runner.invoke(app, ["card-value", str(tmp_path / "nope")]), "does not exist")
    one_error_line(runner.invoke(app, ["card-value", str(tmp_path)]), "not a run directory")
    with pytest.raises(InputError, match="card-value"):
        targi_sim.card_values(plain)
    mc = runner.invoke(app, ["run", "--games", "2", "--p0", "montecarlo", "--card-value",
                             "--out", str(tmp_path / "mc")])
    one_error_line(mc, "Monte Carlo")
    assert not (tmp_path / "mc" / "manifest.json").exists()


def test_report_shows_the_causal_card_value_section(forked_run, tmp_path):
    plain, forked, _ = forked_run
    with plots.skipped():  # drawing is most of a small report's time; the scatter's own
        out = targi_sim.build_report(forked, tmp_path / "report", min_n=50)  # test is below
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "Causal card value" in md and "Causal value per symbol" in md
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Observed improvement when played vs causal value" in html
    table = pl.read_parquet(out / "tables" / "card_value.parquet")
    for col in ("value", "ci_low", "ci_high", "value_grade", "improvement", "observed_grade"):
        assert col in table.columns
    graded = table.filter(pl.col("value_grade").is_not_null())
    assert graded.height >= 2 and (graded["n_forks"] >= 10).all()
    assert table.height == 40 and table["copies"].sum() == 45  # classes of identical cards
    assert pl.read_parquet(out / "tables" / "card_value_symbol.parquet").height == 5
    assert card_value_section(read_run_info(plain), pl.DataFrame(), 50) is None  # no forks
    # with forks the tribe-card grades are fitted on the causal values (issue 18, part 3)
    tribe = pl.read_parquet(out / "tables" / "cards_tribe.parquet")
    assert "value_excess" in tribe.columns and "played_wr_excess" not in tribe.columns
    causal = table.select("card_id", pl.col("value").alias("causal"), "n_forks")
    joined = tribe.select(pl.col("card_id").cast(pl.Int64), "value").join(causal, on="card_id")
    enough = joined.filter(pl.col("n_forks") >= 10)
    assert enough.height >= 2 and (enough["value"] - enough["causal"]).abs().max() < 1e-12
    assert "causal card value" in md


def test_scatter_plot_is_a_png():
    png = plots.scatter([0.0, 0.1, -0.1], [0.0, 0.05, -0.04], ["a", "b", "c"], "x", "y")
    assert png.startswith(b"\x89PNG") and len(png) > 1000
