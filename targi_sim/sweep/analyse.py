"""Read a played sweep's runs and write its report (out/report/)."""

from __future__ import annotations

from collections.abc import Callable

from targi_sim.runner.reading import read_run_info

from .deals import deal_data
from .report import sweep_report, write_sweep_report


def report_sweep(result, correction: str = "holm",
                 step: Callable[[str], None] | None = None, min_n: int = 500) -> None:
    """Analyse every variant's run (each opened and checked like `report` does) and write
    the sweep report; fills result.report_files and result.tables."""
    plan, out = result.plan, result.out
    say = step or (lambda _m: None)
    runs, data, games = {}, {}, {}
    for v in plan.variants:
        say(f"analysing {v.key}")
        info = read_run_info(out / "runs" / v.key)
        runs[v.key] = (out / "runs" / v.key).relative_to(out)
        data[v.key] = deal_data(info, say)
        games[v.key] = int(info.manifest["counts"]["games"])
    spec = plan.spec
    first = plan.inputs[plan.variants[0].key]
    facts = [("sweep", str(out)), ("games per variant", f"{spec.games:,}"),
             ("seed", str(spec.seed)), ("deck", spec.deck),
             ("baseline rules", first.rules_name),
             ("baseline strategies", f"{first.p0} vs {first.p1}"),
             ("axes", "; ".join(f"{a.name} ({len(a.levels)} levels)" for a in plan.axes)),
             ("design", "one at a time" if spec.one_at_a_time else "grid"),
             ("variants", str(len(plan.variants)))]
    say("testing differences")
    report, everything = sweep_report(spec.name, facts, plan.axes, plan.variants,
                                      spec.one_at_a_time, runs, data, games, correction,
                                      min_n)
    say("writing")
    result.report_files = write_sweep_report(report, everything, out / "report")
    result.tables = {t.key: t.df for t in report.tables()} | {"sweep_all": everything}


__all__ = ["report_sweep"]
