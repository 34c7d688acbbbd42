"""Layout of the log the engine appends rows to: ONE flat int32 array.

Why one array: numba passes every array argument as ~7-9 scalars, and the logs
travel through every engine call; one array instead of six cut the engine's
per-call overhead. The array starts with a header (rows used, capacity, start
offset and row width of each table, the current game id), followed by one
row-major region per table. A table with zero capacity is simply not written
(e.g. the decision trace in batch runs). `targi_sim.game.record` turns the regions
into named tables.
"""

from targi_sim.engine.jit import jit, jit_inline

# tables
T_ROUNDS = 0
T_ACQ = 1
T_OFFERS = 2
T_RAIDS = 3
T_TRACE = 4
T_GOODS = 5
N_TABLES = 6
# header
H_USED = 0        # + table: rows written
H_CAP = 6         # + table: capacity in rows
H_OFF = 12        # + table: offset of the table's first element
H_WIDTH = 18      # + table: row width
H_GAME = 24       # game id stamped on every row
H_OVERFLOW = 25   # set when a table was full and rows were dropped
H_SIZE = 28

# rounds: one row per round x player after round end
RR_GAME, RR_ROUND, RR_PLAYER, RR_IS_FIRST, RR_ROBBER = 0, 1, 2, 3, 4
RR_TARGI = 5      # 3 border card numbers (1..16), 0 = unplaced
RR_MARKER = 8     # 2 cells 0..8, -1 = none
RR_VP, RR_GOLD, RR_DATES, RR_SALT, RR_PEPPER = 10, 11, 12, 13, 14
RR_DISPLAY_N, RR_HAND, RR_ACQ, RR_GOODS_DISC, RR_GOLD_DISC, RR_SCORE = 15, 16, 17, 18, 19, 20
RR_MOVED = 21     # 2 cells a marker was moved to by Fata Morgana, -1 = not moved
RR_SIZE = 23
ROUND_COLUMNS = (
    "game_id", "round", "player", "is_first", "robber_card",
    "targi_card_1", "targi_card_2", "targi_card_3", "marker_cell_1", "marker_cell_2",
    "vp_tokens", "gold", "dates", "salt", "pepper",
    "display_count", "hand_card", "cards_acquired", "goods_discarded", "gold_discarded",
    "score_now", "marker_moved_1", "marker_moved_2",
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

# raids: amount = units of the `paid` kind (goods, VP or gold; for goods_and_gold the
# goods), gold = gold tokens paid with it
RD_GAME, RD_ROUND, RD_RAID, RD_PLAYER, RD_PAID, RD_AMOUNT, RD_BONUS, RD_GOLD = range(8)
RD_SIZE = 8
RAID_COLUMNS = ("game_id", "round", "raid", "player", "paid", "amount", "opponent_bonus",
                "gold")
PAID_GOODS = 0
PAID_VP = 1
PAID_GOLD = 2
PAID_NONE = 3
PAID_IMMUNE = 4
PAID_GOODS_GOLD = 5  # a custom deck's raid costing goods and gold together
PAID_NAMES = ("goods", "vp", "gold", "none", "immune", "goods_and_gold")

# goods: a goods card taken (its content is in the deck; choices show in resources)
RG_GAME, RG_ROUND, RG_PLAYER, RG_CARD, RG_SOURCE = range(5)
RG_SIZE = 5
GOODS_COLUMNS = ("game_id", "round", "player", "card_id", "source")
GSRC_CENTRE = 0
GSRC_BORDER = 1
GOODS_SOURCE_NAMES = ("centre", "border")

# decision trace (single games, replays, golden files)
RT_GAME, RT_ROUND, RT_PLAYER, RT_DTYPE, RT_NOPTS, RT_CHOICE, RT_CTX = range(7)
RT_SIZE = 7
TRACE_COLUMNS = ("game_id", "round", "player", "decision", "n_options", "choice", "context")

# per-game result row (written by the batch driver)
G_GAME, G_FIRST, G_WINNER, G_SCORE0, G_SCORE1, G_ROUNDS, G_END, G_TIEBREAK = range(8)
G_BREAKDOWN = 8   # per player: tokens, card_vp, ability_vp, row_bonus, gold, goods
G_BD = 6
G_BAD = G_BREAKDOWN + 2 * G_BD  # per seat: answers out of range, first such decision type
G_SIZE = G_BAD + 4

# Upper bounds of rows one game can add (used to size buffers and to stop a batch early)
MAX_ROUNDS = 13
MAX_ROUND_ROWS = 2 * MAX_ROUNDS
MAX_ACQ_ROWS = 2 * MAX_ROUNDS * 12
MAX_OFFER_ROWS = 9 * MAX_ROUNDS
MAX_RAID_ROWS = 8
MAX_GOODS_ROWS = 2 * MAX_ROUNDS * 12


@jit_inline
def log_row(L, table):
    """Offset of a fresh row of `table` in L (game id already written), or -1 if full."""
    used = L[H_USED + table]
    if used >= L[H_CAP + table]:
        if L[H_CAP + table] > 0:
            L[H_OVERFLOW] = 1
        return -1
    L[H_USED + table] = used + 1
    o = L[H_OFF + table] + used * L[H_WIDTH + table]
    L[o] = L[H_GAME]
    return o


@jit
def room_for_game(L):
    """True if every enabled table has room for one more game of the worst case."""
    return (
        room_for(L, T_ROUNDS, MAX_ROUND_ROWS)
        and room_for(L, T_ACQ, MAX_ACQ_ROWS)
        and room_for(L, T_OFFERS, MAX_OFFER_ROWS)
        and room_for(L, T_RAIDS, MAX_RAID_ROWS)
        and room_for(L, T_GOODS, MAX_GOODS_ROWS)
    )


@jit_inline
def room_for(L, table, rows):
    """True if `table` is disabled or has room for `rows` more rows."""
    cap = L[H_CAP + table]
    return cap == 0 or cap - L[H_USED + table] >= rows
