"""Upper bounds of deck and rules values: what one game can hold without wrapping.

Why: the engine adds values up in int64 state, but its log is int32 and a run's
Parquet columns are int16 / int8 (runner/tables.py), some engine buffers have a
fixed size, and a game has a fixed shape (at most 13 rounds, 3 Targis and 2 tribe
markers per player and round, 12 display cards, 4 raids, 64 trades per exchange
action). Each bound below is chosen so that the worst case of a whole game, with
every card at its bound, still fits; `worst_case` adds that worst case up, and
tests check it against the column types. docs/data-format.md ("Bounds") has the
table. Realistic designer values are single digits; the bounds leave ample room.
"""

from __future__ import annotations

from targi_sim.engine.actions import MAX_TRADES_PER_ACTION
from targi_sim.engine.constants import (
    DISPLAY_COLS,
    DISPLAY_ROWS,
    DISPLAY_SLOTS,
    MAX_GOODS_CARDS,
    MAX_TRIBE,
)
from targi_sim.engine.layout import MAX_TRADES
from targi_sim.engine.logs import MAX_GOODS_ROWS, MAX_ROUNDS

INT16_MAX = 2**15 - 1  # score, token, holding and discard columns
INT8_MAX = 2**7 - 1    # round, display and per-round count columns

# the shape of a game (rules, not data)
ROUNDS = MAX_ROUNDS          # 12, or 13 when the round after the final raid is played
TARGIS = 3                   # per player and round
MARKERS = 2                  # per player and round
RAIDS = 4
TRADES_PER_ACTION = MAX_TRADES_PER_ACTION
OPTIONS_PER_TRADE = 9        # 3 goods given x 3 goods received ("any_good")
TRADE_OPTION_ROOM = 200      # the engine's option buffer holds trade options below index 200

# deck values
GAIN = 10          # each of salt/pepper/dates/gold/vp: border gain, goods card, immediate, income
TRADE_GIVE = 10    # give_amount
TRADE_GET = 5      # get_amount (x 64 trades x 3 Targis x 13 rounds is the largest VP term)
TRADES_PER_CARD = 16   # 1 + 16 x 9 = 145 options, below the buffer's 200
TRADES_PER_DECK = MAX_TRADES
RAID_COST = 20     # goods, gold, vp of a raid card
DRAW_GOODS = (MAX_GOODS_ROWS // ROUNDS) - 2 * MARKERS  # 20: per round, all six Targis' draws
DRAW_TRIBE = MAX_TRIBE  # more draws than tribe cards cannot happen (the deck is not reshuffled)
GOODS_COUNT = MAX_GOODS_CARDS
TRIBE_VP = 20
COST = 50          # a tribe card's cost per resource (compared only; int16 in cards.parquet)
DISCOUNT = 50
SET_SIZE = DISPLAY_SLOTS
ABILITY_VP = 20    # set_vp and position_vp
# rules values
RAID_UNPAID_VP = 20
HOLDING_LIMIT = 1000   # max_goods and max_gold: holdings at a round's end never exceed them
START = 100            # each starting resource
ROW_BONUS = 100


def worst_case() -> dict[str, int]:
    """Upper bounds over one game for one player, with every value at its bound.

    Keys name the log columns they bound; tests assert each fits its column type.
    """
    goods_cards_per_round = MARKERS + DRAW_GOODS  # a player's 2 markers + draws of 3 Targis
    goods_per_card = 3 * GAIN + GAIN  # salt + pepper + dates, plus `choose_one` goods
    vp = {
        "start": START,
        "border gains": ROUNDS * TARGIS * GAIN,
        "trades": ROUNDS * TARGIS * TRADES_PER_ACTION * TRADE_GET,
        "goods cards": ROUNDS * goods_cards_per_round * GAIN,
        "immediate abilities": DISPLAY_SLOTS * GAIN,
        "income abilities": ROUNDS * DISPLAY_SLOTS * GAIN,
        "unpaid raids": RAIDS * max(RAID_UNPAID_VP, RAID_COST),
        "card vp": DISPLAY_SLOTS * TRIBE_VP,
        "set_vp": DISPLAY_SLOTS * DISPLAY_SLOTS * ABILITY_VP,  # 12 cards x 12 sets of 1
        "position_vp": DISPLAY_SLOTS * DISPLAY_ROWS * ABILITY_VP,
        "row bonus": DISPLAY_ROWS * ROW_BONUS,
    }
    # goods that can arrive in one round (what the 10-goods limit may discard, plus
    # the holdings the round started with: the start, or at most the limit)
    inflow = (TARGIS * 3 * GAIN
              + TARGIS * TRADES_PER_ACTION * (TRADE_GET - 1)  # a trade gives >= 1 back
              + goods_cards_per_round * goods_per_card
              + DISPLAY_SLOTS * 3 * GAIN * 2)  # income and immediate goods of 12 cards
    return {
        "score": sum(vp.values()),
        **{f"score: {k}": v for k, v in vp.items()},
        "discarded in a round": max(3 * START, HOLDING_LIMIT) + inflow,
        "holding at a round's end": max(HOLDING_LIMIT, 3 * START),
        "goods rows per game": ROUNDS * (2 * MARKERS + DRAW_GOODS),
        "trade options": 1 + TRADES_PER_CARD * OPTIONS_PER_TRADE,
        "cards acquired in a round": MAX_TRIBE,
        "display cards": DISPLAY_ROWS * DISPLAY_COLS,
    }
