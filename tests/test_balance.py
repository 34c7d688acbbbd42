"""targi-sim balance: settings validation, proposals written back into the deck's TOML,
known-answer metrics and spread, and a tiny end-to-end search that must resume to the
same result and not depend on --jobs."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from targi_sim.balance import BalanceConfig, balance_deck, load_settings
from targi_sim.balance.searching import parse_key, repair
from targi_sim.balance.space import apply_edits, edits_key, problem, render_deck
from targi_sim.cli.app import app
from targi_sim.errors import DataError
from targi_sim.fairness.measure import reduce_games
from targi_sim.fairness.objective import debiased_spread
from targi_sim.game.deck import load_deck
from tests.cli_helpers import one_error_line

runner = CliRunner()
TINY = BalanceConfig(budget=2400, block_deals=200, blocks=2, validate_deals=300, seed=3,
                     resamples=200)


@pytest.fixture(scope="module")
def base():
    return load_deck("base")


# ----------------------------------------------------------------- settings


def test_default_settings_load():
    s = load_settings()
    assert s.space.max_changes == 6 and s.space.step == 1
    assert s.objective.value == "play_win" and s.objective.spread > 0


@pytest.mark.parametrize("text, field, allowed", [
    ("[objective]\nspred = 1.0\n", "spred", "spread"),
    ('[objective]\nvalue = "strength"\n', "value", "play_win"),
    ("[objective]\nnever = 0.5\nalways = 0.2\n", "never", "at most always"),
    ('[space]\nfields = ["vp", "silver"]\n', "fields", "salt"),
    ("[space]\nmax_changes = 0\n", "max_changes", "1..45"),
    ("[objective]\nspread = -1\n", "spread", ">= 0"),
])
def test_bad_settings_name_file_field_and_allowed(tmp_path, text, field, allowed):
    p = tmp_path / "obj.toml"
    p.write_text(text)
    with pytest.raises(DataError) as exc:
        load_settings(p)
    msg = str(exc.value)
    assert str(p) in msg and field in msg and allowed in msg, msg


def test_frozen_cards_by_name_or_number(tmp_path, base):
    p = tmp_path / "obj.toml"
    p.write_text('[space]\nfrozen = ["Camp 1VP #4", 0]\n')
    assert load_settings(p).space.frozen_ids(base) == {26, 0}
    p.write_text('[space]\nfrozen = ["Camp 9VP #1"]\n')
    with pytest.raises(DataError, match="names no card"):
        load_settings(p).space.frozen_ids(base, p)


# ----------------------------------------------------------------- proposals


def test_rendered_proposal_loads_back_with_the_edits_and_old_values(tmp_path, base):
    # Targia 3VP #1 (card 0) becomes a 2VP card: it is named for its new VP, and the
    # automatic names of the other Targia cards, which would shift, are pinned
    edits = {0: {"vp": 2, "salt": 3}, 26: {"gold": 1}}
    text = render_deck(base, edits, "# header\n")
    assert "vp = 2  # was 3" in text
    assert ("cost = { salt = 3, pepper = 2, dates = 1 }  # was "
            "{ salt = 2, pepper = 2, dates = 1 }") in text
    p = tmp_path / "proposal.toml"
    p.write_text(text)
    loaded = load_deck(p)
    expected = apply_edits(base, edits)
    assert np.array_equal(loaded.tribe_vp, expected.tribe_vp)
    assert np.array_equal(loaded.tribe_cost, expected.tribe_cost)
    assert loaded.tribe_names[0] == "Targia 2VP #4"  # named for its new VP, no clash
    assert loaded.tribe_names[1:] == base.tribe_names[1:]  # the others keep their names
    assert "[[tribe]]  # card_id 0: Targia 2VP #4" in text
    unchanged = [c for c in range(base.n_tribe) if c not in edits]
    assert np.array_equal(loaded.tribe_cost[unchanged], base.tribe_cost[unchanged])


def test_space_limits_and_repair(base):
    s = load_settings()
    assert problem(base, {0: {"vp": 5}}, s.space) is not None  # moves by 2
    assert problem(base, {c: {"vp": int(base.tribe_vp[c]) + 1} for c in range(7)},
                   s.space) == "7 changed cards (at most 6)"
    # Camel Rider 1VP #1 costs one good: a cost decrease of that good is undone
    cr = base.tribe_names.index("Camel Rider 1VP #1")
    (good,) = [k for k, v in zip(("salt", "pepper", "dates", "gold"), base.tribe_cost[cr],
                                 strict=True) if v]
    assert repair(base, {cr: {good: -1, "vp": 1}}, s) == {cr: {"vp": 2}}
    assert repair(base, {cr: {"gold": -1}}, s) == {}  # gold 0 stays 0: no change
    assert repair(base, {cr: {"vp": -1}}, s) == {}  # a 1VP card keeps its VP (min_vp 1)
    assert problem(base, {cr: {"vp": 0}}, s.space) is not None
    edits = {3: {"vp": 1, "salt": 0}, 40: {"gold": 1}}
    assert parse_key(edits_key(edits)) == edits


# ----------------------------------------------------------------- known answers


def test_metrics_known_answer_cluster_by_deal():
    # two deals of two games (seat-swapped); card 0 played by the winner of games 0 and 2,
    # by the loser of game 1; card 1 offered in games 0 and 3 and taken only in game 0
    games = pl.DataFrame({"game_id": [0, 1, 2, 3], "winner": [0, 1, -1, 1],
                          "first_player": [0, 1, 0, 1], "rounds": [12, 12, 11, 12],
                          "tiebreak": ["none", "none", "draw", "gold"], "pair_id": [0, 0, 1, 1]})
    offers = pl.DataFrame({"game_id": [0, 0, 3], "card_id": [0, 1, 1]})
    acq = pl.DataFrame({"game_id": [0, 0, 1, 2], "player": [0, 1, 0, 0],
                        "card_id": [0, 1, 0, 0], "source": ["centre"] * 4,
                        "outcome": ["played", "kept", "played", "played"]})
    stats = reduce_games(games, offers, acq, n_cards=2).stats()
    rate, se = stats.cards["play_win"].rate()
    assert rate[0] == pytest.approx((1 + 0 + 0.5) / 3)
    acq_rate, _ = stats.cards["acquire"].rate()
    assert acq_rate[1] == pytest.approx(1 / 2) and acq_rate[0] == pytest.approx(1.0)
    g, _ = stats.game.rate()
    assert g[0] == pytest.approx((1 + 1 + 0.5 + 1) / 4)  # the first player's points
    assert g[1] == pytest.approx(2 / 4) and g[2] == pytest.approx(47 / 4)
    assert stats.deals == 2 and stats.cards["play_win"].values["clusters"][0] == 2


def test_a_candidate_cannot_look_balanced_by_leaving_a_compared_card_unplayed():
    from targi_sim.fairness.objective import UNMEASURED, terms
    from targi_sim.fairness.settings import Objective

    games = pl.DataFrame({"game_id": [0, 1], "winner": [0, 1], "first_player": [0, 1],
                          "rounds": [12, 12], "tiebreak": ["none"] * 2, "pair_id": [0, 1]})
    acq = pl.DataFrame({"game_id": [0, 1], "player": [0, 0], "card_id": [0, 0],
                        "source": ["centre"] * 2, "outcome": ["played"] * 2})
    stats = reduce_games(games, pl.DataFrame({"game_id": [0], "card_id": [0]}), acq, 2).stats()
    deck = type("D", (), {"tribe_vp": np.array([1, 1])})()
    obj = Objective(min_plays=1)
    assert terms(stats, deck, obj).spread == 0.0  # one measured card: nothing to compare
    # card 1 was compared in the base deck but is never played here: the worst spread
    assert terms(stats, deck, obj, (np.array([True, True]), 1, 0.0)).spread == UNMEASURED
    # moving a compared card out of its VP group leaves fewer comparisons than the base had
    from targi_sim.fairness.objective import comparisons
    assert comparisons(np.array([1, 1, 2]), np.array([True, True, True])) == 1
    assert comparisons(np.array([1, 2, 2]), np.array([True, True, True])) == 1
    assert comparisons(np.array([1, 2, 3]), np.array([True, True, True])) == 0


def test_a_candidate_cannot_look_balanced_by_making_a_compared_card_rare():
    """The reproducer of the 2026-12-02 benchmark: gold +1 on three cards made them so
    rarely played (about 40 plays in 60,000 deals, from thousands) that the debiasing
    subtracted their noise and the spread fell 57%. A compared card must keep the play
    rate that min_plays is in the base measurement."""
    from targi_sim.fairness.objective import UNMEASURED, compared_cards, terms
    from targi_sim.fairness.settings import Objective

    def stats_with(plays_of_card_1: int):
        n = 400
        ids = np.arange(n)
        games = pl.DataFrame({"game_id": ids, "winner": ids % 2, "first_player": ids % 2,
                              "rounds": [12] * n, "tiebreak": ["none"] * n, "pair_id": ids})
        card = np.where(ids < plays_of_card_1, 1, 0)  # card 1 in the first games, else 0
        acq = pl.DataFrame({"game_id": np.concatenate([ids, ids]),
                            "player": np.concatenate([ids % 2, 1 - ids % 2]),
                            "card_id": np.concatenate([np.zeros(n, int), card]),
                            "source": ["centre"] * (2 * n), "outcome": ["played"] * (2 * n)})
        offers = pl.DataFrame({"game_id": ids, "card_id": np.zeros(n, int)})
        return reduce_games(games, offers, acq, 2).stats()

    deck = type("D", (), {"tribe_vp": np.array([1, 1])})()
    obj = Objective(min_plays=100)
    base = stats_with(plays_of_card_1=300)
    base_terms = terms(base, deck, obj)
    assert base_terms.eligible.all()
    fixed = compared_cards(deck, base_terms, obj.min_plays)
    assert terms(base, deck, obj, fixed).spread != UNMEASURED
    assert terms(stats_with(plays_of_card_1=150), deck, obj, fixed).spread != UNMEASURED
    rare = terms(stats_with(plays_of_card_1=40), deck, obj, fixed)
    assert np.isfinite(rare.card_se[1])  # measured, but too rarely to be compared
    assert rare.spread == UNMEASURED


def test_debiased_spread_known_answer():
    groups = np.array([1, 1, 1, 2, 2, 2])
    every = np.ones(6, dtype=bool)
    values = np.array([0.4, 0.5, 0.6, 0.3, 0.5, 0.7])
    assert debiased_spread(values, np.zeros(6), groups, every) == pytest.approx(
        np.sqrt((2 * 0.01 + 2 * 0.04) / 4))
    # differences no larger than the sampling noise: no true spread at all
    assert debiased_spread(values, np.full(6, 0.5), groups, every) == 0.0
    # a group with a single eligible card adds nothing
    assert debiased_spread(values, np.zeros(6), groups,
                           np.array([1, 1, 1, 1, 0, 0], bool)) == pytest.approx(0.1)


# ----------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bal") / "full"
    events: list[tuple[str, int, int]] = []
    result = balance_deck(TINY, out, validation_progress=lambda *e: events.append(e))
    result.progress_events = events  # type: ignore[attr-defined]
    return result, out


def test_tiny_search_writes_a_proposal_and_a_validation(tiny_run, base):
    result, out = tiny_run
    for name in ("proposal.toml", "changes.csv", "validation.csv", "validation_cards.csv",
                 "validation.md", "search.csv", "study.journal"):
        assert (out / name).is_file(), name
    assert result.state.games >= TINY.budget and result.state.base is not None
    assert len(result.edits) <= 6
    loaded = result.proposal
    assert np.array_equal(loaded.tribe_cost, apply_edits(base, result.edits).tribe_cost)
    table = result.validation.table
    assert set(table["term"]) >= {"spread", "first_player", "objective"}
    assert ((table["lo"] <= table["change"] + 1e-12)
            & (table["change"] <= table["hi"] + 1e-12)).all()
    assert result.state.best.value <= result.state.base.value  # the base was a candidate
    md = (out / "validation.md").read_text()
    assert "## Findings" in md and "card-value spread" in md and "## Verdict" in md
    assert "the spread compares" in md and "nan" not in md.lower()
    assert (out / "validation.html").read_text().count("<table>") >= 2
    # identical printed cards move together: no class of copies is split
    from targi_sim.balance.space import split_classes

    assert split_classes(result.edits, result.classes) == []


def test_cards_without_a_value_are_not_listed_as_moved(tiny_run, base):
    """Under a strategy that plays few cards most values are NaN; polars orders NaN
    above every number, so a naive `lo > 0` listed each of them as "moved"."""
    import dataclasses

    from targi_sim.balance.output import summary_markdown
    from targi_sim.balance.searching import Evaluator

    result, _ = tiny_run
    cards = result.validation.cards.with_columns(
        pl.when(pl.col("card_id") >= 5).then(float("nan")).otherwise(pl.col(c)).alias(c)
        for c in ("value_base", "value_proposal", "change", "lo", "hi"))
    val = dataclasses.replace(result.validation, cards=cards)
    ev = Evaluator(TINY, load_settings(), None, 1)
    md = summary_markdown(TINY, ev, result.edits, {}, result.state, val)
    moved = md.split("## Classes whose value moved beyond its interval")[1].split("Files:")[0]
    assert "nan" not in moved.lower()
    # classes whose first card is 5 or more: 40 classes minus cards 0, 1, 2 (2 and 3), 4
    assert "36 class(es) were not played in either deck" in md


def test_validation_reports_its_own_progress(tiny_run):
    """The validation phase counts its own games and resamples, so the CLI can show
    its elapsed time and ETA (it is not the search's budget)."""
    result, _ = tiny_run
    events = result.progress_events
    tune = [e for e in events if e[0] == "retune"]
    play = [e for e in events if e[0] == "play"]
    boot = [e for e in events if e[0] == "bootstrap"]
    assert [e[0] for e in events] == (["retune"] * len(tune) + ["play"] * len(play)
                                      + ["bootstrap"] * len(boot))
    assert tune[-1][1:] == (2, 2)
    assert play[-1][1] == play[-1][2] == 2 * result.validation.games  # both decks
    assert [d for _, d, _ in play] == sorted(d for _, d, _ in play) and len(play) >= 2
    assert boot[-1][1] == boot[-1][2] == TINY.resamples


def test_resumed_search_matches_an_uninterrupted_one(tiny_run, tmp_path):
    result, _ = tiny_run
    out = tmp_path / "resumed"
    assert balance_deck(TINY, out, stop_after=3) is None
    resumed = balance_deck(TINY, out)  # the same call again continues the search
    assert resumed.state.history == result.state.history
    assert resumed.edits == result.edits
    import dataclasses

    with pytest.raises(Exception, match="holds a balance search with other settings"):
        balance_deck(dataclasses.replace(TINY, seed=4), out)


def test_cli_usage_errors_exit_2(tmp_path):
    r = runner.invoke(app, ["balance", "--budget", "lots", "--out", str(tmp_path / "b")])
    one_error_line(r, "--budget")
    r = runner.invoke(app, ["balance", "--strategies", "nobody", "--out", str(tmp_path / "b")])
    one_error_line(r, "nobody")
    bad = tmp_path / "obj.toml"
    bad.write_text("[space]\nstep = 9\n")
    r = runner.invoke(app, ["balance", "--objective", str(bad), "--out", str(tmp_path / "b")])
    one_error_line(r, str(bad), "step")
    r = runner.invoke(app, ["balance", "--help"])
    assert r.exit_code == 0 and "common random numbers" in r.output


def test_result_does_not_depend_on_jobs(tiny_run, tmp_path):
    result, _ = tiny_run
    two = balance_deck(TINY, tmp_path / "two", jobs=2)
    assert two.state.history == result.state.history and two.edits == result.edits
    assert two.validation.table.equals(result.validation.table)


def test_a_dask_cluster_gives_the_same_proposal(tiny_run, tmp_path):
    """Two external `dask worker` processes: the search's history, the proposal and
    the validation equal the local run's."""
    from tests.dask_cluster import dask_cluster

    result, _ = tiny_run
    with dask_cluster(tmp_path) as address:
        remote = balance_deck(TINY, tmp_path / "dask", backend="dask", scheduler=address)
    assert remote.state.history == result.state.history and remote.edits == result.edits
    assert remote.validation.table.equals(result.validation.table)


def test_cli_runs_a_tiny_search_with_its_bars(tmp_path, monkeypatch):
    """The command end to end: search and validation bars (their callbacks), the
    summary lines and the written proposal, whose header repeats the command once."""
    out = tmp_path / "cli"
    args = ["balance", "--budget", "2400", "--block-deals", "200", "--blocks", "2",
            "--validate-deals", "300", "--seed", "3", "--out", str(out)]
    monkeypatch.setattr("sys.argv", ["targi-sim", *args])
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "balanced on fresh seeds (300 deals)" in r.output
    assert "card-value spread" in r.output and (out / "proposal.toml").is_file()
    assert "verdict: accepted" in r.output or "verdict: NOT accepted" in r.output
    header = (out / "proposal.toml").read_text().splitlines()[2]
    assert header.startswith("#   targi-sim balance --budget"), header  # no doubled word


def test_a_killed_search_continues_when_the_command_is_rerun(tmp_path):
    """A real SIGKILL while candidates are measured: rerunning the same command keeps
    every finished candidate, continues (its progress lines steady in a log), and ends
    with the proposal and validation of a search never stopped."""
    from tests.cli_helpers import assert_steady_progress, kill_when, piped

    args = ["balance", "--budget", "8000", "--block-deals", "200", "--blocks", "2",
            "--validate-deals", "300", "--seed", "3"]
    whole = runner.invoke(app, [*args, "-q", "--out", str(tmp_path / "whole")])
    assert whole.exit_code == 0, whole.output
    out = tmp_path / "killed"
    journal = out / "study.journal"
    kill_when([*args, "-q", "--out", str(out)],
              lambda: journal.is_file() and journal.read_text().count('"state":1') >= 3)
    assert not (out / "proposal.toml").exists()
    before = journal.read_text().count('"state":1')
    again = piped([*args, "--out", str(out)])
    assert_steady_progress(again)
    assert (out / "proposal.toml").is_file() and (out / "validation.md").is_file()
    assert journal.read_text().count('"state":1') >= before

    def body(folder):  # the proposal but its header's command line (the folder differs)
        lines = (folder / "proposal.toml").read_text().splitlines()
        return [line for line in lines if not line.startswith("#   targi-sim ")]

    assert body(out) == body(tmp_path / "whole")
    for name in ("changes.csv", "validation.md"):
        assert (out / name).read_text() == (tmp_path / "whole" / name).read_text(), name
