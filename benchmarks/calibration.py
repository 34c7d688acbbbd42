"""Calibration of `targi-sim compare`: A/A false positives, p-value uniformity, and power.

A/A: two runs with the same configuration and different seeds differ only by chance,
so every metric compare flags is a false positive. Repeated A/A comparisons measure
the family-wise false-positive rate with Holm (target <= 0.07 at alpha 0.05), the
false-discovery proportion with Benjamini-Hochberg (in an A/A test every discovery is
false, so it is the share of comparisons with any BH discovery), and whether the raw
per-metric p-values are uniform (Kolmogorov-Smirnov, scipy.stats.kstest; target p >
0.01). Pooled KS uses the metrics whose n is at least --min-n in both runs (the
report's own threshold for trusting a row); within one comparison the metrics are
correlated, which makes the pooled KS stricter than nominal. A per-metric KS over the
repeats (independent by construction) is printed too.

Power: one tribe card made one good cheaper (--power-card, --power-good). A pilot
(--pilot-games per run) measures the change of the card's --power-metric and the MDE
that compare reports beside it; the MDE scales as 1 / sqrt(games), so the pilot says
the run size at which the MDE equals the change. --power-repeats comparisons (base vs
changed deck, fresh seeds) at that size count how often the metric is flagged (Holm,
0.05); the MDE is computed for 80% power.

    python benchmarks/calibration.py                      # the figures of docs/benchmarks.md
    python benchmarks/calibration.py --repeats 10 --games 1000 --big-repeats 0 --power-repeats 5

Runs are played in-process with the runner (the balanced mirror, base deck, default
rules: one game per deal) into --work (a temporary folder by default) and deleted after
they are analysed; repeats run in --jobs worker processes.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

SEED0 = 1_000  # A/A runs use seeds SEED0 + 2i and SEED0 + 2i + 1
POWER_SEED0 = 500_000


def play(out: Path, games: int, seed: int, deck: str = "base") -> Path:
    """One run of the balanced mirror into `out` (the runner, in this process)."""
    from targi_sim.runner import RunConfig, resolve_run
    from targi_sim.runner.dispatch import execute

    execute(resolve_run(RunConfig(games=games, seed=seed, deck=deck)), out, jobs=1)
    return out


def analysed(run: Path, min_n: int):
    """The report of a run, without drawing its plots."""
    from targi_sim.report import analyse, read_run_info
    from targi_sim.report.plots import skipped

    with skipped():
        return analyse(read_run_info(run), min_n)


def comparison(run_a: Path, run_b: Path, min_n: int) -> pl.DataFrame:
    """compare's table of every metric: values, p-values (raw, Holm, BH), mde."""
    from targi_sim.report.compare import adjust
    from targi_sim.report.family import compare_tables, with_mde

    df = with_mde(adjust(compare_tables(analysed(run_a, min_n), analysed(run_b, min_n))))
    return df.with_columns(pl.min_horizontal("n_a", "n_b").alias("n_min"))


def _one_aa(work: Path, games: int, i: int, min_n: int, seed0: int) -> pl.DataFrame:
    folder = work / f"aa-{games}-{i}"
    try:
        a = play(folder / "a", games, seed0 + 2 * i)
        b = play(folder / "b", games, seed0 + 2 * i + 1)
        return comparison(a, b, min_n).with_columns(pl.lit(i).alias("repeat"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _parallel(jobs: int):
    from joblib import Parallel

    return Parallel(n_jobs=jobs, backend="loky")


@dataclass
class AAResult:
    games: int
    repeats: int
    tables: pl.DataFrame  # every comparison's rows, with a `repeat` column
    min_n: int
    seconds: float = 0.0
    per_repeat: pl.DataFrame = field(init=False)

    def __post_init__(self) -> None:
        t = self.tables.filter(pl.col("p_value").is_not_nan())
        self.per_repeat = t.group_by("repeat").agg(
            (pl.col("p_holm") < 0.05).sum().alias("holm"),
            (pl.col("p_bh") < 0.05).sum().alias("bh"),
            pl.len().alias("tests"),
            (pl.col("p_value") < 0.05).sum().alias("raw_05"),
            (pl.col("p_value") < 0.01).sum().alias("raw_01")).sort("repeat")

    def summary(self) -> dict:
        from scipy.stats import kstest

        from targi_sim.stats.rates import wilson_interval

        r = self.per_repeat
        any_holm = int((r["holm"] > 0).sum())
        any_bh = int((r["bh"] > 0).sum())
        tested = self.tables.filter(pl.col("p_value").is_not_nan())
        trusted = tested.filter(pl.col("n_min") >= self.min_n)
        pooled = kstest(trusted["p_value"].to_numpy(), "uniform")
        per_metric = []
        for _metric, df in trusted.group_by("metric"):
            if df.height >= 10:
                per_metric.append(kstest(df["p_value"].to_numpy(), "uniform").pvalue)
        tests = int(r["tests"].sum())
        return {
            "games": self.games, "repeats": self.repeats,
            "tests_per_comparison": float(r["tests"].mean()),
            "familywise_holm": any_holm / self.repeats,
            "familywise_holm_ci": wilson_interval(any_holm, self.repeats),
            "bh_false_discovery_proportion": any_bh / self.repeats,
            "bh_ci": wilson_interval(any_bh, self.repeats),
            "holm_flags_total": int(r["holm"].sum()), "bh_flags_total": int(r["bh"].sum()),
            "raw_p_below_0.05": int(r["raw_05"].sum()) / tests,
            "raw_p_below_0.01": int(r["raw_01"].sum()) / tests,
            "ks_pooled_n": trusted.height, "ks_pooled_p": float(pooled.pvalue),
            "ks_pooled_statistic": float(pooled.statistic),
            "ks_per_metric_count": len(per_metric),
            "ks_per_metric_below_0.01": float(np.mean(np.array(per_metric) < 0.01))
            if per_metric else math.nan,
            "seconds": round(self.seconds, 1),
        }


def aa(games: int, repeats: int, work: Path, *, jobs: int = 1, min_n: int = 500,
       seed0: int = SEED0) -> AAResult:
    """`repeats` A/A comparisons of two balanced-mirror runs of `games` games each."""
    from joblib import delayed

    t0 = time.perf_counter()
    tasks = (delayed(_one_aa)(work, games, i, min_n, seed0) for i in range(repeats))
    frames = (_parallel(jobs)(tasks) if jobs > 1 else
              [_one_aa(work, games, i, min_n, seed0) for i in range(repeats)])
    return AAResult(games, repeats, pl.concat(frames), min_n, time.perf_counter() - t0)


# ------------------------------------------------------------------ power


def cheaper_deck(folder: Path, card: str, good: str) -> Path:
    """A copy of the base deck with tribe card `card` (by name) one `good` cheaper."""
    from targi_sim import load_deck
    from targi_sim._utils.paths import data_dir

    base = load_deck("base")
    index = list(base.tribe_names).index(card)
    text = (data_dir() / "decks" / "base.toml").read_text(encoding="utf-8")
    parts = re.split(r"(?m)^\[\[tribe\]\]", text)
    block = parts[index + 1]  # parts[0] is everything before the first tribe card
    match = re.search(r"^cost = \{(.*)\}$", block, flags=re.M)
    cost = dict(re.findall(r"(\w+) = (\d+)", match.group(1)))
    if int(cost.get(good, 0)) < 1:
        raise SystemExit(f"{card} has no {good} in its cost ({match.group(0)})")
    cost[good] = str(int(cost[good]) - 1)
    line = "cost = { " + ", ".join(f"{k} = {v}" for k, v in cost.items() if v != "0") + " }"
    parts[index + 1] = block[:match.start()] + line + block[match.end():]
    text = "[[tribe]]".join(parts).replace('name = "base"', 'name = "calibration-cheaper"', 1)
    changed = load_deck_text(text, folder)
    if int(changed.tribe_cost[index][GOODS.index(good)]) != int(base.tribe_cost[index][
            GOODS.index(good)]) - 1:
        raise SystemExit(f"could not lower {card}'s {good} cost in the base deck's text")
    return folder / "cheaper.toml"


GOODS = ("salt", "pepper", "dates", "gold")  # the order of Deck.tribe_cost's columns


def load_deck_text(text: str, folder: Path):
    """Write a deck's text to folder/cheaper.toml and load (validate) it."""
    from targi_sim import load_deck

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "cheaper.toml"
    path.write_text(text, encoding="utf-8")
    return load_deck(path)


def _one_power(work: Path, deck: Path, games: int, i: int, metric: str, min_n: int,
               seed0: int) -> dict:
    folder = work / f"power-{games}-{i}"
    try:
        a = play(folder / "a", games, seed0 + 2 * i)
        b = play(folder / "b", games, seed0 + 2 * i + 1, deck=str(deck))
        row = comparison(a, b, min_n).filter(pl.col("metric") == metric).row(0, named=True)
        return {"repeat": i, "change": row["change"], "mde": row["mde"],
                "flagged": bool(row["significant"]), "p_holm": row["p_holm"]}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def power(work: Path, card: str, good: str, metric: str, *, pilot_games: int, repeats: int,
          jobs: int = 1, min_n: int = 500, games: int | None = None,
          seed0: int = POWER_SEED0) -> dict:
    """Pilot, the run size the MDE says is enough, and the share of repeats flagged."""
    from joblib import delayed

    from targi_sim.report.family import games_for_change

    deck = cheaper_deck(work / "deck", card, good)
    name = f"{card}: {metric}"
    t0 = time.perf_counter()
    pilot = _one_power(work, deck, pilot_games, -1, name, min_n, seed0)
    needed = games or int(math.ceil(games_for_change(pilot_games, pilot["mde"],
                                                     abs(pilot["change"])) / 100) * 100)
    tasks = (delayed(_one_power)(work, deck, needed, i, name, min_n, seed0)
             for i in range(repeats))
    rows = (_parallel(jobs)(tasks) if jobs > 1 else
            [_one_power(work, deck, needed, i, name, min_n, seed0) for i in range(repeats)])
    flagged = sum(r["flagged"] for r in rows)
    from targi_sim.stats.rates import wilson_interval

    return {
        "card": card, "change": f"one {good} cheaper", "metric": metric,
        "pilot_games": pilot_games, "pilot_change": pilot["change"], "pilot_mde": pilot["mde"],
        "games": needed, "repeats": repeats, "flagged": flagged, "power": flagged / repeats,
        "power_ci": wilson_interval(flagged, repeats),
        "mean_change": statistics.fmean(r["change"] for r in rows),
        "mean_mde": statistics.fmean(r["mde"] for r in rows),
        "seconds": round(time.perf_counter() - t0, 1),
    }


# ------------------------------------------------------------------ the script


def _print_aa(s: dict) -> None:
    lo, hi = s["familywise_holm_ci"]
    blo, bhi = s["bh_ci"]
    print(f"A/A, {s['repeats']} repeats of {s['games']:,} games per run "
          f"({s['tests_per_comparison']:.0f} tests each, {s['seconds']:.0f} s):")
    print(f"  family-wise false-positive rate (Holm, 0.05): {s['familywise_holm']:.3f} "
          f"(95% CI {lo:.3f}-{hi:.3f}; target <= 0.07), {s['holm_flags_total']} flags")
    print(f"  false-discovery proportion (BH, 0.05): {s['bh_false_discovery_proportion']:.3f} "
          f"(95% CI {blo:.3f}-{bhi:.3f}), {s['bh_flags_total']} flags")
    print(f"  raw p < 0.05: {s['raw_p_below_0.05']:.4f} of tests (0.05 expected), "
          f"p < 0.01: {s['raw_p_below_0.01']:.4f} (0.01 expected)")
    print(f"  KS of raw p-values against uniform, n >= min-n in both runs: "
          f"p = {s['ks_pooled_p']:.3g} (D = {s['ks_pooled_statistic']:.4f}, "
          f"{s['ks_pooled_n']:,} p-values; target p > 0.01); per metric over the repeats: "
          f"{s['ks_per_metric_below_0.01']:.3f} of {s['ks_per_metric_count']} metrics with "
          "KS p < 0.01 (0.01 expected)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=100, help="small A/A comparisons")
    ap.add_argument("--games", type=int, default=2000, help="games per run, small A/A")
    ap.add_argument("--big-repeats", type=int, default=3, help="A/A comparisons of --big-games")
    ap.add_argument("--big-games", type=int, default=20_000)
    ap.add_argument("--power-repeats", type=int, default=30)
    ap.add_argument("--power-card", default="Oasis 3VP #1")
    ap.add_argument("--power-good", default="dates", choices=("salt", "pepper", "dates", "gold"))
    ap.add_argument("--power-metric", action="append",
                    help="metric(s) of the card (default: acquire rate and WR played)")
    ap.add_argument("--pilot-games", type=int, default=100_000)
    ap.add_argument("--min-n", type=int, default=500)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", default=None, help="folder for the runs (default: temporary)")
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    ap.add_argument("--tables", default=None,
                    help="also write every A/A comparison row to <TABLES>-<games>.parquet")
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # progress lines as they come
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from common import cpu_model, git_label

    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="targi-calib-"))
    print(f"calibration of targi-sim compare; {cpu_model()}, {git_label()}, jobs {args.jobs}")
    out: dict = {"machine": cpu_model(), "git": git_label()}
    try:
        for key, games, repeats in (("aa_small", args.games, args.repeats),
                                    ("aa_big", args.big_games, args.big_repeats)):
            if repeats:
                result = aa(games, repeats, work, jobs=args.jobs, min_n=args.min_n)
                if args.tables:
                    result.tables.write_parquet(f"{args.tables}-{games}.parquet")
                out[key] = s = result.summary()
                _print_aa(s)
        out["power"] = []
        for metric in args.power_metric or ["acquire rate", "WR played"]:
            if not args.power_repeats:
                break
            p = power(work, args.power_card, args.power_good, metric,
                      pilot_games=args.pilot_games, repeats=args.power_repeats,
                      jobs=args.jobs, min_n=args.min_n)
            out["power"].append(p)
            lo, hi = p["power_ci"]
            print(f"power: {p['card']}, {p['change']}, {p['metric']}: pilot "
                  f"({p['pilot_games']:,} games a run) change {100 * p['pilot_change']:+.2f} "
                  f"points, MDE {100 * p['pilot_mde']:.2f}; at {p['games']:,} games a run "
                  f"(where the MDE equals the change) flagged in {p['flagged']} of "
                  f"{p['repeats']} = {p['power']:.2f} (95% CI {lo:.2f}-{hi:.2f}; target >= "
                  f"0.8); mean change {100 * p['mean_change']:+.2f}, mean MDE "
                  f"{100 * p['mean_mde']:.2f} ({p['seconds']:.0f} s)")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
