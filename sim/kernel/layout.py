"""Named offsets into the game state and the compiled tables.

A game is one flat ``int64`` vector ``st`` (a few KB, so it stays in L1 and a
look-ahead bot can copy it with one memcpy). Every slot is named here; nothing
in the kernel indexes ``st`` with a bare number. Zones are fixed-capacity
stacks: ``st[X_N]`` holds the count and ``st[X + i]`` the i-th card id, the
top of a deck being its last element.

Card ids are physical cards (``0 .. n_cards-1``). The compiled card data is a
second flat ``int64`` vector ``tab`` (read through ``sim.kernel.tab``): one
array argument instead of many keeps every kernel call cheap.
"""

from __future__ import annotations

MAX_CARDS = 256  # physical unit cards in one game (every zone can hold them all)
N_CITIES = 3
N_SLOTS = 5  # a side of a city never holds more than 5 unit-slots, so <= 5 cards
MAX_STACK = 8  # reward tiles per city stack
MAX_REWARDS = 24  # reward tiles a player can hold
MASK_WORDS = 8  # 8 x 32 bits: one bit per card kind, for "kinds played"
NO_CARD = -1

# --- scalar header ------------------------------------------------------------
TURN = 0  # turns completed so far
ACTIVE = 1  # seat of the active player
FIRST = 2  # seat that took the first turn
SUPPLY = 3  # coins in the supply
COINS = 4  # COINS + p: coins of seat p
VP = 6  # VP + p: VP tokens of seat p
VP_SUPPLY = 8  # VP tokens left to earn
REWARDS_USED_TURN = 9  # reward tiles used in the current Surge
GAME_OVER = 10
END_REASON = 11  # vocab.ER_*
WINNER = 12  # 0, 1 or -1 (shared victory)
WARTORN = 13  # WARTORN + c: the war-torn token of city c is flipped
OWN_DECKS = 16  # 1 when each seat draws from its own deck and discard pile
ERROR = 17  # non-zero when a scripted choice did not match any legal option
PLAYED_N = 18  # PLAYED_N + p: units seat p has played
BOT = 20  # BOT + p: strategy id of seat p
SCRIPT_POS = 22  # next scripted choice to use
SCRIPT_N = 23  # scripted choices queued
RNG = 24  # RNG + k: random stream k (uint64 bits, see sim.kernel.rng)
N_STREAMS = 5
PROW = 29  # PROW + p: the row of the parameter matrix fp seat p's heuristic reads
DECK_N = 32  # DECK_N + d: cards in deck d (d = 0 shared, or the seat)
DISC_N = 34  # DISC_N + d
HAND_N = 36  # HAND_N + p
OUT_N = 38  # OUT_N + p: cards a seat took out of play (exalted Keres)
STACK_N = 40  # STACK_N + c: reward tiles left in city c
REW_N = 43  # REW_N + p: reward tiles seat p has won
SIDE_N = 48  # SIDE_N + 2*c + p: cards on seat p's side of city c
SLOT = 56  # SLOT + (2*c + p)*N_SLOTS + i: card id
STACK = SLOT + 2 * N_CITIES * N_SLOTS  # STACK + c*MAX_STACK + i: tile id, top last
REW = STACK + N_CITIES * MAX_STACK  # REW + p*MAX_REWARDS + i: tile id
REW_USED = REW + 2 * MAX_REWARDS  # REW_USED + p*MAX_REWARDS + i: 1 once flipped
PLAYED = REW_USED + 2 * MAX_REWARDS  # PLAYED + p*MASK_WORDS + w: kinds played bits
# Heir to the Dunes: gods, Favor and structures.
MAX_STRUCTS = 3  # structures per player
GOD = PLAYED + 2 * MASK_WORDS  # GOD + p: vocab.DEV_* bit of seat p's god (0: no gods)
FAVOR = GOD + 2  # the Favored god (vocab.DEV_* bit), 0 without gods
DISCOUNT_USED = FAVOR + 1  # the active seat's devoted-unit discount is spent this turn
STRUCT_KIND = DISCOUNT_USED + 1  # STRUCT_KIND + p*MAX_STRUCTS + s: structure row, -1 none
STRUCT_UNDER = STRUCT_KIND + 2 * MAX_STRUCTS  # + p*MAX_STRUCTS + s: cards under it
STRUCT_DONE = STRUCT_UNDER + 2 * MAX_STRUCTS  # + p*MAX_STRUCTS + s: 1 once completed
UNDER_N = STRUCT_DONE + 2 * MAX_STRUCTS  # UNDER_N + p: cards under seat p's structures
# A Reign of War: enraged units, feats.
ENRAGED = UNDER_N + 2  # ENRAGED + (2*c + p)*N_SLOTS + i: 1 while that unit is enraged
MAX_FEATS = 8
FEAT_DONE = ENRAGED + 2 * N_CITIES * N_SLOTS  # + p*MAX_FEATS + f: 1 once completed
OPP_DISCARDED = FEAT_DONE + 2 * MAX_FEATS  # cards the opponent discarded this turn
ENRAGED_N = OPP_DISCARDED + 1  # ENRAGED_N + p: units seat p has enraged (for the output)
BOX_N = ENRAGED_N + 2  # cards a variant left out of the game (Trial of Skill)
# soldier_ability_on_move: Soldiers moved by the ability resolving now, whose
# play ability triggers again once it has resolved.
MAX_MOVED = 8
MOVED_N = BOX_N + 1
MOVED = MOVED_N + 1  # MOVED + i: card id
MOVE_TRIGGERED = MOVED + MAX_MOVED  # 1 while a moved Soldier's ability resolves
HEADER = MOVE_TRIGGERED + 1  # everything before here is reset at set-up

# --- zones and scratch (only the first *_N entries of a zone are meaningful) --
DECK = HEADER  # DECK + d*MAX_CARDS + i
DISC = DECK + 2 * MAX_CARDS
HAND = DISC + 2 * MAX_CARDS  # HAND + p*MAX_CARDS + i
OUT = HAND + 2 * MAX_CARDS
UNDER = OUT + 2 * MAX_CARDS  # UNDER + p*MAX_CARDS + i: cards under seat p's structures
BOX = UNDER + 2 * MAX_CARDS  # BOX + i: cards out of the game
MAX_OPTS = 256  # legal options at one decision (distinct kinds in hand x cities)
OPTS = BOX + MAX_CARDS  # OPTS + 4*i + j: option i of the current decision
TMP = OPTS + 4 * MAX_OPTS  # scratch list
TMP2 = TMP + MAX_CARDS  # second scratch list
MAX_SCRIPT = 64
SCRIPT_W = 6  # a scripted choice: (decision, a, b, c, d, card kind); -9 = any
SCRIPT = TMP2 + MAX_CARDS  # SCRIPT + SCRIPT_W*i
CITY_SCRATCH = SCRIPT + SCRIPT_W * MAX_SCRIPT  # kernel scratch: 2 ints per city
BOT_SCRATCH = CITY_SCRATCH + 2 * N_CITIES  # a bot's own scratch (8 ints per city)
MAX_REVEALED = 32
REVEALED = BOT_SCRATCH + 8 * N_CITIES  # cards a reveal_keep op has revealed
LA_SCRATCH = REVEALED + MAX_REVEALED  # the look-ahead bot's tallies (LA_MAX_WIDTH x 3)
LA_MAX_WIDTH = 16
GAME_SIZE = LA_SCRATCH + 3 * LA_MAX_WIDTH  # one game's state ends here
# A second game state, where the look-ahead bot plays its rollouts: a copy of the
# game with the hidden cards dealt again (strategies/lookahead.py).
ROLLOUT = GAME_SIZE
STATE_SIZE = ROLLOUT + GAME_SIZE

# --- columns of the kind table (one row per card kind) -------------------------------
K_TYPE = 0
K_COST = 1
K_OFFERING = 2
K_STRENGTH = 3
K_KEYWORDS = 4
K_ABIL_START = 5  # first row of this kind's abilities in T.abil
K_ABIL_N = 6
K_STATIC = 7  # 1 if any ability is TR_STATIC (lets hot loops skip the scan)
K_DEVOTION = 8  # vocab.DEV_*
K_TRIGGERS = 9  # bit (1 << trigger) set for each trigger the kind has an ability for
K_COLS = 10

# --- columns of the ability table (one row per ability block) ---------------------------
A_TRIGGER = 0
A_COST = 1  # coins to pay (RALLY)
A_OP_START = 2
A_OP_N = 3
A_COND = 4
A_COND_N = 5
A_COLS = 6

# --- columns of the op table (one row per effect operation) -------------------------
OP_CODE = 0
OP_N = 1
OP_M = 2
OP_TARGET = 3
OP_COND = 4
OP_COND_N = 5
OP_MAY = 6
OP_COLS = 8

# --- columns of the reward table (one row per reward tile kind) ----------------------
R_ABIL_START = 0
R_ABIL_N = 1
R_COLS = 2

# --- columns of the structure table (Heir to the Dunes) -------------------------
S_GOD = 0
S_BUILD_COST = 1
S_VP = 2
S_ABIL_START = 3
S_ABIL_N = 4
S_COLS = 5

# --- columns of the feat table (A Reign of War) ---------------------------------
FT_COND = 0  # vocab.F_*
FT_TYPE = 1  # unit type for F_TYPE_EACH_CITY
FT_N = 2
FT_COLS = 3

# --- rules: the rule parameters of the mix --------------------------------
RU_TILES_PER_CITY = 0
RU_START_CARDS = 1
RU_START_COINS = 2
RU_COIN_SUPPLY = 3
RU_VP_TOKENS = 4
RU_WEALTH_ACTIONS = 5
RU_FIRST_TURN_WEALTH = 6
RU_WEALTH_BONUS = 7
RU_CAPACITY = 8
RU_WARTORN_ENEMY = 9
RU_WARTORN_TOTAL = 10
RU_WINNER_KEEPS = 11
RU_LOSER_KEEPS = 12
RU_HAND_LIMIT = 13  # 0: no limit
RU_COIN_LIMIT = 14  # 0: no limit
RU_REWARDS_PER_SURGE = 15
RU_WAR_TIE = 16  # vocab.WAR_TIE_*
RU_END = 17  # bit set of vocab.END_*
RU_TURN_CAP = 18
RU_EMISSARY = 19  # 1: Emissary of War decides the first player
RU_FIRST_MODE = 20  # how the default ("oldest") first player is chosen
RU_N_CARDS = 21
RU_N_TILES = 22
RU_EMISSARY_STRENGTH_TB = 23  # 1: an Emissary tie goes to the higher strength first
RU_TIEBREAKS = 24  # RU_TIEBREAKS + i: vocab.TB_* codes in rulebook order, 0 = end
N_TIEBREAKS = 6
RU_GODS = 32  # 1: devotion and Favor are in play
RU_DEVOTED_DISCOUNT = 33  # cost cut for the first unit devoted to your god each turn
RU_WEALTH_REVEAL = 34  # 1: reveal the deck's top card at the start of Wealth
RU_REVEAL_REPEATS = 35  # times a neutral unit may be discarded to reveal again
RU_STRUCTS = 36  # structures per player (0: none)
RU_PORTENT = 37  # 1: the Portent step (Oracles) is in the turn
RU_FEAT_STEP = 38  # 1: the Feat step is in the turn
RU_FEATS_TO_END = 39  # completed feats that end the game (with END_FEATS)
RU_ENRAGED_STRENGTH = 40  # strength of an enraged unit
RU_EXTRA_WEALTH = 41  # Reign variant: +1 action with no cards or no coins, +2 with neither
RU_TRIAL = 42  # Reign variant Trial of Skill: each seat its own deck, one card of each kind
RU_SIMPLE_DRAFT = 43  # Reign variant simple draft: 30 cards each, drafted from packets of 10
RU_PILE_DRAFT = 44  # Reign variant pile draft: 10 piles (all copies of a kind) each
RU_CONSTRUCTED = 45  # Reign constructed variant: the pile draft takes RU_DECKLIST's piles
RU_DRAFT1 = 46  # Aegean Draft Variant 1: draw 3, keep 2, pass 1, until 30 each
RU_DRAFT2 = 47  # Aegean Draft Variant 2: 20 face up, alternate picks, three times
RU_DECKLIST = 48  # RU_DECKLIST + 10*p + i: the i-th pile (kind) of seat p's deck list
RU_DUPLICATE = 68  # 1: games 2k, 2k+1 share deal k, the other seat first
RU_SOLDIER_ON_MOVE = 69  # 1: a Soldier's play ability triggers again when it is moved
RU_COUNT = 72

FIRST_P0 = 0
FIRST_P1 = 1
FIRST_ALTERNATE = 2
FIRST_RANDOM = 3

# --- random streams, separated by purpose so a change to one does not shift
# the draws of another (see sim.kernel.rng) ---------------------------------
RNG_DECK = 0
RNG_REWARDS = 1
RNG_SEAT = 2  # RNG_SEAT + p: that seat's bot
RNG_SETUP = 4  # first-player choice

# --- the flat table ``tab``: header of offsets, then the tables ---------------
TB_KIND = 0  # offset of kind rows (K_COLS each)
TB_N_KINDS = 1
TB_CARD_KIND = 2  # offset of physical card -> kind
TB_N_CARDS = 3
TB_ABIL = 4  # offset of ability rows (A_COLS each)
TB_OPS = 5  # offset of op rows (OP_COLS each)
TB_REWARD = 6  # offset of reward kind rows (R_COLS each)
TB_TILE_KIND = 7  # offset of physical tile -> reward kind
TB_N_TILES = 8
TB_N_REWARD_KINDS = 9
TB_STRUCT = 10  # offset of structure rows (S_COLS each)
TB_N_STRUCTS = 11
TB_FEAT = 12  # offset of feat rows (FT_COLS each)
TB_N_FEATS = 13
TB_RULES = 16  # rules start here, RU_COUNT of them
TB_HEADER = TB_RULES + RU_COUNT

# --- output row (one per game), read by sim.run.engine ----------------------------
O_FIRST = 0
O_WINNER = 1
O_SCORE = 2  # + p
O_REW_UNUSED = 4  # + p
O_REW_USED = 6  # + p
O_VP_TOKENS = 8  # + p
O_TREASURED = 10  # + p
O_TURNS = 12
O_END_REASON = 13
O_PLAYED_N = 14  # + p
O_ERROR = 16
O_GOD = 17  # + p
O_STRUCT_N = 19  # + p: structures completed
O_STRUCT_VP = 21  # + p
O_FAVOR = 23  # the Favored god at the end (vocab.DEV_*)
O_FEATS = 24  # + p: feats completed
O_FEAT_MASK = 26  # + p: bit f set when feat f is completed
O_ENRAGED = 28  # + p: units enraged during the game
O_COLS = 30
