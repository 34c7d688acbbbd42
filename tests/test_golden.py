"""Golden games: fixed seeds whose complete record is committed under tests/golden/.

Why: property tests accept any legal game; a golden file pins *which* game a seed gives,
so any change that alters play — rules, deck data, random streams, decision order,
log columns — shows up as a concrete first difference. If the change is intended,
regenerate deliberately with `python tests/golden/regenerate.py` and commit the diff.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from targi_sim import load_deck, load_rules

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
REGENERATE = "python tests/golden/regenerate.py"


def _regenerate_module():
    spec = importlib.util.spec_from_file_location("golden_regenerate", GOLDEN_DIR / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


regen = _regenerate_module()


def _table_row(table: dict[str, list], i: int) -> dict[str, Any]:
    return {col: (vals[i] if i < len(vals) else "<missing>") for col, vals in table.items()}


def first_difference(want: Any, got: Any, path: str = "record") -> str | None:
    """A readable description of the first place two JSON documents differ, or None."""
    if isinstance(want, dict) and isinstance(got, dict):
        missing = [k for k in want if k not in got]
        extra = [k for k in got if k not in want]
        if missing or extra:
            return f"{path}: keys missing {missing}, unexpected {extra}"
        if _is_table(want) and _is_table(got):
            return _table_difference(want, got, path)
        for k in want:
            diff = first_difference(want[k], got[k], f"{path}.{k}")
            if diff:
                return diff
        return None
    if isinstance(want, list) and isinstance(got, list):
        for i, (a, b) in enumerate(zip(want, got, strict=False)):
            if a != b:
                return first_difference(a, b, f"{path}[{i}]")
        if len(want) != len(got):
            return f"{path}: length {len(got)}, golden {len(want)}"
        return None
    if want != got:
        return f"{path}: got {got!r}, golden {want!r}"
    return None


def _is_table(d: dict) -> bool:
    return bool(d) and all(isinstance(v, list) for v in d.values()) and (
        len({len(v) for v in d.values()}) <= 1
    ) and "game_id" in d


def _table_difference(want: dict[str, list], got: dict[str, list], path: str) -> str | None:
    if list(want) != list(got):
        return f"{path}: columns {list(got)}, golden {list(want)}"
    n_want = len(next(iter(want.values())))
    n_got = len(next(iter(got.values())))
    for i in range(min(n_want, n_got)):
        a, b = _table_row(want, i), _table_row(got, i)
        if a != b:
            cols = [c for c in a if a[c] != b[c]]
            return (f"{path} row {i} differs in {cols}:\n"
                    f"  golden: {a}\n  got:    {b}")
    if n_want != n_got:
        i = min(n_want, n_got)
        longer, which = (got, "extra row in new game") if n_got > n_want else (want, "row missing")
        return f"{path}: {n_got} rows, golden {n_want}; first {which} {i}: {_table_row(longer, i)}"
    return None


# Where play diverges first: the decision trace is in time order, so its first differing
# row is the moment the games part; the other tables and the summary follow from it.
CAUSAL_ORDER = ("trace", "raids", "rounds", "acquisitions", "offers")


def describe_mismatch(want: dict[str, Any], got: dict[str, Any]) -> str:
    """Which parts of a record differ, and the first difference in play order."""
    parts = [k for k in want if k != "tables" and want.get(k) != got.get(k)]
    tables_w, tables_g = want.get("tables", {}), got.get("tables", {})
    names = [t for t in CAUSAL_ORDER if t in tables_w] + [
        t for t in tables_w if t not in CAUSAL_ORDER]
    parts += [f"tables.{t}" for t in names if tables_w[t] != tables_g.get(t)]
    parts += [f"tables.{t} (new)" for t in tables_g if t not in tables_w]
    lines = [f"Differs in: {', '.join(parts) or 'nothing'}"]
    for t in names:
        if t in tables_g and tables_w[t] != tables_g[t]:
            lines.append("First difference: "
                         + str(first_difference(tables_w[t], tables_g[t], f"record.tables.{t}")))
            break
    else:
        lines.append(f"First difference: {first_difference(want, got)}")
    return "\n".join(lines)


@pytest.mark.parametrize("name", sorted(regen.GOLDEN_GAMES))
def test_golden_game(name: str) -> None:
    path = GOLDEN_DIR / name
    assert path.is_file(), f"{path} missing: run `{REGENERATE}`"
    doc = json.loads(path.read_text(encoding="utf-8"))
    params = regen.GOLDEN_GAMES[name]
    assert doc["params"] == params, f"{name} was made with other parameters: run `{REGENERATE}`"
    fresh = regen.play(params)
    if fresh == doc["record"]:
        return
    hints = []
    if load_deck(params["deck"]).sha256 != doc["deck_sha256"]:
        hints.append(f"the deck file '{params['deck']}' changed since the golden file was made")
    if load_rules(params["rules"]).sha256 != doc["rules_sha256"]:
        hints.append(f"the rules file '{params['rules']}' changed since the golden file was made")
    pytest.fail(
        f"golden game {name} replays differently.\n{describe_mismatch(doc['record'], fresh)}\n"
        + "".join(f"Note: {h}.\n" for h in hints)
        + f"If the change of play is intended, run `{REGENERATE}` and commit the diff.",
        pytrace=False,
    )


def test_golden_files_are_real_games() -> None:
    """The files hold complete records (trace included), the two random games' decks
    differ, and the search games are the search strategies'."""
    docs = {n: json.loads((GOLDEN_DIR / n).read_text()) for n in regen.GOLDEN_GAMES}
    assert len(docs) == 4
    placements = docs.pop("game_seed_20261204_expert-placements.json")
    assert placements["params"]["strategies"][0].startswith("expert-placements@")
    assert placements["record"]["winner"] == 0  # the search beats tuned in this game
    expert = docs.pop("game_seed_20261206_expert.json")
    assert expert["params"]["strategies"] == ["expert@30", "expert-placements@20"]
    assert len(expert["record"]["tables"]["trace"]["decision"]) > 200
    for name, doc in docs.items():
        rec = doc["record"]
        assert set(rec["tables"]) == {"rounds", "acquisitions", "offers", "raids", "goods", "trace"}
        assert len(rec["tables"]["trace"]["decision"]) > 50, name
        assert len(rec["tables"]["rounds"]["round"]) == 2 * rec["rounds"]
        assert sum(rec["scores"]) > 0
        assert rec["seed"] == doc["params"]["seed"] == 20261201
    a, b = (d["record"] for d in docs.values())
    assert a["tables"]["trace"] != b["tables"]["trace"]


def test_golden_writer_round_trips() -> None:
    doc = json.loads((GOLDEN_DIR / "game_seed_20261201_base.json").read_text())
    assert json.loads(regen.dumps(doc)) == doc


def test_first_difference_points_at_the_first_changed_row() -> None:
    """The failure message names the table, the row and the columns that changed."""
    doc = json.loads((GOLDEN_DIR / "game_seed_20261201_base.json").read_text())["record"]
    assert first_difference(doc, copy.deepcopy(doc)) is None

    changed = copy.deepcopy(doc)
    changed["tables"]["trace"]["choice"][17] += 1
    changed["tables"]["trace"]["choice"][40] += 1
    msg = first_difference(doc, changed)
    assert msg is not None
    assert msg.startswith("record.tables.trace row 17 differs in ['choice']"), msg

    shorter = copy.deepcopy(doc)
    for col in shorter["tables"]["raids"].values():
        col.pop()
    msg = first_difference(doc, shorter)
    assert msg is not None and "record.tables.raids" in msg and "row missing" in msg, msg

    scored = copy.deepcopy(doc)
    scored["breakdown"][1]["tokens"] += 2
    assert first_difference(doc, scored) == (
        f"record.breakdown[1].tokens: got {doc['breakdown'][1]['tokens'] + 2}, "
        f"golden {doc['breakdown'][1]['tokens']}"
    )


def test_mismatch_report_leads_with_the_trace() -> None:
    doc = json.loads((GOLDEN_DIR / "game_seed_20261201_base.json").read_text())["record"]
    assert describe_mismatch(doc, copy.deepcopy(doc)).startswith("Differs in: nothing")
    changed = copy.deepcopy(doc)
    changed["scores"][0] += 1
    changed["tables"]["trace"]["choice"][5] += 1
    changed["tables"]["rounds"]["vp_tokens"][3] += 1
    report = describe_mismatch(doc, changed)
    assert report.splitlines()[0] == "Differs in: scores, tables.trace, tables.rounds"
    assert report.splitlines()[1].startswith(
        "First difference: record.tables.trace row 5 differs in ['choice']")
