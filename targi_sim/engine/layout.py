"""Offsets into the flat vectors the engine works on.

State `S` (int64): one game in progress. Deck `D` (int64): a loaded deck packed
for the engine. Both are plain arrays, so a state is copied with `S.copy()`
(search strategies) and a whole batch needs no Python objects. Offsets are
module-level ints, which numba compiles as constants.
"""

from __future__ import annotations

import numpy as np

from targi_sim.engine.constants import (
    DISPLAY_SLOTS,
    MAX_GOODS_CARDS,
    MAX_TRIBE,
    N_AB_PARAMS,
    N_BORDER,
    N_CELLS,
    N_GOODS,
)


class _Alloc:
    def __init__(self) -> None:
        self.size = 0

    def take(self, n: int = 1) -> int:
        start = self.size
        self.size += n
        return start


# ---------------------------------------------------------------- game state
_s = _Alloc()
S_ROUND = _s.take()          # placement rounds started so far (1-based once play begins)
S_ROBBER = _s.take()         # border position 0..15
S_FIRST = _s.take()          # holder of the amulet: first player of the current round
S_FIRST_R1 = _s.take()       # first player of round 1
S_OVER = _s.take()           # 1 once the game has ended
S_END_REASON = _s.take()     # END_* code
S_END_AFTER_ROUND = _s.take()  # 1: the game ends when this round ends
S_ERROR = _s.take()          # non-zero: a scripted decision did not match (tests)
S_SEED = _s.take()
S_GAME_RNG = _s.take(4)      # deck shuffles
S_POLICY_RNG = _s.take(8)    # 4 words per player: that player's own random choices
S_GOODS_N = _s.take()        # cards in the goods deck; the top card is the last one
S_GOODS = _s.take(MAX_GOODS_CARDS)
S_GOODS_DISC_N = _s.take()
S_GOODS_DISC = _s.take(MAX_GOODS_CARDS)
S_TRIBE_N = _s.take()
S_TRIBE = _s.take(MAX_TRIBE)
S_TRIBE_DISC_N = _s.take()
S_TRIBE_DISC = _s.take(MAX_TRIBE)
S_CELL_CARD = _s.take(N_CELLS)    # card id, -1 empty
S_CELL_TYPE = _s.take(N_CELLS)    # CELL_GOODS / CELL_TRIBE / CELL_EMPTY
S_CELL_UP = _s.take(N_CELLS)      # 1 face up, 0 face down (replaced this round)
S_CELL_MARKER = _s.take(N_CELLS)  # owner of the tribe marker on it, -1 none
S_BORDER_TARGI = _s.take(N_BORDER)  # owner of the Targi on it, -1 none
S_RAIDS_DONE = _s.take()
S_CELLS_VERSION = _s.take()  # bumped whenever a centre cell's card or face changes
S_RES_VERSION = _s.take()    # bumped whenever any player's tokens change
S_PHASE = _s.take()          # PH_*: where a paused game resumes
S_PLACE_K = _s.take()        # Targis placed so far this round (0..6)
S_PAUSE_MC = _s.take()       # 1: pause before a montecarlo player's placement
S_BAD = _s.take(4)           # per seat: answers out of range, then the first such decision type

# per-player block, at S_PLAYER + p * P_SIZE
_p = _Alloc()
P_RES = _p.take(5)           # salt, pepper, dates, gold, vp (resource index order)
P_HAND = _p.take()           # tribe card id or -1
P_HAND_KNOWN = _p.take()     # 1: the opponent saw the hand card taken (face up), 0: drawn unseen
P_HAND_ROUND = _p.take()     # round in which the hand card was kept, -1 none (or set by hand)
P_DISPLAY = _p.take(DISPLAY_SLOTS)  # row-major 3 x 4, -1 empty
P_DISPLAY_N = _p.take()
P_TARGI = _p.take(3)         # border positions this round, -1 unplaced
P_MARKER = _p.take(2)        # cells this round, -1 none (after any Fata Morgana move)
P_MARKER_PLACED = _p.take(2)  # cells the markers were placed on this round, -1 none
P_DONE = _p.take(5)          # action slot resolved (3 Targis then 2 markers)
P_ACQ_ROUND = _p.take()      # tribe cards acquired (played or kept) this round
P_GOODS_DISC_ROUND = _p.take()
P_GOLD_DISC_ROUND = _p.take()
P_SIZE = _p.size
S_PLAYER = _s.take(2 * P_SIZE)
S_CORE = _s.size             # the game itself; what follows only drives paused play

# A seat played from Python (strategy kind "external") answers from a script of choices;
# when the script runs out the game pauses: the decision and a frozen copy of the game at
# that moment are kept here, and every later decision of the round takes its first option.
MAX_SCRIPT = 1024
MAX_OPTIONS = 256
S_X_POS = _s.take()          # next script entry
S_X_N = _s.take()            # script entries
S_X_SCRIPT = _s.take(MAX_SCRIPT)  # option values, in decision order (any external seat)
S_X_PAUSED = _s.take()       # 1 once a decision found the script exhausted
S_X_PLAYER = _s.take()
S_X_DTYPE = _s.take()
S_X_CTX = _s.take()
S_X_N_OPTIONS = _s.take()
S_X_TRACE_AT = _s.take()     # trace rows logged before the paused decision
S_X_OPTIONS = _s.take(MAX_OPTIONS)
S_X_FROZEN = _s.take(S_CORE)  # S[0:S_CORE] when the game paused

# Decisions that can be branched (engine/transcript.py): in the search build the engine
# records every asked decision's answer of the current round here (both seats, in
# order), so that a search can replay the round from its start up to any decision.
# S_T_MODE says what the search build's ask does (TM_*; 0 in every other build).
MAX_TRANSCRIPT = 1024
S_T_MODE = _s.take()
S_T_N = _s.take()             # answers recorded this round
S_T = _s.take(MAX_TRANSCRIPT)
# Resampled games (targi_sim.play.session.Game.resample): in a real game of the search
# build, re-deal what a player cannot know at the decision that was pending after the
# round's k-th answer (in the replay, before that decision is answered).
MAX_REDEALS = 8
S_RD_N = _s.take()            # re-deals this round
S_RD_DONE = _s.take()         # ... applied so far in this replay
S_RD = _s.take(3 * MAX_REDEALS)  # each: answers before it, player, seed
S_RD_RNG = _s.take(4)         # the re-deal's stream (seeded from its seed)
S_RD_SLOTS = _s.take(256)     # the re-deal's scratch

# Card-value forks (engine/forks.py, docs/data-model.md#forks): outside S_CORE, so
# setup, Monte Carlo rollouts and every ordinary game leave them 0 (off).
S_FORK_ON = _s.take()        # FORK_OFF, FORK_COUNT (count take-or-not decisions), FORK_FORCE
S_FORK_SEEN = _s.take()      # take-or-not tribe decisions counted so far in this game
S_FORK_AT = _s.take()        # FORK_FORCE: the decision (0-based count) to restrict
S_FORK_BRANCH = _s.take()    # FORK_TAKE: only the play options; FORK_ALT: leave / discard
S_FORK_HIT = _s.take()       # 1 once the forced decision was reached
S_FORK_CARD = _s.take()      # ... its card, player, source (SRC_*) and options offered
S_FORK_PLAYER = _s.take()
S_FORK_SOURCE = _s.take()
S_FORK_N_OPTIONS = _s.take()
S_SIZE = _s.size

FORK_OFF = 0
FORK_COUNT = 1
FORK_FORCE = 2
FORK_TAKE = 0
FORK_ALT = 1

PH_ROUND_START = 0
PH_PLACEMENT = 1

TM_OFF = 0       # S_T_MODE: an ordinary game
TM_REAL = 1      # a real game with a searching seat: record answers, pause searched seats
TM_SEARCH = 2    # a search iteration: forced prefix, then the tree, then the rollout

CELL_EMPTY = -1
CELL_GOODS = 0
CELL_TRIBE = 1

# ---------------------------------------------------------------- packed deck
_d = _Alloc()
D_N_TRIBE = _d.take()
D_N_GOODS = _d.take()
D_N_TRADES = _d.take()
D_ABILITIES = _d.take()  # bit k set: some card has ability kind k (lets scans be skipped)
# totals over the deck's tribe cards: what a player knows of a card they have not seen
D_SUM_VP = _d.take()
D_SUM_COST = _d.take(4)      # salt, pepper, dates, gold
D_SYMBOL_COUNT = _d.take(5)  # cards per symbol
# per border card: BD_* fields
BD_KIND = 0
BD_GAIN = 1                  # 5 amounts
BD_AMOUNT = 6
BD_TRADE_LO = 7
BD_TRADE_HI = 8
BD_RAID_NUMBER = 9
BD_RAID_GOODS = 10
BD_RAID_GOLD = 11
BD_RAID_VP = 12
BD_RAID_ENDS = 13
BD_SIZE = 14
D_BORDER = _d.take(N_BORDER * BD_SIZE)
MAX_TRADES = 32
TD_GIVE = 0
TD_GIVE_AMT = 1
TD_GET = 2
TD_GET_AMT = 3
TD_SIZE = 4
D_TRADES = _d.take(MAX_TRADES * TD_SIZE)
GD_SIZE = 6                  # salt, pepper, dates, gold, vp, choose_one
D_GOODS = _d.take(MAX_GOODS_CARDS * GD_SIZE)
TC_SYMBOL = 0
TC_VP = 1
TC_COST = 2                  # 4: salt, pepper, dates, gold
TC_ALT = 6                   # 4
TC_HAS_ALT = 10
TC_ABILITY = 11
TC_PARAMS = 12               # N_AB_PARAMS
TC_DEMAND = TC_PARAMS + N_AB_PARAMS  # derived: the card's goods costs as a packed histogram
TC_SIZE = TC_DEMAND + 1
D_TRIBE = _d.take(MAX_TRIBE * TC_SIZE)
D_SIZE = _d.size


def pack_deck(deck) -> np.ndarray:
    """Pack a loaded `Deck` (targi_sim.game.deck) into the engine's flat int64 vector."""
    D = np.zeros(D_SIZE, dtype=np.int64)
    n_tribe = len(deck.tribe_symbol)
    n_goods = len(deck.goods)
    n_trades = len(deck.trade_give)
    if n_tribe > MAX_TRIBE or n_goods > MAX_GOODS_CARDS or n_trades > MAX_TRADES:
        raise ValueError(
            f"deck too large for the engine buffers: {n_tribe} tribe (max {MAX_TRIBE}), "
            f"{n_goods} goods (max {MAX_GOODS_CARDS}), {n_trades} trades (max {MAX_TRADES})"
        )
    D[D_N_TRIBE] = n_tribe
    D[D_N_GOODS] = n_goods
    D[D_N_TRADES] = n_trades
    D[D_ABILITIES] = int(np.bitwise_or.reduce(1 << np.asarray(deck.tribe_ability, dtype=np.int64)))
    D[D_SUM_VP] = int(np.sum(deck.tribe_vp))
    D[D_SUM_COST:D_SUM_COST + 4] = np.sum(np.asarray(deck.tribe_cost, dtype=np.int64), axis=0)
    D[D_SYMBOL_COUNT:D_SYMBOL_COUNT + 5] = np.bincount(
        np.asarray(deck.tribe_symbol, dtype=np.int64), minlength=5)[:5]
    for b in range(N_BORDER):
        o = D_BORDER + b * BD_SIZE
        D[o + BD_KIND] = deck.border_kind[b]
        D[o + BD_GAIN:o + BD_GAIN + 5] = deck.border_gain[b]
        D[o + BD_AMOUNT] = deck.border_amount[b]
        D[o + BD_TRADE_LO] = deck.border_trade_lo[b]
        D[o + BD_TRADE_HI] = deck.border_trade_hi[b]
        D[o + BD_RAID_NUMBER] = deck.raid_number[b]
        D[o + BD_RAID_GOODS] = deck.raid_goods[b]
        D[o + BD_RAID_GOLD] = deck.raid_gold[b]
        D[o + BD_RAID_VP] = deck.raid_vp[b]
        D[o + BD_RAID_ENDS] = deck.raid_ends_game[b]
    for t in range(n_trades):
        o = D_TRADES + t * TD_SIZE
        D[o + TD_GIVE] = deck.trade_give[t]
        D[o + TD_GIVE_AMT] = deck.trade_give_amount[t]
        D[o + TD_GET] = deck.trade_get[t]
        D[o + TD_GET_AMT] = deck.trade_get_amount[t]
    for g in range(n_goods):
        D[D_GOODS + g * GD_SIZE:D_GOODS + (g + 1) * GD_SIZE] = deck.goods[g]
    for c in range(n_tribe):
        o = D_TRIBE + c * TC_SIZE
        D[o + TC_SYMBOL] = deck.tribe_symbol[c]
        D[o + TC_VP] = deck.tribe_vp[c]
        D[o + TC_COST:o + TC_COST + 4] = deck.tribe_cost[c]
        D[o + TC_ALT:o + TC_ALT + 4] = deck.tribe_alt_cost[c]
        D[o + TC_HAS_ALT] = deck.tribe_has_alt[c]
        D[o + TC_ABILITY] = deck.tribe_ability[c]
        D[o + TC_PARAMS:o + TC_PARAMS + N_AB_PARAMS] = deck.tribe_ab_params[c]
        D[o + TC_DEMAND] = demand_bits(deck.tribe_cost[c])
    return D


def demand_bits(cost) -> int:
    """A tribe card's goods costs as the heuristic's demand histogram counts them (4 bits
    per good and units 0..3, 3 meaning 3 or more; policies/heuristic/values.py): built
    once per deck, so a centre's histogram is a sum of nine numbers."""
    return sum(1 << (4 * (k * 4 + min(int(cost[k]), 3))) for k in range(N_GOODS))
