"""The rules the engine plays are written down in the repository (docs/rules.md), with
every rules setting explained where its rule is."""

import re
import tomllib
from pathlib import Path

from targi_sim.game.rules import ENUMS, SETTING_KEYS, load_rules

ROOT = Path(__file__).resolve().parent.parent
RULES_DOC = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
SETTINGS_DOC = (ROOT / "docs" / "rules-settings.md").read_text(encoding="utf-8")


def test_every_setting_of_the_default_rules_is_documented_with_its_values():
    default = tomllib.loads((ROOT / "data" / "rules" / "default.toml").read_text())
    keys = [k for k in default if k not in ("name", "description")]
    assert sorted(keys) == sorted(SETTING_KEYS)
    for key in keys:
        assert re.search(rf"`rules: {re.escape(key)}\b", RULES_DOC), f"docs/rules.md: {key}"
        assert f"`{key}`" in SETTINGS_DOC, f"docs/rules-settings.md: {key}"
    for key, (_, values) in ENUMS.items():
        for value in values:
            assert f'"{value}"' in RULES_DOC, f"docs/rules.md: {key} = {value!r}"
            assert f"`{value}`" in SETTINGS_DOC, f"docs/rules-settings.md: {key} = {value!r}"


def test_every_shipped_rules_variant_is_listed_and_loads():
    for path in sorted((ROOT / "data" / "rules").glob("*.toml")):
        load_rules(path.stem)
        if path.stem != "default":
            assert f"`{path.stem}`" in SETTINGS_DOC, path.stem


def test_no_doc_sends_a_reader_outside_the_repository():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        assert "../shared" not in text and "RULES.md" not in text, path.name
        assert not re.search(r"(?<![\w.])/(work|root|home|tmp)/", text), path.name
