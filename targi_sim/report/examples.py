"""Example games: a few games of the run, chosen by rule, as viewer pages beside the report.

A table says how often; a game shows how. For the card section: the card play with the
largest swing (the player's lead grew most over the round it was played), the one with
the largest setback, and a typical one (the lower median swing); for the raid section:
the decided game whose raids cost the loser most over the winner (in VP-equivalents, as
the section's "decided by raids") and a typical one. The candidates are analyses/example_plays.sql
and example_raids.sql, picked by rank from the chunk summaries' histograms of their values;
each page is the engine's own replay of the game (targi_sim.viewer), written to
`games/game-<id>.html` beside report.html and linked from its section; report.html also
embeds the pages (about 60 KB each), so its links work when it is mailed alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from targi_sim._utils.atomic import atomic_write_text
from targi_sim.runner.layout import RunDir
from targi_sim.runner.queries import Analyses
from targi_sim.runner.reading import TABLES, RunInfo
from targi_sim.runner.summaries import chunk_summaries
from targi_sim.runner.sums import SPECS, from_long
from targi_sim.runner.sums_sql import candidates_sql

from ..errors import InputError
from ..viewer import ViewerError, game_page
from .model import Link, Report
from .values import rates_from_manifest

GAMES_DIR = "games"


@dataclass(frozen=True)
class Example:
    section: str  # the report section it illustrates: 'cards' or 'raids'
    rule: str
    game_id: int
    round: int
    player: int
    subject: int  # tribe card id, or raid number
    value: float  # swing (cards) or the raids' swing toward the loser (raids), in VP
    margin: float | None  # raids: the winner's margin
    candidates: int
    seed: int
    first_player: int
    scores: tuple[int, int]
    winner: int

    @property
    def page(self) -> str:
        return f"{GAMES_DIR}/game-{self.game_id}.html"

    @property
    def anchor(self) -> str:
        """Where the page opens: the end of the card's round, or the raid."""
        return f"#round={self.round}" if self.section == "cards" else f"#raid={self.subject}"


# per section, its rules: (name, the end of the value order it starts from, rank there)
RULES = {"cards": (("largest swing", "high", 1), ("largest setback", "low", 1),
                   ("typical", "low", None)),
         "raids": (("largest swing", "high", 1), ("typical", "low", None))}


def choose_examples(run: RunInfo) -> list[Example]:
    """The example games of a run by the rules above (no files written).

    Ranks are by value, ties by game id (then round, seat, card): the chunk summaries'
    histograms of the candidates' values give each pick's value and its rank among the
    candidates of that value, hence the one chunk that holds it, and only that chunk's
    rows are read. Typical: the lower median, rank (n + 1) // 2 from the low end."""
    rates = rates_from_manifest(run.manifest)
    per_chunk = []  # (chunk, section, value, count)
    for chunk, long in zip(run.chunks, chunk_summaries(run, rates.goods_vp, rates.gold_vp),
                           strict=True):
        hist = from_long(SPECS["examples"], long.filter(
            (pl.col("table") == "examples") & pl.col("pair_id").is_null()), ["n"], pair=False)
        per_chunk.append(hist.with_columns(pl.lit(chunk).alias("chunk")))
    counts = (pl.concat(per_chunk) if per_chunk else
              pl.DataFrame(schema={"section": pl.String, "value": pl.Float64, "n": pl.Float64,
                                   "chunk": pl.Int64})).filter(pl.col("n") > 0)
    out = []
    for section, rules in RULES.items():
        mine = counts.filter(pl.col("section") == section)
        values = mine.group_by("value").agg(pl.col("n").sum()).sort("value")
        n = int(values["n"].sum())
        if n == 0:
            continue
        for rule, end, rank in rules:
            at = rank if rank is not None else (n + 1) // 2
            order = values if end == "low" else values.reverse()
            before = order["n"].cum_sum() - order["n"]  # candidates ranked ahead of a value
            i = int(((before < at) & (before + order["n"] >= at)).arg_max())
            value, k = float(order["value"][i]), at - int(before[i])  # k-th of that value
            out.append(_pick(run, mine.filter(pl.col("value") == value).sort("chunk"),
                             section, rule, value, k, n, rates))
    return out


def _pick(run: RunInfo, holders: pl.DataFrame, section: str, rule: str, value: float, k: int,
          candidates: int, rates) -> Example:
    """The k-th candidate (in game-id order) of `value`: read from the one chunk holding it."""
    before = holders["n"].cum_sum() - holders["n"]
    i = int(((before < k) & (before + holders["n"] >= k)).arg_max())
    chunk, offset = int(holders["chunk"][i]), k - int(before[i]) - 1
    rd = RunDir(run.path)
    one = RunInfo(run.path, run.manifest, {t: [rd.table_path(t, chunk)] for t in TABLES})
    sql = candidates_sql(section)
    params = {k_: v for k_, v in (("goods_vp", rates.goods_vp), ("gold_vp", rates.gold_vp))
              if f"${k_}" in sql} | {"v": value, "offset": offset}
    with Analyses(one, threads=1) as a:
        a.script("round_diff")
        r = a.con.sql(
            f"SELECT x.*, g.seed, g.first_player::INTEGER AS first_player, "
            f"g.winner::INTEGER AS winner, g.score_p0::INTEGER AS score_p0, "
            f"g.score_p1::INTEGER AS score_p1 FROM ({sql}) x JOIN games g USING (game_id) "
            f"WHERE x.value = $v ORDER BY x.game_id, x.round, x.player, x.subject "
            f"LIMIT 1 OFFSET $offset", params=params).pl().row(0, named=True)
    return Example(section, rule, int(r["game_id"]), r["round"], r["player"], r["subject"],
                   float(r["value"]), r["margin"], candidates, int(r["seed"]),
                   r["first_player"], (r["score_p0"], r["score_p1"]), r["winner"])


def _describe(ex: Example, card_name: Callable[[int], str]) -> str:
    if ex.section == "cards":
        what = {"largest swing": "with the largest swing", "largest setback":
                "with the largest setback", "typical": "of median swing"}[ex.rule]
        return (f"Card play {what} (of {ex.candidates:,} plays): seat {ex.player} played "
                f"{card_name(ex.subject)} in round {ex.round}; its lead changed by "
                f"{ex.value:+g} VP over that round.")
    what = "with the largest swing" if ex.rule == "largest swing" else "of median swing"
    decided = " (the raids decided it)" if ex.value > 0 and (ex.margin or 0) <= ex.value else ""
    return (f"Raids {what} (of {ex.candidates:,} decided games): they cost seat {ex.player}, "
            f"the loser, {ex.value:g} VP-equivalent more than the winner, who won by "
            f"{ex.margin or 0:g}{decided}; opens at raid {ex.subject} (after round "
            f"{ex.round - 1}), the one that cost the loser most.")


def write_examples(run: RunInfo, out: Path, examples: list[Example],
                   progress: Callable[[str], None] | None = None
                   ) -> tuple[list[tuple[str, Link]], str]:
    """Replay each example game and write its page into out/games/; returns (section key,
    link) pairs and a note ('' when every page was written). A run that cannot be replayed here (a
    .py strategy, a deck that no longer loads) gets the note instead of pages."""
    from targi_sim.runner.replay import LoggedRun

    if not examples:
        return [], ""
    try:
        logged = LoggedRun(run.path)
    except InputError as exc:
        return [], (f"Example games were not written: this run cannot be replayed here "
                    f"({exc}). `targi-sim replay RUN --game ID --html FILE` writes one.")
    folder = out / GAMES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {ex.page for ex in examples}
    for old in folder.glob("game-*.html"):  # pages of an earlier build of this report
        if f"{GAMES_DIR}/{old.name}" not in wanted:
            old.unlink()
    links, written = [], {}
    names = logged.deck.tribe_names

    def card(c: int) -> str:
        return f"'{names[c]}'" if 0 <= c < len(names) else f"card {c}"

    pages = len(wanted)
    for ex in examples:
        text = _describe(ex, card)
        if ex.page not in written:
            if progress:
                progress(f"example game {len(written) + 1} of {pages} (game {ex.game_id})")
            record = logged.play(ex.game_id, ex.seed, ex.first_player)
            if record.scores != ex.scores:
                return [], (f"Example games were not written: game {ex.game_id} replays to "
                            f"{record.scores}, the run logged {ex.scores}.")
            try:
                html = game_page(record, logged.deck, logged.rules,
                                 f"Game {ex.game_id} of {run.name}", subtitle=text,
                                 played_by=logged.strategies)
            except ViewerError as exc:
                return [], f"Example games were not written: {exc}."
            atomic_write_text(out / ex.page, html)
            written[ex.page] = html
        links.append((ex.section, Link(text, f"game {ex.game_id}", ex.page + ex.anchor,
                                       page=written[ex.page])))
    return links, ""


def add_examples(report: Report, run: RunInfo, out: Path,
                 progress: Callable[[str], None] | None = None) -> None:
    """Choose, write and link the example games into the card and raid sections."""
    if progress:
        progress("example games")
    links, note = write_examples(run, out, choose_examples(run), progress)
    by_section = {s.key: s for s in report.sections}
    for key, link in links:
        if key in by_section:
            by_section[key].links.append(link)
    for key in {key for key, _ in links} & set(by_section):
        by_section[key].text.append(
            "Example games, chosen by rule (docs/report.md, Example games); each link opens "
            "the engine's replay of the game at that moment in a step-by-step viewer:")
    if note and "cards" in by_section:
        by_section["cards"].text.append(note)


__all__ = ["Example", "GAMES_DIR", "add_examples", "choose_examples", "write_examples"]
