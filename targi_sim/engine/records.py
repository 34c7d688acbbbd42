"""Column layout of the per-game logs the engine appends to (int32 2-D arrays).

The engine appends rows to preallocated arrays and bumps counters in `LC`;
`targi_sim.record` turns them into named tables. A log with zero rows capacity
is simply not written (e.g. the decision trace in batch runs).
"""

from .jit import jit

# counters / context vector LC (int64)
LC_ROUNDS = 0
LC_ACQ = 1
LC_OFFERS = 2
LC_RAIDS = 3
LC_TRACE = 4
LC_GAME = 5       # game id stamped on every row
LC_OVERFLOW = 6   # set when a log was full and rows were dropped
LC_SIZE = 8

# rounds: one row per round x player after round end
RR_GAME, RR_ROUND, RR_PLAYER, RR_IS_FIRST, RR_ROBBER = 0, 1, 2, 3, 4
RR_TARGI = 5      # 3 border card numbers (1..16), 0 = unplaced
RR_MARKER = 8     # 2 cells 0..8, -1 = none
RR_VP, RR_GOLD, RR_DATES, RR_SALT, RR_PEPPER = 10, 11, 12, 13, 14
RR_DISPLAY_N, RR_HAND, RR_ACQ, RR_GOODS_DISC, RR_GOLD_DISC, RR_SCORE = 15, 16, 17, 18, 19, 20
RR_SIZE = 21
ROUND_COLUMNS = (
    "game_id", "round", "player", "is_first", "robber_card",
    "targi_card_1", "targi_card_2", "targi_card_3", "marker_cell_1", "marker_cell_2",
    "vp_tokens", "gold", "dates", "salt", "pepper",
    "display_count", "hand_card", "cards_acquired", "goods_discarded", "gold_discarded",
    "score_now",
)

# acquisitions: a tribe card taken (or a hand card resolved by the Noble/ability)
RA_GAME, RA_ROUND, RA_PLAYER, RA_CARD, RA_SOURCE, RA_OUTCOME, RA_ROW, RA_COL = range(8)
RA_SIZE = 8
ACQ_COLUMNS = ("game_id", "round", "player", "card_id", "source", "outcome", "row", "col")
SRC_CENTRE = 0
SRC_EXPANSION = 1
SRC_HAND = 2
SOURCE_NAMES = ("centre", "tribal_expansion", "hand")
OUT_PLAYED = 0
OUT_KEPT = 1
OUT_DISCARDED = 2
OUT_LEFT = 3   # not logged: the card stayed where it was
OUTCOME_NAMES = ("played", "kept", "discarded")

# offers: tribe cards face up in the centre at placement time
RO_GAME, RO_ROUND, RO_CELL, RO_CARD = range(4)
RO_SIZE = 4
OFFER_COLUMNS = ("game_id", "round", "cell", "card_id")

# raids
RD_GAME, RD_ROUND, RD_RAID, RD_PLAYER, RD_PAID, RD_AMOUNT, RD_BONUS = range(7)
RD_SIZE = 7
RAID_COLUMNS = ("game_id", "round", "raid", "player", "paid", "amount", "opponent_bonus")
PAID_GOODS = 0
PAID_VP = 1
PAID_GOLD = 2
PAID_NONE = 3
PAID_IMMUNE = 4
PAID_NAMES = ("goods", "vp", "gold", "none", "immune")

# decision trace (single games, replays, golden files)
RT_GAME, RT_ROUND, RT_PLAYER, RT_DTYPE, RT_NOPTS, RT_CHOICE, RT_CTX = range(7)
RT_SIZE = 7
TRACE_COLUMNS = ("game_id", "round", "player", "decision", "n_options", "choice", "context")

# per-game result row (written by the batch driver)
G_GAME, G_FIRST, G_WINNER, G_SCORE0, G_SCORE1, G_ROUNDS, G_END, G_TIEBREAK = range(8)
G_BREAKDOWN = 8   # per player: tokens, card_vp, ability_vp, row_bonus, gold, goods
G_BD = 6
G_SIZE = G_BREAKDOWN + 2 * G_BD

# Upper bounds of rows one game can add (used to size buffers and to stop a batch early)
MAX_ROUNDS = 13
MAX_ROUND_ROWS = 2 * MAX_ROUNDS
MAX_ACQ_ROWS = 2 * MAX_ROUNDS * 12
MAX_OFFER_ROWS = 9 * MAX_ROUNDS
MAX_RAID_ROWS = 8


@jit
def log_row(log, LC, counter):
    """Index of a fresh row in `log`, or -1 when it is full (disabled logs have 0 rows)."""
    i = LC[counter]
    if i >= log.shape[0]:
        if log.shape[0] > 0:
            LC[LC_OVERFLOW] = 1
        return -1
    LC[counter] = i + 1
    log[i, 0] = LC[LC_GAME]
    return i
