"""Targets: the facts about the real game a calibrated economy must reproduce, per level
of play, each with its source; or a designer's playtest games turned into targets.

A target file (TOML):

    name = "real-game-shape"
    [[target]]
    level = "tuned"              # a level of --levels, or "*" for every level
    figure = "card_point_share"  # targi_sim.calibrate.figures.FIGURES
    min = 0.5                    # and/or max; a figure inside [min, max] misses by 0
    scale = 0.05                 # optional: the miss that counts as one unit
    source = "rulebook scoring example: 21 of 33 points from cards"

A playtest CSV: one row per player and game, with the columns PLAYTEST_COLUMNS
(docs/calibrate.md). Each figure it yields becomes a target at the playtest level: the
playtest's estimate plus or minus its 95% interval (at least `min_half_width`).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from targi_sim.errors import DataError, FieldReader, read_toml
from targi_sim.stats.rates import Z95, clustered_rate, ratio_variance

from .figures import FIGURES, PLAYTEST_FIGURES
from .space import resolve_calibration_file

TARGET_KEYS = ("level", "figure", "min", "max", "scale", "source")
PLAYTEST_COLUMNS = ("game_id", "player", "first_player", "winner", "card_vp", "row_bonus",
                    "token_vp", "cards", "end_reason", "rounds")
END_REASONS = ("display_full", "final_raid")


@dataclass(frozen=True)
class Target:
    """A band [lo, hi] for one figure at one level (None: unbounded on that side)."""

    level: str
    figure: str
    lo: float | None
    hi: float | None
    scale: float
    source: str

    def miss(self, value: float) -> float:
        """How far `value` lies outside the band, in units of `scale` (0 inside; a
        figure that could not be measured, NaN, misses by 10 units)."""
        if value is None or math.isnan(value):
            return 10.0
        below = (self.lo - value) if self.lo is not None else 0.0
        above = (value - self.hi) if self.hi is not None else 0.0
        return max(0.0, below, above) / self.scale

    def met(self, est: Estimate | None) -> bool:
        """The figure's estimate lies in the band. Not "its interval reaches the band":
        over re-tuned players an economy can be bimodal (some re-tunes play cards, some
        race for tokens), and with four re-tunes a card share of 32% had an interval of
        0-100% that "reached" a band of >= 50% (docs/calibrate.md). A figure not
        measured is not met."""
        return est is not None and not math.isnan(est.value) and self.miss(est.value) == 0

    def band(self) -> str:
        if self.lo is not None and self.hi is not None:
            return f"{_fmt(self.lo)}..{_fmt(self.hi)}"
        return f">= {_fmt(self.lo)}" if self.lo is not None else f"<= {_fmt(self.hi)}"


def _fmt(x: float) -> str:
    return f"{x:.3g}"


@dataclass(frozen=True)
class Targets:
    name: str
    targets: tuple[Target, ...]
    path: Path | None = None

    def for_level(self, level: str) -> list[Target]:
        return [t for t in self.targets if t.level == level]


def _number(r: FieldReader, key: str) -> float | None:
    if key not in r.data:
        return None
    v = r.data[key]
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise r.error(key, v, "a number", "has the wrong type")
    return float(v)


def load_targets(name_or_path: str | Path, levels: list[str], *,
                 strict: bool = True) -> Targets:
    """Read and check a target file; "*" levels are expanded over `levels`. `strict`
    False: targets of other levels are left out (balance measures only its levels)."""
    path = resolve_calibration_file("target file", name_or_path)
    _, data = read_toml(path)
    top = FieldReader(path, None, data)
    top.check_keys(("name", "description", "target"), required=("target",))
    items = top.get_list("target")
    if not items:
        raise top.error("target", items, "at least one [[target]]", "is empty")
    out: list[Target] = []
    for i, item in enumerate(items):
        r = FieldReader(path, f"target {i + 1}", item)
        r.check_keys(TARGET_KEYS, required=("level", "figure", "source"))
        level = r.get_str("level")
        if level != "*" and level not in levels and not strict:
            continue
        if level != "*" and level not in levels:
            raise r.error("level", level, ["*", *levels], "is not a level of this calibration")
        figure = r.get_choice("figure", tuple(FIGURES))
        lo, hi = _number(r, "min"), _number(r, "max")
        if lo is None and hi is None:
            raise r.error("min", None, "min and/or max", "is missing (a target needs a band)")
        if lo is not None and hi is not None and lo > hi:
            raise r.error("max", hi, f"a number >= min ({lo})", "is below min")
        scale = _number(r, "scale")
        if scale is not None and scale <= 0:
            raise r.error("scale", scale, "a number > 0", "is out of range")
        source = r.get_str("source")
        for lv in (levels if level == "*" else [level]):
            if figure == "beats_previous" and lv == levels[0]:
                if level == "*":
                    continue
                raise r.error("figure", figure, "a figure other than beats_previous",
                              f"cannot apply to the first level ({lv}): nothing is below it")
            out.append(Target(lv, figure, lo, hi, scale or FIGURES[figure].scale, source))
    return Targets(top.get_str("name", path.stem), tuple(out), path)


# ----------------------------------------------------------------- playtest games
@dataclass(frozen=True)
class Estimate:
    """A figure measured on some games: value, 95% interval, independent units."""

    value: float
    lo: float
    hi: float
    units: int


def ratio_estimate(x: np.ndarray, n: np.ndarray) -> Estimate:
    """sum x / sum n with a cluster-robust normal interval (one cluster per entry)."""
    x, n = np.asarray(x, dtype=float), np.asarray(n, dtype=float)
    keep = n > 0
    x, n = x[keep], n[keep]
    if not n.size:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    r, var = ratio_variance(len(n), x.sum(), n.sum(), (x * x).sum(), (x * n).sum(),
                            (n * n).sum())
    se = math.sqrt(var) if math.isfinite(var) else float("nan")
    return Estimate(float(r), float(r - Z95 * se), float(r + Z95 * se), int(n.size))


def rate_estimate(points: np.ndarray, trials: np.ndarray) -> Estimate:
    """A rate (draws as half) per cluster, with the clustered Wilson interval."""
    r = clustered_rate(points, trials)
    return Estimate(r.rate, r.lo, r.hi, r.clusters)


def read_playtest(path: str | Path) -> dict[str, np.ndarray]:
    """The CSV's columns as arrays, checked (DataError naming file, row and column); or,
    for a run directory (the games `targi-sim play --browser` keeps, or any run), the
    same columns from its tables (`run_playtest_columns`)."""
    path = Path(path)
    if path.is_dir():
        return run_playtest_columns(path)
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
            header = rows[0].keys() if rows else []
    except FileNotFoundError:
        raise DataError(path, None, None, problem="cannot be read: file not found") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise DataError(path, None, None, problem=f"cannot be read: {exc}") from None
    if not rows:
        raise DataError(path, None, None, PLAYTEST_COLUMNS, problem="has no games (columns: "
                        + ", ".join(PLAYTEST_COLUMNS) + ")")
    missing = [c for c in PLAYTEST_COLUMNS if c not in header]
    if missing:
        raise DataError(path, "header", missing[0], None, PLAYTEST_COLUMNS, "is missing")
    out: dict[str, list] = {c: [] for c in PLAYTEST_COLUMNS}
    for i, row in enumerate(rows):
        where = f"row {i + 2}"
        for c in PLAYTEST_COLUMNS:
            raw = (row.get(c) or "").strip()
            if c == "end_reason":
                if raw not in END_REASONS:
                    raise DataError(path, where, c, raw, END_REASONS, "is not a known value")
                out[c].append(raw)
                continue
            try:
                v = float(raw)
            except ValueError:
                raise DataError(path, where, c, raw, "a number", "has the wrong type") from None
            if c in ("player", "first_player") and v not in (0, 1):
                raise DataError(path, where, c, raw, "0 or 1", "is out of range")
            if c == "winner" and v not in (0, 0.5, 1):
                raise DataError(path, where, c, raw, "1 (won), 0.5 (draw) or 0 (lost)",
                                "is out of range")
            if c not in ("game_id",) and v < 0:
                raise DataError(path, where, c, raw, "a number >= 0", "must not be negative")
            out[c].append(v)
    return {c: np.array(v) for c, v in out.items()}


def run_playtest_columns(run: str | Path) -> dict[str, np.ndarray]:
    """A complete run directory's games as the playtest CSV's columns: one row per game
    and player, card VP with ability VP (both are points from cards, as the measurement
    counts them), `cards` the display's size after the game's last round. ReportError
    (one line) for a directory that is no complete run."""
    import polars as pl

    from targi_sim.runner.reading import read_run_info

    info = read_run_info(run)
    games = info.read_table("games")
    last = (info.read_table("rounds").sort("round").group_by("game_id", "player")
            .agg(pl.col("display_count").last().alias("cards")))
    rows = []
    for p in range(2):
        rows.append(games.select(
            pl.col("game_id"), pl.lit(p).alias("player"),
            (pl.col("first_player") == p).cast(pl.Float64).alias("first_player"),
            pl.when(pl.col("winner") == p).then(1.0).when(pl.col("winner") < 0).then(0.5)
            .otherwise(0.0).alias("winner"),
            (pl.col(f"card_vp_p{p}") + pl.col(f"ability_vp_p{p}")).alias("card_vp"),
            pl.col(f"row_bonus_p{p}").alias("row_bonus"),
            pl.col(f"tokens_p{p}").alias("token_vp"),
            pl.col("end_reason").cast(pl.Utf8), pl.col("rounds")))
    table = (pl.concat([r.with_columns(pl.col(c).cast(pl.Float64) for c in r.columns
                                       if c != "end_reason") for r in rows])
             .join(last.with_columns(pl.col("game_id").cast(pl.Float64),
                                     pl.col("player").cast(pl.Float64),
                                     pl.col("cards").cast(pl.Float64)),
                   on=["game_id", "player"], how="left")
             .with_columns(pl.col("cards").fill_null(0.0))
             .sort("game_id", "player"))
    return {c: table[c].to_numpy() for c in PLAYTEST_COLUMNS}


def shape_estimates(*, games: np.ndarray, players: np.ndarray, card_vp: np.ndarray,
                    row_bonus: np.ndarray, token_vp: np.ndarray, full: np.ndarray,
                    rounds: np.ndarray, cards: np.ndarray, first_won: np.ndarray,
                    firsts: np.ndarray, raid_losses: np.ndarray | None = None
                    ) -> dict[str, Estimate]:
    """Every game-shape figure (PLAYTEST_FIGURES) from per-unit sums, a unit being what
    is independent: a deal of simulated games (targi_sim.calibrate.measure) or a
    playtest game. `full`, `rounds`: summed over the unit's games; `first_won`: the
    round-1 first players' points (draws half) over `firsts` first players;
    `raid_losses` (units paid to raids; not in a playtest CSV) adds that figure."""
    card = card_vp + row_bonus
    out = {
        "card_point_share": ratio_estimate(card, card + token_vp),
        "display_full_share": rate_estimate(full, games),
        "cards_per_player": ratio_estimate(cards, players),
        "card_vp": ratio_estimate(card_vp, players),
        "row_bonus": ratio_estimate(row_bonus, players),
        "token_vp": ratio_estimate(token_vp, players),
        "rounds": ratio_estimate(rounds, games),
        "first_player_rate": rate_estimate(first_won, firsts),
        "score": ratio_estimate(card + token_vp, players),
    }
    if raid_losses is not None:
        out["raid_losses"] = ratio_estimate(raid_losses, players)
    return out


def playtest_figures(columns: dict[str, np.ndarray]) -> dict[str, Estimate]:
    """Every PLAYTEST_FIGURES estimate of the games; the game is the unit."""
    games, index = np.unique(columns["game_id"], return_inverse=True)
    k = len(games)

    def per_game(values: np.ndarray) -> np.ndarray:
        return np.bincount(index, weights=values, minlength=k)

    players = per_game(np.ones_like(columns["player"]))
    # a game's own flags and length, read once per game (every row of a game repeats them)
    full = per_game((columns["end_reason"] == "display_full").astype(float)) / players
    return shape_estimates(
        games=np.ones(k), players=players, card_vp=per_game(columns["card_vp"]),
        row_bonus=per_game(columns["row_bonus"]), token_vp=per_game(columns["token_vp"]),
        full=full, rounds=per_game(columns["rounds"]) / players,
        cards=per_game(columns["cards"]),
        first_won=per_game(columns["first_player"] * columns["winner"]),
        firsts=per_game(columns["first_player"]))


def targets_from_playtest(path: str | Path, level: str,
                          min_half_width: dict[str, float] | None = None) -> Targets:
    """The playtest's figures as targets at `level`: estimate +- max(95% half-width,
    the figure's scale), so a small playtest does not pin the search to its noise."""
    est = playtest_figures(read_playtest(path))
    out = []
    for name, e in est.items():
        if name not in PLAYTEST_FIGURES or math.isnan(e.value):
            continue
        floor = (min_half_width or {}).get(name, FIGURES[name].scale)
        half = max(floor, (e.hi - e.lo) / 2 if math.isfinite(e.hi - e.lo) else floor)
        out.append(Target(level, name, e.value - half, e.value + half, FIGURES[name].scale,
                          f"playtest {Path(path).name}: {e.value:.3g} ({e.lo:.3g}-{e.hi:.3g})"
                          f" over {e.units} games"))
    return Targets(f"playtest {Path(path).name}", tuple(out), Path(path))


__all__ = ["END_REASONS", "PLAYTEST_COLUMNS", "Estimate", "Target", "Targets",
           "load_targets", "playtest_figures", "rate_estimate", "ratio_estimate",
           "read_playtest", "run_playtest_columns", "shape_estimates",
           "targets_from_playtest"]
