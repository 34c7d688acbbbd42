"""mkdocs hooks (mkdocs.yml): pages made from the code, so they cannot drift from it.

* docs/reference/cli.md: `<!-- cli-reference -->` becomes every command's `--help`, as
  the typer app prints it at 100 columns (examples included, line for line).
* docs/reference/api.md: `<!-- api-reference -->` becomes one mkdocstrings entry per
  name of the public API (targi_sim.__all__), grouped as targi_sim/__init__.py groups
  them, each under the module that defines it.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI_MARK = "<!-- cli-reference -->"
API_MARK = "<!-- api-reference -->"
WIDTH = "100"


def _commands() -> list[list[str]]:
    import typer

    from cli.app import app

    def walk(command, path: list[str]):
        yield path
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            yield from walk(sub, [*path, name])
            if path == [] and name == "check":
                yield ["check", "init"]  # a command of its own behind `check`

    return list(walk(typer.main.get_command(app), []))


def cli_reference() -> str:
    """Every command's --help, as printed."""
    from typer.testing import CliRunner

    from cli.app import app

    runner = CliRunner()
    out = []
    for path in _commands():
        res = runner.invoke(app, [*path, "--help"], env={"COLUMNS": WIDTH})
        if res.exit_code != 0:
            raise RuntimeError(f"targi-sim {' '.join(path)} --help failed: {res.output}")
        title = " ".join(["targi-sim", *path])
        out += [f"## `{title}`", "", "```text", res.output.rstrip(), "```", ""]
    return "\n".join(out)


def api_reference() -> str:
    """The public API by group, each name documented where it is defined."""
    import targi_sim

    out = []
    for group, names in targi_sim._GROUPS.items():
        out += [f"## {group[0].upper()}{group[1:]}", ""]
        for name, module in names.items():
            obj = getattr(importlib.import_module(module), name)
            where = getattr(obj, "__module__", None) or module
            qual = getattr(obj, "__qualname__", name)
            if not isinstance(where, str) or "<" in qual:
                where, qual = module, name
            out += [f"::: {where}.{qual}", ""]
    return "\n".join(out)


def on_config(config, **kwargs):  # type: ignore[no-untyped-def]
    """The checkout first on sys.path, so the pages describe this code."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return config


def on_page_markdown(markdown: str, page, config, files, **kwargs):  # type: ignore[no-untyped-def]
    if CLI_MARK in markdown:
        markdown = markdown.replace(CLI_MARK, cli_reference())
    if API_MARK in markdown:
        markdown = markdown.replace(API_MARK, api_reference())
    return markdown
