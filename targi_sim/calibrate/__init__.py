"""Calibration: search the values the sources leave open ([S] trade tables, goods-card
amounts, rules settings) for the economy whose play -- with strong players re-tuned for
each candidate -- has the real game's shape. Owns its space and target files, the
measurement of game shape per level and the search; may import game, play, players,
stats, strength (tune) and report (the report model)."""

from .figures import FIGURES
from .output import write_calibration
from .search import Calibration, CalibrationConfig
from .search import calibrate as calibrate_economy
from .seeds import SeedAgreement, agreement, write_seed_comparison
from .space import Space, load_space
from .targets import Targets, load_targets, targets_from_playtest

__all__ = ["FIGURES", "Calibration", "CalibrationConfig", "SeedAgreement", "Space",
           "Targets", "agreement", "calibrate_economy", "load_space", "load_targets",
           "targets_from_playtest", "write_calibration", "write_seed_comparison"]
