"""targi-sim: a compiled simulator and balance analytics for the card game Targi.

Public API::

    from targi_sim import play_game, play_games, load_deck, load_rules
    record = play_game(seed=1, strategies=("random", "random"))
    batch = play_games(10_000, seed=7)
"""

from pathlib import Path as _Path

# In a checkout the CLI lives in ./cli and the wheel installs it as targi_sim/cli.
# Let `import targi_sim.cli` work in both cases.
_checkout_root = _Path(__file__).resolve().parent.parent
if not (_Path(__file__).parent / "cli").is_dir() and (_checkout_root / "cli" / "app.py").is_file():
    __path__.append(str(_checkout_root))  # noqa: F821 - package __path__

__version__ = "0.1.0"

from .api import (  # noqa: E402
    BatchResult,
    Match,
    game_plan,
    pair_seed,
    play_game,
    play_games,
    prepare_match,
)
from .deck import Deck, list_decks, load_deck  # noqa: E402
from .errors import DataError, InputError, UsageError  # noqa: E402
from .gamestate import GameState  # noqa: E402
from .record import GameRecord  # noqa: E402
from .report import ReportError, build_report, compare_runs  # noqa: E402
from .rules import Rules, list_rules, load_rules  # noqa: E402
from .strategy import Strategy, available_strategies, resolve_strategy, scripted  # noqa: E402

__all__ = [
    "BatchResult", "DataError", "InputError", "Deck", "GameRecord", "GameState", "Match", "Rules",
    "Strategy", "UsageError", "available_strategies", "game_plan", "list_decks", "list_rules",
    "load_deck", "load_rules", "pair_seed", "play_game", "play_games", "prepare_match",
    "resolve_strategy", "scripted",
    "ReportError", "build_report", "compare_runs",
]
