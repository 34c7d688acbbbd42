"""Do calibrations on other seeds agree? The same search run on several seeds (each its
own search deals, re-tunes and validation deals), compared: their proposals, the
economies that fit on each, and which readings every fit shares (decided by the
targets) or not (left open).

Why its own module: one calibration cannot tell a reading the targets decide from one
its seed's noise picked; only the search repeated can.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from targi_sim._utils.atomic import atomic_write
from targi_sim.game.deck_edit import describe
from targi_sim.report.model import Report, Section, Table
from targi_sim.report.output import write_report

from .output import candidates_from_record, fits
from .search import Calibration, CalibrationConfig, Inputs, changed, meets_all, settings_defaults
from .space import value_key


def finished_calibration(out: str | Path, config: CalibrationConfig,
                         inputs: Inputs) -> Calibration | None:
    """The calibration a folder finished with these settings, read back from its
    validated.json (None when it has none, or other settings): a seed already
    calibrated is not measured again when seeds are compared."""
    import json

    from targi_sim.searches import SETTINGS_FILE, differences

    out = Path(out)
    try:
        saved = json.loads((out / SETTINGS_FILE).read_text(encoding="utf-8"))
        data = json.loads((out / "validated.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if differences(saved, inputs.settings(config), settings_defaults()):
        return None
    validated = candidates_from_record(data)
    proposal = next((v for v in validated if v.number == data["proposal"]), None)
    return Calibration(config, inputs.space, inputs.targets, [], validated, proposal, {},
                       0.0, out, inputs.deck, inputs.rules, inputs.levels,
                       tuple(v["number"] for v in data["validated"]
                             if v["role"] == "simplification step"))


@dataclass(frozen=True)
class SeedAgreement:
    """What several seeds' calibrations share. `decided`: parameter label -> the reading
    every economy that fits (on any seed) shares; `open_`: label -> the readings seen
    among them; `agree`: every seed proposes the same economy."""

    seeds: tuple[int, ...]
    agree: bool
    decided: dict[str, str]
    open_: dict[str, list[str]]
    fitting: int  # economies that fit, over all seeds (distinct)


def agreement(cals: list[Calibration]) -> SeedAgreement:
    """Compare calibrations of one space on several seeds."""
    space = cals[0].space

    def key(choice) -> tuple:
        return tuple(value_key(choice[p.path]) for p in space.parameters)

    chosen = {key((c.proposal or c.validated[0]).choice) for c in cals}
    fitting = {key(f.choice): f.choice for c in cals for f in fits(c)}
    pool = list(fitting.values()) or [(c.proposal or c.validated[0]).choice for c in cals]
    decided, open_ = {}, {}
    for p in space.parameters:
        seen = list(dict.fromkeys(describe(ch[p.path]) for ch in pool))
        if len(seen) == 1:
            decided[p.label] = seen[0]
        else:
            open_[p.label] = seen
    return SeedAgreement(tuple(c.config.seed for c in cals), len(chosen) == 1, decided,
                         open_, len(fitting))


def seeds_table(cals: list[Calibration]) -> pl.DataFrame:
    """One row per seed: its proposal's values, changes, objective and fits."""
    rows = []
    for c in cals:
        prop = c.proposal or c.validated[0]
        row = {"seed": c.config.seed, "proposal": prop.number if c.proposal else None,
               "changes": changed(prop, c.validated[0].choice),
               "meets_every_target": meets_all(c.targets, prop),
               "objective": prop.objective, "economies_that_fit": len(fits(c))}
        for p in c.space.parameters:
            row[p.label] = describe(prop.choice[p.path])
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def agreement_text(a: SeedAgreement) -> list[str]:
    seeds = ", ".join(str(s) for s in a.seeds)
    out = [f"Seeds {seeds}: " + ("every seed proposes the same economy." if a.agree else
                                 "the seeds propose different economies.")]
    if a.decided:
        out.append("Decided (every economy that fits, on any seed, shares it): "
                   + "; ".join(f"{k} = {v}" for k, v in a.decided.items()) + ".")
    if a.open_:
        out.append("Left open by the targets (economies that fit differ): "
                   + "; ".join(f"{k} ({', '.join(v)})" for k, v in a.open_.items())
                   + ". The proposal's reading of these is the fewest-changes choice, "
                   "not a fact the targets establish.")
    out.append(f"{a.fitting} distinct validated economies fit on some seed.")
    return out


def write_seed_comparison(cals: list[Calibration], out: str | Path) -> list[Path]:
    """OUT/seeds/report.{html,md} and OUT/seeds.csv: the seeds side by side."""
    a = agreement(cals)
    table = seeds_table(cals)
    report = Report(title="targi-sim calibration: seeds compared",
                    facts=[("seeds", ", ".join(str(s) for s in a.seeds)),
                           ("deck", cals[0].config.deck),
                           ("targets", cals[0].targets.name)],
                    sections=[Section("agreement", "Do the seeds agree?",
                                      text=agreement_text(a),
                                      tables=[Table("seeds", "Each seed's proposal", table)])],
                    min_n=0)
    out = Path(out)
    written = write_report(report, out / "seeds")
    written.append(atomic_write(out / "seeds.csv", table.write_csv))
    return written


__all__ = ["SeedAgreement", "agreement", "agreement_text", "finished_calibration", "seeds_table",
           "write_seed_comparison"]
