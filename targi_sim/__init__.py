"""targi-sim: a compiled simulator and balance analytics for the card game Targi.

Public API::

    from targi_sim import play_game, play_games, load_deck, load_rules
    record = play_game(seed=1, strategies=("random", "random"))
    batch = play_games(10_000, seed=7)

    from targi_sim import PythonStrategy, new_game        # strategies in plain Python
    state = new_game(seed=1)                               # an OpenSpiel-style game
    state.apply(0)

Names are imported on first use (PEP 562): `import targi_sim` is cheap, so the command
line can catch a Ctrl-C while the heavy libraries (numba, polars, DuckDB) load.
"""

from __future__ import annotations

import importlib
from pathlib import Path as _Path
from typing import Any

# In a checkout the CLI lives in ./cli and the wheel installs it as targi_sim/cli.
# Let `import targi_sim.cli` work in both cases.
_checkout_root = _Path(__file__).resolve().parent.parent
if not (_Path(__file__).parent / "cli").is_dir() and (_checkout_root / "cli" / "app.py").is_file():
    __path__.append(str(_checkout_root))  # noqa: F821 - package __path__

__version__ = "0.1.0"

# public name -> module (relative to this package) that defines it
_EXPORTS = {
    **dict.fromkeys(("BatchResult", "Match", "game_plan", "pair_seed", "play_game",
                     "play_games", "prepare_match"), ".api"),
    **dict.fromkeys(("Deck", "list_decks", "load_deck"), ".deck"),
    **dict.fromkeys(("DataError", "InputError", "StrategyError", "UsageError"), ".errors"),
    "GameState": ".gamestate",
    "GameRecord": ".record",
    **dict.fromkeys(("ReportError", "build_report", "compare_runs"), ".report"),
    **dict.fromkeys(("Rules", "list_rules", "load_rules"), ".rules"),
    **dict.fromkeys(("Strategy", "available_strategies", "resolve_strategy", "scripted"),
                    ".strategy"),
    **dict.fromkeys(("PythonStrategy", "FirstOption"), ".python_strategy"),
    **dict.fromkeys(("Game", "new_game"), ".session"),
    **dict.fromkeys(("Decision", "Option", "Place", "Resolve", "TakeGoods", "ChooseGood",
                     "Leave", "Discard", "Keep", "Play", "StopTrading", "Trade",
                     "KeepMarkers", "MoveMarker", "PayRaid", "GiveGood", "DrawTribe", "Swap"),
                    ".decisions"),
    "View": ".view",
    "tune": ".tune",
    **dict.fromkeys(("check_no_peeking", "FairPlayReport"), ".fairplay"),
    **dict.fromkeys(("signature", "Signature"), ".signatures"),
    **dict.fromkeys(("run_ladder", "plan_ladder"), ".ladder"),
    **dict.fromkeys(("card_values", "symbol_values", "round_values"), ".cardvalue"),
    **dict.fromkeys(("game_page", "write_game_page"), ".viewer"),  # the HTML game viewer
    **dict.fromkeys(("InitConfig", "init_baseline"), ".check_init"),  # issue 19: check init
    **dict.fromkeys(("run_sweep", "plan_sweep", "SweepSpec"), ".sweep"),
    **dict.fromkeys(("balance_deck", "BalanceConfig"), ".balance"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'targi_sim' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
