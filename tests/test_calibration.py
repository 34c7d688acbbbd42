"""The fast version of benchmarks/calibration.py: a few A/A comparisons (same
configuration, different seeds) rarely flag anything, their p-values are not piled up
near 0, and a real one-card change is found at the run size its MDE says is enough.
The full figures (100 repeats, 20,000-game runs, 30 power repeats) are in
docs/benchmarks.md.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def calibration():
    spec = importlib.util.spec_from_file_location("calibration",
                                                  ROOT / "benchmarks" / "calibration.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["calibration"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_a_a_comparisons_are_calibrated(calibration, tmp_path):
    s = calibration.aa(500, 5, tmp_path, min_n=100).summary()
    assert s["repeats"] == 5 and s["tests_per_comparison"] > 100
    assert s["familywise_holm"] <= 0.2  # at most one of five comparisons flags anything
    assert s["raw_p_below_0.05"] < 0.1 and s["raw_p_below_0.01"] < 0.03
    assert s["ks_pooled_p"] > 1e-3
    assert not list(tmp_path.glob("aa-*"))  # the runs are deleted once analysed


def test_a_real_change_is_found_at_the_size_its_mde_asks_for(calibration, tmp_path):
    p = calibration.power(tmp_path, "Oasis 3VP #1", "dates", "acquire rate",
                          pilot_games=4000, repeats=8)
    assert p["pilot_change"] > 0.05  # one date cheaper: taken clearly more often (+6.1 points)
    assert p["games"] < 4000  # a large change needs few games
    # the run size is the MDE's for 80% power at the pilot's estimate of the change; at
    # 80% power at least 4 of 8 flagged has probability 0.99 (binomial). The estimate is
    # one noisy draw: with issue 46's balanced the pilot read +6.1 points where the
    # repeats average +5.3, so the runs are undersized and read 4 of 8 (5 of 8 was asked
    # when the change was +7.8 points); a broken MDE (power near 0) still fails here.
    assert p["flagged"] >= 4
