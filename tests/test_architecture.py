"""The house rules of the code (docs/architecture.md): packages import only downward, no
module imports itself back through others, and the top level stays small.

Every `import` counts, at module level or inside a function: a lazy import that closes a
circle is still a circle, only hidden.
"""

from __future__ import annotations

import ast
import re
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
    "searches": LOW | {"stats", "engine", "game", "players", "play"},
    "viewer": LOW | {"stats", "engine", "game", "players", "play"},
    "ai": LOW | {"stats", "engine", "game", "players", "play"},
    "openspiel": {"ai"},  # the public faces of ai/ (targi_sim.openspiel, .pettingzoo)
    "pettingzoo": {"ai"},
    "cardvalue": LOW | {"stats", "engine", "game", "players", "play", "runner"},
    "fairness": LOW | {"stats", "engine", "game", "players", "play", "runner", "cardvalue"},
    "report": LOW | {"stats", "engine", "game", "players", "play", "runner", "viewer",
                     "cardvalue", "fairness"},
    "web": LOW | {"stats", "engine", "game", "players", "play", "runner", "viewer"},
    "sweep": LOW | {"stats", "engine", "game", "players", "play", "runner", "report"},
    "check": LOW | {"stats", "engine", "game", "players", "play", "runner", "report",
                    "searches"},
    "strength": LOW | {"stats", "engine", "game", "players", "play", "runner", "report",
                       "check", "searches"},
    "calibrate": LOW | {"stats", "engine", "game", "players", "play", "runner", "report",
                        "check", "strength", "searches"},
    "balance": LOW | {"stats", "engine", "game", "players", "play", "runner", "cardvalue",
                      "fairness", "report", "check", "strength", "calibrate", "searches"},
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


# ------------------------------------------------------------------ thin commands
FUNCTION_LINES = 60  # no function in cli/ is longer (def line to last line)
COMMAND_BODY_LINES = 40  # a command's body, below its signature and docstring


def functions(path: Path) -> list[ast.FunctionDef]:
    tree = ast.parse(path.read_text())
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def commands() -> list[tuple[str, object]]:
    """Every command function the app runs, by name."""
    from targi_sim.cli.app import app
    from targi_sim.cli.check_init import init

    found = [c.callback for c in app.registered_commands]
    found += [c.callback for g in app.registered_groups
              for c in g.typer_instance.registered_commands]
    return [(f.__name__, f) for f in [*found, init]]


def test_no_function_of_the_command_line_is_long():
    long = [f"{p.relative_to(ROOT)}:{f.lineno} {f.name} ({f.end_lineno - f.lineno + 1} lines)"
            for p in sorted((ROOT / "cli").glob("*.py")) for f in functions(p)
            if f.end_lineno - f.lineno + 1 > FUNCTION_LINES]
    assert long == []


def test_every_command_parses_calls_and_prints_in_a_few_lines():
    """A command's body (below its options and docstring) stays short: the work is the
    library's, the printing a helper's (docs/architecture.md)."""
    import inspect

    long = []
    for name, fn in commands():
        node = ast.parse(inspect.getsource(fn).lstrip()).body[0]
        body = node.body[1:] if ast.get_docstring(node) else node.body
        lines = body[-1].end_lineno - body[0].lineno + 1
        if lines > COMMAND_BODY_LINES:
            long.append(f"{name}: {lines} lines")
    assert len(commands()) >= 18 and long == []


def test_library_errors_name_no_command_line_flag():
    """A message raised outside cli/ names the Python setting (`block_deals`); the CLI
    shows its own option there. `--word` inside a raise's text is a flag."""
    flag = re.compile(r"(^|[^\w-])--[a-z]")
    found = []
    for path in sorted((ROOT / "targi_sim").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Raise) and node.exc is not None:
                found += [f"{path.relative_to(ROOT)}:{c.lineno}: {c.value!r}"
                          for c in ast.walk(node.exc) if isinstance(c, ast.Constant)
                          and isinstance(c.value, str) and flag.search(c.value)]
    assert found == []


def test_seeds_are_derived_in_one_place():
    """One function hashes a seed into a run seed (_utils/seeds.derive_seed); the
    searches, the check and the tournament call it."""
    derivations = []
    for path in sorted((ROOT / "targi_sim").rglob("*.py")):
        for f in functions(path):
            calls = {ast.unparse(c.func) for c in ast.walk(f) if isinstance(c, ast.Call)}
            if "int.from_bytes" in calls and any(c.endswith("sha256") for c in calls):
                derivations.append(f"{path.relative_to(ROOT)}:{f.name}")
    assert derivations == ["targi_sim/_utils/seeds.py:derive_seed"]
    for module in ("strength/tune.py", "strength/tournament.py", "calibrate/search.py",
                   "balance/searching.py", "check/baseline.py"):
        assert "derive_seed(" in (ROOT / "targi_sim" / module).read_text(), module


def test_the_checks_above_see_what_they_look_for():
    """A long function, a flag in a raised message and a second seed hash are found."""
    src = "def f():\n" + "    x = 1\n" * 70 + "    raise ValueError('--jobs must be 1')\n"
    tree = ast.parse(src)
    f = tree.body[0]
    assert f.end_lineno - f.lineno + 1 > FUNCTION_LINES
    raised = [c.value for n in ast.walk(tree) if isinstance(n, ast.Raise)
              for c in ast.walk(n.exc) if isinstance(c, ast.Constant)]
    assert re.search(r"(^|[^\w-])--[a-z]", raised[0])
    assert not re.search(r"(^|[^\w-])--[a-z]", "`jobs` must be 1; targi-sim is a name")
