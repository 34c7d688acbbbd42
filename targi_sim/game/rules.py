"""Load a rules TOML file (with `base = ...` inheritance) into the engine's int32 vector.

Why: every [S]/[D] item of docs/rules.md is a switchable setting, so designers can measure
what a disputed reading does. Files use readable names; the engine reads the vector
indexed by the RL_* constants. `Rules.content` is the fully resolved, standalone TOML
(so a run records exactly which rules it used); `source_text` is the file as written.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from targi_sim._utils.paths import data_dir
from targi_sim.engine import constants as C
from targi_sim.engine import limits as L
from targi_sim.errors import DataError, FieldReader, read_toml
from targi_sim.game.deck import resolve

# enumerated settings: key -> (RL index, allowed values in code order)
ENUMS: dict[str, tuple[int, tuple[str, ...]]] = {
    "raid_unpaid": (
        C.RL_RAID_UNPAID,
        ("opponent_gains_fixed", "opponent_gains_raid_vp", "nothing", "pay_what_they_have"),
    ),
    "no_legal_placement": (C.RL_NO_LEGAL_PLACEMENT, ("unplaced", "ignore_facing")),
    "final_raid_end": (C.RL_RAID4_END, ("immediate", "finish_round")),
    "tiebreak": (C.RL_TIEBREAK, ("gold_then_goods", "gold_only", "goods_plus_gold")),
    "full_display": (C.RL_FULL_DISPLAY, ("hand_or_discard", "discard_only")),
    "hand_card_play": (C.RL_HAND_PLAY, ("later_round", "same_round")),
}
# settings added after rules files were first written: a complete file (no `base`)
# that lacks one gets this value
LATER_DEFAULTS: dict[str, Any] = {"hand_card_play": "later_round"}
# integer settings (>= 0): key -> RL index
INTS: dict[str, int] = {
    "raid_unpaid_vp": C.RL_RAID_UNPAID_VP,
    "max_goods": C.RL_MAX_GOODS,
    "max_gold": C.RL_MAX_GOLD,
    "hand_limit": C.RL_HAND_LIMIT,
    "row_bonus_same_symbol": C.RL_ROW_SAME_BONUS,
    "row_bonus_all_different": C.RL_ROW_DIFF_BONUS,
}
# upper bounds: one hand slot, and what a game's log columns hold (targi_sim/engine/limits.py)
INT_MAX: dict[str, int] = {
    "hand_limit": 1,
    "raid_unpaid_vp": L.RAID_UNPAID_VP,
    "max_goods": L.HOLDING_LIMIT,
    "max_gold": L.HOLDING_LIMIT,
    "row_bonus_same_symbol": L.ROW_BONUS,
    "row_bonus_all_different": L.ROW_BONUS,
}
START: dict[str, int] = {
    "salt": C.RL_START_SALT,
    "pepper": C.RL_START_PEPPER,
    "dates": C.RL_START_DATES,
    "gold": C.RL_START_GOLD,
    "vp": C.RL_START_VP,
}
SETTING_KEYS = (*ENUMS, *INTS, "start")
META_KEYS = ("name", "description", "base")


@dataclass(frozen=True, eq=False)
class Rules:
    """Resolved rules: readable settings plus the int32[N_RULES] engine vector."""

    name: str
    path: Path | None
    content: str
    sha256: str
    settings: dict[str, Any]
    vector: np.ndarray
    description: str = ""
    source_text: str = ""

    def with_overrides(self, **overrides: Any) -> Rules:
        """A copy with some settings replaced (validated like a variant file)."""
        reader = FieldReader(None, "rules overrides", dict(overrides))
        reader.check_keys(SETTING_KEYS)
        part = _read_settings(reader, complete=False)
        settings = _merge(self.settings, part)
        flat = {
            **{k: v for k, v in part.items() if k != "start"},
            **{f"start.{k}": v for k, v in part.get("start", {}).items()},
        }
        label = ",".join(f"{k}={v}" for k, v in sorted(flat.items()))
        return _build(
            f"{self.name}+{label}", self.path, settings, self.description, self.source_text
        )

    def __getitem__(self, key: str) -> Any:
        return self.settings[key]


def list_rules() -> list[str]:
    """Names of the rules files shipped in `data/rules/`."""
    return sorted(p.stem for p in (data_dir() / "rules").glob("*.toml"))


def load_rules(name_or_path: str | Path = "default") -> Rules:
    """Load and validate rules by shipped name ("default") or by file path."""
    path = resolve("rules", "rules", name_or_path, list_rules())
    text, settings, meta = _load_chain(path, ())
    return _build(meta.get("name", path.stem), path, settings, meta.get("description", ""), text)


def _load_chain(path: Path, seen: tuple[Path, ...]) -> tuple[str, dict[str, Any], dict[str, str]]:
    """(file text, resolved settings, own name/description) following `base`."""
    key = path.resolve()
    if key in seen:
        chain = " -> ".join(str(p) for p in (*seen, key))
        raise DataError(
            path, "rules", "base", chain, "a chain without cycles", "forms an inheritance cycle"
        )
    text, data = read_toml(path)
    r = FieldReader(path, "rules", data)
    r.check_keys(META_KEYS + SETTING_KEYS)
    meta = {k: r.get_str(k) for k in ("name", "description") if k in data}
    if "base" not in data:
        return text, _read_settings(r, complete=True), meta
    base_name = r.get_str("base")
    base_path = _resolve_base(path, base_name)
    if not base_path.is_file():
        raise r.error(
            "base",
            base_name,
            "a name from " + ", ".join(list_rules()) + " or a path relative to this file",
            "names no rules file",
        )
    _, base_settings, _ = _load_chain(base_path, (*seen, key))
    return text, _merge(base_settings, _read_settings(r, complete=False)), meta


def _resolve_base(path: Path, base: str) -> Path:
    if base.endswith(".toml") or "/" in base:
        candidate = Path(base)
        return candidate if candidate.is_absolute() else path.parent / candidate
    return data_dir() / "rules" / f"{base}.toml"


def _read_settings(r: FieldReader, complete: bool) -> dict[str, Any]:
    """Validate the setting keys present in `r` (all of them when `complete`)."""
    required = tuple(k for k in SETTING_KEYS if k not in LATER_DEFAULTS) if complete else ()
    r.check_keys(META_KEYS + SETTING_KEYS, required=required)
    out: dict[str, Any] = dict(LATER_DEFAULTS) if complete else {}
    for key, (_, options) in ENUMS.items():
        if key in r.data:
            out[key] = r.get_choice(key, options)
    for key in INTS:
        if key in r.data:
            out[key] = r.get_int(key, hi=INT_MAX[key])
    if "start" in r.data:
        start = r.get_table("start", START)
        if complete:
            start.check_keys(START, required=START)
        out["start"] = {k: start.get_int(k, hi=L.START) for k in START if k in start.data}
    return out


def _merge(base: dict[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in part.items():
        merged[key] = {**base.get("start", {}), **value} if key == "start" else value
    return merged


def render(name: str, description: str, settings: dict[str, Any]) -> str:
    """The resolved settings as a standalone rules TOML (canonical key order)."""
    lines = [f"name = {json.dumps(name)}", f"description = {json.dumps(description)}"]
    for key in SETTING_KEYS:
        value = settings[key]
        if key == "start":
            inner = ", ".join(f"{k} = {value[k]}" for k in START)
            lines.append(f"start = {{ {inner} }}")
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def _build(
    name: str, path: Path | None, settings: dict[str, Any], description: str, source_text: str
) -> Rules:
    vector = np.zeros(C.N_RULES, dtype=np.int32)
    for key, (index, options) in ENUMS.items():
        vector[index] = options.index(settings[key])
    for key, index in INTS.items():
        vector[index] = settings[key]
    for key, index in START.items():
        vector[index] = settings["start"][key]
    content = render(name, description, settings)
    return Rules(
        name=name,
        path=path,
        content=content,
        sha256=hashlib.sha256(content.encode("utf-8")).hexdigest(),
        settings=settings,
        vector=vector,
        description=description,
        source_text=source_text,
    )
