"""Round-robin tournaments between strategies: a win-rate matrix and Elo ratings.

Every pair of strategies (a, b) plays `games_per_pair` games (rounded up to an
even number): half with a in seat 0 and half with b in seat 0. Both halves play
the *same* seeds, and each half is itself in seat-swapped pairs (the games of
`play_games(h, seed=run_seed, strategies=(a, b))`, first player swapped within
each pair). So every deal is played with each strategy in each seat, and each
strategy starts round 1 in exactly half of the pair's games.

When both strategies are deterministic (targi_sim.play.pairing.seat_orders), the half
with b in seat 0 would replay the first half's games with the seats relabelled
(the same deal, the same strategy starting: tested), so such a pair plays all its
games with a in seat 0, in seat-swapped pairs -- twice the deals for the same
work, each strategy still starting half of the games. (Two names for the same
deterministic parameters play one game per deal, as a mirror run does.)

Reproducibility: the pair's run seed is a hash of (tournament seed, the two
strategy names in sorted order) -- the `run_seed` column of the matrix -- so a
pair's games do not depend on which other strategies take part, on the order
they are listed in, on the chunking or on the number of worker processes:

    play_games(h, seed=run_seed, strategies=(a, b))   # the half with a in seat 0
    play_games(h, seed=run_seed, strategies=(b, a))   # the half with b in seat 0
    play_games(2 * h, seed=run_seed, strategies=(a, b))  # both deterministic: all games

Work is split into chunks of games, each a pure function of (pair, half,
chunk), played in parallel with joblib (loky processes) and summed.

Uncertainty: the games played on one deal (both seats, both first players) are
correlated, so the deal is the independent unit of every interval: the matrix's
95% intervals are Wilson's on games / design effect, the design effect being the
deal-clustered variance of a's rate over the binomial one (targi_sim.stats; the
`design_effect` column).

Ratings: a Bradley-Terry model on the Elo scale, P(i beats j) = 1 / (1 +
10^((R_j - R_i) / 400)), fitted by maximum likelihood (Newton's method, numpy
only) to all pairwise results with draws counted as half a win. One virtual draw
per pair is added so that a strategy that wins every game still gets a finite
rating. The mean rating is anchored at 1500. The 95% intervals are parametric
(Wald): +-1.96 standard errors from the inverse Fisher information under the
mean-1500 constraint, i.e. uncertainty relative to the pool mean, with each
pair's game count divided by its design effect.

Goodness of fit: one rating per strategy cannot express every set of pairwise
rates (e.g. A beats B narrowly, B crushes C, but A crushes C by more than the
ratings allow). `EloFit` holds the deviance and Pearson chi-square of the
observed against the fitted rates (each pair's games divided by its design
effect) on pairs - (strategies - 1) degrees of freedom, and the p-value
(scipy.stats.chi2). When the Pearson dispersion chi2 / df exceeds 1 the
standard errors are multiplied by its square root (quasi-likelihood), and a fit
with p < 0.01 is called poor: the head-to-head matrix is then the result to
trust, not the ratings.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np
import polars as pl

from targi_sim._utils.atomic import atomic_write
from targi_sim._utils.seeds import derive_seed
from targi_sim.engine.constants import SK_MONTECARLO
from targi_sim.game.deck import Deck
from targi_sim.game.record import games_frame
from targi_sim.game.rules import Rules
from targi_sim.play.games import run_batch
from targi_sim.play.match import Match, prepare_match
from targi_sim.play.pairing import auto_pairing, pair_ids, plan, seat_orders
from targi_sim.players.strategy import Strategy, resolve_strategy
from targi_sim.stats.elo import (
    ELO_ANCHOR,
    POOR_FIT_P,
    EloFit,
    fit_elo,
    fit_elo_model,
    fit_verdict,
)
from targi_sim.stats.rates import clustered_rate

Z95 = 1.959963984540054
FAST_CHUNK = 2000  # games per chunk when no montecarlo strategy plays
SLOW_CHUNK = 10  # games per chunk with a montecarlo strategy (about 30 games/s)

# per-chunk counts, always from the point of view of the pair's first strategy `a`
_COUNTS = ("games", "wins_a", "draws", "losses_a", "score_a", "score_b")

MATRIX_COLUMNS = ("a", "b", "games", "wins_a", "draws", "losses_a", "rate_a", "ci_low",
                  "ci_high", "draw_rate", "mean_score_a", "mean_score_b", "run_seed",
                  "design_effect", "deals", "elo_rate_a")


@dataclass
class TournamentResult:
    """The outcome of `run_tournament`.

    `matrix` is long form, one row per ordered pair (a, b) with a != b: games,
    a's wins, draws, a's losses, a's rate with draws as half (`rate_a`), its 95%
    interval (`ci_low`, `ci_high`, deal-clustered), and the rate the Elo fit
    predicts (`elo_rate_a`). `elo` has one row per strategy, best first; `fit` the
    Elo model's goodness of fit (EloFit.summary()).
    """

    strategies: tuple[str, ...]
    games_per_pair: int
    seed: int
    matrix: pl.DataFrame
    elo: pl.DataFrame
    seconds: float = 0.0
    deck: str = "base"
    rules: str = "default"
    meta: dict = field(default_factory=dict)
    fit: dict = field(default_factory=dict)

    def rate_matrix(self, value: str = "rate_a") -> pl.DataFrame:
        """Wide form: one row per strategy, one column per opponent (None on the diagonal)."""
        rows = []
        for a in self.strategies:
            row: dict[str, object] = {"strategy": a}
            for b in self.strategies:
                row[b] = None if a == b else self.cell(a, b)[value]
            rows.append(row)
        return pl.DataFrame(rows)

    def cell(self, a: str, b: str) -> dict:
        """The matrix row of a against b."""
        rows = self.matrix.filter((pl.col("a") == a) & (pl.col("b") == b))
        if rows.height != 1:
            raise KeyError(f"no results for {a!r} against {b!r}")
        return rows.row(0, named=True)

    def write(self, out_dir: str | Path) -> list[Path]:
        """Write matrix/elo as Parquet and CSV plus tournament.json, each atomically."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, df in (("matrix", self.matrix), ("elo", self.elo)):
            written.append(atomic_write(out / f"{name}.parquet", df.write_parquet))
            written.append(atomic_write(out / f"{name}.csv", df.write_csv))
        meta = {
            "strategies": list(self.strategies), "games_per_pair": self.games_per_pair,
            "seed": self.seed, "deck": self.deck, "rules": self.rules,
            "seconds": round(self.seconds, 3), "elo_fit": self.fit, **self.meta,
        }
        text = json.dumps(meta, indent=2) + "\n"
        written.append(atomic_write(out / "tournament.json",
                                lambda p: Path(p).write_text(text, encoding="utf-8")))
        return written


def even_games(games_per_pair: int) -> int:
    """Games per pair as played: rounded up to an even number."""
    if games_per_pair < 1:
        raise ValueError(f"games per pair must be at least 1, got {games_per_pair}")
    return games_per_pair + games_per_pair % 2


def pair_run_seed(seed: int, a: str, b: str) -> int:
    """The run seed of pair {a, b}: a hash of the tournament seed and both names (0..2^31-1)."""
    lo, hi = sorted((a, b))
    return derive_seed("targi-tournament", seed, lo, hi)


@dataclass(frozen=True)
class _Chunk:
    """One unit of work: games start..start+n-1 of one half of one pair."""

    pair: int
    half: int  # 0: a in seat 0, 1: b in seat 0 (the seat order)
    start: int
    n: int
    run_seed: int
    pairing: str = "seat_swapped"


def _play_chunk(match: Match, chunk: _Chunk) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """(pair, counts, deal of each game, a's points per game) of one chunk, from a's view.

    Counts are those of _COUNTS. Both halves replay the same seeds, so a deal (the
    pair id of targi_sim.play.pairing) holds games of both halves.

    A pure function of its arguments: the strategy rows are copied, so nothing
    a strategy caches carries over from another chunk or process.
    """
    seeds, first, ids = plan(chunk.n, chunk.run_seed, chunk.pairing, start=chunk.start)
    G, _ = run_batch(match, seeds, first, ids, logs=False)
    games = games_frame(G)
    winner = games["winner"].to_numpy()
    a_seat = chunk.half  # the seat of strategy a in this half
    scores = (games["score_p0"].to_numpy(), games["score_p1"].to_numpy())
    counts = np.array([
        chunk.n,
        int((winner == a_seat).sum()),
        int((winner == -1).sum()),
        int((winner == 1 - a_seat).sum()),
        int(scores[a_seat].sum()),
        int(scores[1 - a_seat].sum()),
    ], dtype=np.int64)
    # a's points in each game, draws as half (summed per deal by the caller)
    a_points = (winner == a_seat) + 0.5 * (winner == -1)
    return chunk.pair, counts, pair_ids(ids, chunk.pairing), a_points


def _chunks(pairs: list[tuple[int, int]], names: Sequence[str], slow: Sequence[bool],
            layouts: Sequence[str], orders: Sequence[int], n_games: int, seed: int,
            chunk_games: int | None) -> list[_Chunk]:
    """Pair k plays n_games / orders[k] games in each of its orders[k] seat orders."""
    out = []
    for k, (i, j) in enumerate(pairs):
        run_seed = pair_run_seed(seed, names[i], names[j])
        size = chunk_games or (SLOW_CHUNK if slow[i] or slow[j] else FAST_CHUNK)
        per_order = n_games // orders[k]
        for half in range(orders[k]):
            for start in range(0, per_order, size):
                out.append(_Chunk(k, half, start, min(size, per_order - start), run_seed,
                                  layouts[k]))
    return out


def check_names(strategies: Sequence[Strategy]) -> None:
    """ValueError unless there are at least two strategies with distinct names."""
    if len(strategies) < 2:
        raise ValueError("a tournament needs at least two strategies")
    seen: dict[str, Strategy] = {}
    for s in strategies:
        if s.name in seen:
            other = seen[s.name]
            files = f" ({other.path} and {s.path})" if s.path and other.path != s.path else ""
            raise ValueError(f"strategy name {s.name!r} is used twice{files}; every strategy "
                             "in a tournament needs its own name")
        seen[s.name] = s


def matches_by_build(strategies: Sequence[str | Path | Strategy], deck: str | Deck = "base",
            rules: str | Rules = "default") -> list[Match]:
    """The tournament's matches, one per compiled build their pairs use, ready for
    targi_sim.play.builds.load_build (which compiles or loads that build by playing one game);
    preparing them compiles each plug-in's policy."""
    from targi_sim.play.builds import build_of

    strats = [resolve_strategy(s) for s in strategies]
    seen: dict[str, Match] = {}
    for a, b in combinations(strats, 2):
        match = prepare_match((a, b), deck, rules)
        seen.setdefault(build_of(match), match)
    return list(seen.values())


def run_tournament(
    strategies: Sequence[str | Path | Strategy],
    games_per_pair: int,
    seed: int = 0,
    jobs: int = 1,
    deck: str | Deck = "base",
    rules: str | Rules = "default",
    progress: Callable[[int], None] | None = None,
    *,
    chunk_games: int | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
) -> TournamentResult:
    """Play every pair of `strategies` against each other and rate them.

    `strategies` are shipped names, TOML paths or Strategy objects (names must
    be distinct). `games_per_pair` is rounded up to an even number (see the
    module docstring for how the games are laid out). `jobs` worker processes
    (joblib, loky backend) play chunks of games; the results do not depend on
    `jobs`, `chunk_games` or `backend` ("dask" with `scheduler`, or a local cluster).
    `progress(n)` is called as each chunk of n games finishes. Raises UsageError /
    DataError for unknown names / bad files and ValueError for bad arguments.
    """
    from joblib import delayed

    from targi_sim.runner.dispatch import parallel_pool

    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if chunk_games is not None and chunk_games < 1:
        raise ValueError(f"chunk_games must be at least 1, got {chunk_games}")
    n_games = even_games(games_per_pair)
    strats = [resolve_strategy(s) for s in strategies]
    check_names(strats)
    names = [s.name for s in strats]
    pairs = list(combinations(range(len(strats)), 2))
    matches = [(prepare_match((strats[i], strats[j]), deck, rules),
                prepare_match((strats[j], strats[i]), deck, rules)) for i, j in pairs]
    deck_obj, rules_obj = matches[0][0].deck, matches[0][0].rules
    slow = [s.kind == SK_MONTECARLO for s in strats]
    # two distinct names with the same deterministic parameters would replay each deal
    # relabelled: such a pair plays one game per deal (targi_sim.play.pairing)
    layouts = [auto_pairing((strats[i], strats[j])) for i, j in pairs]
    orders = [seat_orders((strats[i], strats[j])) for i, j in pairs]
    chunks = _chunks(pairs, names, slow, layouts, orders, n_games, seed, chunk_games)

    def task(c: _Chunk):
        m = matches[c.pair][c.half]
        return delayed(_play_chunk)(m, c)

    totals = np.zeros((len(pairs), len(_COUNTS)), dtype=np.int64)
    deal_points = np.zeros((len(pairs), n_games))  # at most one deal per game
    deal_games = np.zeros((len(pairs), n_games))
    t0 = time.perf_counter()
    # results arrive in completion order, tagged with their pair; sums of
    # integers and half-integers do not depend on the order
    with parallel_pool(jobs, backend, scheduler, return_as="generator_unordered") as parallel:
        for k, counts, deals, points in parallel(task(c) for c in chunks):
            totals[k] += counts
            np.add.at(deal_points[k], deals, points)
            np.add.at(deal_games[k], deals, 1.0)
            if progress is not None:
                progress(int(counts[0]))
    seconds = time.perf_counter() - t0

    run_seeds = [pair_run_seed(seed, names[i], names[j]) for i, j in pairs]
    rates = [clustered_rate(deal_points[k], deal_games[k]) for k in range(len(pairs))]
    matrix = _matrix(names, pairs, totals, run_seeds, rates)
    fit = fit_elo_model(names, matrix)
    matrix = fit.with_fitted(matrix)
    meta = {
        "strategy_files": {s.name: str(s.path) if s.path else None for s in strats},
        "strategy_sha256": {s.name: s.sha256 for s in strats},
        "deck_sha256": getattr(deck_obj, "sha256", None),
        "games_requested": games_per_pair,
        "pairing": {f"{names[i]} vs {names[j]}": layouts[k] for k, (i, j) in enumerate(pairs)},
        "seat_orders": {f"{names[i]} vs {names[j]}": orders[k]
                        for k, (i, j) in enumerate(pairs)},
    }
    return TournamentResult(
        strategies=tuple(names), games_per_pair=n_games, seed=seed, matrix=matrix,
        elo=fit.table, seconds=seconds, deck=deck_obj.name,
        rules=getattr(rules_obj, "name", str(rules)), meta=meta, fit=fit.summary(),
    )


def _matrix(names: Sequence[str], pairs: list[tuple[int, int]], totals: np.ndarray,
            run_seeds: Sequence[int], rates: Sequence | None = None) -> pl.DataFrame:
    """The long-form matrix; `rates[k]`: pair k's deal-clustered ClusteredRate of the
    first strategy (None: treat games as independent, e.g. for hand-made totals)."""
    rows = []
    for k, ((i, j), counts, run_seed) in enumerate(zip(pairs, totals, run_seeds, strict=True)):
        games, wins, draws, losses, score_a, score_b = (int(x) for x in counts)
        r = rates[k] if rates is not None else clustered_rate(
            [wins + 0.5 * draws], [games])  # one cluster: the binomial interval
        # Wilson's interval is symmetric: b's rate 1 - p has the interval (1 - hi, 1 - lo)
        bounds = ((r.lo, r.hi), (1.0 - r.hi, 1.0 - r.lo))
        deff = r.deff if rates is not None else math.nan
        for (a, b, w, l, sa, sb), (lo, hi) in zip(
                ((names[i], names[j], wins, losses, score_a, score_b),
                 (names[j], names[i], losses, wins, score_b, score_a)), bounds, strict=True):
            rate = (w + 0.5 * draws) / games
            lo, hi = min(rate, max(0.0, lo)), max(rate, min(1.0, hi))  # rounding at 0 and 1
            rows.append({
                "a": a, "b": b, "games": games, "wins_a": w, "draws": draws, "losses_a": l,
                "rate_a": rate, "ci_low": lo, "ci_high": hi,
                "draw_rate": draws / games, "mean_score_a": sa / games,
                "mean_score_b": sb / games, "run_seed": run_seed, "design_effect": deff,
                "deals": r.clusters if rates is not None else games,
            })
    order = {n: k for k, n in enumerate(names)}
    df = pl.DataFrame(rows, schema={
        "a": pl.String, "b": pl.String, "games": pl.Int64, "wins_a": pl.Int64,
        "draws": pl.Int64, "losses_a": pl.Int64, "rate_a": pl.Float64, "ci_low": pl.Float64,
        "ci_high": pl.Float64, "draw_rate": pl.Float64, "mean_score_a": pl.Float64,
        "mean_score_b": pl.Float64, "run_seed": pl.Int64, "design_effect": pl.Float64,
        "deals": pl.Int64,
    })
    return df.sort(pl.col("a").replace_strict(order), pl.col("b").replace_strict(order))


__all__ = ["ELO_ANCHOR", "EloFit", "POOR_FIT_P", "TournamentResult", "check_names",
           "even_games", "fit_elo", "fit_elo_model", "fit_verdict", "pair_run_seed",
           "run_tournament",
           "matches_by_build"]
