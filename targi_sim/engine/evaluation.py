"""The positions a cut playout's evaluation is fitted on (players/evaluation.py fits
them; rollouts.position_value applies the fit).

Games of a search seat's rollout strategy against itself on the match's deck and rules,
each position recorded at the end of every round but the last, from seat 0's side: the
round, the score margin, the gold margin and the goods margin; and per game the final
score margin and the winner. The positions are those the cut playouts stop at, played
by the same strategy, so the fit describes where those playouts stand.
"""

import numpy as np

from targi_sim.engine.access import goods_total, res
from targi_sim.engine.constants import GOLD
from targi_sim.engine.logs import H_SIZE, MAX_ROUNDS

from .ask import rollout_policies
from .batch import OPTION_BUFFER, copy_rows
from .jit import jit_alloc
from .layout import PH_ROUND_START, S_OVER, S_PHASE, S_ROUND
from .rollouts import rollout_rows
from .rounds import play_round, reseed_policies, setup_game
from .scoring import decide_winner, total_score

N_POSITION = 4  # round, score margin, gold margin, goods margin


@jit_alloc
def evaluation_positions(D, R, SP, PB, p, seeds, S_size):
    """(positions (n, N_POSITION), each position's game, each game's final score
    margin, each game's winner 0/1/-1): games of p's rollout strategy in both seats,
    the first player alternating."""
    n_games = seeds.shape[0]
    X = np.zeros((n_games * MAX_ROUNDS, N_POSITION))  # at most a row a round
    game_of = np.zeros(n_games * MAX_ROUNDS, dtype=np.int64)
    final = np.zeros(n_games)
    winner = np.zeros(n_games, dtype=np.int64)
    S = np.zeros(S_size, dtype=np.int64)
    SPr = np.zeros_like(SP)
    rollout_rows(SP, p, SPr)
    SPw = SPr.copy()
    L = np.zeros(H_SIZE, dtype=np.int32)  # every log table disabled
    O = np.zeros(OPTION_BUFFER, dtype=np.int64)
    Pr = rollout_policies(PB, p)
    k = 0
    for i in range(n_games):
        setup_game(S, D, R, seeds[i], i % 2)
        reseed_policies(S, SPr, seeds[i])
        copy_rows(SPr, SPw)
        while S[S_OVER] == 0:
            play_round(S, D, R, SPw, L, Pr, O)
            if S[S_OVER] == 0 and S[S_PHASE] == PH_ROUND_START and k < X.shape[0]:
                X[k, 0] = S[S_ROUND]
                X[k, 1] = total_score(S, D, R, 0) - total_score(S, D, R, 1)
                X[k, 2] = res(S, 0, GOLD) - res(S, 1, GOLD)
                X[k, 3] = goods_total(S, 0) - goods_total(S, 1)
                game_of[k] = i
                k += 1
        s0 = total_score(S, D, R, 0)
        s1 = total_score(S, D, R, 1)
        final[i] = s0 - s1
        winner[i], _ = decide_winner(S, D, R, s0, s1)
    return X[:k], game_of[:k], final, winner
