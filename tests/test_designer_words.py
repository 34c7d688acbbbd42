"""Words a designer reads without the docs: "did you mean", a copied deck that kept a
shipped deck's name, compare given a deck file, abbreviations explained once, and a
report that speaks only of sections the run has data for."""

from __future__ import annotations

from cli_helpers import one_error_line
from report_fixture import build_fixture
from typer.testing import CliRunner

from cli.words import abbreviations_line
from targi_sim._utils.paths import data_dir
from targi_sim.cli.app import app
from targi_sim.errors import UsageError
from targi_sim.game.deck import load_deck

runner = CliRunner()
BASE = (data_dir() / "decks" / "base.toml").read_text()
OLD_COST = "cost = { salt = 1, pepper = 2, dates = 2 }"  # card_id 36, Oasis 3VP #1


def _edited() -> str:
    at = BASE.index(OLD_COST, BASE.index("# card_id 36: Oasis 3VP #1"))
    return BASE[:at] + "cost = { salt = 1, pepper = 1, dates = 1 }" + BASE[at + len(OLD_COST):]


def test_an_unknown_name_gets_a_did_you_mean():
    res = runner.invoke(app, ["run", "--deck", "bsae", "-n", "10"])
    one_error_line(res, "unknown deck 'bsae' (did you mean 'base'?)", "available: ")
    res = runner.invoke(app, ["run", "--rules", "defualt", "-n", "10"])
    one_error_line(res, "(did you mean 'default'?)")
    assert "did you mean 'balanced'" in str(UsageError("strategy", "balnced", ["balanced",
                                                                             "greedy"]))
    assert "did you mean" not in str(UsageError("strategy", "zzz", ["balanced", "greedy"]))


def test_a_copy_that_kept_a_shipped_name_is_reported_by_its_file_name(tmp_path):
    same = tmp_path / "same.toml"
    same.write_text(BASE)
    assert (load_deck(same).name, load_deck(same).declared_name) == ("base", "")  # a copy
    edited = tmp_path / "my-deck.toml"
    edited.write_text(_edited())
    deck = load_deck(edited)
    assert (deck.name, deck.declared_name) == ("my-deck.toml", "base")
    assert load_deck("base").name == "base" and not load_deck("base").declared_name
    res = runner.invoke(app, ["run", "-n", "20", "--jobs", "1", "--deck", str(edited),
                              "--out", str(tmp_path / "run"), "--quiet"])
    assert res.exit_code == 0, res.output
    notes = [s for s in res.stderr.splitlines() if s.startswith("Note: ")]
    assert len(notes) == 1 and "'my-deck.toml'" in notes[0] and "'base'" in notes[0]


def test_compare_given_a_file_asks_for_two_run_folders(tmp_path):
    run = build_fixture(tmp_path / "run")
    deck = tmp_path / "my.toml"
    deck.write_text(BASE)
    res = runner.invoke(app, ["compare", str(run), str(deck)])
    one_error_line(res, "compare wants two run folders", "my.toml' is a file",
                   "targi-sim run --deck")


def test_abbreviations_are_explained_once_and_only_when_printed():
    line = abbreviations_line(["Oasis: WR played: 52.0% -> 54.2% (p adj 2.7e-28)",
                               "Symbols: Camp (n = 10; Holm p = 0.002)"])
    assert line.startswith("Abbreviations: WR played: ")
    assert line.count("WR played") == 1 and "p adj:" in line and "Holm p:" in line
    assert "Holm:" not in line  # "Holm p" already says it
    assert "WR not taken" not in line and "VP-equivalent" not in line
    assert abbreviations_line(["nothing to explain here"]) is None


def test_report_prints_its_findings_and_no_section_without_data(tmp_path):
    from targi_sim.report.build import write_run_report

    run = build_fixture(tmp_path / "run")
    steps: list[str] = []
    _, report = write_run_report(run, tmp_path / "rep", 1, steps.append)
    assert report.findings and not any("causal card value" in s for s in steps)
    res = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "rep2"), "-q",
                              "--min-n", "1"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == "Findings:" and lines[-1].startswith("report written in ")
    assert lines[1].startswith("  - ") and report.findings[0].text.split()[0] in lines[1]
