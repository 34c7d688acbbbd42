"""Baseline files (`data/baselines/*.toml`): the win rates CI expects, loaded and validated.

Why a file: a win rate is a claim about the game that a change may break, so
the expected values live in reviewed, versioned data next to the decks. A
designer who edits one must get one line naming the file, the expectation,
the field and what is allowed (the same discipline as decks and rules), and
`targi-sim check --update` must rewrite only the measured values, keeping
comments and order, so that the diff shows exactly what moved.

Rates and tolerances are written in percent / win-rate points (`rate = 97.0`,
`tolerance = 1.0`); the Expectation object holds fractions. The format is
documented in docs/check.md.

Cards are numbered as everywhere else in targi-sim: by `card_id`, the card's place
among the deck's [[tribe]] entries counting from 0 (the run tables' card_id column, the
deck's `# card_id 26: Camp 1VP #4` comments), with the card's name beside the number
in every message (`card_label`).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from targi_sim._utils.seeds import derive_seed
from targi_sim.engine.constants import MAX_TRIBE
from targi_sim.errors import FieldReader, read_toml

KINDS = ("win_rate", "first_player_rate", "card_rate", "game_shape", "raid_loss", "deck_drift")
TOP_KEYS = ("description", "seed", "defaults", "expectation")
SETTINGS = ("deck", "rules", "seed", "max_games", "batch_games", "alpha", "beta",
            "update_games")
TARGET_KEYS = ("metric", "card", "symbol", "raid", "mean", "cards")
EXPECTATION_KEYS = ("name", "kind", "strategy", "opponent", "rate", "tolerance", *TARGET_KEYS,
                    *SETTINGS)
# the fields each kind needs ("value": `rate` for a rate, `mean` for a mean) and allows
KIND_FIELDS = {
    "win_rate": ("opponent", "value", "tolerance"),
    "first_player_rate": ("value", "tolerance"),
    "card_rate": ("metric", "card|symbol", "value", "tolerance"),
    "game_shape": ("metric", "value", "tolerance"),
    "raid_loss": ("raid", "value", "tolerance"),
    "deck_drift": ("cards",),
}
DRIFT_GAMES = 100_000  # deck_drift's fixed number of games when the file gives none
NORMAL_CAP = 200_000  # the cap of a paired-normal test when the file gives none
CARD_KEYS = ("card_id", "name", "acquire_rate", "acquire_rate_se", "acquire_rate_tolerance",
             "played_wr", "played_wr_se", "played_wr_tolerance")
DEFAULT_BATCH_GAMES = 1000
MAX_CARD_ID = MAX_TRIBE - 1  # card_ids are checked against the deck when it is loaded
MAX_SEED = 2**31 - 1
MAX_GAMES = 2**31  # pair ids must fit in 32 bits (targi_sim.play.games.pair_seed)
CAP_FACTOR = 1.5  # default cap: this many times the fixed-sample size (see `default_cap`)


@dataclass(frozen=True)
class Expectation:
    """One expected rate: `strategy`'s win rate against `opponent`, or the first player's.

    `rate` and `tolerance` are fractions (0.97, 0.01). `seed` is the run seed
    of the check's games; `max_games` the cap after which the fixed-sample
    verdict applies; the test looks at the data after every `batch_games`.
    """

    name: str
    kind: str
    strategy: str
    opponent: str
    rate: float
    tolerance: float
    deck: str = "base"
    rules: str = "default"
    seed: int = 0
    max_games: int = 0
    batch_games: int = DEFAULT_BATCH_GAMES
    alpha: float = 0.05
    beta: float = 0.05
    path: Path | None = None
    index: int = 0  # position in the file (0-based)
    metric: str = ""  # card_rate, game_shape, raid_loss (targi_sim.check.metrics.METRICS)
    card: int | str | None = None  # card_rate: card_id (0-based) or name in the deck
    symbol: str = ""  # card_rate: a symbol's cards pooled instead of one card
    raid: int = 0  # raid_loss: 1..4
    cards: tuple[CardBaseline, ...] = ()  # deck_drift: every card's measured rates
    update_games: int = 0  # games `--update` measures on (0: the command's default)

    @property
    def where(self) -> str:
        return f"expectation {self.name!r}"

    @property
    def is_mean(self) -> bool:
        """True when the value is a mean in the metric's own units, not a rate."""
        from targi_sim.check.metrics import PERCENT

        return bool(self.metric) and self.metric not in PERCENT

    def card_text(self, card_names: tuple[str, ...] | list[str] = ()) -> str:
        """A card_rate's card as `card_id 5 (Targia 1VP #1)` when the deck's names are
        known (else `card_id 5`, or the name the file gives)."""
        names = tuple(card_names)
        if isinstance(self.card, int):
            return card_label(self.card, names[self.card] if self.card < len(names) else "")
        if self.card in names:
            return card_label(names.index(self.card), self.card)
        return f"card {self.card!r}"

    @property
    def value_key(self) -> str:
        """The file's key of the expected value: `mean` for a mean, else `rate`."""
        return "mean" if self.is_mean else "rate"

    def describe(self, card_names: tuple[str, ...] | list[str] = ()) -> str:
        """One line: what is measured, in plain words. `card_names`: the deck's tribe
        names, so that a card_rate's card shows both its card_id and its name."""
        from targi_sim.check.metrics import DESCRIPTIONS

        setting = f"deck {Path(self.deck).stem}, rules {Path(self.rules).stem}"
        match = (f"mirror {_short(self.strategy)}" if self.strategy == self.opponent
                 else f"{_short(self.strategy)} vs {_short(self.opponent)}")
        if self.kind == "card_rate":
            about = f"symbol {self.symbol}" if self.symbol else self.card_text(card_names)
            return f"{match}: {about}'s {DESCRIPTIONS[self.metric]} ({setting})"
        if self.kind == "game_shape":
            return f"{match}: {DESCRIPTIONS[self.metric]} ({setting})"
        if self.kind == "raid_loss":
            return f"{match}: raid {self.raid}, {DESCRIPTIONS[self.metric]} ({setting})"
        if self.kind == "deck_drift":
            return (f"{match}: every tribe card's acquire rate and win rate when played, "
                    f"{len(self.cards)} cards ({setting})")
        if self.kind == "win_rate":
            return f"{_short(self.strategy)} vs {_short(self.opponent)}: " \
                   f"{_short(self.strategy)}'s win rate ({setting})"
        return f"{match}: first player's win rate ({setting})"


def card_label(card_id: int, name: str = "", was: str = "", note: str = "") -> str:
    """A tribe card as every check message names it: `card_id 5 (Targia 1VP #1)`; a card
    renamed since its baseline: `card_id 5 (Targia 4VP #1, was Targia 1VP #1)`."""
    inside = [s for s in (name, f"was {was}" if was and was != name else "", note) if s]
    return f"card_id {card_id}" + (f" ({', '.join(inside)})" if inside else "")


@dataclass(frozen=True)
class CardBaseline:
    """deck_drift: one tribe card's measured rates, as fractions: metric -> (value, its
    standard error, tolerance). `card_id` is the card's place among the deck's [[tribe]]
    entries counting from 0 (the run tables' card_id)."""

    card_id: int
    name: str
    values: dict[str, tuple[float, float, float]]

    @property
    def label(self) -> str:
        return card_label(self.card_id, self.name)


@dataclass(frozen=True)
class BaselineFile:
    """A parsed baseline file: its expectations in file order, plus the raw text."""

    path: Path
    text: str
    description: str
    expectations: tuple[Expectation, ...]


def _short(spec: str) -> str:
    return Path(spec).stem if spec.endswith(".toml") else spec


def derived_seed(file_seed: int, name: str, purpose: str = "check") -> int:
    """A run seed (0..2^31-1) from the file's seed and the expectation's name.

    Different expectations play different games; `--update` measures on
    another stream ("update") than the check plays, so a check never re-uses
    the very games its baseline was measured on.
    """
    return derive_seed("targi-check", purpose, file_seed, name)


def default_cap(rate: float, tolerance: float, batch_games: int, alpha: float = 0.05,
                beta: float = 0.05) -> int:
    """The game cap when the file gives none: CAP_FACTOR times a fixed-sample test's games.

    The fixed-sample size is that of a two-sided z-test at `alpha` with power
    1 - `beta` at a move of `tolerance`, for the largest variance a pair's
    mean score can have at this rate, rate * (1 - rate) (both games of every
    pair go the same way; in a mirror match the deal often decides both).
    Real pairs vary less, so the cap is at least CAP_FACTOR times their
    fixed-sample size. Rounded up to whole batches.
    """
    from targi_sim.stats.sprt import fixed_sample_pairs

    sd = math.sqrt(max(rate * (1.0 - rate), 0.0099))
    games = 2 * fixed_sample_pairs(sd, tolerance, alpha, beta)
    cap = CAP_FACTOR * games
    return max(batch_games, math.ceil(cap / batch_games) * batch_games)


def _get_float(r: FieldReader, key: str, default: float | None, lo: float, hi: float,
               unit: str = "") -> float:
    """A number strictly between lo and hi (ints accepted)."""
    expected = f"a number greater than {lo:g} and less than {hi:g}{unit}"
    if key not in r.data:
        if default is None:
            raise r.error(key, None, expected, "is missing (required)")
        return default
    value = r.data[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise r.error(key, value, expected, "has the wrong type")
    if not (lo < value < hi) or math.isnan(value):
        raise r.error(key, value, expected, "is out of range")
    return float(value)


def _resolve_spec(value: str, base_dir: Path) -> str:
    """Names stay names; relative .toml paths are relative to the baseline file."""
    if value.endswith((".toml", ".py")) or "/" in value or os.sep in value:
        p = Path(value).expanduser()
        return str(p if p.is_absolute() else base_dir / p)
    return value


def _settings(r: FieldReader, inherited: dict[str, Any], base_dir: Path) -> dict[str, Any]:
    """The shared settings of a [defaults] table or an expectation, over `inherited`."""
    out = dict(inherited)
    for key in ("deck", "rules"):
        if key in r.data:
            value = r.get_str(key)
            if not value.strip():
                raise r.error(key, value, "a deck/rules name or a .toml path", "is empty")
            out[key] = _resolve_spec(value, base_dir)
    if "seed" in r.data:
        out["seed"] = r.get_int("seed", lo=0, hi=MAX_SEED)
    if "batch_games" in r.data:
        n = r.get_int("batch_games", lo=2, hi=1_000_000)
        if n % 2:
            raise r.error("batch_games", n, "an even number (whole seat-swapped pairs)",
                          "must be even")
        out["batch_games"] = n
    if "max_games" in r.data:
        out["max_games"] = r.get_int("max_games", lo=2, hi=MAX_GAMES)
    if "update_games" in r.data:  # what `--update` plays unless --update-games says
        out["update_games"] = r.get_int("update_games", lo=2, hi=MAX_GAMES)
    for key in ("alpha", "beta"):
        if key in r.data:
            out[key] = _get_float(r, key, None, 0.0, 0.5)
    return out


def _value(r: FieldReader, kind: str, metric: str) -> tuple[str, float, float]:
    """(key, expected value, tolerance) as fractions for a rate, in its units for a mean."""
    from targi_sim.check.metrics import PERCENT, UNITS

    if kind in ("win_rate", "first_player_rate") or metric in PERCENT:
        if "mean" in r.data:
            raise r.error("mean", r.data["mean"], "`rate` (percent): this metric is a rate",
                          "is not a field of this metric")
        rate = _get_float(r, "rate", None, 0.0, 100.0, " (percent)") / 100.0
        tolerance = _get_float(r, "tolerance", None, 0.0, 50.0, " (rate points)") / 100.0
        if rate - tolerance <= 0.0 and rate + tolerance >= 1.0:
            raise r.error("tolerance", tolerance * 100,
                          "a tolerance that keeps rate - tolerance or rate + tolerance "
                          "strictly between 0 and 100", "is too large")
        return "rate", rate, tolerance
    if "rate" in r.data:
        raise r.error("rate", r.data["rate"], f"`mean` ({UNITS[metric]}): this metric is a mean",
                      "is not a field of this metric")
    mean = _get_float(r, "mean", None, -1e6, 1e6, f" ({UNITS[metric]})")
    tolerance = _get_float(r, "tolerance", None, 0.0, 1e6, f" ({UNITS[metric]})")
    return "mean", mean, tolerance


def _card_baselines(r: FieldReader) -> tuple[CardBaseline, ...]:
    """deck_drift's `cards` list: one inline table per card, validated field by field."""
    from targi_sim.check.metrics import CARD_METRICS

    items = r.get_list("cards")
    if not items:
        raise r.error("cards", None, "at least one card (written by `targi-sim check init`)",
                      "is empty")
    out, seen = [], set()
    for k, item in enumerate(items):
        c = FieldReader(r.path, r.where, item, f"cards[{k}].")
        if isinstance(item, dict) and "number" in item and "card_id" not in item:
            # the first files counted from 1: refuse them rather than shift every card
            raise c.error("number", item["number"], f"`card_id` 0..{MAX_CARD_ID} (counting "
                          "from 0, as in the run tables; card_id = number - 1), e.g. by "
                          "rerunning `targi-sim check init`", "is an old field (counted from 1)")
        c.check_keys(CARD_KEYS, required=("card_id", "name"))
        card_id = c.get_int("card_id", lo=0, hi=MAX_CARD_ID)
        if card_id in seen:
            raise c.error("card_id", card_id, "each card_id once", "is used twice")
        seen.add(card_id)
        values = {}
        for metric in CARD_METRICS:
            if metric not in c.data:
                continue
            value = _get_float(c, metric, None, -1e-9, 100.0 + 1e-9, " (percent)") / 100
            se = _get_float(c, f"{metric}_se", None, -1e-9, 100.0, " (percent)") / 100
            tol = _get_float(c, f"{metric}_tolerance", None, 0.0, 100.0, " (rate points)") / 100
            values[metric] = (value, se, tol)
        out.append(CardBaseline(card_id, c.get_str("name"), values))
    return tuple(out)


def _target_fields(r: FieldReader, kind: str, path: Path) -> dict[str, Any]:
    """The kind's own fields (metric, card or symbol, raid, cards); others are refused."""
    from targi_sim.check.metrics import METRICS

    needs = KIND_FIELDS[kind]
    allowed = {"opponent", "card", "symbol"} if "card|symbol" in needs else {"opponent"}
    allowed |= {f for f in needs if f != "card|symbol"}
    allowed |= {"rate", "mean", "tolerance"} if "value" in needs else set()
    allowed |= {"metric"} if kind == "raid_loss" else set()  # optional: one metric
    for key in (*TARGET_KEYS, "rate", "tolerance"):
        if key in r.data and key not in allowed:
            raise r.error(key, r.data[key], f"the fields of kind {kind!r}: "
                          + ", ".join(sorted(allowed - {"value"})),
                          f"is not a field of kind {kind!r}")
    out: dict[str, Any] = {}
    if "metric" in needs:
        out["metric"] = r.get_choice("metric", METRICS[kind])
    elif kind == "raid_loss":
        out["metric"] = r.get_choice("metric", METRICS[kind], METRICS[kind][0])
    if "card|symbol" in needs:
        if ("card" in r.data) == ("symbol" in r.data):
            raise r.error("card", r.data.get("card"), "either `card` (its card_id, counting "
                          "from 0 as in the run tables, or its name) or `symbol`, not both",
                          "is missing" if "card" not in r.data else "is given with symbol")
        if "symbol" in r.data:
            from targi_sim.engine.constants import SYMBOL_NAMES

            out["symbol"] = r.get_choice("symbol", SYMBOL_NAMES)
        else:
            card = r.data["card"]
            expected = f"a card_id 0..{MAX_CARD_ID} (counting from 0) or a card name"
            if isinstance(card, str) and card.strip():
                out["card"] = card
            elif isinstance(card, bool) or not isinstance(card, int):
                raise r.error("card", card, expected, "is empty" if isinstance(card, str)
                              else "has the wrong type")
            elif not 0 <= card <= MAX_CARD_ID:
                raise r.error("card", card, expected, "is out of range")
            else:
                out["card"] = card
    if "raid" in needs:
        out["raid"] = r.get_int("raid", lo=1, hi=4)
    if "cards" in needs:
        out["cards"] = _card_baselines(r)
    return out


def _expectation(r: FieldReader, k: int, defaults: dict[str, Any], file_seed: int,
                 path: Path) -> Expectation:
    settings = _settings(r, defaults, path.parent)
    kind = r.get_choice("kind", KINDS)
    fields = _target_fields(r, kind, path)
    strategy = _resolve_spec(r.get_str("strategy"), path.parent)
    if kind == "win_rate":
        opponent = _resolve_spec(r.get_str("opponent"), path.parent)
    else:  # a mirror unless an opponent is named
        opponent = _resolve_spec(r.get_str("opponent", r.data["strategy"]), path.parent)
    batch = settings.get("batch_games", DEFAULT_BATCH_GAMES)
    alpha, beta = settings.get("alpha", 0.05), settings.get("beta", 0.05)
    if kind == "deck_drift":
        rate, tolerance = 0.0, 0.0
        cap = settings.get("max_games") or DRIFT_GAMES
    else:
        _, rate, tolerance = _value(r, kind, fields.get("metric", ""))
        if fields.get("metric", "") and fields["metric"] not in ("display_full_share",
                                                                 "tiebreak_share"):
            cap = settings.get("max_games") or NORMAL_CAP  # no rate: no worst-case variance
        else:
            cap = settings.get("max_games") or default_cap(rate, tolerance, batch, alpha, beta)
    if cap < batch:
        raise r.error("max_games", cap, f"at least batch_games ({batch})", "is too small")
    cap = math.ceil(cap / batch) * batch  # the test looks at whole batches
    name = r.data["name"]
    seed = settings.get("seed", derived_seed(file_seed, name))
    return Expectation(
        name=name, kind=kind, strategy=strategy, opponent=opponent, rate=rate,
        tolerance=tolerance, deck=settings.get("deck", "base"),
        rules=settings.get("rules", "default"), seed=seed, max_games=cap, batch_games=batch,
        alpha=alpha, beta=beta, path=path, index=k, update_games=settings.get("update_games", 0),
        **fields,
    )


def load_baseline(path: str | Path) -> BaselineFile:
    """Read and validate a baseline file; raises DataError naming file, expectation, field."""
    path = Path(path)
    text, data = read_toml(path)
    top = FieldReader(path, "baseline file", data)
    top.check_keys(TOP_KEYS, required=("expectation",))
    description = top.get_str("description", "")
    file_seed = top.get_int("seed", 0, lo=0, hi=MAX_SEED)
    defaults: dict[str, Any] = {}
    if "defaults" in data:
        # no shared `seed` here: every expectation would play the same games
        d = top.get_table("defaults", allowed=[k for k in SETTINGS if k != "seed"])
        defaults = _settings(d, {}, path.parent)
    items = top.get_list("expectation")
    if not items:
        raise top.error("expectation", None, "at least one [[expectation]] table", "is empty")
    out: list[Expectation] = []
    seen: set[str] = set()
    for k, item in enumerate(items):
        where = f"expectation #{k + 1}"
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            where = f"expectation {item['name']!r}"
        r = FieldReader(path, where, item)
        r.check_keys(EXPECTATION_KEYS, required=("name", "kind", "strategy"))
        name = r.get_str("name")
        if not name.strip():
            raise r.error("name", name, "a non-empty string", "is empty")
        if name in seen:
            raise r.error("name", name, "a name used once per file", "is used twice")
        seen.add(name)
        out.append(_expectation(r, k, defaults, file_seed, path))
    return BaselineFile(path=path, text=text, description=description, expectations=tuple(out))


def list_baselines(folder: Path | None = None) -> list[Path]:
    """The shipped baseline files (`data/baselines/*.toml`), sorted."""
    from targi_sim._utils.paths import data_dir

    return sorted((folder or data_dir() / "baselines").glob("*.toml"))


# ------------------------------------------------------------------ --update


@dataclass(frozen=True)
class Measured:
    """A re-measured rate for one expectation (fractions) and how it was measured."""

    rate: float
    ci_low: float
    ci_high: float
    games: int
    mean: bool = False  # a mean in its own units (written as is), not a rate
    se: float = math.nan  # the standard error of `rate`, the unit as the cluster
    cards: tuple[CardBaseline, ...] = ()  # deck_drift: every card re-measured


def _percent(rate: float) -> float:
    """A rate as written to the file: percent, 2 decimals, kept inside (0, 100)."""
    return min(99.99, max(0.01, round(100 * rate, 2)))


def _rate_line(prefix: str, m: Measured) -> str:
    if m.mean:
        return (f"{prefix}{m.rate:.3f}  # measured on {m.games:,} games, "
                f"95% CI {m.ci_low:.3f}..{m.ci_high:.3f}")
    return (f"{prefix}{_percent(m.rate):.2f}  # measured on {m.games:,} games, "
            f"95% CI {100 * m.ci_low:.2f}..{100 * m.ci_high:.2f}")


def cards_text(cards: tuple[CardBaseline, ...], games: int) -> str:
    """deck_drift's `cards = [...]` block: one inline table per card (percent)."""
    out = [f"# {len(cards)} tribe cards measured on {games:,} games (card_id from 0 as in "
           "the run tables; value, its standard error, tolerance: rate points)\n",
           "cards = [\n"]
    for c in cards:
        parts = [f"card_id = {c.card_id}", f"name = {_toml_value(c.name)}"]
        for metric, (value, se, tol) in c.values.items():
            parts += [f"{metric} = {100 * value:.2f}", f"{metric}_se = {100 * se:.3f}",
                      f"{metric}_tolerance = {100 * tol:.1f}"]
        out.append("  { " + ", ".join(parts) + " },\n")
    out.append("]\n")
    return "".join(out)


_HEADER = re.compile(r"^\s*\[\[\s*expectation\s*\]\]\s*(#.*)?$")
_TABLE = re.compile(r"^\s*\[")
_RATE = re.compile(r"^(\s*(?:rate|mean)\s*=\s*)[-+0-9.eE_]+\s*(#.*)?$")
_CARDS = re.compile(r"^\s*cards\s*=\s*\[\s*(#.*)?$")
_CARDS_NOTE = re.compile(r"^\s*# \d+ tribe cards measured on ")
_CLOSE = re.compile(r"^\s*\]\s*(#.*)?$")


def updated_text(baseline: BaselineFile, measured: dict[int, Measured]) -> str:
    """The file's text with the `rate` of each re-measured expectation replaced.

    Only the `rate = ...` lines change (their trailing comment becomes a note of
    the measurement); comments, order and every other line stay. When the file
    is written in a form this cannot edit line by line (e.g. inline tables), it
    is rewritten cleanly instead.
    """
    lines = baseline.text.splitlines(keepends=True)
    block = -1
    done: set[int] = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        if _HEADER.match(line):
            block += 1
        elif _CARDS.match(line) and block in measured and measured[block].cards:
            end = next((j for j in range(i + 1, len(lines)) if _CLOSE.match(lines[j])), None)
            if end is not None and block not in done:
                start = i - 1 if i and _CARDS_NOTE.match(lines[i - 1]) else i
                m = measured[block]
                new = cards_text(m.cards, m.games).splitlines(keepends=True)
                lines[start:end + 1] = new
                i = start + len(new)
                done.add(block)
                continue
        elif _TABLE.match(line):
            block = -1  # some other table: not inside an expectation
        else:
            m = _RATE.match(line.rstrip("\r\n"))
            if m and block in measured and block not in done and not measured[block].cards:
                ending = line[len(line.rstrip("\r\n")):]
                lines[i] = _rate_line(m.group(1), measured[block]) + (ending or "\n")
                done.add(block)
        i += 1
    text = "".join(lines)
    if done == set(measured) and _rates_match(baseline.path, text, measured):
        return text
    return dump_text(baseline, measured)


def _rates_match(path: Path, text: str, measured: dict[int, Measured]) -> bool:
    import tomllib

    try:
        data = tomllib.loads(text)
        items = data["expectation"]
        for k, m in measured.items():
            if m.cards:
                if len(items[k]["cards"]) != len(m.cards):
                    return False
            elif m.mean:
                if abs(items[k]["mean"] - round(m.rate, 3)) > 1e-9:
                    return False
            elif abs(items[k]["rate"] - _percent(m.rate)) > 1e-9:
                return False
        return True
    except (tomllib.TOMLDecodeError, KeyError, IndexError, TypeError):
        return False


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise TypeError(f"cannot write {value!r} to a baseline file")


def dump_text(baseline: BaselineFile, measured: dict[int, Measured]) -> str:
    """The whole file written cleanly (comments lost), with re-measured rates."""
    import tomllib

    data = tomllib.loads(baseline.text)
    out = ["# targi-sim baseline file (rewritten by `targi-sim check --update`)\n"]
    for key in ("description", "seed"):
        if key in data:
            out.append(f"{key} = {_toml_value(data[key])}\n")
    if "defaults" in data:
        out.append("\n[defaults]\n")
        out.extend(f"{k} = {_toml_value(v)}\n" for k, v in data["defaults"].items())
    for k, item in enumerate(data["expectation"]):
        out.append("\n[[expectation]]\n")
        for key, value in item.items():
            if key in ("rate", "mean") and k in measured and not measured[k].cards:
                out.append(_rate_line(f"{key} = ", measured[k]) + "\n")
            elif key == "cards":
                m = measured.get(k)
                out.append(cards_text(m.cards, m.games) if m is not None and m.cards
                           else cards_text(_load_cards(value), 0))
            else:
                out.append(f"{key} = {_toml_value(value)}\n")
    return "".join(out)


def _load_cards(items: list[dict[str, Any]]) -> tuple[CardBaseline, ...]:
    """Cards as read from a file already validated (percent -> fractions)."""
    from targi_sim.check.metrics import CARD_METRICS

    return tuple(CardBaseline(int(c["card_id"]), str(c["name"]), {
        m: (c[m] / 100, c[f"{m}_se"] / 100, c[f"{m}_tolerance"] / 100)
        for m in CARD_METRICS if m in c}) for c in items)


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to a temporary file next to `path`, then rename it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


__all__ = [
    "BaselineFile", "CardBaseline", "Expectation", "KINDS", "Measured", "card_label",
    "cards_text",
    "default_cap", "derived_seed",
    "dump_text", "list_baselines", "load_baseline", "updated_text", "write_atomic",
]
