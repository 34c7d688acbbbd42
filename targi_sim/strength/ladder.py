"""The skill ladder: do balance conclusions hold at every level of play?

Why: a card graded A by weak bots may be C for strong ones, and the first player's
edge changed sign between the greedy and balanced mirrors. The ladder plays each rung
against itself (a mirror run) and against the rung below (a cross run), plus the top
against the bottom, every run on the same deals (the same run seed: deal k has seed
(seed << 32) | k in every run, targi_sim.play.pairing), each an ordinary run directory
written by the runner (resumable, Parquet, joblib or Dask). Then:

* skill depth: each rung's win rate against the rung below (pair-clustered interval
  from the run's report) -- how much room for skill the deck leaves. A cross run plays
  until its interval is as narrow as asked (targi_sim.stats.stopping: looks at fixed
  game counts, stop at the first whose 95% half-width is at most the target, or at
  the cap): a rung that wins 99% needs far fewer games than one at 52%. The target by
  default is the widest interval a fixed run of the cap's games reports (at 50%), so no
  interval is wider than that;
* luck index: the share of points the bottom rung takes from the top one (0 means
  skill decides every game, 0.5 that the players do not matter), and for each cross
  match whose players draw random numbers, the share of the outcome's variance the deal
  explains when each deal is replayed with fresh policy noise (`deal_share`, ICC);
* game shape by skill: end reasons, rounds, cards, token and card VP, row bonuses, raid
  losses, tie-breaks in each mirror;
* stability of conclusions: the first player's rate, raid impact and every card's and
  symbol's grade in each mirror, with a flag on each conclusion whose sign flips, or
  whose grade moves by two letters or more, between the two strongest rungs and between
  the top rung and the strongest rung that does not search; each such move tested
  (strength/stability.py): significant, or the noise of two finite runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats as sps

from targi_sim.engine.logs import G_WINNER
from targi_sim.errors import InputError
from targi_sim.game.shape import digest_shape
from targi_sim.play.games import run_batch
from targi_sim.players.strategy import resolve_strategy
from targi_sim.runner.digests import run_digest
from targi_sim.stats.stopping import Look, look, look_schedule, widest_half_width
from targi_sim.strength.stability import move_lines, report_moves

DEFAULT_RUNGS = ("random", "greedy", "balanced", "tuned", "montecarlo-tuned", "expert")
DEFAULT_GAMES = 20_000
DEFAULT_SEARCH_GAMES = 400  # games of a run with a search seat (montecarlo-tuned ~10-20
# games/s/core, expert ~1)
LOOKS = 20  # a cross run's looks: every cap / LOOKS games


@dataclass(frozen=True)
class LadderRun:
    """One run of the ladder: `p0` is the stronger (upper) seat of a cross run."""

    key: str  # run directory name under runs/
    kind: str  # "mirror" or "cross"
    p0: str
    p1: str
    upper: int  # rung index of p0
    lower: int  # rung index of p1
    games: int


@dataclass
class LadderResult:
    out: Path
    runs: list[LadderRun]
    tables: dict[str, pl.DataFrame] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)  # rungs compared (lower, upper)
    compared: dict[str, dict[str, int]] = field(default_factory=dict)  # per pair: graded rows
    report_files: list[Path] = field(default_factory=list)
    stops: dict[str, Look] = field(default_factory=dict)  # each cross run's last look


def plan_ladder(rungs: Sequence[str], games: int = DEFAULT_GAMES,
                search_games: int = DEFAULT_SEARCH_GAMES) -> list[LadderRun]:
    """The runs a ladder plays, weakest rung first. UsageError for an unknown strategy,
    InputError for fewer than two rungs or a rung named twice."""
    strategies = [resolve_strategy(r) for r in rungs]
    names = [s.name for s in strategies]
    if len(rungs) < 2:
        raise InputError(f"a ladder needs at least two rungs; got {','.join(rungs) or 'none'}")
    if len(set(names)) != len(names):
        raise InputError(f"each strategy may be one rung only; got {','.join(names)}")
    searching = [s.searches for s in strategies]

    def n(*idx: int) -> int:
        return min(games, search_games) if any(searching[i] for i in idx) else games

    runs = [LadderRun(f"mirror-{i}-{names[i]}", "mirror", rungs[i], rungs[i], i, i, n(i))
            for i in range(len(rungs))]
    pairs = [(i + 1, i) for i in range(len(rungs) - 1)]
    if len(rungs) > 2:
        pairs.append((len(rungs) - 1, 0))
    runs += [LadderRun(f"cross-{lo}-{hi}-{names[hi]}-vs-{names[lo]}", "cross", rungs[hi],
                       rungs[lo], hi, lo, n(hi, lo)) for hi, lo in pairs]
    return runs


# ------------------------------------------------------------------ measures


def skill_depth(runs: Sequence[LadderRun], names: Sequence[str],
                seat_tables: dict[str, pl.DataFrame],
                caps: dict[str, int] | None = None) -> pl.DataFrame:
    """The upper rung's win rate (draws half) in each cross run, from the run report's
    strategies_by_seat table (seat 0 is the upper rung); `games_cap`: the most it could
    have played (`caps`, by run key; its games when not given)."""
    rows = []
    for run in runs:
        if run.kind != "cross":
            continue
        t = seat_tables[run.key].filter(pl.col("seat") == 0).row(0, named=True)
        rows.append({"rung": names[run.upper], "against": names[run.lower],
                     "adjacent": run.upper == run.lower + 1, "games": int(t["n"]),
                     "games_cap": (caps or {}).get(run.key, run.games),
                     "win_rate": t["win_rate"], "win_rate_lo": t["win_rate_lo"],
                     "win_rate_hi": t["win_rate_hi"], "design_effect": t["win_rate_deff"]})
    return pl.DataFrame(rows)


def luck_index(depth: pl.DataFrame) -> pl.DataFrame:
    """The bottom rung's share of points against the top rung (1 - the top's rate)."""
    top = depth.filter(~pl.col("adjacent")) if depth.height > 1 else depth
    return top.select(pl.col("against").alias("bottom"), pl.col("rung").alias("top"),
                      "games", (1 - pl.col("win_rate")).alias("luck_index"),
                      (1 - pl.col("win_rate_hi")).alias("luck_index_lo"),
                      (1 - pl.col("win_rate_lo")).alias("luck_index_hi"))


LETTERS = "ABCDF"
FLIP_LETTERS = 2  # a grade that moves by this many letters (A -> C) is flagged


def _step(grade: str | None) -> int | None:
    return LETTERS.index(grade[0]) if grade and grade[0] in LETTERS else None


def grade_flips(a: pl.DataFrame, b: pl.DataFrame, key: str, rung_a: str,
                rung_b: str) -> list[str]:
    """One line for every row graded in both tables (not greyed for a small sample)
    whose grade moved by FLIP_LETTERS letters or more: one letter is within the noise of
    a grade at ordinary run sizes, two are a different conclusion."""
    def graded(t: pl.DataFrame) -> pl.DataFrame:
        return t.filter(~pl.col("low_n")) if "low_n" in t.columns else t

    joined = graded(a).select(key, pl.col("grade").alias("ga")).join(
        graded(b).select(key, pl.col("grade").alias("gb")), on=key)
    out = []
    for r in joined.iter_rows(named=True):
        sa, sb = _step(r["ga"]), _step(r["gb"])
        if sa is not None and sb is not None and abs(sa - sb) >= FLIP_LETTERS:
            out.append(f"{r[key]} is {r['ga']} at {rung_a} but {r['gb']} at {rung_b}")
    return out


def graded_at_both(grades: pl.DataFrame, key: str, a: str, b: str) -> int:
    """How many rows (symbols or cards) have a grade at both rungs."""
    both = grades.filter(pl.col("rung").is_in([a, b]) & pl.col("grade").is_not_null())
    return int((both.group_by(key).len()["len"] == 2).sum())


def first_player_flip(a: dict, b: dict, rung_a: str, rung_b: str) -> list[str]:
    """A line if the first player's edge is significant with opposite signs at the two
    rungs (each interval entirely on its own side of 50%)."""
    def side(r: dict) -> int:
        return 1 if r["first_rate_lo"] > 0.5 else -1 if r["first_rate_hi"] < 0.5 else 0

    sa, sb = side(a), side(b)
    if sa and sb and sa != sb:
        return [f"the first player wins {a['first_rate']:.1%} at {rung_a} but "
                f"{b['first_rate']:.1%} at {rung_b}: the sign of the edge flips"]
    return []


def deal_share(points: np.ndarray) -> dict[str, float]:
    """How much of the outcome the deal explains, from points[deal, replay] (the same
    deal replayed with fresh policy randomness): the intraclass correlation ICC(1) of a
    one-way random-effects analysis of variance, (F - 1) / (F + r - 1) with F from
    scipy.stats.f_oneway over the deals, and F's p-value. 1: the deal decides the
    outcome given the players; 0: the players' randomness does. NaN when every replay
    of every deal ends the same (no variance at all)."""
    k, r = points.shape
    within = float(points.var(axis=1, ddof=1).mean()) if r > 1 else math.nan
    spread = float(points.std(axis=1, ddof=1).mean()) if r > 1 else math.nan
    if k < 2 or r < 2 or (within == 0 and float(points.mean(axis=1).var()) == 0):
        return {"deals": k, "replays": r, "deal_share": math.nan, "p_value": math.nan,
                "within_deal_sd": spread}
    if within == 0:  # every deal decides its outcome exactly, and deals differ
        return {"deals": k, "replays": r, "deal_share": 1.0, "p_value": 0.0,
                "within_deal_sd": 0.0}
    test = sps.f_oneway(*points)
    f = float(test.statistic)
    return {"deals": k, "replays": r, "deal_share": (f - 1) / (f + r - 1),
            "p_value": float(test.pvalue), "within_deal_sd": spread}


def noise_study(upper: str, lower: str, *, deals: int, replays: int, seed: int,
                deck: str = "base", rules: str = "default", jobs: int = 1,
                progress: Callable[[int], None] | None = None, backend: str = "loky",
                scheduler: str | None = None) -> dict[str, float]:
    """The upper strategy's points on `deals` deals (one game each, first player
    alternating) each replayed `replays` times with fresh policy randomness
    (SP_NOISE_REP), and the share of their variance the deal explains (deal_share)."""
    from joblib import delayed

    from targi_sim.engine.constants import SP_NOISE_REP
    from targi_sim.play.match import prepare_match
    from targi_sim.play.pairing import ONE_PER_DEAL, plan
    from targi_sim.runner.dispatch import parallel_pool

    match = prepare_match((upper, lower), deck, rules)
    seeds, first, ids = plan(deals, seed, ONE_PER_DEAL)

    def replay(rep: int) -> np.ndarray:
        from dataclasses import replace

        sp = match.SP.copy()
        sp[:, SP_NOISE_REP] = rep
        G, _ = run_batch(replace(match, SP=sp), seeds, first, ids, logs=False)
        winner = G[:, G_WINNER]
        return (winner == 0) + 0.5 * (winner == -1)

    cols = []
    with parallel_pool(min(jobs, replays), backend, scheduler,
                       return_as="generator") as parallel:
        for col in parallel(delayed(replay)(r) for r in range(replays)):
            cols.append(col)
            if progress is not None:
                progress(deals)  # one replay of every deal done
    return deal_share(np.column_stack(cols).astype(float))


# ------------------------------------------------------------------ playing


def run_ladder(rungs: Sequence[str] = DEFAULT_RUNGS, out: str | Path = "runs/ladder", *,
               games: int = DEFAULT_GAMES, search_games: int = DEFAULT_SEARCH_GAMES,
               seed: int = 0, deck: str = "base", rules: str = "default", jobs: int = 1,
               min_n: int = 500, force: bool = False,
               progress: Callable[[str, int, int], None] | None = None,
               backend: str = "loky", scheduler: str | None = None,
               stop: bool = True, half_width: float | None = None) -> LadderResult:
    """Play (or resume) every run of the ladder into out/runs/, then write the ladder
    report into out/report/. `progress(run key, games done, games of that run)`;
    `min_n` greys (and keeps out of the flags) rates with fewer observations; `force`
    replaces a run directory that holds a different run (else InputError). With `stop`
    each cross run plays until its interval's half-width is at most `half_width` (None:
    the widest a fixed run of its games gives, `widest_half_width`) or its games are
    played; without, every run plays its games."""
    from targi_sim.report import analyse, read_run_info
    from targi_sim.report.output import write_report
    from targi_sim.report.plots import skipped

    out = Path(out)
    plan = plan_ladder(rungs, games, search_games)
    strategies = [resolve_strategy(r) for r in rungs]
    names = [s.name for s in strategies]
    caps = {run.key: run.games for run in plan}
    seat_tables, mirrors, stops = {}, {}, {}
    for i, run in enumerate(plan):
        play = _Player(run, out / "runs" / run.key, seed, deck, rules, jobs, force, progress,
                       backend, scheduler)
        if stop and run.kind == "cross":
            stops[run.key] = play.until_narrow(half_width or widest_half_width(run.games))
            plan[i] = run = replace(run, games=stops[run.key].games)
        else:
            play.games(run.games)
        info = read_run_info(out / "runs" / run.key)
        with skipped():
            report = analyse(info, min_n=min_n)
        seat_tables[run.key] = report.table("strategies_by_seat").df
        if run.kind == "mirror":
            mirrors[run.upper] = (info, report)
    result = LadderResult(out, plan, stops=stops)
    result.tables = _tables(plan, names, seat_tables, mirrors, caps)
    result.tables["luck_noise"] = _noise(plan, strategies, rungs, seed, deck, rules, jobs,
                                         progress, backend, scheduler, caps)
    pairs = compared_pairs(strategies)
    moves = pl.concat([report_moves(mirrors[a][1], mirrors[b][1], names[a], names[b])
                       for a, b in pairs])
    result.tables["grade_moves"] = moves
    result.flags = [line for a, b in pairs for line in first_player_flip(
        mirrors[a][1].table("first_player").df.row(0, named=True),
        mirrors[b][1].table("first_player").df.row(0, named=True), names[a], names[b])]
    result.flags += move_lines(moves)
    result.pairs = [(names[a], names[b]) for a, b in pairs]
    result.compared = {f"{names[a]} / {names[b]}": {kind: moves.filter(
        (pl.col("kind") == kind) & (pl.col("lower") == names[a])).height
        for kind in ("symbol", "card")} for a, b in pairs}
    from targi_sim.strength.ladder_output import ladder_report

    result.report_files = write_report(ladder_report(result, names, seed, deck, rules, min_n),
                                       out / "report")
    return result


@dataclass
class _Player:
    """Plays one run of the ladder into its directory: all its games, or look by look
    until its interval is narrow enough (the directory grows; a rerun resumes)."""

    run: LadderRun
    path: Path
    seed: int
    deck: str
    rules: str
    jobs: int
    force: bool
    progress: Callable[[str, int, int], None] | None
    backend: str
    scheduler: str | None

    def games(self, n: int, chunk_size: int | None = None, grow: bool = False) -> None:
        from targi_sim.runner import RunConfig, resolve_run
        from targi_sim.runner.dispatch import execute

        done = 0

        def step(k: int) -> None:
            nonlocal done
            done += k
            if self.progress:
                self.progress(self.run.key, done, self.run.games)

        resolved = resolve_run(RunConfig(games=n, seed=self.seed, p0=self.run.p0,
                                         p1=self.run.p1, deck=self.deck, rules=self.rules,
                                         chunk_size=chunk_size))
        execute(resolved, self.path, jobs=self.jobs, progress=step, force=self.force,
                command=["targi-sim", "ladder"], backend=self.backend,
                scheduler=self.scheduler, grow=grow)

    def until_narrow(self, half_width: float) -> Look:
        """Look after every cap / LOOKS games (two chunks a look, so two workers play
        it); stop at the first look whose upper-seat interval is within `half_width`."""
        looks = look_schedule(self.run.games, LOOKS)
        chunk = max(2, looks[0] // 4 * 2)  # half a look, whole pairs
        had, complete = _games_held(self.path)
        if had not in looks:
            had = None  # none, or another rule's run: replaced with `force`, else refused
        elif not complete:  # stopped during a look: finish that look first
            self.games(had, chunk, grow=True)
        table = None
        for n in looks:
            if had is None or n > had:
                self.games(n, chunk, grow=True)
                table = None
            if table is None:
                table = pl.read_parquet(self.path / "games" / "*.parquet",
                                        columns=["game_id", "pair_id", "winner"])
            part = table.filter(pl.col("game_id") < n)
            winner = part["winner"].to_numpy()
            verdict = look((winner == 0) + 0.5 * (winner == -1), part["pair_id"].to_numpy(),
                           half_width, self.run.games)
            if verdict.stop:
                if self.progress:
                    self.progress(self.run.key, self.run.games, self.run.games)
                return verdict
        raise AssertionError("the last look is the cap")  # pragma: no cover


def _games_held(path: Path) -> tuple[int | None, bool]:
    """(games, complete) of the run a directory holds; (None, False) if none or unreadable."""
    from targi_sim.runner.layout import RunDir

    try:
        manifest = RunDir(path).read_manifest()
        return int(manifest["config"]["games"]), manifest["status"] == "complete"
    except Exception:  # noqa: BLE001 - anything unreadable: `execute` says what is wrong
        return None, False


NOISE_REPLAYS = 8
NOISE_DEALS = 500  # at most; a run with a Monte Carlo seat: its games / NOISE_REPLAYS


def _noise(plan, strategies, rungs, seed, deck, rules, jobs, progress, backend="loky",
           scheduler=None, caps=None) -> pl.DataFrame:
    """The deal's share of each cross match's outcome over repeated policy noise (a
    separate seed stream: deal k of seed + 1), for the matches where a seat draws
    random numbers; deterministic matches are listed with share 1 (nothing varies)."""
    rows = []
    for run in plan:
        if run.kind != "cross":
            continue
        up, low = strategies[run.upper], strategies[run.lower]
        row = {"rung": up.name, "against": low.name}
        if up.deterministic and low.deterministic:
            rows.append(row | {"deals": 0, "replays": 0, "deal_share": 1.0,
                               "p_value": math.nan, "within_deal_sd": 0.0,
                               "note": "both deterministic: the deal decides"})
            continue
        # sized by the games the run may play, not those it used: the same study
        # whether or not the cross run stopped early
        games = (caps or {}).get(run.key, run.games)
        deals = max(2, min(NOISE_DEALS, games // NOISE_REPLAYS))
        key, total, done = f"noise {run.key}", deals * NOISE_REPLAYS, 0

        def step(n: int, key: str = key, total: int = total) -> None:
            nonlocal done
            done += n
            if progress:
                progress(key, done, total)

        step(0)
        r = noise_study(rungs[run.upper], rungs[run.lower], deals=deals,
                        replays=NOISE_REPLAYS, seed=seed + 1, deck=deck, rules=rules,
                        jobs=jobs, progress=step, backend=backend, scheduler=scheduler)
        rows.append(row | r | {"note": ""})
    return pl.DataFrame(rows, schema={"rung": pl.String, "against": pl.String,
                                      "deals": pl.Int64, "replays": pl.Int64,
                                      "deal_share": pl.Float64, "p_value": pl.Float64,
                                      "within_deal_sd": pl.Float64, "note": pl.String})


def _shape(info) -> dict:
    """A mirror run's game shape from its games table and game digests (not its logs)."""
    return digest_shape(info.read_table("games"), run_digest(info))


def _tables(plan, names, seat_tables, mirrors, caps=None) -> dict[str, pl.DataFrame]:
    depth = skill_depth(plan, names, seat_tables, caps)
    shape = pl.DataFrame([{"rung": names[i], **_shape(info)}
                          for i, (info, _r) in sorted(mirrors.items())])
    stability = []
    for i, (_info, report) in sorted(mirrors.items()):
        fp = report.table("first_player").df.row(0, named=True)
        head = report.headline.filter(pl.col("metric") == "games decided by raids (VP)")
        stability.append({"rung": names[i], "first_player_rate": fp["first_rate"],
                          "first_player_lo": fp["first_rate_lo"],
                          "first_player_hi": fp["first_rate_hi"],
                          "raid_decided_share": float(head["value"][0]) if head.height
                          else float("nan")})
    symbols = pl.concat([report.table("cards_symbol").df.select(
        "symbol", pl.lit(names[i]).alias("rung"), "grade", "played_wr")
        for i, (_info, report) in sorted(mirrors.items())])
    cards = pl.concat([report.table("cards_tribe").df.select(
        "name", pl.lit(names[i]).alias("rung"), "grade", "played_wr", "acquire_rate")
        for i, (_info, report) in sorted(mirrors.items())])
    return {"skill_depth": depth, "luck_index": luck_index(depth), "game_shape": shape,
            "stability": pl.DataFrame(stability), "symbol_grades": symbols,
            "card_grades": cards}


def compared_pairs(strategies) -> list[tuple[int, int]]:
    """The rungs whose conclusions are compared: the two strongest, and the top rung
    with the strongest rung that does not search (whose card choices are all its
    weights'), so a ladder ending in a search says what changes when cards are searched."""
    top = len(strategies) - 1
    pairs = [(top - 1, top)]
    plain = [i for i, s in enumerate(strategies) if s.kind_name != "montecarlo"]
    if plain and plain[-1] < top - 1:
        pairs.append((plain[-1], top))
    return pairs


__all__ = ["DEFAULT_RUNGS", "LadderResult", "LadderRun", "deal_share", "grade_flips",
           "graded_at_both", "noise_study",
           "luck_index", "plan_ladder", "run_ladder", "skill_depth"]
