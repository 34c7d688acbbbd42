"""Integer codes shared by the data loaders and the compiled engine.

The engine works on flat integer arrays, so every enumerated concept (resource,
border-card kind, ability kind, rule setting, decision type) is an int constant
defined once here. numba treats module-level ints as compile-time constants.
"""

# --- resources -------------------------------------------------------------
SALT = 0
PEPPER = 1
DATES = 2
GOLD = 3
VP = 4
N_GOODS = 3  # salt, pepper, dates: the three "goods"; gold is not a good
RESOURCE_NAMES = ("salt", "pepper", "dates", "gold", "vp")

# --- tribe symbols -----------------------------------------------------------
N_SYMBOLS = 5
SYMBOL_NAMES = ("Targia", "Camel Rider", "Camp", "Well", "Oasis")

# --- deck sizes ------------------------------------------------------------
N_BORDER = 16
MAX_TRIBE = 64  # engine buffers; the base deck has 45
MAX_GOODS_CARDS = 64  # the base deck has 19
N_CELLS = 9
DISPLAY_ROWS = 3
DISPLAY_COLS = 4
DISPLAY_SLOTS = DISPLAY_ROWS * DISPLAY_COLS

# --- border-card kinds -----------------------------------------------------
BK_RAID = 0
BK_GAIN = 1
BK_EXCHANGE = 2
BK_NOBLE = 3
BK_FATA_MORGANA = 4
BK_DRAW_GOODS = 5
BK_DRAW_TRIBE = 6
BORDER_KIND_NAMES = (
    "raid", "gain", "exchange", "noble", "fata_morgana", "draw_goods", "draw_tribe",
)

# --- trade table (exchange border cards) -------------------------------------
# give: what the player hands over
TG_SAME_GOOD = 0   # `amount` goods all of one kind (player picks the kind)
TG_GOLD = 1        # `amount` gold
TG_SALT = 2        # `amount` of a named good
TG_PEPPER = 3
TG_DATES = 4
TRADE_GIVE_NAMES = ("same_good", "gold", "salt", "pepper", "dates")
# get: what the player receives
TR_GOLD = 0
TR_VP = 1
TR_OTHER_GOOD = 2  # goods of a kind different from the one given (player picks)
TR_ANY_GOOD = 3    # goods of any kind (player picks)
TR_SALT = 4
TR_PEPPER = 5
TR_DATES = 6
TRADE_GET_NAMES = ("gold", "vp", "other_good", "any_good", "salt", "pepper", "dates")

# --- tribe-card abilities ----------------------------------------------------
# Parameters live in tribe_ab_params[card, 0..5]; meaning per kind:
AB_NONE = 0
AB_IMMEDIATE = 1     # on placement gain p0 salt, p1 pepper, p2 dates, p3 gold, p4 vp
AB_INCOME = 2        # each round end (before limits) gain p0..p4 as above
AB_RAID_IMMUNITY = 3  # p0 = raid number 1..4 it protects from, 0 = all raids
AB_DISCOUNT = 4      # later tribe cards cost p1 less of resource p0 (0..3); p2 symbol or -1
AB_SET_VP = 5        # end game: p2 VP per complete set of p1 displayed cards of symbol p0
AB_POSITION_VP = 6   # end game: p0 VP per displayed card of symbol p2 (-1 any) in column p1
AB_PLAY_HAND = 7     # on placement: may play the hand card (paying its cost) without the Noble
AB_MOVE_TWO = 8      # on placement: may swap two cards of the display (no gaps can appear)
ABILITY_NAMES = (
    "none", "immediate", "income", "raid_immunity", "discount",
    "set_vp", "position_vp", "play_hand", "move_two",
)
N_AB_PARAMS = 6

# --- rule settings (index into the int32 rules vector) -----------------------
# RL_RAID_UNPAID: 0 opponent gains RL_RAID_UNPAID_VP, 1 opponent gains the raid's VP cost,
# 2 nothing happens, 3 the player pays what they have of one option (the opponent gains
# RL_RAID_UNPAID_VP only from a player with nothing of either)
RL_RAID_UNPAID = 0
RL_RAID_UNPAID_VP = 1
RL_NO_LEGAL_PLACEMENT = 2  # 0 the Targi stays unplaced, 1 the facing restriction is lifted for it
# RL_RAID4_END: 0 game ends right after the final raid, 1 that round is played, then it ends
RL_RAID4_END = 3
RL_TIEBREAK = 4           # 0 gold then goods, 1 gold only, 2 goods + gold combined
RL_MAX_GOODS = 5
RL_MAX_GOLD = 6
RL_START_SALT = 7
RL_START_PEPPER = 8
RL_START_DATES = 9
RL_START_GOLD = 10
RL_START_VP = 11
RL_ROW_SAME_BONUS = 12
RL_ROW_DIFF_BONUS = 13
# RL_FULL_DISPLAY: 0 with 12 cards displayed, further cards go to hand or discard; 1 discard only
RL_FULL_DISPLAY = 14
RL_HAND_LIMIT = 15
# RL_HAND_PLAY: 0 a kept tribe card is played (Noble, ability) only in a later round, 1 also
# in the round it was kept
RL_HAND_PLAY = 16
N_RULES = 17
RAID_PAY_WHAT_THEY_HAVE = 3  # value of RL_RAID_UNPAID

# --- strategy kinds (compiled policies) --------------------------------------
SK_RANDOM = 0
SK_SCRIPTED = 1     # tests: replays a list of choices
SK_GREEDY = 2       # immediate VP first, else goods
SK_HEURISTIC = 3    # weighted evaluation of each option's effect
SK_MONTECARLO = 4   # determinised rollouts for Targi placement, heuristic elsewhere
SK_PLUGIN = 5       # a compiled policy from a Python file (engine/plugin.py)
SK_EXTERNAL = 6     # decided in Python: a PythonStrategy, a person, an outside agent
STRATEGY_KIND_NAMES = ("random", "scripted", "greedy", "heuristic", "montecarlo", "plugin",
                       "python")
N_STRAT_PARAMS = 160

# heuristic weights: column of the strategy row (column 0 is the kind)
HW_VP = 1            # value of one VP token
HW_CARD_VP = 2       # value per printed VP of a displayed card
HW_GOLD = 3          # value of one gold (early game; decays, see HW_LATE)
HW_GOOD = 4          # value of one good (early game)
HW_NEED = 5          # extra value of a good that visible cards still need
HW_DISPLAY = 6       # value of a displayed card beyond its VP (progress, end trigger)
HW_ROW_SAME = 7      # weight of progress toward a 4-of-a-symbol row
HW_ROW_DIFF = 8      # weight of progress toward a 4-different row
HW_HAND = 9          # value of a kept hand card per printed VP
HW_DENIAL = 10       # weight of what a choice takes away from the opponent
HW_RAID = 11         # weight of exposure to the next raid
HW_LATE = 12         # how fast resources lose value as rounds run out (exponent)
HW_TRADE_MARGIN = 13  # minimum gain for a trade to be made
HW_LINE = 14         # value of future crossings along a first/second Targi's line
HW_NOISE = 15        # random jitter added to option values (breaks ties, varies play)
HW_SYMBOL = 16       # + symbol (5): extra value of a card of that symbol
HW_ROW_FOCUS = 21    # exponent of a row's progress (1: linear; >1 favours finishing a row)
MC_ROLLOUTS = 22     # montecarlo: rollouts per legal option of a placement
MC_PENDING = 23      # montecarlo: the placement its driver chose, NaN when none is waiting
MC_BASE = 24         # montecarlo: the rollout strategy's own row (kind, weights) starts here
N_HEURISTIC_WEIGHTS = 21  # columns 1..21 hold weights
SP_NOISE_REP = 46    # replay number of the policies' random streams (0: the game's own;
                     # r > 0 replays the same deal with fresh policy randomness)
MC_SEARCH = 47       # montecarlo: SEARCH_FLAT (rollouts per option) or SEARCH_ISMCTS (a tree)
MC_ITERATIONS = 48   # ismcts: iterations (determinise, descend, roll out, back up) per decision
MC_EXPLORATION = 49  # ismcts: UCT exploration constant
SEARCH_FLAT = 0
SEARCH_ISMCTS = 1
SEARCH_NAMES = ("flat", "ismcts")
MC_DECISIONS = 50    # ismcts: SEARCHED_PLACEMENTS (engine/ismcts.py) or SEARCHED_ALL
                     # (engine/expert.py)
MC_ACTION_ITERATIONS = 51  # ismcts over every decision: iterations for a decision other
                           # than a placement (placements take MC_ITERATIONS)
MC_DEPTH = 52        # ismcts over every decision: most decisions on a tree path (0: no limit
                     # before the round's end)
MC_PRIOR = 53        # ismcts over every decision: prior weight of the rollout strategy's own
                     # answer at a tree node (PUCT); 0: plain UCT, every answer tried once first
MC_PLACEMENT_TREE = 54  # ismcts over every decision, at a placement: PLACEMENT_TREE_ROUND (the
                        # tree of the round's decisions) or PLACEMENT_TREE_PLACEMENTS (the
                        # placement tree of engine/ismcts.py, the action phase the base's)
MC_ACTION_EXPLORATION = 55  # ismcts over every decision: the round tree's PUCT constant
                            # (0: MC_EXPLORATION)
MC_PLACEMENT_CRN = 56  # ismcts over every decision: 1 = the placement tree's root answers are
                       # measured on common re-deals (0: a re-deal per iteration, as expert-
                       # placements)
MC_MARGIN = 57       # ismcts over every decision: a playout's value per point of score margin
                     # (0: 0.01, as expert-placements)
MC_CONFIDENCE = 58   # ismcts over every decision: standard errors by which a searched answer
                     # must beat the rollout strategy's own to be played (0: the most visited)
USUAL_ROUNDS = 12  # the robber's walk to the final raid: rounds left are counted to it
MC_ROLLOUT_ROUNDS = 59  # ismcts: rounds a playout plays before its position is evaluated
                        # (rollouts.position_value; 0: to the game's end)
MC_EVAL_GOLD = 60       # ismcts, rollout_rounds > 0: VP a gold ahead is worth at the cut
MC_EVAL_GOODS = 61      # ... VP a good ahead is worth
MC_EVAL_SCALE = 62      # ... the win's logistic scale in VP, at the game's end
MC_EVAL_SCALE_ROUND = 63  # ... and added per round left
PLACEMENT_TREE_ROUND = 0
PLACEMENT_TREE_PLACEMENTS = 1
PLACEMENT_TREE_NAMES = ("round", "placements")
SEARCHED_PLACEMENTS = 0
SEARCHED_ALL = 1
SEARCHED_NAMES = ("placements", "all")
# columns from HC_KEY on are the heuristic's per-round placement cache (not parameters)
HC_KEY = 64          # cache key: round and both players' resources
HC_BORDER = 65       # + b (16): value of each border card for this player
HC_BORDER_OPP = 81   # + b (16): value of each border card for the opponent
HC_CELL = 97         # + cell (9): value of a marker on each cell for this player
HC_LATE_ROUND = 106  # round for which HC_LATE holds the late factor
HC_LATE = 107
HC_DEMAND_KEY = 108  # centre layout for which HC_NEED holds its need table
HC_NEED = 109        # + good*4 + have (12): units lacking toward the face-up tribe cards
HC_LINE_CACHE = 121  # + b (16): best cell value along border card b's line
HC_UV_KEY = 137      # + 4: packed goods and gold, centre version, round, robber*1024+hand
HC_UV = 141          # + 5: this player's unit values under that key
HC_UVO_KEY = 146     # + 4: the same key for the opponent's tokens and hand
HC_UVO = 150         # + 5: the opponent's unit values (valued with this player's weights)
HC_FOCUS_KEY = 155   # row focus exponent for which HC_FRAC holds its powers
HC_FRAC = 156        # + n - 1 (3): (n / DISPLAY_COLS) ** focus for a row of n = 1..3 cards
HC_END = 159         # first column after the cache
MC_REUSE_TREE = 159  # ismcts: 1 = a placement search starts from the subtree of the seat's
                     # last placement search of the round (engine/ismcts.py); a parameter,
                     # after the cache

# --- decision types (what a strategy is asked) --------------------------------
DT_PLACE = 0          # option: border index 0..15
DT_ACTION = 1         # option: action slot 0..2 Targis, 3..4 markers
DT_CENTRAL_GOODS = 2  # option: 0 leave, 1 take
DT_CHOOSE_GOOD = 3    # option: good kind 0..2
DT_TRIBE = 4          # option: OPT_* code for a tribe card (see engine.acquire); a centre
                      # card's "leave it" is one of these options
DT_TRADE = 5          # option: -1 stop, else encoded trade
DT_FATA_MORGANA = 6   # option: -1 skip, else marker*16 + cell
DT_RAID_MODE = 7      # option: 0 pay goods/gold, 1 pay VP
DT_RAID_GOOD = 8      # option: good kind to give up (one unit at a time)
DT_DISCARD_GOOD = 9   # option: good kind to discard at round end (one at a time)
DT_TRIBAL_EXPANSION = 10  # option: 0 skip, 1 draw the top tribe card
DT_ABILITY = 11       # option: ability-specific (0 = decline)
DECISION_NAMES = (
    "place", "action", "central_goods", "choose_good", "tribe", "trade",
    "fata_morgana", "raid_mode", "raid_good", "discard_good",
    "tribal_expansion", "ability",
)

# --- outcomes ----------------------------------------------------------------
END_DISPLAY_FULL = 0
END_FINAL_RAID = 1
END_REASON_NAMES = ("display_full", "final_raid")
TB_NONE = 0
TB_GOLD = 1
TB_GOODS = 2
TB_DRAW = 3
TIEBREAK_NAMES = ("none", "gold", "goods", "draw")
