"""targi-sim: a compiled simulator and balance analytics for the card game Targi.

Public API::

    from targi_sim import play_game, play_games, load_deck, load_rules
    record = play_game(seed=1, strategies=("random", "random"))
    batch = play_games(10_000, seed=7)

    from targi_sim import open_run, run                    # run directories (docs/analysis.md)
    with run(games=2000, seed=1, out="runs/demo") as r:
        r.sql("SELECT avg(score_p0) FROM games").fetchall()
        r.table("games").collect()

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

from targi_sim._version import __version__ as __version__

# In a checkout the CLI lives in ./cli and the wheel installs it as targi_sim/cli.
# Let `import targi_sim.cli` work in both cases.
_checkout_root = _Path(__file__).resolve().parent.parent
if not (_Path(__file__).parent / "cli").is_dir() and (_checkout_root / "cli" / "app.py").is_file():
    __path__.append(str(_checkout_root))  # noqa: F821 - package __path__

# The public API, by group: public name -> module that defines it (imported on first use).
_GROUPS: dict[str, dict[str, str]] = {
    "playing games": {
        **dict.fromkeys(("play_game", "play_games", "BatchResult"), "targi_sim.play.games"),
        **dict.fromkeys(("Match", "prepare_match"), "targi_sim.play.match"),
        **dict.fromkeys(("game_plan", "pair_seed"), "targi_sim.play.pairing"),
        **dict.fromkeys(("Game", "new_game"), "targi_sim.play.session"),
        **dict.fromkeys(("open_playtest", "PlaytestDir"), "targi_sim.runner.playtest"),
        **dict.fromkeys(("PlayTable", "PlayServer"), "targi_sim.web"),
    },
    "game data": {
        **dict.fromkeys(("Deck", "list_decks", "load_deck"), "targi_sim.game.deck"),
        **dict.fromkeys(("Rules", "list_rules", "load_rules"), "targi_sim.game.rules"),
        **dict.fromkeys(("CardClasses", "card_classes"), "targi_sim.game.classes"),
        "GameState": "targi_sim.game.state",
        "GameRecord": "targi_sim.game.record",
        "View": "targi_sim.game.view",
        **dict.fromkeys(("Decision", "Option", "Place", "Resolve", "TakeGoods", "ChooseGood",
                         "Leave", "Discard", "Keep", "Play", "StopTrading", "Trade",
                         "KeepMarkers", "MoveMarker", "PayRaid", "GiveGood", "DrawTribe",
                         "Swap"), "targi_sim.game.decisions"),
    },
    "players": {
        **dict.fromkeys(("Strategy", "available_strategies", "resolve_strategy", "scripted"),
                        "targi_sim.players.strategy"),
        **dict.fromkeys(("PythonStrategy", "FirstOption"), "targi_sim.players.python_strategy"),
        **dict.fromkeys(("check_no_peeking", "FairPlayReport"), "targi_sim.audits.fairplay"),
        **dict.fromkeys(("signature", "Signature"), "targi_sim.audits.signatures"),
    },
    "strength": {
        **dict.fromkeys(("tune_strategy", "retune", "TuneConfig", "prepare_tune"),
                        "targi_sim.strength.tune"),
        **dict.fromkeys(("calibrate_economy", "CalibrationConfig", "write_calibration",
                         "load_space", "load_targets", "write_seed_comparison"),
                        "targi_sim.calibrate"),
        **dict.fromkeys(("run_ladder", "plan_ladder"), "targi_sim.strength.ladder"),
    },
    "analysis": {
        **dict.fromkeys(("open_run", "run", "Run", "IncompleteRunWarning"),
                        "targi_sim.runner.run"),
        **dict.fromkeys(("ReportError", "build_report", "compare_runs"), "targi_sim.report"),
        **dict.fromkeys(("card_values", "symbol_values", "round_values"), "targi_sim.cardvalue"),
        **dict.fromkeys(("game_page", "write_game_page"), "targi_sim.viewer"),
        **dict.fromkeys(("run_sweep", "plan_sweep", "SweepSpec"), "targi_sim.sweep"),
        **dict.fromkeys(("balance_deck", "BalanceConfig", "prepare_balance"),
                        "targi_sim.balance"),
        "resolve_levels": "targi_sim.searches",
    },
    "regression guard": {
        **dict.fromkeys(("InitConfig", "init_baseline", "prepare_init"),
                        "targi_sim.check.init_baseline"),
    },
    "errors": {
        **dict.fromkeys(("TargiSimError", "DataError", "InputError", "ConfigError",
                         "StrategyError", "UsageError"), "targi_sim.errors"),
    },
}
_EXPORTS = {name: module for group in _GROUPS.values() for name, module in group.items()}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'targi_sim' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
