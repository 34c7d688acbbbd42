"""The house rules of the code (docs/architecture.md): packages import only downward, no
module imports itself back through others, and the top level stays small.

Every `import` counts, at module level or inside a function: a lazy import that closes a
circle is still a circle, only hidden.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package -> the packages it may import (besides itself); docs/architecture.md's table
LOW = {"errors", "_utils", "_version"}
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "_version": set(),
    "_utils": {"errors"},
    "stats": {"errors"},
    "engine": {"errors", "_utils"},
    "game": LOW | {"engine"},
    "players": LOW | {"engine", "game"},
    "play": LOW | {"stats", "engine", "game", "players"},
    "audits": LOW | {"stats", "engine", "game", "players", "play"},
    "runner": LOW | {"stats", "engine", "game", "players", "play"},
    "viewer": LOW | {"stats", "engine", "game", "players", "play"},
    "cardvalue": LOW | {"stats", "engine", "game", "players", "play", "runner"},
    "fairness": LOW | {"stats", "engine", "game", "players", "play", "runner", "cardvalue"},
    "report": LOW | {"stats", "engine", "game", "players", "play", "runner", "viewer",
                     "cardvalue", "fairness"},
    "web": LOW | {"stats", "engine", "game", "players", "play", "runner", "viewer"},
    "sweep": LOW | {"stats", "engine", "game", "players", "play", "runner", "report"},
    "check": LOW | {"stats", "engine", "game", "players", "play", "runner", "report"},
    "strength": LOW | {"stats", "engine", "game", "players", "play", "runner", "report",
                       "check"},
    "calibrate": LOW | {"stats", "engine", "game", "players", "play", "runner", "report",
                        "check", "strength"},
    "balance": LOW | {"stats", "engine", "game", "players", "play", "runner", "cardvalue",
                      "fairness", "report", "check", "strength", "calibrate"},
}


def modules(package: str) -> dict[str, Path]:
    found = {}
    for path in (ROOT / package).rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The known modules `name` imports (resolving relative imports and `from p import m`)."""
    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = name if is_pkg else name.rsplit(".", 1)[0]
            if node.level:
                parts = base.split(".")
                base = ".".join(parts[:len(parts) - (node.level - 1)])
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
        for t in targets:
            while t and t not in known:
                t = t.rsplit(".", 1)[0] if "." in t else ""
            if t and t != name and not name.startswith(t + ".") \
                    and not (is_pkg and t.startswith(name + ".")):
                out.add(t)
    return out


def graph(*packages: str) -> dict[str, set[str]]:
    known = {k: v for p in packages for k, v in modules(p).items()}
    return {m: imports(m, p, known) for m, p in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def unit(module: str) -> str:
    """The package of targi_sim a module belongs to (its first name under targi_sim)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "targi_sim"


def test_the_library_has_no_import_circle():
    assert circles(graph("targi_sim")) == []


def test_the_command_line_has_no_import_circle():
    assert circles(graph("targi_sim", "cli")) == []


def test_packages_import_only_downward():
    wrong = []
    for module, targets in graph("targi_sim").items():
        src = unit(module)
        if src == "targi_sim":
            continue  # the public face may name anything (lazily)
        for target in targets:
            dst = unit(target)
            if dst != src and dst not in ALLOWED[src]:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_every_package_is_in_the_layer_table():
    packages = {p.name for p in (ROOT / "targi_sim").iterdir()
                if p.is_dir() and (p / "__init__.py").exists()}
    modules_ = {p.stem for p in (ROOT / "targi_sim").glob("*.py") if p.stem != "__init__"}
    assert packages | modules_ <= set(ALLOWED)


def test_the_top_level_is_small_and_every_package_says_what_it_owns():
    top = [p for p in (ROOT / "targi_sim").glob("*.py")]
    assert len(top) <= 12, sorted(p.name for p in top)
    for init in (ROOT / "targi_sim").rglob("__init__.py"):
        assert ast.get_docstring(ast.parse(init.read_text())), init


@pytest.mark.parametrize("name", ["tune", "check", "report", "sweep", "balance", "stats"])
def test_no_export_shadows_a_module(name):
    import targi_sim

    assert name not in targi_sim.__all__


def test_no_package_exports_a_name_that_hides_one_of_its_modules():
    """`targi_sim.tune` was a module and an exported function: after `import
    targi_sim.tune` the call failed. No package may do that with any of its modules."""
    import importlib
    import types

    hidden = []
    for init in (ROOT / "targi_sim").rglob("__init__.py"):
        name = ".".join(init.parent.relative_to(ROOT).parts)
        package = importlib.import_module(name)
        for child in init.parent.iterdir():
            sub = child.stem if child.suffix == ".py" else child.name
            if sub == "__init__" or not (child.suffix == ".py" or (child / "__init__.py").exists()):
                continue
            value = getattr(package, sub, None)
            if value is not None and not isinstance(value, types.ModuleType):
                hidden.append(f"{name}.{sub}")
    assert hidden == []


def test_the_checker_sees_a_circle_and_an_upward_import():
    """The helpers above find what they are for (so the tests cannot pass vacuously)."""
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
    assert "report" not in ALLOWED["runner"]
    edges = graph("targi_sim")
    assert "targi_sim.play.match" in edges["targi_sim.play.games"]
