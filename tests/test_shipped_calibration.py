"""The shipped base deck is what the documented calibration proposes.

data/baselines/calibration-base.json is the validated.json that `targi-sim calibrate
--deck base-token-economy --jobs 2` (the shipped defaults) wrote: every validated
economy with its figures on fresh deals, and the proposal. These tests hold the deck to
that record -- the record is the command's, with the shipped defaults; the proposal
rule applied to it chooses the record's proposal; base.toml is base-token-economy with
exactly that economy. That the command still writes this record is a 13-minute run (2 cores):
benchmarks/shipped_calibration.py (docs/benchmarks.md "Calibration")."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from targi_sim.calibrate import load_space, load_targets
from targi_sim.calibrate.output import candidates_from_record
from targi_sim.calibrate.search import (
    CalibrationConfig,
    choose_proposal,
    meets_all,
    search_budget,
)
from targi_sim.calibrate.space import economy, value_key
from targi_sim.game.deck import load_deck
from targi_sim.game.rules import load_rules

RECORD = Path(__file__).resolve().parents[1] / "data" / "baselines" / "calibration-base.json"


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(RECORD.read_text(encoding="utf-8"))


def test_the_record_is_the_documented_command_with_the_shipped_defaults(record):
    d = CalibrationConfig()
    assert record["deck"] == "base-token-economy"
    assert (record["rules"], record["space"], record["targets"], record["seed"],
            record["slack"]) == (d.rules, d.space, d.targets, d.seed, d.simplify_slack)
    assert record["levels"] == list(d.levels)
    assert (record["retune_budget"], record["search_retune_budget"]) == \
        (d.retune_budget, search_budget(d))
    assert len(record["validated"]) >= 1 + d.finalists


def test_the_proposal_rule_chooses_the_records_proposal_and_it_meets_every_target(record):
    validated = candidates_from_record(record)
    targets = load_targets(record["targets"], record["levels"])
    chosen = choose_proposal(validated, targets, record["slack"])
    assert chosen is not None and chosen.number == record["proposal"]
    assert meets_all(targets, chosen)


def test_the_shipped_base_deck_is_the_token_economy_with_the_proposed_economy(record):
    rules = load_rules("default")
    token, base = load_deck("base-token-economy"), load_deck("base")
    proposal = next(v for v in candidates_from_record(record)
                    if v.number == record["proposal"])
    space = load_space("economy-space", token, rules)
    shipped = load_space("economy-space", base, rules).current()
    assert {p: value_key(v) for p, v in shipped.items()} == \
        {p: value_key(v) for p, v in proposal.choice.items()}
    made, made_rules, _ = economy(space, proposal.choice, token, rules, "base")
    assert np.array_equal(made_rules.vector, rules.vector)  # its rules are the default ones
    arrays = [f.name for f in dataclasses.fields(base)
              if isinstance(getattr(base, f.name), np.ndarray)]
    assert len(arrays) > 20
    for name in arrays:
        assert np.array_equal(getattr(made, name), getattr(base, name)), name
    assert (made.border_names, made.goods_names, made.tribe_names) == \
        (base.border_names, base.goods_names, base.tribe_names)
