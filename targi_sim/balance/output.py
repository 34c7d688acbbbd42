"""What a balance search leaves in its folder: the proposed deck, the changes, the
validation tables, and a short Markdown summary that says what they mean."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from targi_sim._utils.atomic import atomic_write, atomic_write_text
from targi_sim.balance.searching import BalanceConfig, Evaluator, SearchState
from targi_sim.balance.validation import Validation
from targi_sim.game.deck import Deck

from .space import Edits, describe, render_deck


def proposal_header(config: BalanceConfig, command: str, state: SearchState,
                    changed: int, econ_lines: list[str]) -> str:
    best, base = state.best, state.base
    levels = ", ".join(config.strategies)
    lines = [
        f"# Proposed by targi-sim balance from deck {config.deck!r}: {changed} change(s) "
        "(card classes and economy values),",
        "# each changed field commented with its old value. Command:",
        f"#   {command}",
        f"# Levels: {levels}" + (f" ({', '.join(config.retuned)} re-tuned for each candidate"
                                 f", {config.retune_budget:,} games)" if config.retuned else ""),
        f"# Search: {state.trials} candidates, {state.games:,} games; objective "
        f"{base.value:.4f} (base) -> {best.value:.4f} (this deck) on the search deals.",
        *econ_lines,
        "# Validation on fresh seeds: validation.md next to this file.",
        "",
    ]
    return "\n".join(lines)


def economy_lines(ev: Evaluator, econ: dict[str, Any]) -> list[str]:
    """Header lines for the economy values a proposal changes (rules ones say how to
    play them: the deck file cannot hold a rules setting)."""
    from targi_sim.calibrate.space import changes
    from targi_sim.game.deck_edit import describe as show

    if not econ:
        return []
    out = ["# Economy values changed (old -> new; readings the space allows; source):"]
    for ch in changes(ev.economy_space, ev.economy_space.current() | econ):
        out.append(f"#   {ch['path']}: {show(ch['old'])} -> {show(ch['new'])} (readings "
                   f"{', '.join(show(v) for v in ch['readings'])}; {ch['source']})")
        if ch["path"].startswith("rules."):
            out.append(f"#   a rules setting: play this deck with --set "
                       f"{ch['path']}={show(ch['new'])}")
    return out


def write_proposal(out: Path, deck: Deck, edits: Edits, header: str) -> Path:
    text = render_deck(deck, edits, header)
    declared = deck.declared_name or deck.name  # the name the file itself gives
    new = f"{deck.name.removesuffix('.toml')}-balanced"
    text = text.replace(f'name = "{declared}"', f'name = "{new}"', 1)
    return atomic_write_text(out / "proposal.toml", text)


def changes_frame(ev: Evaluator, edits: Edits, econ: dict[str, Any]) -> pl.DataFrame:
    """One row per changed field of a class (its copies' card ids listed) or economy
    value (card_ids empty)."""
    from targi_sim.calibrate.space import changes
    from targi_sim.game.deck_edit import describe as show

    rows = []
    firsts = {int(c) for c in ev.classes.first()}
    for r in describe(ev.deck, {c: e for c, e in edits.items() if c in firsts}):
        k = int(ev.classes.of_card[r["card_id"]])
        rows.append({"card_ids": ev.classes.card_ids(k), "name": ev.classes.names[k],
                     "field": r["field"], "old": str(r["old"]), "new": str(r["new"])})
    if econ:
        for ch in sorted(changes(ev.economy_space, ev.economy_space.current() | econ),
                         key=lambda ch: ch["path"]):
            rows.append({"card_ids": "", "name": "economy", "field": ch["path"],
                         "old": show(ch["old"]), "new": show(ch["new"])})
    return pl.DataFrame(rows, schema={"card_ids": pl.Utf8, "name": pl.Utf8,
                                      "field": pl.Utf8, "old": pl.Utf8, "new": pl.Utf8})


def _csv(path: Path, df: pl.DataFrame) -> None:
    atomic_write(path, lambda tmp: df.write_csv(tmp))


def _fmt(v: float) -> str:
    return f"{v:+.4f}" if abs(v) < 10 else f"{v:+.2f}"


TERM_TEXT = {
    "spread": "card-value spread among classes of equal VP (debiased SD)",
    "causal_spread": "causal card-value spread (forked play, debiased SD)",
    "extremes": "acquire rates outside the never/always bounds (mean distance)",
    "first_player": "first-player rate's distance from 50%",
    "tiebreak": "share of games reaching a tie-break",
    "rounds": "mean rounds' distance from the target (/12)",
    "first_rate": "first-player win rate (draws half)",
    "mean_rounds": "mean rounds",
    "objective": "objective (weighted sum, with the change penalty)",
}


def _term(t: pl.DataFrame, level: str, term: str) -> dict:
    return t.filter((pl.col("level") == level) & (pl.col("term") == term)).row(0, named=True)


def _cut(r: dict) -> str:
    if not r["base"] > 0:
        return "no spread in the base deck to cut"
    cut = 1 - r["proposal"] / r["base"]
    return f"{cut:.0%} lower" if cut >= 0 else f"{-cut:.0%} higher"


def summary_markdown(config: BalanceConfig, ev: Evaluator, edits: Edits,
                     econ: dict[str, Any], state: SearchState, val: Validation) -> str:
    t = val.table
    deck = ev.deck
    n_changed = ev.changed(edits, econ)
    levels = list(val.levels)
    retuned = (f" ({', '.join(config.retuned)} re-tuned for each deck from its own weights, "
               f"{config.retune_budget:,} games each)" if config.retuned else "")
    lines = [f"# Balance proposal for deck {config.deck!r}", "",
             f"Levels (each a mirror match): {', '.join(levels)}{retuned}; the levels' "
             f"objectives combine as {ev.settings.objective.combine}. "
             f"Search: {state.trials} candidates, {state.games:,} games on common deals. "
             f"Validation: {val.deals:,} fresh deals per level ({val.games:,} games per "
             "deck), base and proposal on the same deals"
             + (", each re-tuned level re-tuned for each deck with a fresh seed"
                if config.retuned else "") + "; intervals are 95% paired-bootstrap "
             "percentile intervals over deals. Identical printed cards form one class "
             f"({deck.n_tribe} cards, {ev.classes.size} classes): an edit changes every "
             "copy, and values pool the copies.", "",
             "## Verdict", ""]
    if val.accepted:
        lines.append("**Accepted**: no level's objective got worse beyond its interval"
                     + (" and the game shape keeps every target the base deck meets."
                        if val.shape is not None else "."))
    else:
        lines.append("**Not accepted**: " + "; ".join(val.reasons) + ".")
    n_classes = len({int(ev.classes.of_card[c]) for c in edits})
    lines += ["", "## Findings", "",
              f"- {n_changed} change(s): {n_classes} "
              f"class(es) of cards, {len(econ)} economy value(s) (at most "
              f"{state_max(state, config)} in all)."]
    for lv in levels:
        sp, cs = _term(t, lv, "spread"), _term(t, lv, "causal_spread")
        fp, fr = _term(t, lv, "first_player"), _term(t, lv, "first_rate")
        lines.append(
            f"- **{lv}**: card-value spread {sp['base']:.4f} -> {sp['proposal']:.4f} "
            f"({_cut(sp)}; change {sp['change']:+.4f}, 95% {sp['lo']:+.4f}..{sp['hi']:+.4f}: "
            f"{sp['verdict']}); causal spread {cs['base']:.4f} -> {cs['proposal']:.4f} "
            f"({cs['verdict']}); first-player rate {fr['base']:.1%} -> {fr['proposal']:.1%} "
            f"(distance from 50%: {fp['verdict']}); the spread compares "
            f"{val.compared.get(lv, 0)} of {ev.classes.size} classes"
            + _why_few(val, lv, ev) + ".")
    for lv in levels:
        c = val.cards.filter(pl.col("level") == lv)
        unplayed = c.filter(pl.col("value_base").is_nan()
                            & pl.col("value_proposal").is_nan()).height
        if unplayed:
            lines.append(f"- {lv}: {unplayed} class(es) were not played in either deck, so "
                         "they have no value to compare.")
    worse = t.filter(pl.col("verdict") == "worse")
    lines.append("- Terms that got worse beyond their interval: "
                 + (", ".join(f"{r['term']} ({r['level']})" for r in worse.iter_rows(named=True))
                    if worse.height else "none") + ".")
    lines += ["", "## Changes", "", "| cards | name | field | old | new |",
              "|---|---|---|---|---|"]
    ch = changes_frame(ev, edits, econ)
    for r in ch.iter_rows(named=True):
        lines.append(f"| {r['card_ids'] or '–'} | {r['name']} | {r['field']} | {r['old']} | "
                     f"{r['new']} |")
    if not ch.height:
        lines.append("| – | no change beat the base deck | | | |")
    lines += ["", "## Validation on fresh seeds", "",
              "| level | term | base | proposal | change | 95% interval | verdict |",
              "|---|---|---|---|---|---|---|"]
    for r in t.iter_rows(named=True):
        lines.append(f"| {r['level']} | {TERM_TEXT.get(r['term'], r['term'])} | {r['base']:.4f} | "
                     f"{r['proposal']:.4f} | {_fmt(r['change'])} | "
                     f"{_fmt(r['lo'])}..{_fmt(r['hi'])} | {r['verdict']} |")
    if val.shape is not None:
        lines += ["", "## Game shape (targets of the calibration's targets file)", "",
                  "| level | figure | band | base | proposal | base met | proposal met |",
                  "|---|---|---|---|---|---|---|"]
        for r in val.shape.iter_rows(named=True):
            lines.append(f"| {r['level']} | {r['figure']} | {r['band']} | {r['base']:.3g} | "
                         f"{r['proposal']:.3g} | {'yes' if r['base_met'] else 'no'} | "
                         f"{'yes' if r['proposal_met'] else 'no'} |")
    measured = pl.col("lo").is_not_nan() & pl.col("hi").is_not_nan()
    moved = val.cards.filter(measured & ((pl.col("lo") > 0) | (pl.col("hi") < 0)))
    lines += ["", "## Classes whose value moved beyond its interval", ""]
    if moved.height == 0:
        lines.append("None.")
    else:
        lines += ["| level | cards | name | value base | value proposal | change | 95% interval |",
                  "|---|---|---|---|---|---|---|"]
        for r in moved.iter_rows(named=True):
            lines.append(f"| {r['level']} | {r['card_ids']} | {r['name']} | "
                         f"{r['value_base']:.3f} | {r['value_proposal']:.3f} | "
                         f"{r['change']:+.3f} | {r['lo']:+.3f}..{r['hi']:+.3f} |")
    lines += ["", "Files: proposal.toml (the deck), proposal-<level>.toml (each re-tuned "
              "level's weights for it), changes.csv, validation.csv, validation_cards.csv "
              "(per level and class), shape.csv, search.csv (the search's progress), "
              "study.journal (the Optuna study: rerunning the command continues it).", ""]
    return "\n".join(lines)


def _why_few(val: Validation, level: str, ev: Evaluator) -> str:
    """Why a level compares few classes: they are rarely played at that level."""
    n = val.compared.get(level, 0)
    if n >= 30 or n >= ev.classes.size - 5:
        return ""
    return (f" (the others were played fewer than {ev.settings.objective.min_plays} times "
            "at this level: a player who keeps few cards compares few)")


def state_max(state: SearchState, config: BalanceConfig) -> str:
    return str(getattr(state, "max_changes", "")) or "?"


def _html(markdown: str) -> str:
    """validation.md as a standalone HTML page (markdown-it, rich's own dependency)."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(markdown)
    style = ("body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Balance proposal"
            f"</title><style>{style}</style></head><body>{body}</body></html>\n")


def write_outputs(out: Path, config: BalanceConfig, ev: Evaluator, edits: Edits,
                  econ: dict[str, Any], state: SearchState, val: Validation, command: str,
                  players: list, changes: pl.DataFrame) -> dict[str, Path]:
    """Every file of the folder; `changes`: changes_frame of the proposal."""
    from targi_sim.strength.tune import retuned_strategy_text

    econ_deck, _ = ev.deck_for({}, econ, f"{ev.deck.name}")
    header = proposal_header(config, command, state, ev.changed(edits, econ),
                             economy_lines(ev, econ))
    paths = {"proposal": write_proposal(out, econ_deck, edits, header)}
    for lv, player in zip(ev.levels, players, strict=True):
        if lv in config.retuned:
            text = retuned_strategy_text(player, lv, "balance", config.retune_budget,
                                         config.seed, "balanced")
            paths[f"proposal-{lv}"] = atomic_write_text(out / f"proposal-{lv}.toml", text)
    _csv(out / "changes.csv", changes)
    _csv(out / "validation.csv", val.table)
    _csv(out / "validation_cards.csv", val.cards)
    if val.shape is not None:
        _csv(out / "shape.csv", val.shape)
    _csv(out / "search.csv", pl.DataFrame(state.history, schema=["trial", "games", "best"],
                                          orient="row"))
    md = summary_markdown(config, ev, edits, econ, state, val)
    paths["summary"] = atomic_write_text(out / "validation.md", md)
    paths["html"] = atomic_write_text(out / "validation.html", _html(md))
    return paths
