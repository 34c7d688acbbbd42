"""`targi-sim strategies` and `targi-sim strategies show NAME|FILE`."""

from __future__ import annotations

import tomllib

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from targi_sim.players.strategy import WEIGHTS, Strategy


def one_line(text: str) -> str:
    """The description squeezed onto one line."""
    return " ".join(str(text).split())


def list_line(name: str, s: Strategy, width: int = 14) -> str:
    """One row of `targi-sim strategies`: name (padded to `width`, the longest name, so
    the columns line up), kind, description."""
    return f"  {name:<{width}} {s.kind_name:<11} {one_line(s.description)}"


def _file_values(s: Strategy) -> dict:
    try:
        return tomllib.loads(s.content) if s.content else {}
    except tomllib.TOMLDecodeError:
        return {}


def show(console: Console, s: Strategy) -> None:
    """Kind, description, file and every parameter by name (Strategy.settings())."""
    settings = s.settings()
    data = _file_values(s)
    head = Table(box=None, show_header=False, pad_edge=False)
    head.add_column(style="bold")
    head.add_column()
    head.add_row("name", escape(s.name))
    head.add_row("kind", s.kind_name)
    head.add_row("description", escape(one_line(s.description)) or "-")
    head.add_row("file", escape(str(s.path)) if s.path else "(built in)")
    if "search" in settings:
        head.add_row("search", settings["search"])
    if "rollouts" in settings:
        head.add_row("rollouts", f"{settings['rollouts']}  (per legal placement)")
    if "iterations" in settings:
        head.add_row("iterations", f"{settings['iterations']}  (per placement decision; "
                                   "NAME@N sets another)")
        head.add_row("exploration", f"{settings['exploration']:g}  (UCT constant)")
        if settings.get("rollout_rounds", 0) > 0:
            fit = (f"eval_gold {settings['eval_gold']:g}, eval_goods {settings['eval_goods']:g}"
                   if "eval_gold" in settings else "fitted on the deck it plays")
            head.add_row("playouts", f"cut after {settings['rollout_rounds']} rounds, valued by "
                         f"a fitted evaluation ({fit})")
    if "base_kind" in settings:
        head.add_row("base", f"{data.get('base', 'balanced')}  (kind {settings['base_kind']}: "
                             "plays both seats in rollouts)")
    if "budget" in settings:
        head.add_row("budget", f"{settings['budget']}  ({settings['budget_unit']} per "
                               "decision; NAME@N sets another)")
    console.print(head, highlight=False)
    if "weights" not in settings:
        if "budget" not in settings:
            console.print(f"({s.kind_name} strategies have no parameters)")
        return
    fallback = "base" if settings.get("base_kind") == "heuristic" else "default"
    for section, meanings in (("weights", {k: v[3] for k, v in WEIGHTS.items()}),
                              ("symbols", {})):
        given = data.get(section, {}) if isinstance(data.get(section), dict) else {}
        table = Table(box=box.SIMPLE_HEAD, title=escape(f"[{section}]"), title_justify="left")
        table.add_column("parameter")
        table.add_column("value", justify="right")
        table.add_column("from")
        if meanings:
            table.add_column("meaning")
        for key, value in settings[section].items():
            row = [key, f"{value:g}", "file" if key in given else fallback]
            if meanings:
                row.append(meanings.get(key, ""))
            table.add_row(*row)
        console.print(table, highlight=False)
