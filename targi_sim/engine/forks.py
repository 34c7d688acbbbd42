"""Card-value forks: counterfactual playouts at the decisions where a player can take a
tribe card (docs/data-model.md#forks, docs/report.md#causal-card-value).

The main game is played round by round exactly as `play_batch` plays it (tested: same
results). Before each round the state and the strategy rows are copied; after it, each
take-or-not decision of that round (engine/forkpoint.py) is sampled with probability
`rate` from a stream of its own (so the main game's streams are untouched and the sample
is a function of the game's seed alone). A sampled decision is forked: the round is
replayed twice from the copy, which reaches the same decision (games are deterministic),
once restricted to taking the card and once to not taking it, and both are played to the
end by the run's strategies. Both branches start from the same copy, so they share
every random stream (common random numbers inside the fork).

A separate entry point: only `targi-sim card-value` (or `run --card-value`) compiles it.
"""

import numpy as np

from targi_sim.engine.logs import H_SIZE

from .batch import copy_rows, write_result
from .jit import jit, jit_alloc
from .layout import (
    FORK_COUNT,
    FORK_FORCE,
    S_FORK_AT,
    S_FORK_BRANCH,
    S_FORK_CARD,
    S_FORK_HIT,
    S_FORK_N_OPTIONS,
    S_FORK_ON,
    S_FORK_PLAYER,
    S_FORK_SEEN,
    S_FORK_SOURCE,
    S_OVER,
    S_ROUND,
    S_SIZE,
)
from .rng import next32, seed_stream
from .rounds import play_round, play_to_end, reseed_policies, setup_game
from .scoring import decide_winner, total_score

SAMPLE_STREAM = 1_000_003  # the fork sample's stream of the game seed (no player uses it)
MAX_FORKS_PER_GAME = 256   # room kept free in F before each game (a game has ~15)

# columns of F, one row per fork
F_GAME = 0
F_DECISION = 1     # the decision's number among the game's take-or-not decisions
F_ROUND = 2
F_PLAYER = 3
F_CARD = 4
F_SOURCE = 5       # SRC_CENTRE or SRC_EXPANSION
F_N_OPTIONS = 6
F_POINTS_TAKE = 7  # the player's result in halves: 2 win, 1 draw, 0 loss
F_POINTS_ALT = 8
F_MARGIN_TAKE = 9  # the player's score minus the opponent's at the end
F_MARGIN_ALT = 10
F_ROUNDS_TAKE = 11
F_ROUNDS_ALT = 12
F_HIT = 13         # 1 when both branches reached the forked decision (always, tested)
F_SIZE = 14


@jit
def branch_result(Sf, D, R, p):
    """(points in halves, margin) of player p at the end of a playout."""
    s_me = total_score(Sf, D, R, p)
    s_op = total_score(Sf, D, R, 1 - p)
    w, _ = decide_winner(Sf, D, R, s_me if p == 0 else s_op, s_op if p == 0 else s_me)
    return (2 if w == p else (1 if w == -1 else 0)), s_me - s_op


@jit
def copy_state(src, dst):
    for j in range(src.shape[0]):
        dst[j] = src[j]


@jit
def fork(S0, SP0, D, R, P, k, branch, Sf, SPf, Lr, Of):
    """Play the copy of a round's start to the end with decision k forced to `branch`."""
    copy_state(S0, Sf)
    copy_rows(SP0, SPf)
    Sf[S_FORK_ON] = FORK_FORCE
    Sf[S_FORK_AT] = k
    Sf[S_FORK_BRANCH] = branch
    Sf[S_FORK_HIT] = 0
    play_to_end(Sf, D, R, SPf, Lr, P, Of)


@jit_alloc
def play_batch_forks(D, R, SP, P, seeds, first_players, game_ids, G, F, threshold, start,
                     counts):
    """Play games start.. into G (as play_batch does) and fork their sampled decisions
    into F; returns the next game index (it stops before a game when F may not have
    room). counts[0]: rows of F used (updated); counts[1] set to 1 if a game needed more
    than MAX_FORKS_PER_GAME rows. threshold: a decision is forked when
    its draw from the sample stream (32 bits) is below it (rate * 2**32).
    """
    S = np.zeros(S_SIZE, dtype=np.int64)
    S0 = np.zeros(S_SIZE, dtype=np.int64)
    Sf = np.zeros(S_SIZE, dtype=np.int64)
    Q = np.zeros(4, dtype=np.int64)
    SPw = SP.copy()
    SP0 = SP.copy()
    SPf = SP.copy()
    O = np.zeros(256, dtype=np.int64)
    Of = np.zeros(256, dtype=np.int64)
    Lr = np.zeros(H_SIZE, dtype=np.int32)  # every table disabled
    nf = counts[0]
    for i in range(start, seeds.shape[0]):
        if F.shape[0] - nf < MAX_FORKS_PER_GAME:
            counts[0] = nf
            return i
        setup_game(S, D, R, seeds[i], first_players[i])
        reseed_policies(S, SP, seeds[i])
        copy_rows(SP, SPw)
        seed_stream(Q, 0, seeds[i], SAMPLE_STREAM + first_players[i])
        S[S_FORK_ON] = FORK_COUNT
        S[S_FORK_SEEN] = 0
        while S[S_OVER] == 0:
            copy_state(S, S0)
            copy_rows(SPw, SP0)
            before = S[S_FORK_SEEN]
            play_round(S, D, R, SPw, Lr, P, O)
            for k in range(before, S[S_FORK_SEEN]):
                if next32(Q, 0) >= threshold:
                    continue
                if nf >= F.shape[0]:
                    counts[1] = 1  # overflow: the caller raises
                    continue
                fork(S0, SP0, D, R, P, k, 0, Sf, SPf, Lr, Of)
                p = Sf[S_FORK_PLAYER]
                hit = Sf[S_FORK_HIT]
                card = Sf[S_FORK_CARD]
                F[nf, F_ROUND] = S[S_ROUND]
                F[nf, F_PLAYER] = p
                F[nf, F_CARD] = card
                F[nf, F_SOURCE] = Sf[S_FORK_SOURCE]
                F[nf, F_N_OPTIONS] = Sf[S_FORK_N_OPTIONS]
                pts, margin = branch_result(Sf, D, R, p)
                F[nf, F_POINTS_TAKE] = pts
                F[nf, F_MARGIN_TAKE] = margin
                F[nf, F_ROUNDS_TAKE] = Sf[S_ROUND]
                fork(S0, SP0, D, R, P, k, 1, Sf, SPf, Lr, Of)
                same = Sf[S_FORK_PLAYER] == p and Sf[S_FORK_CARD] == card
                F[nf, F_HIT] = 1 if hit == 1 and Sf[S_FORK_HIT] == 1 and same else 0
                pts, margin = branch_result(Sf, D, R, p)
                F[nf, F_POINTS_ALT] = pts
                F[nf, F_MARGIN_ALT] = margin
                F[nf, F_ROUNDS_ALT] = Sf[S_ROUND]
                F[nf, F_GAME] = game_ids[i]
                F[nf, F_DECISION] = k
                nf += 1
        write_result(S, D, R, G, i, game_ids[i])
    counts[0] = nf
    return seeds.shape[0]
