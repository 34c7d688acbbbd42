"""The expert: information-set MCTS over every decision of its own (engine/expert.py).

Decisions that can be branched (a round replayed to any decision with the answers
given), the tree's bookkeeping in real games (a node for every decision type the expert
met), determinism (a game is a function of its seed; a session plays the batch's game; a
run does not depend on --jobs), the prior (one iteration plays its base's answer), the
no-peeking audit, its budget syntax and file errors, and where it is a level of play.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cli_helpers import one_error_line
from typer.testing import CliRunner

from targi_sim import check_no_peeking, new_game, play_game
from targi_sim.cli.app import app
from targi_sim.engine import layout as lay
from targi_sim.engine.ask import rollout_policies
from targi_sim.engine.constants import (
    DECISION_NAMES,
    MC_ACTION_ITERATIONS,
    MC_DECISIONS,
    MC_EVAL_GOLD,
    MC_EVAL_GOODS,
    MC_EVAL_SCALE,
    MC_EVAL_SCALE_ROUND,
    MC_ITERATIONS,
    MC_ROLLOUT_ROUNDS,
    MC_SEARCH,
    SEARCH_ISMCTS,
    SEARCHED_ALL,
)
from targi_sim.engine.decision_tree import (
    C_ROOT_PRIOR,
    C_SIZE,
    C_USED,
    N_COLS,
    N_DTYPE,
    N_FIRST,
    N_MOVER,
    N_NEXT,
    N_SQUARES,
    N_VALUE,
    N_VISITS,
    edge_key,
    root_decided,
    tree_best,
    tree_reset,
)
from targi_sim.engine.expert import (
    determinised_positions,
    real_seats,
    search_arrays,
    search_decision,
)
from targi_sim.engine.montecarlo import search_scratch
from targi_sim.engine.rollouts import (
    determinised_copy,
    playout_value,
    position_value,
    rollout_rows,
)
from targi_sim.errors import DataError, InputError
from targi_sim.play.match import prepare_match
from targi_sim.players.strategy import load_strategy, resolve_strategy
from targi_sim.runner import RunConfig, resolve_run
from targi_sim.runner.dispatch import execute

runner = CliRunner()
DATA = Path(__file__).resolve().parent.parent / "data" / "strategies"
ACTION_PHASE = set(DECISION_NAMES) - {"place"}


def test_the_shipped_expert_searches_every_decision_on_tuned():
    s = load_strategy("expert")
    assert s.searches_every_decision
    settings = s.settings()
    assert settings["search"] == "ismcts" and settings["decisions"] == "all"
    assert settings["iterations"] > 0 and settings["action_iterations"] > 0
    assert settings["base_kind"] == "heuristic"
    assert not load_strategy("expert-placements").searches_every_decision


def test_a_game_is_a_function_of_its_seed():
    a = play_game(21, ("expert@12", "tuned"))
    b = play_game(21, ("expert@12", "tuned"))
    assert a.trace.equals(b.trace) and a.scores == b.scores
    c = play_game(22, ("expert@12", "tuned"))
    assert not c.trace.equals(a.trace)


def test_a_session_plays_the_batch_game():
    """The session (Python driver) and the batch driver search the same decisions with
    the same streams, so they play one game, table for table."""
    batch = play_game(8, ("tuned", "expert@10"), first_player=1)
    game = new_game(8, p0="tuned", p1="expert@10", first_player=1)
    assert game.is_over
    mine = game.record()
    assert mine.scores == batch.scores
    for name, table in batch.tables.items():
        assert mine.tables[name].equals(table), name


def test_against_a_placement_searcher_each_placement_search_runs_once_per_round():
    """The batch driver keeps the placement searcher's answers and streams across the
    round's replays; the session searches them again on every replay: same game."""
    batch = play_game(5, ("expert@8", "expert-placements@6"))
    game = new_game(5, p0="expert@8", p1="expert-placements@6")
    assert game.record().trace.equals(batch.trace)


def test_the_tree_has_nodes_of_every_action_phase_type_the_expert_met():
    met: set[str] = set()
    nodes: dict[str, int] = {}
    for seed in (1, 2, 3):
        game = new_game(seed, p0="expert@16", p1="tuned", deck="abilities-example")
        trace = game.record().trace
        mine = trace.filter((pl.col("player") == 0) & (pl.col("n_options") > 1))
        met |= set(mine["decision"].unique().to_list())
        for name, k in game.search_nodes(0).items():
            nodes[name] = nodes.get(name, 0) + k
    action_types = met & ACTION_PHASE
    assert len(action_types) >= 8, action_types  # the expert met most kinds of decision
    assert action_types <= set(nodes), sorted(action_types - set(nodes))


def _paused_at_first_action_decision(seed: int = 4):
    """A game of expert@120 (seat 0) vs tuned paused at the expert's first decision after
    its placements: (match, round start, paused replay)."""
    game = new_game(seed, p1="tuned", transcript=True)
    while game.decision.type in ("place", "raid_mode", "raid_good"):
        game.apply(0)
    match = prepare_match(("expert@120", "tuned"), game.match.deck, game.match.rules)
    return match, game.round_start.copy(), game.paused_replay(), game


def test_a_search_from_the_middle_of_a_round_replays_the_rounds_answers():
    match, S0, paused, game = _paused_at_first_action_decision()
    answers = game.round_answers()
    assert len(answers) >= 3  # at least the expert's placements came before
    CTL, TREE, Sr, SPr, Lr, Or = search_arrays(match.SP, lay.S_SIZE)
    value = search_decision(S0.copy(), paused, match.D, match.R, match.SP, match.PB, 0, CTL,
                            TREE, Sr, SPr, Lr, Or, 0)
    assert value in game.decision.values
    assert CTL[11] == 0  # C_DESYNC: every replayed answer was legal where it was given
    budget = match.SP[0, MC_ACTION_ITERATIONS]  # an action-phase decision's budget
    done = TREE[0, N_VISITS]  # every iteration reached the decision and came back ...
    assert done == budget or root_decided(TREE, budget - done)  # ... or no more could matter
    root_children = TREE[1:int(CTL[7])]
    first = root_children[root_children[:, N_MOVER] >= 0]
    assert (first[:, N_DTYPE] >= 0).all()
    # the same search again: same answer, same tree (a function of the state, the round's
    # answers and the searcher's stream)
    CTL2, TREE2, *rest = search_arrays(match.SP, lay.S_SIZE)
    again = search_decision(S0.copy(), paused, match.D, match.R, match.SP, match.PB, 0, CTL2,
                            TREE2, *rest, 0)
    assert again == value and np.array_equal(TREE, TREE2)


def test_one_iteration_plays_the_bases_answer(tmp_path):
    """With a prior, a tree of one iteration expands its base's own answer at the root:
    an expert whose placements are searched by the round's tree too is tuned at one
    iteration, decision for decision (the base decides on a re-dealt copy, and it never
    peeks, so the re-deal cannot change its answer)."""
    text = (DATA / "expert.toml").read_text().replace('placement_tree = "placements"',
                                                    'placement_tree = "round"')
    (tmp_path / "round.toml").write_text(text)
    for seed in (3, 4):
        one = play_game(seed, (f"{tmp_path / 'round.toml'}@1", "balanced"))
        tuned = play_game(seed, ("tuned", "balanced"))
        assert one.trace.equals(tuned.trace)


def test_the_search_build_leaves_ordinary_games_alone():
    """A replay of the search build that nobody searches in records the round's answers
    and plays the game the ordinary build plays."""
    match = prepare_match(("balanced", "greedy"))
    seats = real_seats(match.P, np.zeros(C_SIZE, dtype=np.int64), np.zeros((2, N_COLS)))
    assert len(seats) == 5
    game = new_game(6, p0="balanced", p1="greedy", transcript=True)
    assert game.record().trace.equals(play_game(6, ("balanced", "greedy")).trace)


def test_a_run_with_the_expert_does_not_depend_on_jobs(tmp_path):
    def run(out: Path, jobs: int, chunk: int):
        cfg = RunConfig(games=4, seed=4, p0="expert@6", p1="tuned", chunk_size=chunk)
        execute(resolve_run(cfg), out, jobs=jobs)
        return pl.read_parquet(out / "games" / "*.parquet").sort("game_id")

    one = run(tmp_path / "a", 1, 4)
    two = run(tmp_path / "b", 2, 2)
    assert one.equals(two)


def test_the_expert_does_not_peek():
    """At each of its decisions, everything it cannot know is re-dealt in place (at the
    decision, in the replayed round) before its own determinisation: no answer changes."""
    report = check_no_peeking("expert@6", games=2, redeals=2, seed=11)
    assert report.decisions > 150
    assert report.passed, report.differences[:3]


@pytest.mark.parametrize("budget", ["0", "-3", "abc", "1.5", "100001", ""])
def test_a_bad_budget_is_one_error_line(budget):
    with pytest.raises(InputError, match="budget after '@'"):
        resolve_strategy(f"expert@{budget}")
    one_error_line(runner.invoke(app, ["run", "--p0", f"expert@{budget}", "--games", "2"]),
                   "budget after '@'")


def test_a_budget_sets_the_placements_and_keeps_the_other_decisions_share():
    full = load_strategy("expert")
    share = full.params[MC_ACTION_ITERATIONS] / full.params[MC_ITERATIONS]
    s = resolve_strategy("expert@40")
    assert s.name == "expert@40" and s.params[MC_DECISIONS] == SEARCHED_ALL
    assert s.params[MC_ITERATIONS] == 40
    assert s.params[MC_ACTION_ITERATIONS] == max(1, round(40 * share))
    assert resolve_strategy("expert@1").params[MC_ACTION_ITERATIONS] == 1


@pytest.mark.parametrize("body, needle", [
    ('decisions = "some"\n', "decisions"),
    ('decisions = "all"\nprior = 1.0\n', "prior"),
    ('decisions = "all"\nprior = -0.1\n', "prior"),
    ('decisions = "all"\ndepth = -1\n', "depth"),
    ('decisions = "all"\naction_iterations = 0\n', "action_iterations"),
    ('action_iterations = 50\n', "action_iterations"),  # placements only: no such budget
    ('prior = 0.5\n', "prior"),
    ('decisions = "all"\nconfidence = 1.0\n', "confidence"),  # no prior to defend
    ('decisions = "all"\nprior = 0.5\nconfidence = -1\n', "confidence"),
    ('rollout_rounds = -1\n', "rollout_rounds"),
    ('rollout_rounds = 2\neval_gold = 1.0\neval_goods = 0.4\neval_scale = 1.5\n',
     "eval_scale_round"),  # a cut playout needs all four fitted numbers
    ('eval_gold = 1.0\n', "eval_gold"),  # no cut: nothing to evaluate
    ('rollout_rounds = 1\neval_gold = 1.0\neval_goods = 0.4\neval_scale = 0\n'
     'eval_scale_round = 0.1\n', "eval_scale"),
])
def test_a_bad_search_setting_names_its_field(tmp_path, body, needle):
    path = tmp_path / "mine.toml"
    path.write_text(f'kind = "montecarlo"\nbase = "tuned"\nsearch = "ismcts"\n{body}')
    with pytest.raises(DataError, match=f"field '{needle}'"):
        load_strategy(path)


def test_flat_search_refuses_the_tree_settings(tmp_path):
    path = tmp_path / "mine.toml"
    for body in ('decisions = "all"\n', "rollout_rounds = 2\n"):
        path.write_text(f'kind = "montecarlo"\nbase = "tuned"\nsearch = "flat"\n{body}')
        with pytest.raises(DataError, match=f"field '{body.split()[0]}'"):
            load_strategy(path)


def _cut_game(rounds: int, seed: int = 6):
    """The shipped expert's match (its playouts cut after `rounds`) and a game's state at
    seat 0's first placement."""
    game = new_game(seed, p1="tuned")
    match = prepare_match(("expert", "tuned"), game.match.deck, game.match.rules)
    match.SP[0, MC_ROLLOUT_ROUNDS] = rounds
    S = np.zeros(lay.S_SIZE, dtype=np.int64)
    S[:lay.S_CORE] = game.frozen
    return match, S


def test_a_cut_playout_is_valued_by_the_fitted_model():
    """position_value: logistic(margin / (scale + scale_round x rounds left)) plus the
    margin term, the margin counting gold and goods at the fitted rates (known answer)."""
    match, S = _cut_game(2)
    SP = match.SP
    assert SP[0, MC_EVAL_GOLD] > 0 and SP[0, MC_EVAL_SCALE] > 0  # the shipped fit
    for p, (vp, gold, salt) in ((0, (5, 2, 1)), (1, (3, 0, 4))):
        base = lay.S_PLAYER + p * lay.P_SIZE + lay.P_RES
        S[base + 4], S[base + 3], S[base + 0], S[base + 1], S[base + 2] = vp, gold, salt, 0, 0
    S[lay.S_ROUND] = 5
    margin = (5 - 3) + SP[0, MC_EVAL_GOLD] * 2 + SP[0, MC_EVAL_GOODS] * (1 - 4)
    scale = SP[0, MC_EVAL_SCALE] + SP[0, MC_EVAL_SCALE_ROUND] * (12 - 5)
    want = 1 / (1 + np.exp(-margin / scale)) + 0.01 * margin
    assert position_value(S, match.D, match.R, SP, 0, 0.01) == pytest.approx(want)
    both = SP.copy()
    both[1] = SP[0]  # the searcher's own row holds its evaluation: seat 1 as the searcher
    want1 = 1 / (1 + np.exp(margin / scale)) - 0.01 * margin
    assert position_value(S, match.D, match.R, both, 1, 0.01) == pytest.approx(want1)


@pytest.mark.parametrize("at_round_start", [False, True])
@pytest.mark.parametrize("rounds", [0, 1, 2])
def test_a_cut_playout_stops_after_its_rounds_the_current_one_counted(rounds, at_round_start):
    """From the middle of a round (a placement search) or from its start (the replay an
    action decision's search plays from), `rollout_rounds` = 1 ends with that round."""
    match, S = _cut_game(rounds)
    start = S[lay.S_ROUND]  # the round being played
    if at_round_start:
        game = new_game(6, p1="tuned")
        S[:lay.S_CORE] = game.round_start[:lay.S_CORE]
        assert S[lay.S_PHASE] == lay.PH_ROUND_START and S[lay.S_ROUND] == start - 1
    Sr, SPr, Lr, Or, slots, _T = search_scratch(match.SP, S.shape[0])
    determinised_copy(S, 0, 12345, 0, Sr, SPr, slots)
    rollout_rows(match.SP, 0, SPr)
    value = playout_value(match.D, match.R, 0, Sr, SPr, Lr, rollout_policies(match.PB, 0),
                          Or, 0.01, match.SP)
    if rounds == 0:
        assert Sr[lay.S_OVER] == 1  # to the game's end
    else:
        assert Sr[lay.S_OVER] == 0 and Sr[lay.S_PHASE] == lay.PH_ROUND_START
        assert Sr[lay.S_ROUND] == start + rounds - 1
        assert value == pytest.approx(position_value(Sr, match.D, match.R, match.SP, 0, 0.01))


def test_the_ladder_ends_with_the_expert():
    import inspect

    from targi_sim.cli import ladder as cli_ladder
    from targi_sim.strength.ladder import DEFAULT_RUNGS

    assert DEFAULT_RUNGS[-1] == "expert"
    assert ",".join(DEFAULT_RUNGS) in inspect.getsource(cli_ladder)  # the CLI's default


def test_a_tree_search_level_plays_a_smaller_budget():
    from targi_sim.balance import resolve_levels
    from targi_sim.players.strategy import LEVEL_ITERATIONS, level_spec

    assert level_spec("expert") == f"expert@{LEVEL_ITERATIONS}"
    assert level_spec("expert-placements") == f"expert-placements@{LEVEL_ITERATIONS}"
    assert level_spec("expert@7") == "expert@7"
    assert level_spec("montecarlo-tuned") == "montecarlo-tuned"  # flat: as typed
    assert level_spec("tuned") == "tuned"
    levels = resolve_levels(("balanced", "tuned", "expert"))
    assert levels.specs == ("balanced", "tuned", f"expert@{LEVEL_ITERATIONS}")
    assert levels.retuned_specs == ("tuned",)


def test_an_expert_level_searches_with_the_retuned_tuned():
    from dataclasses import replace
    from types import SimpleNamespace

    from targi_sim.calibrate.search import Evaluator
    from targi_sim.engine.constants import HW_GOLD, MC_BASE
    from targi_sim.players.strategy import follow_retuned, searches_with

    before = [load_strategy(n) for n in ("balanced", "tuned", "expert", "montecarlo")]
    params = before[1].params.copy()
    params[HW_GOLD] += 0.5
    players = [before[0], replace(before[1], params=params), before[2], before[3]]
    assert searches_with(before[2], before[1]) and not searches_with(before[3], before[1])
    after = follow_retuned(players, before)
    assert after[2].params[MC_BASE + HW_GOLD] == params[HW_GOLD]  # rollouts: the new tuned
    assert after[2].params[HW_GOLD] == params[HW_GOLD]  # its own decisions too
    assert after[2].params[MC_SEARCH] == SEARCH_ISMCTS
    assert after[3] is before[3]  # montecarlo rolls out with balanced, not re-tuned
    # calibrate races first the levels no re-tune moves (nor the level below them):
    # not the expert on tuned
    order = [0, 3, 1, 2]
    view = SimpleNamespace(names=[before[i].name for i in order], retuned=["tuned"],
                           strategies=[before[i] for i in order])
    assert Evaluator._fixed_levels(view) == ["balanced", "montecarlo"]
    view.strategies[3] = load_strategy("montecarlo-tuned")  # the last level, on tuned too
    view.names[3] = "montecarlo-tuned"
    assert Evaluator._fixed_levels(view) == ["balanced", "montecarlo"]
    view.retuned = []
    assert Evaluator._fixed_levels(view) == view.names


def _hidden_indices(S: np.ndarray, p: int) -> np.ndarray:
    """Positions of the state vector that player p cannot know (docs/rules.md §8)."""
    hidden = [*range(lay.S_GAME_RNG, lay.S_GAME_RNG + 4), *range(lay.S_POLICY_RNG,
              lay.S_POLICY_RNG + 8), *range(lay.S_TRIBE, lay.S_TRIBE + lay.MAX_TRIBE),
              *range(lay.S_GOODS, lay.S_GOODS + lay.MAX_GOODS_CARDS)]
    hidden += [lay.S_CELL_CARD + c for c in range(9) if S[lay.S_CELL_UP + c] == 0]
    opp = lay.S_PLAYER + (1 - p) * lay.P_SIZE
    if S[opp + lay.P_HAND_KNOWN] == 0:
        hidden.append(opp + lay.P_HAND)
    return np.array(hidden)


def test_the_search_re_deals_what_its_player_cannot_know_and_nothing_else():
    """The statistical re-deal audit, in the middle of a round: the opponent kept a card
    it drew face down this round (Tribal Expansion), then the searcher decides. Across
    the search's iterations every public fact of the position is the real one, the
    hidden tribe cards are the same set, and the opponent's unseen hand card is spread
    evenly over the cards the searcher cannot locate."""
    from scipy.stats import chisquare

    game = new_game(0, p1="tuned", transcript=True, first_player=1)
    opp = lay.S_PLAYER + lay.P_SIZE
    while True:
        S = game.frozen
        if (game.decision.player == 0 and S[opp + lay.P_HAND] >= 0
                and S[opp + lay.P_HAND_KNOWN] == 0
                and S[opp + lay.P_HAND_ROUND] == S[lay.S_ROUND]):
            break
        game.apply(0)
    assert len(game.round_answers()) > 5  # mid-round: the replay carries the round's answers
    real = game.frozen.copy()
    match = prepare_match(("expert", "tuned"))
    start = game.round_start.copy()
    positions = determinised_positions(start, game.paused_replay(), match.D, match.R,
                                       match.SP, match.PB, 0, 600)
    assert np.array_equal(start, game.round_start)
    hidden = _hidden_indices(real, 0)
    driver = [lay.S_PAUSE_MC]  # how the game is driven, not what it is
    public = np.setdiff1d(np.arange(lay.S_CORE), [*hidden, *driver])
    assert (positions[:, public] == real[public]).all()

    def hidden_tribe(S):
        deck = S[lay.S_TRIBE:lay.S_TRIBE + S[lay.S_TRIBE_N]].tolist()
        cells = [S[lay.S_CELL_CARD + c] for c in range(9)
                 if S[lay.S_CELL_UP + c] == 0 and S[lay.S_CELL_TYPE + c] == lay.CELL_TRIBE]
        return sorted(deck + cells + [S[opp + lay.P_HAND]])

    unseen = hidden_tribe(real)
    assert all(hidden_tribe(S) == unseen for S in positions)
    hands = positions[:, opp + lay.P_HAND]
    counts = np.array([(hands == c).sum() for c in unseen])
    assert counts.sum() == len(positions)
    assert (counts > 0).sum() >= 0.9 * len(unseen)
    assert chisquare(counts).pvalue > 1e-4, counts


def test_a_resampled_game_keeps_what_the_decider_knows_and_plays_on():
    """Game.resample (what OpenSpiel's ISMCTS asks for): the player to decide sees the same
    position and the same decision; what it cannot know is re-dealt; the game goes on."""
    game = new_game(0, p1="tuned", transcript=True, first_player=1)
    opp = lay.S_PLAYER + lay.P_SIZE
    while not (game.decision.player == 0 and game.frozen[opp + lay.P_HAND] >= 0
               and game.frozen[opp + lay.P_HAND_KNOWN] == 0):
        game.apply(0)
    real = game.frozen.copy()
    hidden = _hidden_indices(real, 0)
    public = np.setdiff1d(np.arange(lay.S_CORE), [*hidden, lay.S_PAUSE_MC])
    hands = set()
    for seed in range(12):
        other = game.resample(seed)
        assert other.decision.values == game.decision.values
        assert (other.frozen[public] == real[public]).all()
        hands.add(int(other.frozen[opp + lay.P_HAND]))
        while not other.is_over:  # a resampled game is a game: it plays to its end
            other.apply(0)
    assert len(hands) > 3
    assert np.array_equal(game.frozen, real)  # the original is unchanged
    # the same seed gives the same resampled game (that it is the same for any hidden
    # arrangement is determinize's property: tests/test_fairplay.py)
    a, b = game.resample(5), game.resample(5)
    assert np.array_equal(a.frozen, b.frozen)


def _root_with(results: dict[int, list[float]], prior_answer: int, confidence: float):
    """A searched decision's tree whose root answers (option values) have these results."""
    CTL = np.zeros(C_SIZE, dtype=np.int64)
    TREE = np.zeros((16, N_COLS))
    tree_reset(CTL, TREE, 0, 1.0, 0.7, 1, 0, confidence)
    CTL[C_ROOT_PRIOR] = prior_answer
    for k, (answer, values) in enumerate(results.items(), start=1):
        TREE[k] = 0.0
        TREE[k, 0] = edge_key(0, 4, 0, answer)
        TREE[k, N_NEXT], TREE[k, N_FIRST] = TREE[0, N_FIRST], -1.0
        TREE[0, N_FIRST] = k
        TREE[k, N_VISITS] = len(values)
        TREE[k, N_VALUE] = sum(values)
        TREE[k, N_SQUARES] = sum(v * v for v in values)
    CTL[C_USED] = len(results) + 1
    options = np.array(sorted(results), dtype=np.int64)
    return tree_best(CTL, TREE, 4, 0, options, len(options))


def test_confidence_keeps_the_priors_answer_unless_another_is_clearly_better():
    """Without `confidence` the most visited answer is played; with it, another answer
    than the base's must beat the base's mean by z standard errors of the difference
    (each mean's error from its own results' spread)."""
    prior = [1.0, 0.0] * 20  # answer 7, the base's: mean 0.5 over 40
    lucky = [1.0, 1.0, 0.0, 1.0, 1.0, 0.0]  # answer 3: mean 0.67 over 6
    visits = {7: prior, 3: lucky * 10}  # ... or over 60, the most visited
    assert _root_with(visits, 7, 0.0) == 3
    diff = 2 / 3 - 0.5
    se_few = (np.var(prior, ddof=1) / 40 + np.var(lucky, ddof=1) / 6) ** 0.5
    se_many = (np.var(prior, ddof=1) / 40 + np.var(lucky * 10, ddof=1) / 60) ** 0.5
    assert diff / se_few < 1.0 < diff / se_many  # the case as constructed
    assert _root_with({7: prior, 3: lucky}, 7, 1.0) == 7  # six lucky playouts: noise
    assert _root_with(visits, 7, 1.0) == 3  # sixty: evidence
    assert _root_with(visits, 7, 3.0) == 7  # not at three standard errors
    assert _root_with({7: prior, 3: [1.0]}, 7, 0.1) == 7  # one playout proves nothing
