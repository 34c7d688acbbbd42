"""What the searches share (tune, calibrate, balance): the levels of play and which of
them are re-tuned (`levels`), the settings a search folder was started with and the
Optuna journal that lets the same call continue a stopped search (`journal`), and the
checks of a config object's numbers (`config`). The seed streams are
targi_sim._utils.seeds, shared with check and the tournament.

May import: play, players, game, engine, stats and below.
"""

from .config import check_bounds, check_whole
from .journal import SETTINGS_FILE, claim_settings, differences, open_study, settings_of
from .levels import Levels, moving_levels, resolve_levels

__all__ = ["SETTINGS_FILE", "Levels", "check_bounds", "check_whole", "claim_settings",
           "differences", "moving_levels", "open_study", "resolve_levels", "settings_of"]
