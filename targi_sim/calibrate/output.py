"""What a calibration writes: every candidate (candidates.csv), the validated current and
finalist economies with each target's figure, interval and miss by level, the proposed
deck (proposal.toml) with its re-tuned players, and a report (md + html + plot) in the
report model of `targi-sim report`."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from targi_sim._utils.atomic import atomic_write
from targi_sim.game.deck_edit import describe
from targi_sim.game.shape import decided_by
from targi_sim.report.model import Plot, Report, Section, Table
from targi_sim.report.output import write_report
from targi_sim.strength.tune import retuned_strategy_text

from .figures import FIGURES
from .search import Calibration, Candidate
from .space import changes, economy


def candidates_table(cal: Calibration) -> pl.DataFrame:
    rows = []
    for c in cal.candidates:
        row = {"candidate": c.number, "objective": c.objective, "raced_out": c.raced,
               "repeat_of": c.repeat_of, "seconds": round(c.seconds, 2)}
        for p in cal.space.parameters:
            row[p.label] = describe(c.choice[p.path])
        for lv, fs in c.figures.items():
            for f, e in fs.items():
                row[f"{lv}.{f}"] = e.value
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def targets_table(cal: Calibration) -> pl.DataFrame:
    """Per validated candidate and target: the figure, its interval, the band, the miss."""
    rows = []
    for c in cal.validated:
        role = _role(cal, c)
        for t in cal.targets.targets:
            e = c.figures.get(t.level, {}).get(t.figure)
            v = e.value if e is not None else math.nan
            rows.append({"candidate": c.number, "economy": role, "level": t.level,
                         "figure": t.figure, "value": v,
                         "lo": e.lo if e is not None else math.nan,
                         "hi": e.hi if e is not None else math.nan,
                         "units": e.units if e is not None else 0,
                         "target": t.band(), "miss": t.miss(v), "met": t.miss(v) == 0,
                         "source": t.source})
    return pl.DataFrame(rows, infer_schema_length=None)


def shape_table(cal: Calibration) -> pl.DataFrame:
    """Every figure of every level for every validated candidate (with intervals)."""
    rows = []
    for c in cal.validated:
        for lv, fs in c.figures.items():
            for f, e in fs.items():
                rows.append({"candidate": c.number, "economy": _role(cal, c), "level": lv,
                             "figure": f, "value": e.value, "lo": e.lo, "hi": e.hi,
                             "units": e.units})
    return pl.DataFrame(rows, infer_schema_length=None)


def changes_table(cal: Calibration, c: Candidate) -> pl.DataFrame:
    rows = [{"path": ch["path"], "what": ch["note"], "old": describe(ch["old"]),
             "new": describe(ch["new"]),
             "readings": ", ".join(describe(v) for v in ch["readings"]),
             "source": ch["source"]} for ch in changes(cal.space, c.choice)]
    return pl.DataFrame(rows, schema=["path", "what", "old", "new", "readings", "source"])


def _role(cal: Calibration, c: Candidate) -> str:
    if c is cal.validated[0]:
        return "current"
    if cal.proposal is not None and c.number == cal.proposal.number:
        return "proposed"
    return "finalist"


def shape_plot(cal: Calibration) -> bytes:
    """One panel per targeted figure: each level's value (95% interval) for the current
    and the proposed (or best) economy, the target band shaded."""
    from targi_sim.report import plots

    plt = plots.plt
    other = cal.proposal or (cal.validated[1] if len(cal.validated) > 1 else None)
    shown = [(cal.validated[0], "current")] + ([(other, "proposed" if cal.proposal else
                                                 "best finalist")] if other else [])
    figs = list(dict.fromkeys(t.figure for t in cal.targets.targets))
    names = list(dict.fromkeys(lv for c, _ in shown for lv in c.figures))
    fig, axes = plt.subplots(1, len(figs), figsize=(3.2 * len(figs), 3.2), squeeze=False)
    for ax, f in zip(axes[0], figs, strict=True):
        for k, (c, label) in enumerate(shown):
            xs, ys, err = [], [], [[], []]
            for i, lv in enumerate(names):
                e = c.figures.get(lv, {}).get(f)
                if e is None or math.isnan(e.value):
                    continue
                xs.append(i + (k - 0.5 * (len(shown) - 1)) * 0.3)
                ys.append(e.value)
                err[0].append(max(0.0, e.value - e.lo) if math.isfinite(e.lo) else 0.0)
                err[1].append(max(0.0, e.hi - e.value) if math.isfinite(e.hi) else 0.0)
            ax.bar(xs, ys, width=0.28, yerr=err, capsize=3, label=label)
        for t in cal.targets.targets:
            if t.figure != f or t.level not in names:
                continue
            i = names.index(t.level)
            lo = t.lo if t.lo is not None else ax.get_ylim()[0]
            hi = t.hi if t.hi is not None else max(ax.get_ylim()[1], lo * 1.2 + 0.01)
            ax.fill_between([i - 0.45, i + 0.45], lo, hi, color="green", alpha=0.12)
        ax.set_xticks(range(len(names)), names)
        ax.set_title(FIGURES[f].label, fontsize=8, wrap=True)
    axes[0][0].legend(fontsize=7)
    return plots._png(fig)


def _sentence(cal: Calibration, c: Candidate, role: str) -> list[str]:
    out = []
    for lv, fs in c.figures.items():
        share = fs.get("card_point_share")
        if share is None:
            continue
        bits = [f"{role} economy, {lv}: {share.value:.0%} of the points from cards "
                f"({share.lo:.0%}-{share.hi:.0%}) -- decided by {decided_by(share.value)}"]
        full = fs.get("display_full_share")
        if full is not None:
            bits.append(f"{full.value:.1%} of games end by a full display")
        cards = fs.get("cards_per_player")
        if cards is not None:
            bits.append(f"{cards.value:.1f} cards a player")
        first = fs.get("first_player_rate")
        if first is not None:
            bits.append(f"first player {first.value:.1%} ({first.lo:.1%}-{first.hi:.1%})")
        beats = fs.get("beats_previous")
        if beats is not None:
            bits.append(f"beats the level below {beats.value:.1%}")
        out.append("; ".join(bits) + ".")
    return out


def build_report(cal: Calibration) -> Report:
    cur = cal.validated[0]
    prop = cal.proposal
    unmet = [t for t in cal.targets.targets
             if t.miss(_value(prop or cur, t.level, t.figure)) > 0]
    spent = sum(c.seconds for c in cal.candidates) + sum(c.seconds for c in cal.validated)
    summary = [f"{len(cal.candidates)} candidate economies searched "
               f"({sum(c.raced for c in cal.candidates)} raced out before their re-tunes, "
               f"{sum(c.repeat_of is not None for c in cal.candidates)} repeats), "
               f"{len(cal.validated) - 1} finalists validated on fresh deals: "
               f"{spent / 60:.1f} minutes of measuring and re-tuning in all "
               f"({cal.seconds / 60:.1f} in this call).",
               f"Objective (sum of squared misses, 0 = every target met): current "
               f"{cur.objective:.2f}" + (f", proposed {prop.objective:.2f}." if prop else
                                         ": no finalist beats the current economy.")]
    if prop is None:
        summary.append("No economy of the space beats the current one on fresh deals: the "
                       "current economy stays (a finding for the designer).")
    if unmet:
        summary.append("Targets still missed" + (" by the proposal: " if prop else ": ")
                       + "; ".join(f"{t.level} {t.figure} {t.band()} (got "
                                   f"{_value(prop or cur, t.level, t.figure):.3g}; "
                                   + _closest(cal, t) + ")" for t in unmet)
                       + ". A figure the space cannot reach is reported short, not forced.")
    else:
        summary.append("Every target is met" + (" by the proposal." if prop else "."))
    text = summary + _sentence(cal, cur, "current") + (
        _sentence(cal, prop, "proposed") if prop else [])
    sections = [
        Section("summary", "1. Result", text=text,
                tables=[Table("changes", "The proposal's changes (old value, new value, the "
                              "readings allowed and their source)",
                              changes_table(cal, prop) if prop else changes_table(cal, cur))],
                plots=[Plot("game_shape", "Game shape by level: current and proposed "
                            "economy (bars: 95% intervals; green: the target band)",
                            shape_plot(cal))]),
        Section("targets", "2. Targets by level", text=[
            "Each validated economy on fresh deals, players re-tuned on another seed: every "
            "target's figure with its 95% interval (the deal or seat-swapped pair as unit), "
            "its band and its miss in units of the target's scale."],
            tables=[Table("targets", "Targets: current, finalists and proposal",
                          targets_table(cal))]),
        Section("shape", "3. Game shape", tables=[Table("shape", "Every figure by level",
                                                        shape_table(cal))]),
        Section("candidates", "4. Every candidate", text=[
            "The search's candidates in order (candidate 0 is the current economy), "
            "measured on the search's common deals; a raced-out candidate's objective is "
            "the miss of its fixed levels alone."],
            tables=[Table("candidates", "Candidates", candidates_table(cal),
                          compact=("candidate", "objective", "raced_out"))]),
    ]
    c = cal.config
    facts = [("deck", c.deck), ("rules", c.rules), ("space", f"{cal.space.name} "
              f"({len(cal.space.parameters)} parameters, {cal.space.size:,} economies)"),
             ("targets", cal.targets.name), ("levels", ", ".join(cal.levels or c.levels)),
             ("seed", str(c.seed)), ("candidates", str(c.trials)),
             ("deals", f"{c.deals:,} search / {c.validate_deals:,} validation"),
             ("re-tune budget", f"{c.retune_budget:,} games per level and candidate")]
    return Report(title="targi-sim calibration", facts=facts, sections=sections, min_n=0)


def _closest(cal: Calibration, t) -> str:
    """Where the search and the validation came closest to a missed target."""
    def best(cands):
        scored = [(t.miss(_value(c, t.level, t.figure)), c) for c in cands
                  if not math.isnan(_value(c, t.level, t.figure))]
        return min(scored, key=lambda x: (x[0], x[1].number)) if scored else None

    out = []
    for label, cands in (("validated", cal.validated), ("search", cal.candidates)):
        b = best(cands)
        if b is not None:
            out.append(f"closest {label}: candidate {b[1].number}, "
                       f"{_value(b[1], t.level, t.figure):.3g}")
    return "; ".join(out)


def _value(c: Candidate, level: str, figure: str) -> float:
    e = c.figures.get(level, {}).get(figure)
    return e.value if e is not None else math.nan


def proposal_deck_text(cal: Calibration, c: Candidate) -> str:
    """The proposed deck as TOML, its changes listed in a header comment."""
    deck, rules = cal.deck, cal.rules
    _, new_rules, text = economy(cal.space, c.choice, deck, rules, f"{deck.name}-calibrated")
    head = [f"# Proposed by targi-sim calibrate (seed {cal.config.seed}) from deck "
            f"{cal.config.deck!r}; candidate {c.number}, objective {c.objective:.3f} "
            f"(current {cal.validated[0].objective:.3f}).", "# Changes (old -> new; "
            "readings the space allows; source):"]
    for ch in changes(cal.space, c.choice):
        head.append(f"#   {ch['path']}: {describe(ch['old'])} -> {describe(ch['new'])} "
                    f"(readings {', '.join(describe(v) for v in ch['readings'])}; "
                    f"{ch['source']})")
    if new_rules is not rules:
        head.append("# Rules settings changed too: play it with proposal-rules.toml.")
    return "\n".join(head) + "\n" + text


def strategy_text(cal: Calibration, c: Candidate, level: str) -> str:
    return retuned_strategy_text(cal.strategies[c.number][level], level, "calibrate",
                                 cal.config.retune_budget, cal.config.seed, "calibrated")


def write_calibration(cal: Calibration) -> list[Path]:
    out = cal.out
    written = write_report(build_report(cal), out / "report")
    written.append(atomic_write(out / "candidates.csv", candidates_table(cal).write_csv))
    written.append(atomic_write(out / "targets.csv", targets_table(cal).write_csv))
    if cal.proposal is not None:
        text = proposal_deck_text(cal, cal.proposal)
        written.append(atomic_write(out / "proposal.toml",
                                    lambda p: Path(p).write_text(text, encoding="utf-8")))
        for lv in cal.strategies.get(cal.proposal.number, {}):
            if lv in cal.proposal.weights:
                st = strategy_text(cal, cal.proposal, lv)
                written.append(atomic_write(out / f"proposal-{lv}.toml",
                                            lambda p, st=st: Path(p).write_text(
                                                st, encoding="utf-8")))
    return written


__all__ = ["build_report", "candidates_table", "proposal_deck_text", "shape_table",
           "targets_table", "write_calibration"]
