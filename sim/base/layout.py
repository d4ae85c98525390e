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

from dataclasses import dataclass

MAX_CARDS = 256  # physical unit cards in one game (every zone can hold them all)
N_CITIES = 3
N_SLOTS = 5  # a side of a city never holds more than 5 unit-slots, so <= 5 cards
MAX_STACK = 8  # reward tiles per city stack
MAX_REWARDS = 24  # reward tiles a player can hold
MASK_WORDS = 8  # 8 x 32 bits: one bit per card kind ("kinds played") or per card ("held")
NO_CARD = -1

# --- the state: regions handed out in order, so offsets never overlap or drift ---


class _Regions:
    """Hands out consecutive slots of the state and records each region by name.

    Only the integers it returns reach numba (as module constants); the record,
    ``STATE_REGIONS``, is for tests and readers.
    """

    def __init__(self) -> None:
        self.next = 0
        self.regions: list[tuple[str, int, int]] = []

    def take(self, name: str, size: int = 1) -> int:
        """The first slot of a new region of ``size`` slots called ``name``."""
        start = self.next
        self.regions.append((name, start, size))
        self.next += size
        return start


_st = _Regions()
take = _st.take

# --- scalar header ------------------------------------------------------------
TURN = take("TURN")  # turns completed so far
ACTIVE = take("ACTIVE")  # seat of the active player
FIRST = take("FIRST")  # seat that took the first turn
SUPPLY = take("SUPPLY")  # coins in the supply
COINS = take("COINS", 2)  # COINS + p: coins of seat p
VP = take("VP", 2)  # VP + p: VP tokens of seat p
VP_SUPPLY = take("VP_SUPPLY")  # VP tokens left to earn
REWARDS_USED_TURN = take("REWARDS_USED_TURN")  # reward tiles used in the current Surge
SURGE_ACTIONS = take("SURGE_ACTIONS")  # actions taken so far in the Surge; 0 outside one
# While the first side of a conflict chooses its keeps: 1 + the unit-slots the other side
# keeps next; 0 otherwise (so a look-ahead continuing from a keep knows what of the war is left).
WAR_PENDING = take("WAR_PENDING")
GAME_OVER = take("GAME_OVER")
END_REASON = take("END_REASON")  # vocab.ER_*
WINNER = take("WINNER")  # 0, 1 or -1 (shared victory)
WARTORN = take("WARTORN", N_CITIES)  # WARTORN + c: the war-torn token of city c is flipped
OWN_DECKS = take("OWN_DECKS")  # 1 when each seat draws from its own deck and discard pile
ERROR = take("ERROR")  # non-zero when a scripted choice did not match any legal option
PLAYED_N = take("PLAYED_N", 2)  # PLAYED_N + p: units seat p has played
BOT = take("BOT", 2)  # BOT + p: strategy id of seat p
SCRIPT_POS = take("SCRIPT_POS")  # next scripted choice to use
SCRIPT_N = take("SCRIPT_N")  # scripted choices queued
N_STREAMS = 5
RNG = take("RNG", N_STREAMS)  # RNG + k: random stream k (uint64 bits, see sim.kernel.rng)
PROW = take("PROW", 2)  # PROW + p: the row of the parameter matrix fp seat p's heuristic reads
DECK_N = take("DECK_N", 2)  # DECK_N + d: cards in deck d (d = 0 shared, or the seat)
DISC_N = take("DISC_N", 2)  # DISC_N + d
HAND_N = take("HAND_N", 2)  # HAND_N + p
OUT_N = take("OUT_N", 2)  # OUT_N + p: cards a seat took out of play (exalted Keres)
STACK_N = take("STACK_N", N_CITIES)  # STACK_N + c: reward tiles left in city c
REW_N = take("REW_N", 2)  # REW_N + p: reward tiles seat p has won
SIDE_N = take("SIDE_N", 2 * N_CITIES)  # SIDE_N + 2*c + p: cards on seat p's side of city c
SLOT = take("SLOT", 2 * N_CITIES * N_SLOTS)  # SLOT + (2*c + p)*N_SLOTS + i: card id
STACK = take("STACK", N_CITIES * MAX_STACK)  # STACK + c*MAX_STACK + i: tile id, top last
REW = take("REW", 2 * MAX_REWARDS)  # REW + p*MAX_REWARDS + i: tile id
REW_USED = take("REW_USED", 2 * MAX_REWARDS)  # REW_USED + p*MAX_REWARDS + i: 1 once flipped
PLAYED = take("PLAYED", 2 * MASK_WORDS)  # PLAYED + p*MASK_WORDS + w: kinds played bits
# HELD + p*MASK_WORDS + w: bit per physical card that ever entered seat p's hand (dealt,
# drawn, returned). Cards, not kinds, so hand_add needs no table lookup; sim.run.engine maps
# them to kinds. Right after PLAYED: the kernel copies both out as one block.
HELD = take("HELD", 2 * MASK_WORDS)
# Heir to the Dunes: gods, Favor and structures.
MAX_STRUCTS = 3  # structures per player
GOD = take("GOD", 2)  # GOD + p: vocab.DEV_* bit of seat p's god (0: no gods)
FAVOR = take("FAVOR")  # the Favored god (vocab.DEV_* bit), 0 without gods
DISCOUNT_USED = take("DISCOUNT_USED")  # the active seat's devoted-unit discount is spent
STRUCT_KIND = take("STRUCT_KIND", 2 * MAX_STRUCTS)  # + p*MAX_STRUCTS + s: structure row, -1 none
STRUCT_UNDER = take("STRUCT_UNDER", 2 * MAX_STRUCTS)  # + p*MAX_STRUCTS + s: cards under it
STRUCT_DONE = take("STRUCT_DONE", 2 * MAX_STRUCTS)  # + p*MAX_STRUCTS + s: 1 once completed
UNDER_N = take("UNDER_N", 2)  # UNDER_N + p: cards under seat p's structures
# A Reign of War: enraged units, feats.
MAX_FEATS = 8
ENRAGED = take("ENRAGED", 2 * N_CITIES * N_SLOTS)  # + (2*c + p)*N_SLOTS + i: 1 while enraged
FEAT_DONE = take("FEAT_DONE", 2 * MAX_FEATS)  # + p*MAX_FEATS + f: 1 once completed
OPP_DISCARDED = take("OPP_DISCARDED")  # cards the opponent discarded this turn
ENRAGED_N = take("ENRAGED_N", 2)  # ENRAGED_N + p: units seat p has enraged (for the output)
BOX_N = take("BOX_N")  # cards a variant left out of the game (Trial of Skill)
# soldier_ability_on_move: Soldiers moved by the ability resolving now, whose
# play ability triggers again once it has resolved.
MAX_MOVED = 8
MOVED_N = take("MOVED_N")
MOVED = take("MOVED", MAX_MOVED)  # MOVED + i: card id
MOVE_TRIGGERED = take("MOVE_TRIGGERED")  # 1 while a moved Soldier's ability resolves
# Set-up: where a draft stands, so a look-ahead can finish it from any pick (sim.kernel.draft).
OLDEST = take("OLDEST")  # the rulebooks' "oldest player": who starts unless a variant decides
DRAFTING = take("DRAFTING")  # 1 while a draft is building the decks
DRAFT_PICK = take("DRAFT_PICK")  # picks made so far in the draft (the next one's number)
DRAFT_SEAT = take("DRAFT_SEAT")  # the seat making the next pick
PILES = take("PILES", 8)  # PILES + 4*p + t: piles of type slot t seat p took (pile draft)
# Running totals of each city side (issue 15): board.city_add / city_take / set_enraged keep
# them as units come, go and enrage, so the readers (room, war-torn, the war's tie-breaks,
# the greedy bot's per-decision city figures) read one word instead of rescanning the side.
# SIDE_TOT + (2*c + p)*TOT_COLS + TOT_*; zero for an empty side, so set-up's reset is right.
# A position written from Python needs board.resync_totals (sim.run.positions does it).
TOT_WEIGHT = 0  # unit-slots filled (COLOSSAL and Beasts 2, an enraged unit 2)
TOT_COST = 1  # printed costs (enraged units too: the war tie-break counts them)
TOT_SOLDIERS = 2  # Soldiers not enraged (an enraged unit is a Beast)
TOT_STRENGTH = 3  # strength before ongoing effects and Favor: printed, or RU_ENRAGED_STRENGTH
TOT_INVOKE = 4  # units with INVOCATION not enraged (+1 strength each while Favored)
TOT_COST_FX = 5  # units with an ongoing cost op, not enraged (0: no cost modifier to scan)
TOT_STRENGTH_FX = 6  # units with an ongoing strength op, not enraged (0: strength is a total)
# Units with a RALLY, REINFORCE or end-of-Surge ability, enraged ones included (the Surge's
# scans for them do not skip enraged units either): 0 lets a scan that would find none stop.
TOT_RALLY = 7
TOT_REINFORCE = 8
TOT_SURGE_END = 9
TOT_COLS = 10
SIDE_TOT = take("SIDE_TOT", 2 * N_CITIES * TOT_COLS)
HEADER = _st.next  # everything before here is reset at set-up
# A draft's cards on the table: the simple draft's two packets (DRAFT + 16*q + j), the
# Aegean Draft Variant 1's three cards of each seat (DRAFT + 4*p + j) or Variant 2's
# face-up spread (DRAFT + j), -1 once taken; the pile draft's marks (DRAFT + kind: 1 once
# taken). Never scratch: it lasts the whole draft, look-ahead decisions included.
DRAFT = take("DRAFT", MAX_CARDS)

# --- zones and scratch (only the first *_N entries of a zone are meaningful) --
DECK = take("DECK", 2 * MAX_CARDS)  # DECK + d*MAX_CARDS + i
DISC = take("DISC", 2 * MAX_CARDS)
HAND = take("HAND", 2 * MAX_CARDS)  # HAND + p*MAX_CARDS + i
OUT = take("OUT", 2 * MAX_CARDS)
UNDER = take("UNDER", 2 * MAX_CARDS)  # UNDER + p*MAX_CARDS + i: cards under seat p's structures
BOX = take("BOX", MAX_CARDS)  # BOX + i: cards out of the game
MAX_OPTS = 256  # legal options at one decision (distinct kinds in hand x cities)
OPTS = take("OPTS", 4 * MAX_OPTS)  # OPTS + 4*i + j: option i of the current decision
# Scratch lists, each used by one step at a time (never across a call that uses it too):
# TMP: set-up's tile shuffle, the rally bookkeeping of a Surge, the look-ahead bot's deal
# of hidden cards; TMP2: the Surge's and the Portent step's ordering of the units to
# resolve, the look-ahead's marks.
TMP = take("TMP", MAX_CARDS)
TMP2 = take("TMP2", MAX_CARDS)
MAX_SCRIPT = 64
SCRIPT_W = 6  # a scripted choice: (decision, a, b, c, d, card kind); -9 = any
SCRIPT = take("SCRIPT", SCRIPT_W * MAX_SCRIPT)  # SCRIPT + SCRIPT_W*i
CITY_SCRATCH = take("CITY_SCRATCH", 2 * N_CITIES)  # the Surge's room and cost per city
# The Surge's options: one bit per card kind already offered from the hand.
SEEN_KINDS = take("SEEN_KINDS", MASK_WORDS)
BOT_SCRATCH = take("BOT_SCRATCH", 8 * N_CITIES)  # a bot's own scratch (8 ints per city)
MAX_REVEALED = 32
REVEALED = take("REVEALED", MAX_REVEALED)  # cards a reveal_keep op has revealed
LA_MAX_WIDTH = 16
LA_SCRATCH = take("LA_SCRATCH", 3 * LA_MAX_WIDTH)  # the look-ahead bot's tallies
GAME_SIZE = _st.next  # one game's state ends here
# A second game state, where the look-ahead bot plays its rollouts: a copy of the
# game with the hidden cards dealt again (strategies/lookahead.py).
ROLLOUT = take("ROLLOUT", GAME_SIZE)
STATE_SIZE = _st.next
STATE_REGIONS: tuple[tuple[str, int, int], ...] = tuple(_st.regions)
"""Every region of the state as ``(name, first slot, slots)``, in order."""
del take


@dataclass(frozen=True)
class Zone:
    """A kind of card zone: ``st[count + i]`` cards from ``st[base + i * stride]`` on."""

    name: str
    count: int
    """Slot of instance 0's card count (``count + i`` for instance ``i``)."""
    base: int
    """Slot of instance 0's first card."""
    stride: int
    """Slots between two instances' first cards: each instance's capacity."""
    instances: int
    """How many there are (2 piles or seats, ``2 * N_CITIES`` city sides, one box)."""


# Every zone a physical unit card can be in. City side ``2 * c + p`` is an instance.
ZONES: tuple[Zone, ...] = (
    Zone("deck", DECK_N, DECK, MAX_CARDS, 2),
    Zone("discard", DISC_N, DISC, MAX_CARDS, 2),
    Zone("hand", HAND_N, HAND, MAX_CARDS, 2),
    Zone("out", OUT_N, OUT, MAX_CARDS, 2),
    Zone("under", UNDER_N, UNDER, MAX_CARDS, 2),
    Zone("box", BOX_N, BOX, MAX_CARDS, 1),
    Zone("city", SIDE_N, SLOT, N_SLOTS, 2 * N_CITIES),
)

# --- columns of the kind table (one row per card kind) -------------------------------
K_TYPE = 0
K_COST = 1
K_OFFERING = 2
K_STRENGTH = 3
K_KEYWORDS = 4
K_ABIL_START = 5  # first row of this kind's abilities in T.abil
K_ABIL_N = 6
K_STATIC = 7  # STATIC_* bits: the ongoing (TR_STATIC) ops the kind has (hot loops skip the scan)
K_DEVOTION = 8  # vocab.DEV_*
K_TRIGGERS = 9  # bit (1 << trigger) set for each trigger the kind has an ability for
K_COLS = 10
# Bits of K_STATIC: an ongoing cost op, an ongoing strength op. Separate, so a side whose
# units only change costs still has its strength read off the running totals (issue 15).
STATIC_COST = 1
STATIC_STRENGTH = 2

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
# Named readings (sim/data/interpretations.py): 0 is the default reading.
RU_BONUS_BASE_ONLY = 70  # 1: no Wealth Action Bonus on a turn with extra wealth actions
RU_REWARDS_IN_HAND = 71  # 1: unused reward cards count as cards in hand (Reign)
RU_END_AFTER_WAR = 72  # 1: two empty stacks end the game right after the War step
# More named readings, the other reading of each (sim/data/interpretations.py names them).
RU_REPEAT_AFTER_MISS = 73  # 1: Dunes Wealth reveal repeats only after a discarded reveal
RU_TRIBUTE_FIRST = 74  # 1: TRIBUTE resolves after the discard, before the offering's gains
RU_REVEAL_NO_RESHUFFLE = 75  # 1: a reveal from an empty deck reveals nothing
RU_FAVOR_BY_AGE = 76  # 1: Favor starts on the god of the seat that is not the oldest
RU_MANEUVER_EXACT = 77  # 1: a MANEUVER that moves at all moves N units (as many as it can)
RU_NEUTRAL_FLIPS = 78  # 1: a neutral unit played flips the Favor card too (Dunes, Favor)
RU_FEATS_END_OPPONENT = 79  # 1: only the opponent's completed feats end a Reign game
RU_WARTORN_EITHER = 80  # 1: either player's units (not only the opponent's) make a city war-torn
RU_COUNT = 84

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
# At fixed offsets after the header, so that reading them takes one load, not a chain
# through the header (issue 15): each physical card's kind row (a copy of the kind
# table's), then the physical card -> kind map (which TB_CARD_KIND also points at).
TB_CARD_ROWS = TB_HEADER  # + card * K_COLS + col
TB_CARD_KINDS = TB_CARD_ROWS + MAX_CARDS * K_COLS  # + card

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
