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
from .search import Calibration, Candidate, changed, meets_all, search_budget
from .space import changes, economy, value_key

# figures the shipped targets leave free: what tells apart economies that all fit
SHAPE_FIGURES = ("token_vp", "score", "raid_losses", "cards_per_player", "card_vp",
                 "row_bonus", "rounds")


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
    """Per validated candidate and target: the figure, its interval, the band, the miss
    (`raced`: a simplification step stopped before its re-tunes, its re-tuned levels not
    measured)."""
    rows = []
    for c in cal.validated:
        role = _role(cal, c)
        for t in cal.targets.targets:
            e = c.figures.get(t.level, {}).get(t.figure)
            v = e.value if e is not None else math.nan
            rows.append({"candidate": c.number, "economy": role, "raced": c.raced,
                         "level": t.level,
                         "figure": t.figure, "value": v,
                         "lo": e.lo if e is not None else math.nan,
                         "hi": e.hi if e is not None else math.nan,
                         "units": e.units if e is not None else 0,
                         "target": t.band(), "miss": t.miss(v), "met": t.met(e),
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


def fits(cal: Calibration) -> list[Candidate]:
    """The validated economies that meet every target (Target.met), fewest
    changes first."""
    cur = cal.validated[0].choice
    return sorted((c for c in cal.validated if meets_all(cal.targets, c)),
                  key=lambda c: (changed(c, cur), c.objective, c.number))


def fits_table(cal: Calibration) -> pl.DataFrame:
    """Per economy that fits (or, when none does, the three smallest misses) and level:
    its values and its shape on the figures the targets do not fix."""
    cur = cal.validated[0].choice
    shown = fits(cal) or sorted((c for c in cal.validated if not c.raced),
                                key=lambda c: (c.objective, c.number))[:3]
    rows = []
    for c in shown:
        for lv, fs in c.figures.items():
            row = {"candidate": c.number, "economy": _role(cal, c),
                   "meets_every_target": meets_all(cal.targets, c),
                   "changes": changed(c, cur), "level": lv}
            for p in cal.space.parameters:
                row[p.label] = describe(c.choice[p.path])
            for f in SHAPE_FIGURES:
                e = fs.get(f)
                row[f] = e.value if e is not None else math.nan
                row[f"{f}_lo"] = e.lo if e is not None else math.nan
                row[f"{f}_hi"] = e.hi if e is not None else math.nan
            rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def fits_text(cal: Calibration) -> list[str]:
    """What the economies that fit share and where they differ, in words."""
    fit = fits(cal)
    searched = [c for c in cal.candidates if not c.raced and c.repeat_of is None]
    on_search = sum(meets_all(cal.targets, c) for c in searched)
    head = (f"{on_search} of the search's {len(searched)} economies measured in full met "
            "every target on the search deals (one re-tune each).")
    if not fit:
        return [head, "No validated economy meets every target: the table shows the three "
                "smallest misses."]
    out = [head, f"{len(fit)} validated economies meet every target on fresh deals: "
           + ", ".join(f"candidate {c.number} ({_role(cal, c)})" for c in fit) + "."]
    if len(fit) == 1:
        out.append("Only one validated economy fits: the validation cannot say whether "
                   "others would (the search's count above is the wider view).")
        return out
    same, differ = [], []
    for p in cal.space.parameters:
        values = [describe(c.choice[p.path]) for c in fit]
        if len(set(values)) == 1:
            same.append(f"{p.label} = {values[0]}")
        else:
            where = ", ".join(f"{v} in {c.number}" for v, c in zip(values, fit, strict=True))
            differ.append(f"{p.label} ({where})")
    out.append("They share: " + ("; ".join(same) if same else "no value") + ".")
    if differ:
        out.append("They differ in: " + "; ".join(differ) + ". The targets leave these "
                   "readings open: only the shared values are decided by them.")
    return out


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
    return "simplification step" if c.number in cal.simplified else "finalist"


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
    chosen = prop or cur
    unmet = [t for t in cal.targets.targets
             if not t.met(chosen.figures.get(t.level, {}).get(t.figure))]
    spent = sum(c.seconds for c in cal.candidates) + sum(c.seconds for c in cal.validated)
    summary = [f"{len(cal.candidates)} candidate economies searched "
               f"({sum(c.raced for c in cal.candidates)} raced out before their re-tunes, "
               f"{sum(c.repeat_of is not None for c in cal.candidates)} repeats), "
               f"{len(cal.validated) - 1 - len(cal.simplified)} finalists and "
               f"{len(cal.simplified)} simplification steps validated on fresh deals "
               f"({sum(c.raced for c in cal.validated)} stopped before their re-tunes: "
               "their fixed levels alone broke a target met so far): "
               f"{spent / 60:.1f} minutes of measuring and re-tuning in all "
               f"({cal.seconds / 60:.1f} in this call).",
               f"Objective (sum of squared misses, 0 = every target's value inside its "
               f"band): current {cur.objective:.2f}"
               + (f", proposed {prop.objective:.2f}." if prop else ".")]
    summary.append(rule_sentence(cal))
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
        Section("fits", "2. The economies that fit", text=fits_text(cal) + [
            "Their game shape on the figures the targets do not fix (value and 95% "
            "interval columns), by level."],
            tables=[Table("fits", "Economies that meet every target", fits_table(cal),
                          compact=("candidate", "economy", "changes", "level",
                                   *SHAPE_FIGURES))]),
        Section("targets", "3. Targets by level", text=[
            "Each validated economy on fresh deals, players re-tuned on another seed: every "
            "target's figure with its 95% interval (the deal or seat-swapped pair as unit), "
            "its band and its miss in units of the target's scale."],
            tables=[Table("targets", "Targets: current, finalists and proposal",
                          targets_table(cal))]),
        Section("shape", "4. Game shape", tables=[Table("shape", "Every figure by level",
                                                        shape_table(cal))]),
        Section("candidates", "5. Every candidate", text=[
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
             ("re-tune budget", _budget_fact(c))]
    return Report(title="targi-sim calibration", facts=facts, sections=sections, min_n=0)


def _budget_fact(c) -> str:
    """The re-tune budgets of the validation and, when it differs, of the search."""
    text = f"{c.retune_budget:,} games per level and candidate"
    searched = search_budget(c)
    if searched == c.retune_budget:
        return text
    if searched == 0:
        return text + " in the validation; none in the search (the levels' own weights)"
    return text + f" in the validation, {searched:,} in the search"


def rule_sentence(cal: Calibration) -> str:
    """Why this proposal (or none), in the rule's words (search.choose_proposal)."""
    cur, prop = cal.validated[0], cal.proposal
    fit = fits(cal)
    if prop is None:
        if meets_all(cal.targets, cur):
            return ("The current economy meets every target on fresh deals: it stays.")
        return ("No validated economy meets every target, and none misses less than the "
                "current one beyond the slack: the current economy stays (a finding for "
                "the designer).")
    if fit:
        return (f"The proposal is the validated economy with the fewest changes among the "
                f"{len(fit)} that meet every target (the mean over re-tunes in each band); a "
                "simplification step was kept only when every target stayed met.")
    return ("No validated economy meets every target: the proposal misses least (within "
            "the slack, the fewest changes among those meeting every target the best "
            "meets).")


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
    _, _, text = economy(cal.space, c.choice, deck, rules, f"{deck.name}-calibrated")
    head = [f"# Proposed by targi-sim calibrate (seed {cal.config.seed}) from deck "
            f"{cal.config.deck!r}; candidate {c.number}, objective {c.objective:.3f} "
            f"(current {cal.validated[0].objective:.3f}).", "# Changes (old -> new; "
            "readings the space allows; source):"]
    moved = changes(cal.space, c.choice)
    for ch in moved:
        head.append(f"#   {ch['path']}: {describe(ch['old'])} -> {describe(ch['new'])} "
                    f"(readings {', '.join(describe(v) for v in ch['readings'])}; "
                    f"{ch['source']})")
    if any(ch["is_rules"] for ch in moved):  # write_calibration writes that file then
        head.append("# Rules settings changed too: play it with proposal-rules.toml "
                    "(written beside it).")
    return "\n".join(head) + "\n" + text


def proposal_rules(cal: Calibration, c: Candidate):
    """The proposal's rules when it changes a rules setting (None when it changes none)."""
    if not any(ch["is_rules"] for ch in changes(cal.space, c.choice)):
        return None
    _, new_rules, _ = economy(cal.space, c.choice, cal.deck, cal.rules,
                              f"{cal.deck.name}-calibrated")
    return new_rules


def strategy_text(cal: Calibration, c: Candidate, level: str) -> str:
    return retuned_strategy_text(cal.strategies[c.number][level], level, "calibrate",
                                 cal.config.retune_budget, cal.config.seed, "calibrated")


def record(cal: Calibration) -> dict:
    """The validated economies and the proposal, as JSON: what the proposal rule chose
    from (search.choose_proposal), so a shipped deck can be held to its calibration."""
    return {"deck": cal.config.deck, "rules": cal.config.rules, "space": cal.space.name,
            "targets": cal.targets.name, "levels": list(cal.levels or cal.config.levels),
            "seed": cal.config.seed, "slack": cal.config.simplify_slack,
            "retune_budget": cal.config.retune_budget,
            "search_retune_budget": search_budget(cal.config),
            "proposal": cal.proposal.number if cal.proposal else None,
            "validated": [{"number": c.number, "role": _role(cal, c),
                           "choice": {p: value_key(v) for p, v in c.choice.items()},
                           "objective": c.objective, "raced": c.raced,
                           "figures": {lv: {f: [e.value, e.lo, e.hi, e.units]
                                            for f, e in fs.items()}
                                       for lv, fs in c.figures.items()}}
                          for c in cal.validated]}


def candidates_from_record(data: dict) -> list[Candidate]:
    """record()'s validated economies again (the current one first)."""
    from .space import parse_value
    from .targets import Estimate

    return [Candidate(v["number"], {p: parse_value(x) for p, x in v["choice"].items()},
                      v["objective"], v.get("raced", False),
                      figures={lv: {f: Estimate(*e[:3], int(e[3])) for f, e in fs.items()}
                               for lv, fs in v["figures"].items()})
            for v in data["validated"]]


def write_calibration(cal: Calibration) -> list[Path]:
    import json

    out = cal.out
    written = write_report(build_report(cal), out / "report")
    text = json.dumps(record(cal), indent=1, allow_nan=True) + "\n"
    written.append(atomic_write(out / "validated.json",
                                lambda p: Path(p).write_text(text, encoding="utf-8")))
    written.append(atomic_write(out / "candidates.csv", candidates_table(cal).write_csv))
    written.append(atomic_write(out / "targets.csv", targets_table(cal).write_csv))
    if cal.proposal is not None:
        text = proposal_deck_text(cal, cal.proposal)
        written.append(atomic_write(out / "proposal.toml",
                                    lambda p: Path(p).write_text(text, encoding="utf-8")))
        rules = proposal_rules(cal, cal.proposal)
        if rules is not None:
            written.append(atomic_write(out / "proposal-rules.toml",
                                        lambda p: Path(p).write_text(rules.content,
                                                                     encoding="utf-8")))
        for lv in cal.strategies.get(cal.proposal.number, {}):
            if lv in cal.proposal.weights:
                st = strategy_text(cal, cal.proposal, lv)
                written.append(atomic_write(out / f"proposal-{lv}.toml",
                                            lambda p, st=st: Path(p).write_text(
                                                st, encoding="utf-8")))
    return written


__all__ = ["build_report", "candidates_from_record", "candidates_table", "fits", "fits_table",
           "proposal_deck_text", "proposal_rules", "record", "rule_sentence", "shape_table",
           "targets_table", "write_calibration"]
