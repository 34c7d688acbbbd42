"""Strategies as data: every shipped file loads, bad files are refused with a message
naming the file and the field, `settings()` round-trips, and the strategies behave
as their descriptions say (fixed seeds, small samples with wide margins).
"""

from __future__ import annotations

import tomllib

import numpy as np
import pytest
from scenario_helpers import new, res, setres, trace
from typer.testing import CliRunner

from targi_sim import DataError, UsageError, play_games
from targi_sim._utils.paths import data_dir
from targi_sim.cli.app import app
from targi_sim.engine import constants as C
from targi_sim.engine.acquire import OPT_PLAY
from targi_sim.players.strategy import (
    KINDS,
    SYMBOL_KEYS,
    TOP_KEYS,
    WEIGHTS,
    list_strategies,
    load_strategy,
    resolve_strategy,
)

SHIPPED = list_strategies()
TARGIA_3VP = 0  # base tribe card 0: 3 VP, cost salt 2, pepper 2, dates 1
SILVERSMITH = 9  # base border card at position 10 (index 9)


def write(tmp_path, text: str, name: str = "mine.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refused(path, *needles: str, error=DataError) -> str:
    """Loading `path` raises `error` whose one-line message names the file and `needles`."""
    with pytest.raises(error) as info:
        load_strategy(path)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message, message
    for needle in needles:
        assert needle in message, (needle, message)
    return message


# ------------------------------------------------------------------ shipped files


def test_the_expected_strategies_ship():
    for name in ("random", "greedy", "balanced", "blocker", "gold-hoarder", "row-builder",
                 "raid-averse", "montecarlo", "montecarlo-tuned", "tuned", "expert"):
        assert name in SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_strategy_loads(name):
    s = load_strategy(name)
    assert s.name == name  # the file's name matches its file name
    assert s.kind_name in KINDS
    assert s.description.strip()
    assert s.path == data_dir() / "strategies" / f"{name}.toml"
    row = s.row()
    assert row.shape == (C.N_STRAT_PARAMS,) and row[0] == s.kind
    # by path too, identically
    same = load_strategy(s.path)
    assert same.sha256 == s.sha256


def test_resolve_strategy_takes_names_paths_and_objects(tmp_path):
    balanced = resolve_strategy("balanced")
    assert resolve_strategy(balanced) is balanced
    copy = write(tmp_path, balanced.content.replace('name = "balanced"', 'name = "copy"'))
    assert resolve_strategy(str(copy)).name == "copy"
    assert resolve_strategy(copy).sha256 == balanced.sha256


def test_unknown_name_lists_valid_ones():
    with pytest.raises(UsageError) as info:
        load_strategy("no-such-strategy")
    message = str(info.value)
    assert "no-such-strategy" in message
    assert all(name in message for name in SHIPPED)


# ------------------------------------------------------------------ validation


def test_unknown_top_level_key_lists_the_allowed_keys(tmp_path):
    path = write(tmp_path, 'kind = "heuristic"\nweight = 3\n')
    refused(path, "'weight'", "not a known field", *TOP_KEYS)


def test_key_of_another_kind_is_refused(tmp_path):
    path = write(tmp_path, 'kind = "heuristic"\nrollouts = 8\n')
    refused(path, "'rollouts'", "not a known field", "'weights'")
    path = write(tmp_path, 'kind = "greedy"\n[weights]\nvp = 1.0\n', "greedy-weights.toml")
    refused(path, "'weights'", "not a known field")


def test_unknown_weight_lists_the_allowed_weights(tmp_path):
    path = write(tmp_path, 'kind = "heuristic"\n[weights]\nvictory = 2.0\n')
    refused(path, "'weights.victory'", "not a known field", *WEIGHTS)


def test_unknown_symbol_lists_the_allowed_symbols(tmp_path):
    path = write(tmp_path, 'kind = "heuristic"\n[symbols]\nDragon = 1.0\n')
    refused(path, "'symbols.Dragon'", *SYMBOL_KEYS)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('kind = "heuristic"\n[weights]\nvp = "high"\n', "'weights.vp'"),
        ('kind = "heuristic"\n[weights]\nvp = true\n', "'weights.vp'"),
        ('kind = "heuristic"\nweights = 3\n', "'weights'"),
        ('kind = "montecarlo"\nrollouts = "8"\n', "'rollouts'"),
        ('kind = "montecarlo"\nrollouts = 8.5\n', "'rollouts'"),
        ('kind = 3\n', "'kind'"),
        ('kind = "random"\nname = 7\n', "'name'"),
    ],
)
def test_wrong_type(tmp_path, body, field):
    refused(write(tmp_path, body), field, "wrong type")


@pytest.mark.parametrize(
    ("body", "field", "allowed"),
    [
        ('kind = "heuristic"\n[weights]\nnoise = -0.5\n', "'weights.noise'", ">= 0"),
        ('kind = "heuristic"\n[weights]\nvp = -1\n', "'weights.vp'", ">= 0"),
        ('kind = "heuristic"\n[weights]\ngold = nan\n', "'weights.gold'", ">= 0"),
        ('kind = "heuristic"\n[weights]\ndisplay = -11\n', "'weights.display'", ">= -10"),
        ('kind = "montecarlo"\nrollouts = 0\n', "'rollouts'", "1..10000"),
        ('kind = "montecarlo"\nrollouts = 10001\n', "'rollouts'", "1..10000"),
    ],
)
def test_out_of_range(tmp_path, body, field, allowed):
    refused(write(tmp_path, body), field, "out of range", allowed)


def test_negative_rollouts(tmp_path):
    refused(write(tmp_path, 'kind = "montecarlo"\nrollouts = -3\n'), "'rollouts'", "negative")


def test_unknown_kind_lists_the_kinds(tmp_path):
    refused(write(tmp_path, 'kind = "clever"\n'), "'kind'", "'clever'", *KINDS)


def test_missing_kind(tmp_path):
    refused(write(tmp_path, 'name = "nothing"\n'), "'kind'", "missing")


def test_montecarlo_base_that_is_montecarlo_is_refused(tmp_path):
    path = write(tmp_path, 'kind = "montecarlo"\nbase = "montecarlo"\n')
    refused(path, "'base'", "'montecarlo'", "cannot be a montecarlo strategy")


def test_montecarlo_base_that_is_itself_is_refused(tmp_path):
    path = write(tmp_path, 'kind = "montecarlo"\nbase = "loop.toml"\n', "loop.toml")
    refused(path, "'base'")


def test_unknown_montecarlo_base_lists_the_strategies(tmp_path):
    path = write(tmp_path, 'kind = "montecarlo"\nbase = "cleverest"\n')
    refused(path, "'base'", "'cleverest'", "not a known strategy", *SHIPPED)


def test_montecarlo_base_may_be_a_file_next_to_it(tmp_path):
    write(tmp_path, 'kind = "heuristic"\n[weights]\ngold = 2.0\n', "rich.toml")
    mc = load_strategy(write(tmp_path, 'kind = "montecarlo"\nbase = "rich.toml"\nrollouts = 3\n'))
    settings = mc.settings()
    assert settings["rollouts"] == 3 and settings["base_kind"] == "heuristic"
    assert settings["weights"]["gold"] == 2.0  # the base's weights for its other decisions


def test_malformed_toml_names_the_file_and_line(tmp_path):
    path = write(tmp_path, 'kind = "heuristic"\n[weights\n')
    refused(path, "line 2", "not valid TOML")


def test_missing_file_names_the_file(tmp_path):
    refused(tmp_path / "absent.toml", "not found")


# ------------------------------------------------------------------ settings()


def _toml(settings: dict, name: str, base: str = "balanced") -> str:
    lines = [f'name = "{name}"', f'kind = "{settings["kind"]}"']
    if "search" in settings:
        lines.append(f'search = "{settings["search"]}"')
        lines.append(f'base = "{base}"')  # settings() names the base's kind, not the base
    for key in ("rollouts", "iterations", "exploration", "action_iterations", "depth", "prior",
                "action_exploration", "rollout_rounds", "eval_gold", "eval_goods", "eval_scale",
                "eval_scale_round"):
        if key in settings:
            lines.append(f"{key} = {settings[key]!r}")
    for key in ("decisions", "placement_tree"):
        if key in settings:
            lines.append(f'{key} = "{settings[key]}"')
    for key in ("placement_crn", "reuse_tree"):
        if key in settings:
            lines.append(f"{key} = {str(settings[key]).lower()}")
    for section in ("weights", "symbols"):
        if section in settings:
            lines.append(f"[{section}]")
            lines += [f'"{k}" = {v!r}' for k, v in settings[section].items()]
    return "\n".join(lines) + "\n"


def test_settings_report_the_files_values(tmp_path):
    path = write(tmp_path, 'kind = "heuristic"\n[weights]\ngold = 2.5\nnoise = 0.25\n'
                           '[symbols]\nWell = 1.5\n')
    settings = load_strategy(path).settings()
    assert settings["kind"] == "heuristic"
    assert settings["weights"]["gold"] == 2.5
    assert settings["weights"]["noise"] == 0.25
    assert settings["weights"]["vp"] == WEIGHTS["vp"][1]  # omitted: the default
    assert settings["symbols"]["Well"] == 1.5
    assert set(settings["weights"]) == set(WEIGHTS)
    assert set(settings["symbols"]) == set(SYMBOL_KEYS)


@pytest.mark.parametrize("name", SHIPPED)
def test_settings_round_trip(tmp_path, name):
    """Writing settings() back as a strategy file gives the same engine row."""
    s = load_strategy(name)
    base = tomllib.loads(s.content).get("base", "balanced")
    again = load_strategy(write(tmp_path, _toml(s.settings(), name, base)))
    assert again.settings() == s.settings()
    assert np.array_equal(again.row(), s.row(), equal_nan=True)


# ------------------------------------------------------------------ CLI


runner = CliRunner()


def test_cli_lists_each_strategy_on_one_line():
    result = runner.invoke(app, ["strategies"])
    assert result.exit_code == 0, result.output
    for name in SHIPPED:
        lines = [line for line in result.output.splitlines() if line.split()[:1] == [name]]
        assert len(lines) == 1, (name, result.output)
        s = load_strategy(name)
        assert s.kind_name in lines[0]
        assert " ".join(s.description.split()) in lines[0]


@pytest.mark.parametrize("spec", ["balanced", str(data_dir() / "strategies" / "blocker.toml")])
def test_cli_show_prints_every_parameter(spec):
    s = load_strategy(spec)
    result = runner.invoke(app, ["strategies", "show", spec])
    assert result.exit_code == 0, result.output
    out = result.output
    assert s.kind_name in out and str(s.path.name) in out
    for key in WEIGHTS:
        assert key in out
    assert "denial" in out and f"{s.settings()['weights']['denial']:g}" in out


def test_cli_show_montecarlo_and_parameterless_kinds():
    mc = runner.invoke(app, ["strategies", "show", "montecarlo"])
    assert mc.exit_code == 0 and "rollouts" in mc.output and "balanced" in mc.output
    rnd = runner.invoke(app, ["strategies", "show", "random"])
    assert rnd.exit_code == 0 and "no parameters" in rnd.output


def test_cli_show_unknown_name_exits_2_listing_valid_names():
    result = runner.invoke(app, ["strategies", "show", "nope"])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert all(name in lines[0] for name in SHIPPED)


def test_cli_show_malformed_file_exits_2_naming_file_and_field(tmp_path):
    path = write(tmp_path, 'kind = "heuristic"\n[weights]\nnoise = -1\n', "noisy.toml")
    result = runner.invoke(app, ["strategies", "show", str(path)])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "noisy.toml" in lines[0] and "weights.noise" in lines[0]


def test_cli_run_accepts_a_strategy_file(tmp_path):
    path = write(tmp_path, 'name = "mine"\nkind = "heuristic"\n[weights]\ngold = 2.0\n')
    result = runner.invoke(app, ["run", "--games", "20", "--p0", str(path), "--quiet",
                                 "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "seat 0 (mine) wins" in result.output


# ------------------------------------------------------------------ behaviour


def score_of_first(strategies: tuple[str, str], n: int, seed: int) -> float:
    """Share of n paired games won by strategies[0] (draws = half), half in each seat."""
    a, b = strategies
    g0 = play_games(n // 2, seed=seed, strategies=(a, b), logs=False).games
    g1 = play_games(n // 2, seed=seed, strategies=(b, a), logs=False).games
    wins = (g0["winner"] == 0).sum() + (g1["winner"] == 1).sum()
    draws = (g0["winner"] == -1).sum() + (g1["winner"] == -1).sum()
    return (wins + 0.5 * draws) / n


def test_balanced_beats_random():
    assert score_of_first(("balanced", "random"), 200, seed=3) >= 0.90


def test_greedy_beats_random():
    assert score_of_first(("greedy", "random"), 200, seed=3) >= 0.75


def test_random_against_itself_is_even():
    assert 0.35 <= score_of_first(("random", "random"), 200, seed=3) <= 0.65


@pytest.mark.parametrize("strategy", ["balanced", "blocker", "greedy"])
def test_plays_an_affordable_high_vp_card(strategy):
    """A 3-VP card it can pay for is played into the display, not left, kept or discarded."""
    sc = new()
    sc.use(0, strategy)
    assert OPT_PLAY in sc.tribe_options(0, TARGIA_3VP)  # affordable: play is on offer
    assert sc.acquire(0, TARGIA_3VP, "centre") == "played"
    acq = sc.logs()["acquisitions"].row(0, named=True)
    assert (acq["player"], acq["card_id"], acq["outcome"]) == (0, TARGIA_3VP, "played")
    assert sc.players[0].display[0] == [TARGIA_3VP]
    assert res(sc, 0)["salt"] == 0 and res(sc, 0)["pepper"] == 0  # paid the cost


def test_row_builder_sees_that_a_repeated_symbol_spoils_the_all_different_row():
    """Row 0 holds Targia, Targia, Camp: no bonus can come of it, whatever is added. The
    heuristic used to count only the added card as a repeat, so it valued an Oasis there
    as completing an all-different row and played it into row 0."""
    targia_a, targia_b, camp, well, camel_rider, oasis = 0, 1, 18, 27, 9, 36
    sc = new()
    sc.use(0, "row-builder")
    setres(sc, 0, s=5, pe=5, d=5, g=5, vp=4)
    sc.players[0].set_display([[targia_a, targia_b, camp], [well], [camel_rider]])
    assert sc.acquire(0, oasis, "centre") == "played"
    assert sc.logs()["acquisitions"]["row"].to_list() != [0]
    # the ground truth it now agrees with: that row, completed, scores no row bonus
    check = new()
    check.players[0].set_display([[targia_a, targia_b, camp, oasis], [], []])
    assert check.score(0)["row_bonus"] == 0


def test_random_does_not_always_play_it():
    """The scenario above discriminates: a random player often does something else."""
    outcomes = set()
    for seed in range(12):
        sc = new(seed=seed)
        sc.use(0, "random")
        outcomes.add(sc.acquire(0, TARGIA_3VP, "centre"))
    assert "played" in outcomes and len(outcomes) > 1


def _trade(t: int, given: int, received: int) -> int:
    return t * 64 + given * 8 + received


def test_greedy_takes_the_highest_vp_trade_first():
    """Silversmith with 4 salt and 1 gold: 4 salt -> 3 VP before 1 gold -> 2 VP (the
    table of base-token-economy)."""
    sc = new(deck="base-token-economy")
    sc.use(0, "greedy")
    sc.players[0].set_resources(salt=4, pepper=2, dates=1, gold=1, vp=0)
    sc.resolve_border(0, SILVERSMITH)
    choices = trace(sc, "trade")["choice"].to_list()
    salt, gold, pepper, vp = 0, 3, 1, 4
    assert choices[:2] == [_trade(4, salt, vp), _trade(2, gold, vp)]
    assert choices[2] == _trade(3, pepper, vp)
    assert res(sc, 0)["vp"] == 3 + 2 + 1
