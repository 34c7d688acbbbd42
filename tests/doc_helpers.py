"""Running a documentation page's Python examples as written (tests of the pages)."""

from __future__ import annotations

import re
from pathlib import Path

BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(page: Path) -> list[str]:
    """The page's ```python blocks, in order."""
    return BLOCK.findall(page.read_text(encoding="utf-8"))


def run_blocks(page: Path, label: str, ns: dict, blocks: list[str] | None = None) -> dict:
    """Run the blocks in order in one namespace, as a notebook would; a block that raises
    is named (its number and first line) in the AssertionError."""
    for i, block in enumerate(python_blocks(page) if blocks is None else blocks, 1):
        first = block.strip().splitlines()[0]
        try:
            exec(compile(block, f"{label} block {i}", "exec"), ns)
        except Exception as exc:  # name the block that broke
            raise AssertionError(f"{label} python block {i} ({first!r}) failed: "
                                 f"{type(exc).__name__}: {exc}") from exc
    return ns
