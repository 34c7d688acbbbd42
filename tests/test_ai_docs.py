"""docs/ai.md runs as written: its python blocks, in order, in one namespace (as in a
notebook), so an example that no longer runs fails here, not in a reader's session."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

DOC = Path(__file__).resolve().parent.parent / "docs" / "ai.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_every_python_block_of_the_page_runs():
    blocks = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 5
    ns: dict = {"__name__": "ai_doc"}
    for i, block in enumerate(blocks, 1):
        first = block.strip().splitlines()[0]
        try:
            exec(compile(block, f"docs/ai.md block {i}", "exec"), ns)
        except Exception as exc:  # name the block that broke
            raise AssertionError(f"docs/ai.md python block {i} ({first!r}) failed: "
                                 f"{type(exc).__name__}: {exc}") from exc
    assert ns["record"].strategies[0] == "mcts-4"
    assert ns["action"] in ns["state"].legal_actions()
    assert ns["batch"].games.height == 20
