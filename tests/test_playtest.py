"""Games a person plays (`targi-sim play --browser`) kept as a run directory
(targi_sim.runner.playtest, targi_sim.runner.human): what `report`, `compare`, `replay`
and `calibrate --playtest` read, equal to what `run` writes when a scripted seat makes
the same choices, resumable when stopped, and refused when tampered with.

The games are played through the page's own game object (targi_sim.web.PlayTable) with
the choices of tests/play_helpers.py; test_play_web.py plays them over HTTP and
test_play_browser.py by clicking."""

from __future__ import annotations

import csv
import json
import shutil
import textwrap
from pathlib import Path

import polars as pl
import pytest
from cli_helpers import one_error_line, parquet_files
from play_helpers import play_out, playtest
from typer.testing import CliRunner

from targi_sim import InputError, scripted
from targi_sim._utils.paths import data_dir
from targi_sim.calibrate.targets import read_playtest, targets_from_playtest
from targi_sim.cli.app import app
from targi_sim.runner import RunConfig, execute, resolve_run
from targi_sim.runner.human import journal_path, read_journal
from targi_sim.runner.playtest import open_playtest
from targi_sim.runner.reading import read_run_info
from targi_sim.runner.tables import TABLES
from targi_sim.web import PlayTable

runner = CliRunner()
SEED = 4  # the directory's seed: game k is dealt from (SEED << 32) | k
GAMES = 2


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A playtest directory of two finished games against random."""
    out = tmp_path_factory.mktemp("playtest") / "games"
    with playtest(out, vs="random", seed=SEED) as (_, table):
        for _ in range(GAMES):
            assert play_out(table)["game"]["over"] is not None
    return out


def answers(run: Path, game_id: int) -> list[int]:
    return read_journal(run, game_id)[0].answers


# ------------------------------------------------------------------ the run directory


def test_the_games_are_a_complete_run_of_the_human_against_the_bot(played):
    info = read_run_info(played)  # checks the manifest, every marker and checksum
    manifest = info.manifest
    assert manifest["status"] == "complete" and manifest["counts"]["games"] == GAMES
    assert manifest["config"]["pairing"] == "one_per_deal"
    assert [s["name"] for s in manifest["strategies"]] == ["human", "random"]
    games = info.read_table("games").sort("game_id")
    assert games["p0_strategy"].to_list() == ["human"] * GAMES
    assert games["first_player"].to_list() == [0, 1]  # alternating, as `run` deals
    assert games["seed"].to_list() == [(SEED << 32) | k for k in range(GAMES)]


def test_report_reads_it(played, tmp_path):
    result = runner.invoke(app, ["report", str(played), "--out", str(tmp_path / "r"),
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    assert "human" in (tmp_path / "r" / "report.md").read_text()


def test_replay_rebuilds_each_game_from_its_answers(played, tmp_path):
    for game in range(GAMES):
        result = runner.invoke(app, ["replay", str(played), "--game", str(game)])
        assert result.exit_code == 0, result.output
        assert "Replay matches the run's logged rows" in result.output
    page = tmp_path / "g1.html"
    result = runner.invoke(app, ["replay", str(played), "--game", "1", "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert page.stat().st_size > 10_000


def test_compare_reads_it_against_the_bots_run_on_the_same_deals(played, tmp_path):
    bots = tmp_path / "bots"
    result = runner.invoke(app, ["run", "-n", str(GAMES), "--p0", "random", "--p1", "random",
                                 "--seed", str(SEED), "--pairing", "one_per_deal",
                                 "--chunk-size", "1", "--out", str(bots), "--quiet",
                                 "--jobs", "1"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["compare", str(bots), str(played), "--out",
                                 str(tmp_path / "cmp"), "--allow-different-strategies"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "cmp" / "report.html").is_file()


SCRIPT = textwrap.dedent('''\
    from targi_sim import PythonStrategy

    ANSWERS = {answers!r}  # game seed -> the option codes chosen, in order


    class Scripted(PythonStrategy):
        name = "human"
        deterministic = True

        def new_game(self, seat, seed):  # (the engine's warm-up game has no answers)
            super().new_game(seat, seed)
            self.left = list(ANSWERS.get(seed, []))

        def choose(self, view, decision):
            return decision.index_of(self.left.pop(0)) if self.left else 0
    ''')


def test_a_human_game_equals_the_game_run_plays_with_the_same_choices(played, tmp_path):
    """`targi-sim run` with a seat scripted to make the person's choices (a Python
    strategy file) writes the same tables, byte for byte."""
    script = tmp_path / "scripted.py"
    script.write_text(SCRIPT.format(answers={(SEED << 32) | k: answers(played, k)
                                             for k in range(GAMES)}))
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", "-n", str(GAMES), "--p0", str(script), "--p1",
                                 "random", "--seed", str(SEED), "--pairing", "one_per_deal",
                                 "--chunk-size", "1", "--out", str(out), "--quiet",
                                 "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert parquet_files(out) == parquet_files(played)


def test_the_compiled_scripted_kind_plays_the_same_game(tmp_path):
    """The engine's own `scripted` kind, in a batch, plays the person's game too. Against
    a deterministic bot: a script longer than 44 choices reaches the parameter column
    that reseeds the seats' random streams (SP_NOISE_REP), so a random bot would draw
    other numbers in the batch than in the person's game."""
    with playtest(tmp_path / "games", vs="balanced", seed=SEED) as (_, table):
        play_out(table)
    first = answers(tmp_path / "games", 0)
    assert len(first) <= 158  # what the scripted kind holds
    compiled = tmp_path / "compiled"
    execute(resolve_run(RunConfig(games=1, seed=SEED, p0=scripted(first, "human"),
                                  p1="balanced", pairing="one_per_deal", chunk_size=1)),
            compiled)
    for table_name in TABLES:
        mine = pl.read_parquet(tmp_path / "games" / table_name / "part-000000.parquet")
        theirs = pl.read_parquet(compiled / table_name / "part-000000.parquet")
        assert mine.equals(theirs), table_name


def test_calibrate_reads_the_directory_as_it_reads_the_playtest_csv(played, tmp_path):
    games = pl.read_parquet(sorted((played / "games").glob("part-*.parquet"))).sort("game_id")
    rounds = pl.read_parquet(sorted((played / "rounds").glob("part-*.parquet")))
    rows = []
    for g in games.iter_rows(named=True):
        for p in range(2):
            last = rounds.filter((pl.col("game_id") == g["game_id"]) & (pl.col("player") == p)
                                 ).sort("round")["display_count"][-1]
            rows.append({"game_id": g["game_id"], "player": p,
                         "first_player": int(g["first_player"] == p),
                         "winner": 0.5 if g["winner"] < 0 else float(g["winner"] == p),
                         "card_vp": g[f"card_vp_p{p}"] + g[f"ability_vp_p{p}"],
                         "row_bonus": g[f"row_bonus_p{p}"], "token_vp": g[f"tokens_p{p}"],
                         "cards": last, "end_reason": g["end_reason"], "rounds": g["rounds"]})
    path = tmp_path / "games.csv"
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    from_dir, from_csv = read_playtest(played), read_playtest(path)
    for column, values in from_csv.items():
        assert list(from_dir[column]) == list(values), column
    assert [t.band() for t in targets_from_playtest(played, "tuned").targets] == \
        [t.band() for t in targets_from_playtest(path, "tuned").targets]


def test_calibrate_refuses_a_folder_that_is_no_complete_run(tmp_path):
    result = runner.invoke(app, ["calibrate", "--playtest", str(tmp_path), "--budget", "1"])
    one_error_line(result, "no manifest.json")


# ------------------------------------------------------------------ stopping and resuming


def test_an_unfinished_game_is_kept_out_of_the_tables_and_resumes(played, tmp_path):
    out = tmp_path / "games"
    shutil.copytree(played, out)
    with playtest(out) as (_, table):  # the stored setup: no option repeated
        state = play_out(table, stop_after=7)
        game = state["game"]
        assert game["id"] == GAMES and game["answers"] == 7
    assert read_run_info(out).manifest["counts"]["games"] == GAMES
    assert json.loads(journal_path(out, GAMES).read_text())["status"] == "unfinished"
    with playtest(out) as (_, table):
        again = table.state()["game"]
        assert again["resumed"] and again["id"] == GAMES
        assert (again["view"], again["decision"], again["log"]) == (
            game["view"], game["decision"], game["log"])
        assert play_out(table)["game"]["over"]["saved"]["games"] == GAMES + 1
    assert read_run_info(out).manifest["counts"]["games"] == GAMES + 1


def test_an_interrupted_write_is_repaired_to_the_same_bytes(played, tmp_path):
    out = tmp_path / "games"
    shutil.copytree(played, out)
    before = parquet_files(out)
    (out / "chunks" / "chunk-000001.json").unlink()  # as if stopped before the marker
    (out / "games" / "part-000001.parquet").unlink()
    (out / "manifest.json").unlink()
    with playtest(out):
        pass
    assert parquet_files(out) == before
    assert read_run_info(out).manifest["counts"]["games"] == GAMES


def test_a_journal_changed_after_its_game_was_written_is_refused(played, tmp_path):
    out = tmp_path / "games"
    shutil.copytree(played, out)
    path = journal_path(out, 0)
    data = json.loads(path.read_text())
    data["answers"][-1] = data["answers"][-2]
    path.write_text(json.dumps(data))
    result = runner.invoke(app, ["replay", str(out), "--game", "0"])
    one_error_line(result, "game-000000.json", "marker")
    with pytest.raises(InputError, match="changed after game 0 was written"), playtest(out):
        pass


# ------------------------------------------------------------------ the directory's setup


def test_an_existing_directory_keeps_its_setup(played):
    setup = open_playtest(played).setup  # nothing given: its own
    assert (setup.bot.name, setup.deck.name, setup.seed) == ("random", "base", SEED)
    with pytest.raises(InputError, match="`vs` and `seed` given differ"):
        open_playtest(played, vs="greedy", seed=SEED + 1)
    assert open_playtest(played, vs="random", deck="base").setup.seed == SEED


def test_a_run_directory_or_other_files_are_not_taken_for_a_playtest(tmp_path):
    result = runner.invoke(app, ["run", "-n", "2", "--p0", "random", "--p1", "random",
                                 "--out", str(tmp_path / "run"), "--quiet", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    with pytest.raises(InputError, match="written by `targi-sim run`"):
        open_playtest(tmp_path / "run")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine")
    with pytest.raises(InputError, match="holds other files"):
        open_playtest(tmp_path / "notes")


def test_one_writer_at_a_time(played, tmp_path):
    out = tmp_path / "games"
    shutil.copytree(played, out)
    with playtest(out), pytest.raises(InputError, match="another targi-sim run is writing"), \
            playtest(out):
        pass


def test_the_table_refuses_answers_out_of_turn_and_changes_nothing(tmp_path):
    with playtest(tmp_path / "g", vs="random") as (_, table):
        state = table.start()
        d = state["game"]["decision"]
        for seq, option, status in ((d["seq"] + 1, 0, 409), (d["seq"], len(d["options"]), 400),
                                    (d["seq"], -1, 400), (d["seq"], True, 400),
                                    ("0", 0, 400)):
            with pytest.raises(Exception) as info:
                table.answer(seq, option)
            assert getattr(info.value, "status", None) == status, (seq, option)
            assert table.state() == state
        assert not journal_path(tmp_path / "g", 0).exists()  # nothing answered, nothing kept
        assert isinstance(table, PlayTable)


def test_a_budgeted_search_bot_is_read_back_from_what_is_stored(tmp_path):
    """`expert@N` is stored as the expert's file and its name: reading it back applies
    the budget again (a playtest reopened, a run replayed)."""
    pdir = open_playtest(tmp_path / "games", vs="expert@5")
    with pdir.rd.locked():
        pdir.create()
    again = open_playtest(tmp_path / "games").setup.bot
    assert (again.name, again.sha256) == ("expert@5", pdir.setup.bot.sha256)
    result = runner.invoke(app, ["run", "-n", "2", "--p0", "expert@5", "--p1", "random",
                                 "--out", str(tmp_path / "run"), "--quiet", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["replay", str(tmp_path / "run"), "--game", "1"])
    assert result.exit_code == 0, result.output
    assert "Replay matches" in result.output


def test_a_python_bot_must_be_given_again_to_reopen(tmp_path):
    """A .py bot's code is never loaded from the directory: reopening asks for the file."""
    bot = str(data_dir() / "strategies" / "oasis-first.py")
    pdir = open_playtest(tmp_path / "games", vs=bot)
    with pdir.rd.locked():
        pdir.create()
    with pytest.raises(InputError, match="its bot is a .py strategy; give it again"):
        open_playtest(tmp_path / "games")
    assert open_playtest(tmp_path / "games", vs=bot).setup.bot.sha256 == pdir.setup.bot.sha256
