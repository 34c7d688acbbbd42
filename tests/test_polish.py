"""Issue 18, part 4 (polish found by a new user): one card numbering with names, a
progress bar that fits 80 columns with a smooth games/s, win rates labelled by how
they count draws, rates in % in the compare report."""

from __future__ import annotations

import io
import re
import tomllib

import polars as pl
import pytest
from report_fixture import build_fixture
from rich.console import Console
from toml_writer import dumps

from targi_sim._utils.paths import data_dir
from targi_sim.errors import DataError
from targi_sim.game.deck import load_deck
from targi_sim.report import compare_runs


def _base() -> dict:
    return tomllib.loads((data_dir() / "decks" / "base.toml").read_text(encoding="utf-8"))


def test_card_numbers_are_card_ids_with_names(tmp_path):
    """Deck comments and messages counted from 1 (`tribe card #27`) while card_id counts
    from 0 (26): now every user-facing number is the card_id, with the name beside it."""
    deck = load_deck("base")
    assert deck.tribe_names[26] == "Camp 1VP #4"
    text = (data_dir() / "decks" / "base.toml").read_text(encoding="utf-8")
    comments = re.findall(r"^\[\[tribe\]\]  # card_id (\d+): (.+)$", text, re.M)
    assert [(int(i), n) for i, n in comments] == list(enumerate(deck.tribe_names))
    data = _base()
    data["tribe"][26]["cost"]["salt"] = -1
    path = tmp_path / "bad.toml"
    path.write_text(dumps(data), encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_deck(str(path))
    assert "tribe card 26 (Camp 1VP #4): field 'cost.salt'" in str(info.value)
    assert "#27" not in str(info.value)


def _frames(out: str) -> list[str]:
    return [f for f in re.split(r"\r|\n|\x1b\[[0-9;?]*[A-Za-z]", out) if f.strip()]


def test_progress_bar_fits_80_columns_and_its_rate_is_smooth():
    """Chunks of 20,000 games land in bursts: rich's recent-speed column jumped (111,102
    then 12,774 games/s). The bar now shows the mean rate since the start and keeps to
    one line of 80 columns even with a long strategy path as its description."""
    from targi_sim.cli.common import progress_bar as _progress

    clock = [0.0]
    buf = io.StringIO()
    console = Console(file=buf, width=80, force_terminal=True, color_system=None)
    rates = []
    with _progress(console, False, get_time=lambda: clock[0]) as bar:
        task = bar.add_task("balanced vs ./data/strategies/a-very-long-strategy-name.toml",
                            total=1_000_000)
        for _ in range(6):
            clock[0] += 1.5
            bar.advance(task, 20_000)  # a chunk lands ...
            bar.refresh()
            rates.append(_frames(buf.getvalue())[-1])
            clock[0] += 0.1  # ... and the next one only a while later
            bar.refresh()
            rates.append(_frames(buf.getvalue())[-1])
    frames = _frames(buf.getvalue())
    assert frames and all(len(f) <= 80 for f in frames), max(frames, key=len)
    speeds = [int(re.search(r"([\d,]+) games/s", f).group(1).replace(",", ""))
              for f in rates]
    # the mean since the start: 6 x 20,000 games in 6 x 1.6 s
    assert speeds[-1] == 12_500
    assert max(speeds) / min(speeds) < 1.1
    assert "ETA 0:01:10" in rates[-1]  # 880,000 games left at 12,500/s


def test_terminal_says_how_it_counts_draws():
    """The terminal's win rate counted draws as losses, the report's as half, without
    saying so. Now both are printed and labelled; 'draws = half' is the report's
    win_rate."""
    from targi_sim.cli.summary import render
    from targi_sim.runner.summary import Tally

    games = pl.DataFrame({"pair_id": [0, 1, 2, 3], "winner": [0, -1, 1, 0],
                          "first_player": [0, 1, 0, 1], "score_p0": [5, 4, 3, 6],
                          "score_p1": [3, 4, 5, 2], "rounds": [12] * 4,
                          "end_reason": ["final_raid"] * 4, "tiebreak": ["none"] * 4})
    tally = Tally(("a", "b"))
    tally.add(games)
    console = Console(record=True, width=120)
    render(console, tally, seconds=1.0, setup_seconds=0.0, deck="base", rules="default",
           seed=0)
    text = console.export_text()
    assert re.search(r"seat 0 \(a\) wins\s+50\.00%", text)  # 2 of 4, the draw is no win
    assert re.search(r"seat 0 \(a\), draws = half\s+62\.50%", text)  # (2 + .5) / 4
    assert re.search(r"seat 1 \(b\), draws = half\s+37\.50%", text)
    assert "wins: a draw counts as no win" in text and "win_rate" in text


def test_compare_shows_rates_in_percent(tmp_path):
    """The compare report showed 0.5904 where the run report shows 59.0%."""
    from targi_sim.report import plots

    run = build_fixture(tmp_path / "run")
    with plots.skipped():  # the numbers only: drawing is most of a small report's time
        out = compare_runs(run, run, tmp_path / "cmp", min_n=1)
    md = (out / "report.md").read_text(encoding="utf-8")
    row = next(line for line in md.splitlines() if line.startswith("| headline | first "
                                                                    "player rate |"))
    assert "| 62.5% |" in row and "+0.00 pts" in row and "0.625" not in row
    rounds = next(line for line in md.splitlines() if "Duration (mean rounds)" in line)
    assert "| 2 |" in rounds and "%" not in rounds  # a mean stays a number


def test_the_strategies_list_keeps_its_columns_for_long_names():
    """`montecarlo-tuned` (16 characters) pushed its kind column out of line."""
    from typer.testing import CliRunner

    from targi_sim.cli.app import app

    out = CliRunner().invoke(app, ["strategies"]).output.splitlines()[1:]
    rows = [line for line in out if line.startswith("  ") and "does not load" not in line]
    starts = {re.match(r"  \S+\s+", line).end() for line in rows}  # where the kind begins
    assert any("montecarlo-tuned" in line for line in rows)
    assert len(starts) == 1, rows
