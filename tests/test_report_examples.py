"""Example games in the report (report/examples.py), and the report and viewer pages in
a real browser: Debian's Chromium driven by Playwright (.ci/run installs the package;
without it the browser tests skip and say why). Screenshots go to tests/artifacts/.

One small real run and its report are shared by the module, as is one browser."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from report_fixture import build_fixture
from typer.testing import CliRunner

from targi_sim import build_report
from targi_sim.cli.app import app
from targi_sim.report.examples import add_examples, choose_examples, write_examples
from targi_sim.report.model import Report, Section
from targi_sim.runner.reading import read_run_info

runner = CliRunner()
CHROMIUM = os.environ.get("TARGI_SIM_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts" / "browser"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("examples") / "run"
    result = runner.invoke(app, ["run", "-n", "12", "--p0", "balanced", "--p1", "random",
                                 "--chunk-size", "6", "--out", str(out), "--quiet",
                                 "--jobs", "1"])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def report(run):
    return build_report(run, min_n=1)


@pytest.fixture(scope="module")
def examples(run):
    return choose_examples(read_run_info(run))


# ----------------------------------------------------------- choosing the games


def test_the_rules_pick_the_hand_worked_games_of_the_fixture(tmp_path):
    """tests/report_fixture.py: card plays g0 r1 (seat 0, +1), g1 r2 (seat 0, +1), g2 r1
    (seat 1, +1), g3 r2 (seat 0, 6-8 after 6-4: -4). Raids at the fallback rates (a good
    0.5 VP, a gold 2 VP), loser's cost minus winner's, decided games only: g0 (loser 1)
    raid 1 0.5 - 1 = -0.5; g1 (loser 1) 1 - 0.5 = 0.5; g3 (loser 0, margin 2) raid 1
    0.5 - 0.5 = 0, raid 4 3 (VP given) - 2 (1 gold) = 1, so 1 in all, at raid 4."""
    got = [(e.section, e.rule, e.game_id, e.round, e.player, e.subject, e.value, e.margin,
            e.candidates)
           for e in choose_examples(read_run_info(build_fixture(tmp_path / "fx")))]
    assert got == [
        ("cards", "largest swing", 0, 1, 0, 0, 1.0, None, 4),
        ("cards", "largest setback", 3, 2, 0, 2, -4.0, None, 4),
        ("cards", "typical", 0, 1, 0, 0, 1.0, None, 4),  # lower median of -4, 1, 1, 1
        ("raids", "largest swing", 3, 3, 0, 4, 1.0, 2.0, 3),
        ("raids", "typical", 1, 2, 1, 1, 0.5, 1.0, 3),  # lower median of -0.5, 0.5, 1
    ]


def test_a_run_that_cannot_be_replayed_says_so_instead_of_linking(tmp_path):
    """The fixture's deck is not a loadable deck file: no pages, one sentence saying why."""
    run = read_run_info(build_fixture(tmp_path / "fx"))
    report = Report("r", [], [Section("cards", "3. Card balance"),
                              Section("raids", "4. Raid impact")], min_n=1)
    add_examples(report, run, tmp_path / "rep")
    cards, raids = report.sections
    assert not cards.links and not raids.links
    assert len(cards.text) == 1 and cards.text[0].startswith(
        "Example games were not written: this run cannot be replayed here")
    assert "targi-sim replay RUN --game ID --html FILE" in cards.text[0]
    assert not (tmp_path / "rep" / "games").exists()


def test_the_report_links_each_example_page(report, examples):
    pages = sorted(p.name for p in (report / "games").iterdir())
    assert pages == sorted({f"game-{e.game_id}.html" for e in examples})
    assert 1 <= len(pages) <= 5
    html = (report / "report.html").read_text(encoding="utf-8")
    md = (report / "report.md").read_text(encoding="utf-8")
    for e in examples:
        assert f"href='{e.page}{e.anchor}'" in html
        assert f"]({e.page}{e.anchor})" in md
    cards = html.index("id='cards'")
    raids = html.index("id='raids'")
    first_card_link = html.index("games/game-", cards)
    assert first_card_link < raids < html.index("#raid=", raids)
    largest = next(e for e in examples if e.rule == "largest swing")
    page = (report / largest.page).read_text(encoding="utf-8")
    assert f"in round {largest.round}; its lead changed by {largest.value:+g} VP" in page


def test_report_html_embeds_each_example_page_as_written(report, examples):
    """A report.html mailed without games/ still has the pages: each is in a JSON
    <script> (its '<' escaped, so nothing in it can close the element), byte for byte the
    file beside it, and every link names the one holding its page."""
    html = (report / "report.html").read_text(encoding="utf-8")
    embedded = dict(re.findall(r"<script type='application/json' id='(embedded-page-\d+)' "
                               r"data-page='[^']*'>(.*?)</script>", html, re.S))
    pages = {e.page for e in examples}
    assert len(embedded) == len(pages)
    for body in embedded.values():
        assert "<" not in body
    for e in examples:
        ident = re.search(rf"href='{re.escape(e.page + e.anchor)}' data-embedded='([^']+)'",
                          html).group(1)
        assert json.loads(embedded[ident]) == (report / e.page).read_text(encoding="utf-8")
    assert "the links open them even when report.html is read without the games/" in html


def test_old_example_pages_are_removed_and_pages_are_written_whole(run, examples, tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "game-99999.html").write_text("old")
    (tmp_path / "games" / "notes.txt").write_text("mine")
    links, note = write_examples(read_run_info(run), tmp_path, examples[:1])
    assert note == "" and len(links) == 1
    left = sorted(p.name for p in (tmp_path / "games").iterdir())
    assert left == sorted([f"game-{examples[0].game_id}.html", "notes.txt"])


# --------------------------------------------------------------------- browser


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; .ci/run "
                    "installs it; TARGI_SIM_CHROMIUM names another binary)")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright is not installed (pip install -e '.[test]')")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM,
                               args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _open(browser, path: Path, anchor: str = ""):
    page = browser.new_page(viewport={"width": 1300, "height": 1300})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.resolve().as_uri() + anchor)
    return page, errors


READ = """() => {
  const seat = p => Object.fromEntries([...document.querySelectorAll(
      `.player.seat${p} [data-res]`)].map(e => [e.dataset.res, Number(e.textContent)]));
  const targis = p => [...document.querySelectorAll(`.border-card .piece.targi[data-seat='${p}']`)]
      .map(e => Number(e.closest('.border-card').dataset.pos)).sort((a, b) => a - b);
  const robber = document.querySelector('.border-card[data-robber]');
  return {step: Number(document.body.dataset.step), kind: document.body.dataset.kind,
          round: Number(document.body.dataset.round), seats: [seat(0), seat(1)],
          targis: [targis(0), targis(1)], robber: robber ? Number(robber.dataset.pos) : null,
          story: document.getElementById('lines').textContent,
          next: document.getElementById('next').textContent,
          raid: document.getElementById('story').classList.contains('raid')};
}"""


def test_stepping_through_a_game_follows_its_logged_rounds(browser, run, report, examples):
    ex = next(e for e in examples if e.section == "raids")
    page, errors = _open(browser, report / ex.page, ex.anchor)
    opened = page.evaluate(READ)  # at #raid=K: the step that resolves raid K
    assert opened["raid"] and f"Raid {ex.subject}: seat" in opened["story"]
    page.keyboard.press("Home")
    rounds = pl.read_parquet(run / "rounds" / "*.parquet").filter(
        pl.col("game_id") == ex.game_id)
    rows = {(r["round"], r["player"]): r for r in rounds.to_dicts()}
    n = page.evaluate("window.targiViewer.steps")
    # every step, read after pressing the right-arrow key (dispatched in the page: one
    # round trip instead of n)
    reads = page.evaluate(f"""n => {{ const read = {READ}; const out = [];
        for (let i = 0; i < n; i++) {{ out.push(read());
            document.dispatchEvent(new KeyboardEvent('keydown', {{key: 'ArrowRight'}})); }}
        return out; }}""", n)
    seen_ends, seen_raid, last_decision = [], False, None
    for i, s in enumerate(reads):
        assert s["step"] == i
        seen_raid |= s["raid"]
        if s["kind"] == "e":
            seen_ends.append(s["round"])
            for p in range(2):
                row = rows[(s["round"], p)]
                assert s["seats"][p] == {
                    "salt": row["salt"], "pepper": row["pepper"], "dates": row["dates"],
                    "gold": row["gold"], "vp": row["vp_tokens"], "score": row["score_now"]}
            assert s["robber"] == rows[(s["round"], 0)]["robber_card"]
            if last_decision is not None and last_decision["round"] == s["round"] \
                    and "goods limit" not in last_decision["next"]:  # not after the clear-up
                for p in range(2):
                    logged = sorted(v for k in (1, 2, 3)
                                    if (v := rows[(s["round"], p)][f"targi_card_{k}"]) > 0)
                    assert last_decision["targis"][p] == logged
        elif s["kind"] == "d":
            last_decision = s
    assert "Game over after" in reads[-1]["story"]
    page.screenshot(path=str(ARTIFACTS / "viewer-last-step.png"), full_page=True)
    assert seen_ends == sorted({r for r, _ in rows})
    assert seen_raid
    page.keyboard.press("Home")
    page.keyboard.press("ArrowDown")  # one round: the end of round 1
    assert page.evaluate(READ)["kind"] == "e" and page.evaluate(READ)["round"] == 1
    page.click("#btn-last")
    assert page.evaluate(READ)["step"] == n - 1
    assert errors == []
    page.close()


def test_the_hidden_hand_shows_only_when_revealed(browser, report, examples):
    find = """n => { for (let i = 0; i < n; i++) { window.targiViewer.show(i);
        if (document.querySelector('.hand-card .hidden')) { return i; } } return -1; }"""
    for ex in examples:  # a game in which a seat holds a card its opponent has not seen
        page, errors = _open(browser, report / ex.page)
        hidden = page.evaluate(find, page.evaluate("window.targiViewer.steps"))
        if hidden >= 0:
            break
        page.close()
    else:
        pytest.skip("no example game has a hand card drawn unseen")
    box = page.query_selector(".hand-card .hidden").evaluate("e => e.closest('.player')"
                                                           ".dataset.seat")
    hand = f".player.seat{box} .hand-card"
    assert page.inner_text(hand).startswith("a face-down card")
    page.check("#reveal")
    assert page.evaluate("window.targiViewer.step()") == hidden
    shown = page.inner_text(hand)
    assert not shown.startswith("a face-down card") and "VP)" in shown
    assert f"seat {1 - int(box)} has not seen it" in shown
    page.uncheck("#reveal")
    assert page.inner_text(hand).startswith("a face-down card")
    assert errors == []
    page.close()


def test_sorting_a_table_sorts_it(browser, report, examples):
    """The viewer's rounds table (the report's tables are made sortable in another change)."""
    page, errors = _open(browser, report / examples[0].page)

    def column(k: int) -> list[float]:
        return page.evaluate(f"""[...document.querySelectorAll('#rounds-table tbody tr')]
            .map(r => Number(r.cells[{k}].textContent))""")

    score = len(page.query_selector_all("#rounds-table th")) - 1
    before = column(score)
    page.click(f"#rounds-table th:nth-child({score + 1})")
    assert column(score) == sorted(before)
    page.click(f"#rounds-table th:nth-child({score + 1})")
    assert column(score) == sorted(before, reverse=True)
    assert page.get_attribute(f"#rounds-table th:nth-child({score + 1})",
                              "aria-sort") == "descending"
    page.click("#rounds-table th:nth-child(1)")
    assert column(0) == sorted(column(0))
    page.screenshot(path=str(ARTIFACTS / "viewer-sorted.png"), full_page=True)
    assert errors == []
    page.close()


def test_the_report_renders_and_its_example_links_open_the_game(browser, report, examples):
    page, errors = _open(browser, report / "report.html")
    page.screenshot(path=str(ARTIFACTS / "report.png"))  # the top: a full page takes seconds
    card = next(e for e in examples if e.section == "cards")
    page.click(f"a[href='{card.page}{card.anchor}']")
    page.wait_for_function("() => document.body.dataset.kind !== undefined")
    assert page.title().startswith(f"Game {card.game_id} of ")
    s = page.evaluate(READ)
    assert (s["kind"], s["round"]) == ("e", card.round)  # opened at the end of that round
    page.screenshot(path=str(ARTIFACTS / f"example-game-{card.game_id}.png"), full_page=True)
    assert errors == []
    page.close()


def test_report_html_alone_still_opens_its_example_games(browser, report, examples,
                                                         tmp_path):
    """report.html mailed alone: no games/ beside it, the links open the embedded pages."""
    shutil.copy(report / "report.html", tmp_path / "report.html")
    assert not (tmp_path / "games").exists()
    raid = next(e for e in examples if e.section == "raids")
    page, errors = _open(browser, tmp_path / "report.html")
    page.click(f"a[href='{raid.page}{raid.anchor}']")
    page.wait_for_function("() => document.body.dataset.kind !== undefined")
    assert page.title().startswith(f"Game {raid.game_id} of ")
    s = page.evaluate(READ)
    assert s["raid"] and f"Raid {raid.subject}: seat" in s["story"]  # opened at that raid
    assert errors == []
    page.close()


def teardown_module():
    """Keep the screenshots; drop an empty artefacts folder (no browser here)."""
    if ARTIFACTS.is_dir() and not any(ARTIFACTS.iterdir()):
        shutil.rmtree(ARTIFACTS.parent, ignore_errors=True)
