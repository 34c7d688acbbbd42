"""The evaluation a cut playout of the expert ends with (`rollout_rounds` in
data/strategies/expert.toml; targi_sim/players/evaluation.py): the fit a match makes on
its deck, printed with its standard errors and how well it holds round by round.

    python benchmarks/fit_evaluation.py                       # tuned, base deck
    python benchmarks/fit_evaluation.py --deck base-token-economy --games 20000

Plays `--games` games of the expert's rollout strategy against itself on the deck (the
positions a match fits on: players.evaluation.mirror_positions) and fits the two models
of players/evaluation.py with the library's own code (the numbers a match would use),
then the margin model again with statsmodels for standard errors clustered by game.
Round by round: the share of the final margin's variance the estimate explains (R²),
and the logistic scale fitted on that round alone against the model's, so a model that
fits badly says so. Nothing here asserts.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import statsmodels.api as sm

from targi_sim.engine.constants import USUAL_ROUNDS
from targi_sim.play.match import prepare_match
from targi_sim.players.evaluation import (
    EVAL_FITTED,
    FIT_GAMES,
    FIT_SEED,
    fit_positions,
    mirror_positions,
    win_scale,
)


def by_round(pos, fit) -> None:
    """How well the pooled models fit each round."""
    print("round  positions  R² of the margin  logistic scale: that round alone / the model")
    estimate = pos.margin + fit.gold * pos.gold + fit.goods * pos.goods
    for r in np.unique(pos.round):
        at = pos.round == r
        if at.sum() < 200:
            continue
        final, est = pos.final[at], estimate[at]
        r2 = 1 - np.var(final - est) / np.var(final)
        decided = pos.winner[at] != -1
        left = np.zeros(decided.sum())
        alone, _ = win_scale(est[decided], left, (pos.winner[at][decided] == 0).astype(float))
        model = fit.scale + fit.scale_round * max(0.0, USUAL_ROUNDS - r)
        print(f"{int(r):5d}  {at.sum():9,d}  {r2:16.2f}  {alone:6.2f} / {model:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", default="expert", help="a search strategy (its base plays)")
    ap.add_argument("--deck", default="base")
    ap.add_argument("--rules", default="default")
    ap.add_argument("--games", type=int, default=FIT_GAMES)
    ap.add_argument("--seed", type=int, default=FIT_SEED)
    args = ap.parse_args()
    match = prepare_match((args.strategy, "random"), args.deck, args.rules)
    t0 = time.perf_counter()
    pos = mirror_positions(match.D, match.R, match.SP, match.PB, 0, args.games, args.seed)
    fit = fit_positions(pos)
    print(f"{args.strategy}'s rollout strategy, mirror on {args.deck} / {args.rules}: "
          f"{args.games:,} games, {fit.positions:,} positions, seed {args.seed} "
          f"({time.perf_counter() - t0:.1f} s with the engine's compile)")
    A = np.column_stack([pos.gold, pos.goods])
    ols = sm.OLS(pos.final - pos.margin, A).fit(cov_type="cluster",
                                               cov_kwds={"groups": pos.game})
    print("final margin = margin now + gold x Δgold + goods x Δgoods (se clustered by game):")
    for name, b, se in zip(("gold", "goods"), ols.params, ols.bse, strict=True):
        print(f"  {name:6s} {b:7.3f} VP  (se {se:.3f})")
    print(f"P(win) = logistic(margin / ({fit.scale:.3f} + {fit.scale_round:.3f} x rounds left))")
    by_round(pos, fit)
    print("\n# the same numbers in a strategy file (then fixed, not fitted per deck):")
    for key, value in zip(EVAL_FITTED, fit.values(), strict=True):
        print(f"{key} = {value:.3f}")


if __name__ == "__main__":
    main()
