"""The skill ladder (issue 15 part 2): known answers for every measure, and a real ladder
through the CLI that reuses the runner (run directories, resume, same deals)."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass

import polars as pl
import pytest
from scipy.stats import norm

from targi_sim.errors import InputError, UsageError
from targi_sim.game.shape import game_shape
from targi_sim.play.games import run_batch
from targi_sim.report.markdown import render_markdown
from targi_sim.report.model import Table
from targi_sim.strength import ladder
from targi_sim.strength.ladder import (
    LadderResult,
    LadderRun,
    _tables,
    compared_pairs,
    first_player_flip,
    grade_flips,
    graded_at_both,
    luck_index,
    plan_ladder,
    skill_depth,
)
from targi_sim.strength.ladder_output import ladder_report
from targi_sim.strength.stability import MOVE_SCHEMA, grade_moves, move_lines


def test_the_plan_plays_each_mirror_each_step_and_top_against_bottom():
    plan = plan_ladder(["random", "greedy", "balanced"], games=1000)
    assert [r.key for r in plan] == [
        "mirror-0-random", "mirror-1-greedy", "mirror-2-balanced",
        "cross-0-1-greedy-vs-random", "cross-1-2-balanced-vs-greedy",
        "cross-0-2-balanced-vs-random"]
    assert all(r.games == 1000 for r in plan)
    assert [(r.p0, r.p1) for r in plan if r.kind == "cross"][0] == ("greedy", "random")
    capped = plan_ladder(["balanced", "montecarlo"], games=1000, search_games=40)
    assert [r.games for r in capped] == [1000, 40, 40]


@pytest.mark.parametrize("rungs,error", [(["random"], InputError),
                                         (["random", "random"], InputError),
                                         (["random", "nope"], UsageError)])
def test_a_bad_rung_list_is_refused(rungs, error):
    with pytest.raises(error):
        plan_ladder(rungs)


def _seat_table(rate, lo, hi, n=100):
    return pl.DataFrame({"strategy": ["x", "y"], "seat": [0, 1], "n": [n, n],
                         "win_rate": [rate, 1 - rate], "win_rate_lo": [lo, 1 - hi],
                         "win_rate_hi": [hi, 1 - lo], "win_rate_deff": [1.0, 1.0]})


def test_skill_depth_and_luck_index_read_the_upper_seat():
    plan = [LadderRun("c01", "cross", "b", "a", 1, 0, 100),
            LadderRun("c12", "cross", "c", "b", 2, 1, 100),
            LadderRun("c02", "cross", "c", "a", 2, 0, 100)]
    tables = {"c01": _seat_table(0.7, 0.6, 0.8), "c12": _seat_table(0.55, 0.45, 0.65),
              "c02": _seat_table(0.9, 0.85, 0.95)}
    depth = skill_depth(plan, ["a", "b", "c"], tables)
    assert depth["win_rate"].to_list() == [0.7, 0.55, 0.9]
    assert depth["adjacent"].to_list() == [True, True, False]
    luck = luck_index(depth).row(0, named=True)
    assert luck["bottom"] == "a" and luck["top"] == "c"
    assert luck["luck_index"] == pytest.approx(0.1)
    assert (luck["luck_index_lo"], luck["luck_index_hi"]) == pytest.approx((0.05, 0.15))


def test_game_shape_of_hand_built_games():
    games = pl.DataFrame({
        "game_id": [0, 1], "rounds": [12, 10], "end_reason": ["final_raid", "display_full"],
        "tiebreak": ["none", "gold"], "winner": [0, -1],
        "tokens_p0": [10, 6], "tokens_p1": [8, 4], "card_vp_p0": [4, 0], "card_vp_p1": [2, 2],
        "row_bonus_p0": [4, 0], "row_bonus_p1": [0, 0]})
    rounds = pl.DataFrame({"game_id": [0, 0, 0, 0, 1, 1], "round": [11, 11, 12, 12, 10, 10],
                           "player": [0, 1, 0, 1, 0, 1],
                           "display_count": [9, 9, 3, 5, 12, 0]})
    raids = pl.DataFrame({"game_id": [0, 1, 1], "player": [0, 0, 1], "amount": [2, 1, 1]})
    s = game_shape(games, rounds, raids)
    assert s["games"] == 2 and s["rounds"] == 11
    assert s["display_full_share"] == 0.5 and s["tiebreak_share"] == 0.5
    assert s["draw_share"] == 0.5
    assert s["cards_per_player"] == (3 + 5 + 12 + 0) / 4
    assert s["token_vp"] == 28 / 4 and s["card_vp"] == 8 / 4 and s["row_bonus"] == 1
    assert s["raid_losses"] == 1


class _Info:
    """A mirror run's tables, built by hand (what _tables reads of a RunInfo: the games
    table and the game digests)."""

    def __init__(self, **tables: pl.DataFrame):
        self.tables = tables

    def read_table(self, name: str) -> pl.DataFrame:
        return self.tables[name]

    def read_digest(self) -> pl.DataFrame:
        """The game digests' per-seat display size and raid losses, from the tables."""
        games, rounds, raids = (self.tables[t] for t in ("games", "rounds", "raids"))
        out = games.select("game_id")
        for p in (0, 1):
            seat = {"cards": rounds.filter(pl.col("player") == p).group_by("game_id")
                    .agg(pl.col("display_count").last().alias(f"cards_p{p}")),
                    "raids": raids.filter(pl.col("player") == p).group_by("game_id")
                    .agg(pl.col("amount").sum().alias(f"raid_losses_p{p}"))}
            for t in seat.values():
                out = out.join(t, on="game_id", how="left")
        return out.fill_null(0)


class _Report:
    """A mirror run's report, built by hand (what _tables reads of a Report)."""

    def __init__(self, first_rate: float):
        self.headline = pl.DataFrame({"metric": ["games decided by raids (VP)"],
                                      "value": [0.1]})
        self.frames = {
            "first_player": pl.DataFrame({"first_rate": [first_rate],
                                          "first_rate_lo": [first_rate - 0.05],
                                          "first_rate_hi": [first_rate + 0.05]}),
            "cards_symbol": pl.DataFrame({"symbol": ["Well"], "grade": ["C"],
                                          "played_wr": [0.5]}),
            "cards_tribe": pl.DataFrame({"name": ["Well 2VP"], "grade": ["C"],
                                         "played_wr": [0.5], "acquire_rate": [0.4]})}

    def table(self, key: str):
        return Table(key, key, self.frames[key])


def _mirror(tokens, card_vp, row_bonus, end_reasons, first_rate):
    """Two games of one mirror: both seats score `tokens`, `card_vp`, `row_bonus` in each."""
    n = len(end_reasons)
    games = pl.DataFrame({
        "game_id": range(n), "rounds": [12] * n, "end_reason": end_reasons,
        "tiebreak": ["none"] * n, "winner": [0] * n,
        **{f"tokens_p{p}": [tokens] * n for p in (0, 1)},
        **{f"card_vp_p{p}": [card_vp] * n for p in (0, 1)},
        **{f"row_bonus_p{p}": [row_bonus] * n for p in (0, 1)}})
    rounds = pl.DataFrame({"game_id": [g for g in range(n) for _ in (0, 1)], "round": 12,
                           "player": [0, 1] * n, "display_count": 3})
    raids = pl.DataFrame({"game_id": [0], "player": [0], "amount": [1]})
    return _Info(games=games, rounds=rounds, raids=raids), _Report(first_rate)


def test_the_ladder_says_per_rung_whether_cards_or_tokens_decide(tmp_path, monkeypatch):
    """Known answers: `tok` scores 9 token VP, 2 card VP and 1 row bonus a player (25%
    of the points from cards: decided by tokens), no game ends by a full display;
    `crd` scores 2, 5 and 1 (75% from cards: decided by cards), one game of two does."""
    names = ["tok", "crd"]
    plan = [LadderRun("m0", "mirror", "tok", "tok", 0, 0, 2),
            LadderRun("m1", "mirror", "crd", "crd", 1, 1, 2),
            LadderRun("c01", "cross", "crd", "tok", 1, 0, 2)]
    monkeypatch.setattr(ladder, "run_digest", _Info.read_digest)  # the hand-built digests
    mirrors = {0: _mirror(9, 2, 1, ["final_raid", "final_raid"], 0.375),
               1: _mirror(2, 5, 1, ["display_full", "final_raid"], 0.6)}
    tables = _tables(plan, names, {"c01": _seat_table(0.7, 0.6, 0.8)}, mirrors)
    shape = tables["game_shape"]
    assert shape["card_point_share"].to_list() == pytest.approx([0.25, 0.75])
    assert shape["display_full_share"].to_list() == [0.0, 0.5]
    tables["luck_noise"] = pl.DataFrame(schema={
        "rung": pl.String, "against": pl.String, "deals": pl.Int64, "replays": pl.Int64,
        "deal_share": pl.Float64, "p_value": pl.Float64, "within_deal_sd": pl.Float64,
        "note": pl.String})
    tables["grade_moves"] = pl.DataFrame(schema=MOVE_SCHEMA)
    result = LadderResult(tmp_path, plan, tables=tables, pairs=[("tok", "crd")],
                          compared={"tok / crd": {"symbol": 1, "card": 1}})
    report = ladder_report(result, names, 0, "base", "default", 1)
    text = report.sections[2].text
    assert ("tok mirror: 25% of the points come from cards (card VP + row bonus) — the "
            "game is decided by tokens; no game ended by a full display; the round-1 first "
            "player wins 37.5% (draws half).") in text
    assert ("crd mirror: 75% of the points come from cards (card VP + row bonus) — the "
            "game is decided by cards; 50.0% of the games ended by a full display; the "
            "round-1 first player wins 60.0% (draws half).") in text
    md = render_markdown(report)
    assert "the game is decided by tokens" in md and "the game is decided by cards" in md
    header = next(ln for ln in md.splitlines() if ln.startswith("| rung | games |"))
    assert "| card_point_share |" in header  # the game-shape table shows the column


def test_grade_flips_need_two_letters_and_enough_games():
    a = pl.DataFrame({"name": ["x", "y", "z", "w"], "grade": ["A", "B+", "A-", "C"],
                      "low_n": [False, False, True, False]})
    b = pl.DataFrame({"name": ["x", "y", "z", "w"], "grade": ["C+", "C", "F", None],
                      "low_n": [False, False, False, False]})
    assert grade_flips(a, b, "name", "lo", "hi") == ["x is A at lo but C+ at hi"]


def test_a_two_letter_move_is_significant_or_noise():
    """Known answers: x moves A -> C+ by -0.30 with errors 0.01 (z about 21: significant);
    y moves A- -> C by -0.03 with errors 0.05 (noise); w moves one letter only (no flag);
    z is not graded at the upper rung (not compared)."""
    lower = pl.DataFrame({"name": ["w", "x", "y", "z"], "grade": ["C", "A", "A-", "B"],
                          "value": [0.0, 0.20, 0.05, 0.01], "se": [0.01, 0.01, 0.05, 0.01]})
    upper = pl.DataFrame({"name": ["w", "x", "y"], "grade": ["C+", "C+", "C"],
                          "value": [0.01, -0.10, 0.02], "se": [0.01, 0.01, 0.05]})
    moves = grade_moves(lower, upper, "card", "tuned", "expert")
    by = {r["name"]: r for r in moves.iter_rows(named=True)}
    assert set(by) == {"w", "x", "y"}
    assert by["x"]["letters"] == 2 and by["x"]["verdict"] == "significant"
    assert by["x"]["change"] == pytest.approx(-0.30)
    assert by["x"]["change_se"] == pytest.approx(0.01 * 2 ** 0.5)
    assert by["y"]["letters"] == 2 and by["y"]["verdict"] == "noise"
    assert by["w"]["letters"] == 0 and by["w"]["verdict"] == ""
    p_y = 2 * norm.sf(0.03 / (0.05 * 2 ** 0.5))
    assert by["y"]["p"] == pytest.approx(p_y)
    p_w = 2 * norm.sf(0.01 / (0.01 * 2 ** 0.5))
    assert by["y"]["p_holm"] == pytest.approx(max(2 * p_w, p_y))  # Holm's step-down
    lines = move_lines(moves)
    assert len(lines) == 2 and lines[0].startswith("x is A at tuned but C+ at expert: SIGNIF")


def test_a_ladder_ending_in_a_search_compares_its_top_with_the_strongest_heuristic():
    from targi_sim.players.strategy import resolve_strategy

    def pairs(*names):
        return compared_pairs([resolve_strategy(n) for n in names])

    assert pairs("random", "greedy", "balanced") == [(1, 2)]
    assert pairs("tuned", "montecarlo-tuned", "expert") == [(1, 2), (0, 2)]
    assert pairs("balanced", "tuned", "expert-placements", "expert") == [(2, 3), (1, 3)]
    assert pairs("tuned", "expert") == [(0, 1)]


def test_graded_at_both_counts_rows_with_two_grades():
    g = pl.DataFrame({"symbol": ["x", "x", "y", "y", "z"], "rung": ["a", "b", "a", "b", "a"],
                      "grade": ["A", "B", "C", None, "D"]})
    assert graded_at_both(g, "symbol", "a", "b") == 1


def test_a_first_player_flip_needs_both_intervals_off_even():
    up = {"first_rate": 0.53, "first_rate_lo": 0.52, "first_rate_hi": 0.54}
    down = {"first_rate": 0.46, "first_rate_lo": 0.45, "first_rate_hi": 0.47}
    unsure = {"first_rate": 0.49, "first_rate_lo": 0.47, "first_rate_hi": 0.51}
    assert first_player_flip(up, down, "greedy", "balanced")
    assert not first_player_flip(up, unsure, "greedy", "balanced")
    assert not first_player_flip(up, up, "greedy", "balanced")


@dataclass
class _Done:
    returncode: int
    stdout: str
    stderr: str


def _cli(*args, cwd) -> _Done:
    """`targi-sim ladder ...` in this process, from the folder `cwd` (a process of its own
    would pay an import and an engine load per call)."""
    from typer.testing import CliRunner

    from cli.app import app

    with contextlib.chdir(cwd):
        res = CliRunner().invoke(app, ["ladder", *args])
    return _Done(res.exit_code, res.stdout, res.stderr)


def test_a_real_ladder_writes_runs_and_a_report_and_resumes(tmp_path):
    args = ("--rungs", "random,greedy,balanced", "--games", "400", "--jobs", "1",
            "--out", "lad", "--quiet")
    out = _cli(*args, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "greedy vs random:" in out.stdout and "balanced vs greedy:" in out.stdout
    assert "luck index (random against balanced)" in out.stdout
    assert "graded at both" in out.stdout
    moves = pl.read_parquet(tmp_path / "lad" / "report" / "tables" / "grade_moves.parquet")
    assert set(moves["lower"]) == {"greedy"} and set(moves["upper"]) == {"balanced"}
    assert out.stdout.rstrip().endswith("lad/report/report.html")
    lad = tmp_path / "lad"
    for name in ("report.html", "report.md", "tables/skill_depth.parquet",
                 "tables/game_shape.csv", "tables/card_grades.parquet", "plots/skill_depth.png"):
        assert (lad / "report" / name).is_file(), name
    runs = sorted(p.name for p in (lad / "runs").iterdir())
    assert len(runs) == 6
    # ordinary run directories: complete, and every run was played on the same deals
    seeds = {}
    for name in runs:
        manifest = json.loads((lad / "runs" / name / "manifest.json").read_text())
        assert manifest["status"] == "complete"
        seeds[name] = set(pl.read_parquet(lad / "runs" / name / "games" / "*.parquet")["seed"])
    assert seeds["cross-1-2-balanced-vs-greedy"] <= seeds["mirror-1-greedy"]
    assert seeds["mirror-0-random"] <= seeds["mirror-2-balanced"]
    shape = pl.read_parquet(lad / "report" / "tables" / "game_shape.parquet")
    assert shape["rung"].to_list() == ["random", "greedy", "balanced"]
    again = _cli(*args, cwd=tmp_path)  # everything complete: the same report
    assert again.returncode == 0 and again.stdout.splitlines()[:4] == out.stdout.splitlines()[:4]
    other = ("--rungs", "random,greedy", "--games", "200", "--jobs", "1", "--out", "lad",
             "--quiet")
    refused = _cli(*other, cwd=tmp_path)  # a different ladder into the same folder
    assert refused.returncode == 2 and "--force" in refused.stderr, refused.stderr[-2000:]
    assert _cli(*other, "--force", cwd=tmp_path).returncode == 0


def test_a_cross_run_stops_when_its_interval_is_narrow_and_resumes(tmp_path):
    """greedy beats random ~99%: its cross run stops at an early look, as a complete run
    of those games (the same files as a fixed run of that many), narrower than the
    target; its mirror runs play every game; a rerun plays nothing."""
    from targi_sim.runner import RunConfig, resolve_run
    from targi_sim.runner.dispatch import execute
    from targi_sim.stats.stopping import widest_half_width
    from tests.cli_helpers import parquet_files

    result = ladder.run_ladder(["random", "greedy"], tmp_path / "lad", games=4000, jobs=1)
    depth = result.tables["skill_depth"].row(0, named=True)
    assert depth["games_cap"] == 4000 and depth["games"] < 4000
    assert (depth["win_rate_hi"] - depth["win_rate_lo"]) / 2 <= widest_half_width(4000)
    stop = result.stops["cross-0-1-greedy-vs-random"]
    assert stop.games == depth["games"] and stop.lo == pytest.approx(depth["win_rate_lo"])
    cross = tmp_path / "lad" / "runs" / "cross-0-1-greedy-vs-random"
    manifest = json.loads((cross / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["config"]["games"] == stop.games
    fixed = resolve_run(RunConfig(games=stop.games, seed=0, p0="greedy", p1="random",
                                  chunk_size=manifest["config"]["chunk_size"]))
    execute(fixed, tmp_path / "fixed")
    assert parquet_files(cross) == parquet_files(tmp_path / "fixed")
    mirror = json.loads((tmp_path / "lad" / "runs" / "mirror-1-greedy" / "manifest.json"
                         ).read_text())
    assert mirror["config"]["games"] == 4000
    before = (cross / "manifest.json").read_text()
    again = ladder.run_ladder(["random", "greedy"], tmp_path / "lad", games=4000, jobs=1)
    assert again.stops == result.stops
    assert (cross / "manifest.json").read_text() == before  # not executed again
    narrower = ladder.run_ladder(["random", "greedy"], tmp_path / "narrow", games=4000,
                                 jobs=1, half_width=stop.half_width / 2)
    assert narrower.stops["cross-0-1-greedy-vs-random"].games > stop.games


def test_a_ladder_on_a_dask_cluster_equals_the_local_one(tmp_path):
    """Two external `dask worker` processes play every run and the noise replays: the
    same run files and ladder tables as local workers."""
    from tests.cli_helpers import parquet_files
    from tests.dask_cluster import dask_cluster

    args = ("--rungs", "random,greedy", "--games", "200", "--quiet")
    local = _cli(*args, "--jobs", "1", "--out", "local", cwd=tmp_path)
    assert local.returncode == 0, local.stderr[-2000:]
    with dask_cluster(tmp_path) as address:
        remote = _cli(*args, "--out", "dask", "--backend", "dask", "--scheduler", address,
                      cwd=tmp_path)
    assert remote.returncode == 0, remote.stderr[-2000:]
    for run in sorted(p.name for p in (tmp_path / "local" / "runs").iterdir()):
        assert parquet_files(tmp_path / "dask" / "runs" / run) == \
            parquet_files(tmp_path / "local" / "runs" / run), run
    for table in ("skill_depth", "game_shape", "luck_noise"):
        a = pl.read_parquet(tmp_path / "local" / "report" / "tables" / f"{table}.parquet")
        b = pl.read_parquet(tmp_path / "dask" / "report" / "tables" / f"{table}.parquet")
        assert a.equals(b), table


@pytest.mark.parametrize("args,needle", [
    (("--rungs", "random"), "at least two"),
    (("--scheduler", "tcp://127.0.0.1:1"), "--scheduler needs --backend dask"),
    (("--rungs", "random,nope"), "nope"),
    (("--games", "0"), "--games"),
])
def test_bad_ladder_input_is_one_error_line(tmp_path, args, needle):
    out = _cli(*args, "--quiet", cwd=tmp_path)
    assert out.returncode == 2, out.stderr[-2000:]
    assert "Traceback" not in out.stderr and needle in out.stderr
    assert len([ln for ln in out.stderr.splitlines() if ln.startswith("Error:")]) == 1


def test_deal_share_known_answers():
    import numpy as np

    from targi_sim.strength.ladder import deal_share

    decided = np.array([[1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1.0]])
    assert deal_share(decided)["deal_share"] == 1.0
    pure_noise = np.array([[1, 0, 1, 0], [1, 0, 1, 0], [0, 1, 0, 1.0]])
    assert deal_share(pure_noise)["deal_share"] == pytest.approx(-1 / 3)  # F = 0
    mixed = np.array([[1, 1, 0.5, 1], [0, 0.5, 0, 1], [1, 0, 1, 1], [0, 0, 0, 0.5]])
    k, r = mixed.shape
    msb = r * ((mixed.mean(axis=1) - mixed.mean()) ** 2).sum() / (k - 1)
    msw = ((mixed - mixed.mean(axis=1, keepdims=True)) ** 2).sum() / (k * (r - 1))
    got = deal_share(mixed)
    assert got["deal_share"] == pytest.approx((msb - msw) / (msb + (r - 1) * msw))
    assert 0 < got["p_value"] < 1 and got["deals"] == 4 and got["replays"] == 4


def test_a_noise_replay_keeps_the_deal_and_changes_only_random_play():
    from dataclasses import replace

    from targi_sim.engine.constants import SP_NOISE_REP
    from targi_sim.play.match import prepare_match
    from targi_sim.play.pairing import game_plan

    seeds, first, ids = game_plan(40, 5, paired=False)

    def play(pair, rep):
        m = prepare_match(pair)
        sp = m.SP.copy()
        sp[:, SP_NOISE_REP] = rep
        G, frames = run_batch(replace(m, SP=sp), seeds, first, ids, logs=True)
        return G, pl.concat([f["offers"] for f in frames])

    g0, offers0 = play(("greedy", "greedy"), 0)
    g1, offers1 = play(("greedy", "greedy"), 3)
    assert (g0 == g1).all()  # deterministic players: a replay is the same game
    r0, roffers0 = play(("random", "random"), 0)
    r1, roffers1 = play(("random", "random"), 3)
    assert not (r0 == r1).all()  # random players choose differently...
    first_round = pl.col("round") == 1
    assert roffers0.filter(first_round).equals(roffers1.filter(first_round))  # ...same deal
    assert offers0.filter(first_round).equals(roffers0.filter(first_round))
