"""docs/analysis.md runs as written: its python blocks, in order, in a fresh folder.

Why: the page is for analysts who copy its examples; an example that no longer runs
(a renamed column, view or function) must fail here, not in their notebook. The
blocks share one namespace, as in a notebook; each block asserts that its SQL and
Polars answers agree, and the checks below hold the answers to the report's own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_helpers import python_blocks, run_blocks

DOC = Path(__file__).resolve().parent.parent / "docs" / "analysis.md"


@pytest.fixture(scope="module")
def namespace(tmp_path_factory) -> dict:
    """Every python block of the page run in order in a fresh folder (runs/ made there)."""
    folder = tmp_path_factory.mktemp("analysis-doc")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        ns = run_blocks(DOC, "docs/analysis.md", {"__name__": "analysis_doc"})
        ns["_folder"] = folder
    return ns


def test_the_page_has_its_examples():
    blocks = python_blocks(DOC)
    assert len(blocks) >= 10
    text = "\n".join(blocks)
    for used in ("targi_sim.run(", "targi_sim.open_run(", ".sql(", ".table(", "player_games"):
        assert used in text


def test_every_block_runs_and_the_runs_are_made_in_the_folder(namespace):
    folder = namespace["_folder"]
    for name in ("demo-small", "demo-abilities", "demo-mixed"):
        assert (folder / "runs" / name / "manifest.json").is_file()
    assert namespace["run"].games == 2000 and namespace["run"].complete


def test_the_answers_match_the_reports_queries(namespace):
    """The page's raid and first-player figures are the report's (analyses/*.sql)."""
    from targi_sim.runner.queries import Analyses
    from targi_sim.runner.reading import read_run_info

    run_dir = namespace["_folder"] / "runs" / "demo-small"
    with Analyses(read_run_info(run_dir)) as a:
        swing = a.frame("raids_swing", goods_vp=0.0, gold_vp=0.0)
        first = a.con.sql("SELECT avg(CASE WHEN winner = first_player THEN 1.0 "
                          "WHEN winner = -1 THEN 0.5 ELSE 0 END) FROM games").fetchall()[0][0]
    assert len(namespace["changed"]) == int(swing["flipped_exact"].sum())  # per pair
    assert int(swing["decided"].sum()) == namespace["decided"]
    import targi_sim

    with targi_sim.open_run(run_dir) as run:  # the page closed its runs at the end
        per_pair = namespace["first_player_points"](run).collect()
    assert per_pair["points"].sum() / per_pair["games"].sum() == pytest.approx(first)


def test_the_mean_vp_table_covers_the_played_cards(namespace):
    import targi_sim

    by_sql = namespace["by_sql"]
    with targi_sim.open_run(namespace["_folder"] / "runs" / "demo-small") as run:
        n = run.sql("SELECT count(*) FROM acquisitions WHERE outcome = 'played'").fetchall()[0][0]
    assert by_sql["played"].sum() == n
    rates = namespace["rate_by_round"]
    assert ((rates["played"] <= rates["offered"]) & (rates["offered"] > 0)).all()
