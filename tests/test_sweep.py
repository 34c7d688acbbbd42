"""targi-sim sweep (issue 16 part 1): the --set path grammar, the variant grid, the paired
test on common deals (known answers and statsmodels), and real sweeps through the CLI
(the same seeds in every variant, resume, refusals, the report's tables and plots)."""

from __future__ import annotations

import json
import math
import tomllib

import numpy as np
import polars as pl
import pytest
from cli_helpers import one_error_line
from typer.testing import CliRunner

from targi_sim._utils import toml_out
from targi_sim.cli.app import app
from targi_sim.errors import DataError, InputError, UsageError
from targi_sim.game import deck_edit as E
from targi_sim.game.deck import load_deck
from targi_sim.game.rules import load_rules
from targi_sim.runner import RunConfig, resolve_run
from targi_sim.stats.rates import clustered_rate
from targi_sim.sweep import SweepSpec, load_sweep_file, plan_sweep, resolve_file_path
from targi_sim.sweep.paired import paired_change
from targi_sim.sweep.plan import MAX_VARIANTS, build_axes, variant_inputs, variants
from targi_sim.sweep.report import most_changed, variance_reduction

runner = CliRunner()
BASE = load_deck("base")
ARRAYS = [f for f in BASE.__dataclass_fields__ if isinstance(getattr(BASE, f), np.ndarray)]


def _differing(a, b) -> set[str]:
    return {f for f in ARRAYS if not np.array_equal(getattr(a, f), getattr(b, f))}


# ------------------------------------------------------------------ the path grammar


def test_the_toml_writer_round_trips_the_base_deck():
    again = E.check_deck(toml_out.dumps(tomllib.loads(BASE.content)), "round trip")
    assert _differing(BASE, again) == set()
    assert again.tribe_names == BASE.tribe_names and again.goods_names == BASE.goods_names


def test_the_issue_s_paths_edit_exactly_the_named_value():
    """The issue's reproducers: tribe['Oasis 3VP #1'].cost and
    border.Silversmith.trades[1].get_amount."""
    cost = E.parse_path("tribe['Oasis 3VP #1'].cost", BASE)
    card = BASE.tribe_names.index("Oasis 3VP #1")
    assert (cost.root, cost.entry, cost.keys) == ("tribe", card, ("cost",))
    values = E.parse_values("{salt=1, pepper=1}, {salt=2}", "x")
    assert values == [{"salt": 1, "pepper": 1}, {"salt": 2}]
    edited = E.check_deck(E.apply_deck_edits(BASE, [(cost, values[0])], "t"), "t")
    assert _differing(BASE, edited) == {"tribe_cost"}
    assert edited.tribe_cost[card].tolist() == [1, 1, 0, 0]
    others = np.delete(edited.tribe_cost, card, 0)
    assert np.array_equal(others, np.delete(BASE.tribe_cost, card, 0))

    rate = E.parse_path("border.Silversmith.trades[1].get_amount", BASE)
    assert E.current_value(rate, BASE, load_rules()) == 1  # calibrated: 1 gold -> 1 VP
    edited = E.check_deck(E.apply_deck_edits(BASE, [(rate, 2)], "t"), "t")
    assert _differing(BASE, edited) == {"trade_get_amount"}
    silversmith = BASE.border_names.index("Silversmith")
    first = int(BASE.border_trade_lo[silversmith])
    changed = np.flatnonzero(edited.trade_get_amount != BASE.trade_get_amount)
    assert changed.tolist() == [first] and edited.trade_get_amount[first] == 2


def test_cards_by_number_and_position_and_rules_paths():
    assert E.parse_path("tribe[3].cost.salt", BASE).keys == ("cost", "salt")
    assert E.parse_path("border[10].trades[2].give_amount", BASE).entry_label == \
        "border card 10 (Silversmith)"
    goods = E.parse_path("goods['1 gold'].count", BASE)
    assert E.current_value(goods, BASE, load_rules()) == 3
    edited = E.check_deck(E.apply_deck_edits(BASE, [(goods, 2)], "t"), "t")
    assert edited.n_goods == BASE.n_goods - 1
    start = E.parse_path("rules.start.gold", BASE)
    assert E.current_value(start, BASE, load_rules()) == 1
    rules = E.check_rules(load_rules(), E.rules_overrides([(start, 3)]), "t")
    assert rules.settings["start"]["gold"] == 3 and rules.settings["start"]["vp"] == 4
    assert E.parse_values("finish_round, 'x', 2, true", "x") == ["finish_round", "x", 2, True]


@pytest.mark.parametrize("path,needles", [
    ("tribe['Nope'].cost", ["no tribe card named 'Nope'", "'Oasis 3VP #1'"]),
    ("border.Dates.gain", ["2 border entries are named 'Dates'", "border[2], border[7]"]),
    ("border.Merchant.trade[1]", ["no field 'trade'", "allowed: source, confidence, trades"]),
    ("border.Silversmith.trades[4].get_amount", ["trades[4] does not exist", "1..3"]),
    ("tribe[45].vp", ["tribe[45] names no card", "card_id 0..44"]),
    ("border[17].name", ["border[17] names no card", "1..16"]),
    ("tribe[1].cost.spice", ["no field 'spice'", "salt, pepper, dates, gold"]),
    ("tribe[1].name", ["no field 'name'", "symbol, vp, cost"]),
    ("tribe[1]", ["name a field", "symbol, vp, cost"]),
    ("rules.nope", ["no rules setting 'nope'", "final_raid_end", "start.gold"]),
    ("deck.tribe", ["must start with one of tribe, border, goods, rules"]),
    ("tribe[1].vp!", ["cannot read '!'"]),
])
def test_a_path_that_names_nothing_says_what_is_allowed(path, needles):
    with pytest.raises(InputError) as err:
        E.parse_path(path, BASE)
    assert path in str(err.value)
    for n in needles:
        assert n in str(err.value)


def test_a_value_the_loader_refuses_names_the_set_card_field_and_allowed_values():
    spec = SweepSpec(games=10, sets=("tribe[3].cost = {salt = 1, spice = 2}",))
    axes = build_axes(spec)
    with pytest.raises(DataError) as err:
        variant_inputs(spec, axes, variants(axes, False)[1])
    text = str(err.value)
    assert text.startswith("`set` (tribe[3].cost = {salt = 1, spice = 2})")
    assert "tribe card 3 (Targia 2VP #2)" in text and "cost.spice" in text and "'salt'" in text
    spec = SweepSpec(games=10, sets=("rules.final_raid_end = never",))
    axes = build_axes(spec)
    with pytest.raises(DataError, match="'immediate', 'finish_round'"):
        variant_inputs(spec, axes, variants(axes, False)[1])


# ------------------------------------------------------------------ the grid


def test_the_grid_one_at_a_time_and_the_baseline_level():
    sets = ("tribe['Oasis 3VP #1'].cost = {salt=1, pepper=1}, {salt=2}",
            "border.Silversmith.trades[1].get_amount = 2, 1")  # 1 is the deck's own value
    spec = SweepSpec(games=10, sets=sets, rules=("default", "finish-round-after-raid4"))
    axes = build_axes(spec)
    assert [len(a.levels) for a in axes] == [3, 2, 2]
    assert axes[1].labels == ("as given (1)", "2")
    grid = variants(axes, False)
    assert len(grid) == 12 and grid[0].is_baseline and grid[0].key == "v00"
    assert len({v.coords for v in grid}) == 12
    alone = variants(axes, True)
    assert [v.coords for v in alone] == [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0), (0, 0, 1)]
    inputs = variant_inputs(spec, axes, grid[-1])
    assert inputs.rules_name == "finish-round-after-raid4" and inputs.deck_text is not None
    assert variant_inputs(spec, axes, grid[0]).deck_text is None  # the deck as given
    with pytest.raises(InputError, match="nothing to sweep"):
        build_axes(SweepSpec(games=10, sets=("tribe[1].vp = 3",)))  # its own value
    many = SweepSpec(games=10, sets=tuple(f"tribe[{i}].vp = 5, 6" for i in range(1, 9)))
    with pytest.raises(InputError, match=f"at most {MAX_VARIANTS}"):
        variants(build_axes(many), False)
    with pytest.raises(UsageError, match="unknown strategy"):
        build_axes(SweepSpec(games=10, strategies=("balanced:balanced", "nope:random")))


def test_the_shipped_sweep_file_plans_every_uncertain_rule():
    kwargs = load_sweep_file(resolve_file_path("uncertain-rules"))
    plan, resolved = plan_sweep(SweepSpec(**kwargs))
    assert kwargs["one_at_a_time"] and len(plan.variants) == 13
    paths = {a.name for a in plan.axes}
    assert {"border.Merchant.trades[1].give_amount", "border.Silversmith.trades[1].get_amount",
            "rules.raid_unpaid"} <= paths
    hashes = [r.config_hash for r in resolved.values()]
    assert len(set(hashes)) == len(hashes)  # every variant plays something different
    assert {r.config.seed for r in resolved.values()} == {0}


def test_a_bad_sweep_file_names_the_file_and_field(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('name = "s"\ngames = 10\nsweeps = 1\n')
    with pytest.raises(DataError, match="s.toml.*'sweeps' is not a known field"):
        load_sweep_file(f)
    f.write_text('name = "s"\n[[set]]\npath = "tribe[1].vp"\nvalues = []\n')
    with pytest.raises(DataError, match="set #1.*'values' is empty"):
        load_sweep_file(f)


# ------------------------------------------------------------------ the paired test


def test_the_paired_change_by_hand():
    # deal i: (x, n) in baseline and variant; the variant adds 1 success on deals 0 and 2
    xb, nb = [1, 0, 2, 1], [2, 2, 2, 2]
    xv, nv = [2, 0, 2, 2], [2, 2, 2, 2]
    pc = paired_change(xb, nb, xv, nv)
    assert pc.base == pytest.approx(0.5) and pc.variant == pytest.approx(0.75)
    d = np.array([1, 0, 0, 1]) / 8  # per-deal change over N = 8, centred: u_i
    u = d - d.mean()
    assert pc.var_paired == pytest.approx(4 / 3 * float((u * u).sum()))
    # the independent variance is each run's own clustered variance, summed
    own = clustered_rate(xb, nb).se ** 2 + clustered_rate(xv, nv).se ** 2
    assert pc.var_independent == pytest.approx(own)
    assert pc.variance_ratio < 1 and pc.games_factor == pytest.approx(1 / pc.variance_ratio)
    same = paired_change(xb, nb, xb, nb)
    assert (same.change, same.var_paired, same.p_value) == (0.0, 0.0, 1.0)
    empty = paired_change([0, 0], [0, 0], [1, 0], [1, 1])
    assert math.isnan(empty.change) and math.isnan(empty.p_value)


def test_the_paired_variance_is_statsmodels_cluster_robust_coefficient():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(5)
    deals = 300
    luck = rng.normal(size=deals)  # the deal's luck, shared by both runs
    n = rng.integers(1, 4, size=deals)  # 1..3 games per deal (like a card's plays)
    games = np.repeat(np.arange(deals), n)
    yb = (luck[games] + rng.normal(size=games.size) > 0).astype(float)
    yv = (luck[games] + 0.3 + rng.normal(size=games.size) > 0).astype(float)
    xb = np.bincount(games, weights=yb)
    xv = np.bincount(games, weights=yv)
    pc = paired_change(xb, n, xv, n)
    y = np.concatenate([yb, yv])
    dummy = np.concatenate([np.zeros(games.size), np.ones(games.size)])
    fit = sm.OLS(y, sm.add_constant(dummy)).fit(
        cov_type="cluster", cov_kwds={"groups": np.concatenate([games, games]),
                                      "use_correction": False})
    assert pc.change == pytest.approx(fit.params[1])
    assert pc.var_paired * (deals - 1) / deals == pytest.approx(fit.cov_params()[1, 1])
    assert pc.variance_ratio < 0.8  # the shared luck cancels in the paired difference


def test_most_changed_and_variance_reduction_tables():
    rows = pl.DataFrame({
        "group": ["card"] * 4, "card_id": [0, 0, 1, 2], "card": ["a", "a", "b", "c"],
        "symbol": ["S"] * 4, "variant": ["v01", "v02", "v01", "v01"], "label": ["x"] * 4,
        "metric": ["played_wr"] * 4, "baseline": [0.5] * 4, "value": [0.6, 0.9, 0.5, 0.4],
        "change": [0.1, 0.4, 0.0, -0.1], "change_lo": [0.0] * 4, "change_hi": [0.0] * 4,
        "z": [2.0, 5.0, 0.0, -3.0], "p_value": [0.04, 1e-6, 1.0, 0.003],
        "p_holm": [0.1, 1e-5, 1.0, 0.01], "significant": [False, True, False, True],
        "variance_ratio": [0.5, 0.25, math.nan, 1.0], "games_factor": [2.0, 4.0, math.nan, 1.0]})
    rows = pl.concat([rows, rows.head(1).with_columns(pl.lit(0.0).alias("variance_ratio"),
                                                      pl.lit(math.nan).alias("games_factor"))])
    top = most_changed(rows.head(4), 2)
    assert top["card"].to_list() == ["a", "c"] and top["variant"].to_list() == ["v02", "v01"]
    red = variance_reduction(rows).row(0, named=True)
    assert red["comparisons"] == 3 and red["games_factor_median"] == 2.0


# ------------------------------------------------------------------ real sweeps


GAMES = 200
VP_CARD = "Oasis 3VP #1"


def _sweep(out, *extra):
    return runner.invoke(app, ["sweep", "--games", str(GAMES), "--jobs", "1", "--chunk-size",
                               "100", "--quiet", "--out", str(out),
                               "--set", f"tribe['{VP_CARD}'].vp = 12",
                               "--rules", "default,finish-round-after-raid4", *extra])


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "vp"
    result = _sweep(out)
    assert result.exit_code == 0, result.output
    return out, result


def test_every_variant_plays_the_baseline_s_seeds(swept):
    out, result = swept
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["status"] == "complete" and len(manifest["variants"]) == 4
    seeds = {}
    for v in manifest["variants"]:
        run = json.loads((out / v["run"] / "manifest.json").read_text())
        assert run["status"] == "complete" and run["config"]["games"] == GAMES
        games = pl.concat([pl.read_parquet(p) for p in sorted((out / v["run"] / "games")
                                                               .glob("part-*.parquet"))])
        seeds[v["key"]] = games.sort("game_id").select("seed", "first_player")
        markers = sorted((out / v["run"] / "chunks").glob("chunk-*.json"))
        assert markers and all("digest" in json.loads(m.read_text()) for m in markers)
    assert all(s.equals(seeds["v00"]) for s in seeds.values())
    # the baseline is exactly the plain `targi-sim run` of the same games and seed
    plain = resolve_run(RunConfig(games=GAMES, chunk_size=100))
    baseline = json.loads((out / "runs" / "v00" / "manifest.json").read_text())
    assert baseline["config_hash"] == plain.config_hash
    edited = load_deck(out / "inputs" / "v02" / "deck.toml")
    card = BASE.tribe_names.index(VP_CARD)
    assert edited.tribe_vp[card] == 12 and _differing(BASE, edited) == {"tribe_vp"}
    assert "significant" in result.output and "report.html" in result.output


def test_a_card_made_stronger_moves_most_and_alone(swept):
    """Known answer: raising one card's VP raises its WR played; the paired test finds it
    and ranks it the most changed card, and pairing beats independent seeds."""
    out, _ = swept
    cards = pl.read_parquet(out / "report" / "tables" / "sweep_cards_all.parquet")
    mine = cards.filter((pl.col("card") == VP_CARD) & (pl.col("variant") == "v02")
                        & (pl.col("metric") == "played_wr")).row(0, named=True)
    assert mine["change"] > 0.15 and mine["significant"]
    others = cards.filter((pl.col("card") != VP_CARD) & (pl.col("variant") == "v02")
                          & (pl.col("metric") == "played_wr") & pl.col("significant"))
    assert others.height <= 2  # the others move only through what the strong card takes
    top = pl.read_parquet(out / "report" / "tables" / "sweep_most_changed.parquet")
    assert top["card"][0] == VP_CARD
    head = pl.read_parquet(out / "report" / "tables" / "sweep_headline.parquet")
    rounds = head.filter((pl.col("variant") == "v01") & (pl.col("metric") == "rounds"))
    assert rounds["change"][0] == 1.0  # finish-round-after-raid4: every game one round more
    card_vp = head.filter((pl.col("variant") == "v02") & (pl.col("metric") == "card_vp"))
    assert card_vp["change"][0] > 0 and card_vp["variance_ratio"][0] < 1
    for key in ("sweep_first_player_rate", "sweep_card_vp", "sweep_cards_played_wr"):
        assert (out / "report" / "plots" / f"{key}.png").stat().st_size > 1000
    html = (out / "report" / "report.html").read_text()
    assert "Variance reduction" in html and "data:image/png;base64" in html


def test_the_same_sweep_resumes_and_an_interrupted_variant_is_finished(swept):
    out, _ = swept
    marker = out / "runs" / "v03" / "chunks" / "chunk-000001.json"
    marker.unlink()  # v03 as if stopped after its first chunk
    before = (out / "runs" / "v03" / "games" / "part-000000.parquet").read_bytes()
    result = _sweep(out)
    assert result.exit_code == 0, result.output
    assert "Resumed: 3 of 4 variants were already complete." in result.output
    assert (out / "runs" / "v03" / "games" / "part-000000.parquet").read_bytes() == before
    run = json.loads((out / "runs" / "v03" / "manifest.json").read_text())
    assert run["status"] == "complete" and run["timings"]["games_played"] == 100


def test_a_different_sweep_or_bad_input_is_one_error_line(swept, tmp_path):
    out, _ = swept
    one_error_line(_sweep(out, "--seed", "1"), "already holds a different sweep", "--force")
    one_error_line(runner.invoke(app, ["sweep", "--set", "tribe['Nope'].vp = 2"]),
                   "tribe['Nope']", "allowed:", "'Oasis 3VP #1'")
    one_error_line(runner.invoke(app, ["sweep", "--set", "tribe[1].vp = -1"]),
                   "--set", "tribe card 1", "'vp'", "0..20")
    one_error_line(runner.invoke(app, ["sweep", "--set", "border.Merchant.trades[1].give"]),
                   "expected PATH = VALUE")
    one_error_line(runner.invoke(app, ["sweep", "uncertain-rules", "--rules", "default"]),
                   "a sweep FILE lists")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    one_error_line(_sweep(other), "holds other files")
