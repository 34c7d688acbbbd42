"""docs/ai.md runs as written: its python blocks, in order, in one namespace (as in a
notebook), so an example that no longer runs fails here, not in a reader's session."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_helpers import python_blocks, run_blocks

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

DOC = Path(__file__).resolve().parent.parent / "docs" / "ai.md"


def test_every_python_block_of_the_page_runs():
    blocks = python_blocks(DOC)
    assert len(blocks) >= 5
    ns = run_blocks(DOC, "docs/ai.md", {"__name__": "ai_doc"}, blocks)
    assert ns["record"].strategies[0] == "mcts-4"
    assert ns["action"] in ns["state"].legal_actions()
    assert ns["batch"].games.height == 20
