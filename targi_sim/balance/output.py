"""What a balance search leaves in its folder: the proposed deck, the changes, the
validation tables, and a short Markdown summary that says what they mean."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from targi_sim._utils.atomic import atomic_write, atomic_write_text
from targi_sim.balance.searching import BalanceConfig, SearchState
from targi_sim.balance.validation import Validation
from targi_sim.game.deck import Deck

from .space import Edits, describe, render_deck


def proposal_header(config: BalanceConfig, command: str, state: SearchState,
                    changed: int) -> str:
    best, base = state.best, state.base
    lines = [
        f"# Proposed by targi-sim balance from deck {config.deck!r}: {changed} changed "
        "tribe card(s),",
        "# each changed field commented with its old value. Command:",
        f"#   {command}",
        f"# Search: {state.trials} candidates, {state.games:,} games; objective "
        f"{base.value:.4f} (base) -> {best.value:.4f} (this deck) on the search deals.",
        "# Validation on fresh seeds: validation.md next to this file.",
        "",
    ]
    return "\n".join(lines)


def write_proposal(out: Path, deck: Deck, edits: Edits, header: str) -> Path:
    text = render_deck(deck, edits, header)
    text = text.replace(f'name = "{deck.name}"', f'name = "{deck.name}-balanced"', 1)
    return atomic_write_text(out / "proposal.toml", text)


def changes_frame(deck: Deck, edits: Edits) -> pl.DataFrame:
    rows = describe(deck, edits)
    return pl.DataFrame(rows, schema={"card_id": pl.Int64, "name": pl.Utf8, "field": pl.Utf8,
                                      "old": pl.Int64, "new": pl.Int64})


def _csv(path: Path, df: pl.DataFrame) -> None:
    atomic_write(path, lambda tmp: df.write_csv(tmp))


def _fmt(v: float) -> str:
    return f"{v:+.4f}" if abs(v) < 10 else f"{v:+.2f}"


TERM_TEXT = {
    "spread": "card-value spread among cards of equal VP (debiased SD)",
    "extremes": "acquire rates outside the never/always bounds (mean distance)",
    "first_player": "first-player rate's distance from 50%",
    "tiebreak": "share of games reaching a tie-break",
    "rounds": "mean rounds' distance from the target (/12)",
    "first_rate": "first-player win rate (draws half)",
    "mean_rounds": "mean rounds",
    "objective": "objective (weighted sum, with the change penalty)",
}


def summary_markdown(config: BalanceConfig, deck: Deck, edits: Edits, state: SearchState,
                     val: Validation) -> str:
    t = val.table
    spread = t.filter(pl.col("term") == "spread").row(0, named=True)
    fp = t.filter(pl.col("term") == "first_player").row(0, named=True)
    cut = 1 - spread["proposal"] / spread["base"] if spread["base"] > 0 else float("nan")
    how = ("no spread in the base deck to cut" if cut != cut  # NaN: base spread 0
           else f"{cut:.0%} lower" if cut >= 0 else f"{-cut:.0%} higher")
    lines = [f"# Balance proposal for deck {config.deck!r}", "",
             f"Strategies (each in a mirror match): {', '.join(config.strategies)}. "
             f"Search: {state.trials} candidates, {state.games:,} games on common deals. "
             f"Validation: {val.deals:,} fresh deals per match ({val.games:,} games per deck), "
             "base and proposal on the same deals; intervals are 95% paired-bootstrap "
             "percentile intervals over deals.", "",
             "## Findings", ""]
    lines.append(f"- {len(edits)} card(s) changed (at most {state_max(state, config)}).")
    lines.append(f"- Card-value spread: {spread['base']:.4f} -> {spread['proposal']:.4f} "
                 f"({how}; change {spread['change']:+.4f}, 95% "
                 f"{spread['lo']:+.4f}..{spread['hi']:+.4f}: {spread['verdict']}).")
    lines.append(f"- First-player rate's distance from 50%: {fp['base']:.4f} -> "
                 f"{fp['proposal']:.4f} ({fp['verdict']}).")
    compared = ", ".join(str(int(x.eligible.sum())) for x in val.base)
    unvalued = val.cards.filter(pl.col("value_base").is_nan()
                                & pl.col("value_proposal").is_nan()).height
    lines.append(f"- The spread compares {compared} of {deck.n_tribe} cards (per match: those "
                 "played often enough in the base deck); "
                 + (f"{unvalued} card(s) were not played in either deck, so they have no "
                    "value to compare." if unvalued else "every card was played."))
    worse = t.filter(pl.col("verdict") == "worse")["term"].to_list()
    lines.append("- Terms that got worse beyond their interval: "
                 + (", ".join(worse) if worse else "none") + ".")
    lines += ["", "## Changes", "", "| card_id | name | field | old | new |",
              "|---|---|---|---|---|"]
    for r in describe(deck, edits):
        lines.append(f"| {r['card_id']} | {r['name']} | {r['field']} | {r['old']} | {r['new']} |")
    if not edits:
        lines.append("| – | no change beat the base deck | | | |")
    lines += ["", "## Validation on fresh seeds", "",
              "| term | base | proposal | change | 95% interval | verdict |",
              "|---|---|---|---|---|---|"]
    for r in t.iter_rows(named=True):
        lines.append(f"| {TERM_TEXT.get(r['term'], r['term'])} | {r['base']:.4f} | "
                     f"{r['proposal']:.4f} | {_fmt(r['change'])} | {_fmt(r['lo'])}..{_fmt(r['hi'])}"
                     f" | {r['verdict']} |")
    # NaN (a card played in neither deck) compares greater than any number in polars
    measured = pl.col("lo").is_not_nan() & pl.col("hi").is_not_nan()
    moved = val.cards.filter(measured & ((pl.col("lo") > 0) | (pl.col("hi") < 0)))
    lines += ["", "## Cards whose value moved beyond its interval", ""]
    if moved.height == 0:
        lines.append("None.")
    else:
        lines += ["| card_id | name | value base | value proposal | change | 95% interval |",
                  "|---|---|---|---|---|---|"]
        for r in moved.iter_rows(named=True):
            lines.append(f"| {r['card_id']} | {r['name']} | {r['value_base']:.3f} | "
                         f"{r['value_proposal']:.3f} | {r['change']:+.3f} | "
                         f"{r['lo']:+.3f}..{r['hi']:+.3f} |")
    lines += ["", "Files: proposal.toml (the deck), changes.csv, validation.csv, "
              "validation_cards.csv, search.csv (the search's progress), study.journal "
              "(the Optuna study's journal: --resume continues it).", ""]
    return "\n".join(lines)


def state_max(state: SearchState, config: BalanceConfig) -> str:
    return str(getattr(state, "max_changes", "")) or "?"


def write_outputs(out: Path, config: BalanceConfig, deck: Deck, edits: Edits,
                  state: SearchState, val: Validation, command: str) -> dict[str, Path]:
    paths = {"proposal": write_proposal(out, deck, edits,
                                        proposal_header(config, command, state, len(edits)))}
    _csv(out / "changes.csv", changes_frame(deck, edits))
    _csv(out / "validation.csv", val.table)
    _csv(out / "validation_cards.csv", val.cards)
    _csv(out / "search.csv", pl.DataFrame(state.history, schema=["trial", "games", "best"],
                                          orient="row"))
    paths["summary"] = atomic_write_text(out / "validation.md",
                                         summary_markdown(config, deck, edits, state, val))
    return paths
