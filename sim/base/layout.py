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
from typing import Any

MAX_CARDS = 256  # physical unit cards in one game (every zone can hold them all)
N_CITIES = 3
N_SLOTS = 5  # a side of a city never holds more than 5 unit-slots, so <= 5 cards
MAX_STACK = 8  # reward tiles per city stack
# A unit's place in the cities packed into one int (sim.kernel.board.pack_loc):
# LOC_CITY * c + LOC_SEAT * p + slot, so each field reads back with one division.
LOC_SEAT = 8  # more than N_SLOTS
LOC_CITY = 2 * LOC_SEAT
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
# The units the move op resolving now has moved: each unit moves at most once per op
# (MANEUVER, "move up to N of your units"), so a move op lists only the others.
MOVED_NOW_N = take("MOVED_NOW_N")
MOVED_NOW = take("MOVED_NOW", N_CITIES * N_SLOTS)  # MOVED_NOW + i: card id
# Set-up: where a draft stands, so a look-ahead can finish it from any pick (sim.kernel.draft).
OLDEST = take("OLDEST")  # the rulebooks' "oldest player": who starts unless a variant decides
DRAFTING = take("DRAFTING")  # 1 while a draft is building the decks
DRAFT_PICK = take("DRAFT_PICK")  # picks made so far in the draft (the next one's number)
DRAFT_SEAT = take("DRAFT_SEAT")  # the seat making the next pick
PILE_TYPES = 4  # type slots of the pile draft (Soldiers, Beasts, Oracles, the rest)
# PILES + PILE_TYPES*p + t: piles of type slot t seat p took (pile draft)
PILES = take("PILES", 2 * PILE_TYPES)
# Running totals of each city side: board.city_add / city_take / set_enraged keep
# them as units come, go and enrage, so the readers (room, war-torn, the war's tie-breaks,
# the greedy bot's per-decision city figures, the unit counts of card and feat texts) read
# one word instead of rescanning the side.
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
# Units as card and feat texts count them (board.text_units): a Beast or an enraged unit 2,
# any other unit 1, a COLOSSAL one included (its 2 is TOT_WEIGHT's, the capacity's).
TOT_TEXT_UNITS = 10
TOT_COLS = 11
SIDE_TOT = take("SIDE_TOT", 2 * N_CITIES * TOT_COLS)
# Trace mode (sim.kernel.trace, rows of sim.base.events): events written so far, and the
# cause of the events being written now (CA_* * CAUSE_SPAN + id).
TRACE_N = take("TRACE_N")
TRACE_CAUSE = take("TRACE_CAUSE")
HEADER = _st.next  # everything before here is reset at set-up
# Events the trace buffer after the state holds (st[TRACE:]); 0, trace mode off, in every
# run. Kept by set-up's reset; a look-ahead rollout's copy of the game sets it to 0.
TRACE_CAP = take("TRACE_CAP")
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
OPT_W = 4  # fields of one option row
OPTS = take("OPTS", OPT_W * MAX_OPTS)  # OPTS + OPT_W*i + j: field j of option i of a decision
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
BOT_CITY_W = 9  # ints of a bot's scratch per city
# A bot's own scratch: by city at a Surge decision, by unit at a choice of units to keep.
BOT_SCRATCH = take("BOT_SCRATCH", BOT_CITY_W * N_CITIES)
# A side's strength summed unit by unit (board.strength_scan, which calls nothing that
# uses it): what each unit's own ongoing effects give it beyond what they give the others.
STRENGTH_SCRATCH = take("STRENGTH_SCRATCH", N_SLOTS)
MAX_REVEALED = 32
REVEALED = take("REVEALED", MAX_REVEALED)  # cards a reveal_keep op has revealed
LA_MAX_WIDTH = 16
LA_SCRATCH = take("LA_SCRATCH", 3 * LA_MAX_WIDTH)  # the look-ahead bot's tallies
# The learned value's scratch (strategies.value): the features of the position being
# valued, as float64 bits, written and read within one call.
VALUE_SLOTS = 64
VALUE_SCRATCH = take("VALUE_SCRATCH", VALUE_SLOTS)
GAME_SIZE = _st.next  # one game's state ends here
# A second game state, where the look-ahead bot plays its rollouts: a copy of the
# game with the hidden cards dealt again (strategies/lookahead.py).
ROLLOUT = take("ROLLOUT", GAME_SIZE)
STATE_SIZE = _st.next
TRACE = STATE_SIZE  # a traced state's event rows follow the state (sim.kernel.trace)
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
# units only change costs still has its strength read off the running totals.
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
# Each slot of the rules table is taken in order; a rule parameter a set file or a
# house-rules file writes is declared here once, with its key, bounds, default and meaning.
# The loader (sim.data.cards), the schema's bounds table (sim.data.schema) and the
# configs/README.md tables (sim.data.rule_table) are all generated from RULE_PARAMS.


@dataclass(frozen=True)
class RuleParam:
    """One rule parameter of a set file's ``[rules]`` table."""

    key: str
    """The TOML key."""
    kind: str
    """``int``, ``bool``, ``name`` (one name of ``choices``), ``names`` (a list of them)
    or ``reading`` (a string of ``choices``; the kernel slot holds its index)."""
    slot: int | None
    """The rules-table slot the kernel reads it from (None: read only by the loader)."""
    doc: str
    """What it means, for the docs."""
    group: str
    """Which docs table lists it: ``required``, ``emissary``, ``dunes``, ``reign``, ``reading``."""
    default: Any = None
    """The value when a set file leaves it out (None: every set file must write it)."""
    lo: int = 0
    hi: int = 0
    why: str = ""
    """For an ``int``: the closed range the kernel's tables hold, and why its top is what it is."""
    choices: tuple[str, ...] = ()
    """For a ``reading`` the values it may take; for ``name``/``names`` the vocab table's name."""
    size: int = 1
    """Slots it takes: a ``names`` parameter of one slot is a bit set, of more a list of codes."""


class _Rules(_Regions):
    """The rules table's allocator, recording each declared rule parameter on the way."""

    def __init__(self) -> None:
        super().__init__()
        self.params: list[RuleParam] = []

    def param(
        self, key: str, kind: str, doc: str, group: str, size: int = 1, name: str = "", **kw: Any
    ) -> int:
        """Take ``size`` slots for the parameter ``key`` (region ``name``, by default ``RU_`` and
        the key in capitals) and record its declaration."""
        slot = self.take(name or "RU_" + key.upper(), size)
        self.params.append(RuleParam(key, kind, slot, doc, group, size=size, **kw))
        return slot

    def loader_only(self, key: str, kind: str, doc: str, group: str, **kw: Any) -> None:
        """Record a parameter no kernel slot holds (the loader checks it; the kernel never does)."""
        self.params.append(RuleParam(key, kind, None, doc, group, **kw))


_ru = _Rules()
_p = _ru.param
_OFF = "0 = no limit"
N_TIEBREAKS = 6
RU_TILES_PER_CITY = _p(
    "tiles_per_city", "int", "reward tiles stacked on each of the 3 cities at setup", "required",
    lo=0, hi=MAX_STACK, why="a city's reward stack has 8 slots",
)  # fmt: skip
RU_START_CARDS = _p("start_cards", "int", "cards each player draws at setup", "required", hi=20)
RU_START_COINS = _p("start_coins", "int", "coins each player takes at setup", "required", hi=999)
RU_COIN_SUPPLY = _p(
    "coin_supply", "int", "coins in the game; nobody gains more than the supply holds",
    "required", hi=999,
)  # fmt: skip
RU_VP_TOKENS = _p(
    "vp_tokens", "int", "VP tokens in the game", "required", hi=99,
    why="2 VP each in an int16 score",
)  # fmt: skip
RU_WEALTH_ACTIONS = _p(
    "wealth_actions", "int", "Wealth actions per turn", "required",
    hi=10, why="actions per turn; a turn must stay short",
)  # fmt: skip
RU_FIRST_TURN_WEALTH = _p(
    "first_turn_wealth_actions", "int", "Wealth actions of the first player's first turn",
    "required", hi=10, name="RU_FIRST_TURN_WEALTH",
)  # fmt: skip
RU_WEALTH_BONUS = _p(
    "wealth_bonus", "int", "extra card/coin when all Wealth actions are the same", "required",
    hi=10,
)  # fmt: skip
RU_CAPACITY = _p(
    "city_capacity", "int",
    "max unit-slots on one side of a city; COLOSSAL units, Beasts and enraged units = 2 slots",
    "required", lo=1, hi=N_SLOTS, why="slots per side of a city", name="RU_CAPACITY",
)  # fmt: skip
RU_WARTORN_ENEMY = _p(
    "war_torn_enemy_units", "int",
    "a city is war-torn if the opponent has this many unit-slots there ...", "required",
    lo=1, hi=2 * N_SLOTS, name="RU_WARTORN_ENEMY",
)  # fmt: skip
RU_WARTORN_TOTAL = _p(
    "war_torn_total_units", "int", "... or both players together have this many", "required",
    lo=1, hi=2 * N_SLOTS, name="RU_WARTORN_TOTAL",
)  # fmt: skip
RU_WINNER_KEEPS = _p(
    "winner_keeps", "int", "unit-slots the war victor keeps in the city", "required", hi=N_SLOTS
)
RU_LOSER_KEEPS = _p(
    "loser_keeps", "int", "unit-slots the loser (and both players on a full tie) keep",
    "required", hi=N_SLOTS,
)  # fmt: skip
RU_HAND_LIMIT = _p(
    "hand_limit", "int",
    "hand size at the end of the Offering Step (Reign: Supply step); 0 = no limit", "required",
    hi=99, why=_OFF,
)  # fmt: skip
RU_COIN_LIMIT = _p(
    "coin_limit", "int",
    "coins kept at the end of the Offering Step (Reign: Supply step); 0 = no limit", "required",
    hi=999, why=_OFF,
)  # fmt: skip
RU_REWARDS_PER_SURGE = _p(
    "rewards_per_surge", "int",
    "reward tiles (Reign: reward cards) a player may use per Surge Step", "required",
    hi=MAX_REWARDS,
)  # fmt: skip
RU_EMISSARY_STRENGTH_TB = _p(
    "emissary_strength_tiebreak", "bool",
    "Emissary of War variant: when both Emissaries have the same total value, the one with the "
    "higher strength decides the first player before the oldest player does",
    "emissary", default=True, name="RU_EMISSARY_STRENGTH_TB",
)  # fmt: skip
RU_SECOND_COINS = _p(
    "second_player_coins", "int",
    "coins the second player takes at the end of set-up on top of `start_coins` (no rulebook "
    "gives any: a designer's handicap for the first-player edge)",
    "emissary", default=0, hi=99, name="RU_SECOND_COINS",
)  # fmt: skip
RU_END = _p(
    "end_conditions", "names", "`END_CONDITIONS` names; the game ends when any holds",
    "required", choices=("END_CONDITIONS",), name="RU_END",
)  # fmt: skip
# RU_TIEBREAKS + i: vocab.TB_* codes in rulebook order, 0 = end
RU_TIEBREAKS = _p(
    "tiebreaks", "names", "score tie-breaks, in rulebook order", "required", size=N_TIEBREAKS,
    choices=("TIEBREAKS",),
)  # fmt: skip
RU_WAR_TIE = _p(
    "war_tie_break", "name", "a `WAR_TIE_BREAKS` name, see below", "required",
    default="cost", choices=("WAR_TIE_BREAKS",), name="RU_WAR_TIE",
)  # fmt: skip
# Heir to the Dunes: gods, Favor and structures.
RU_GODS = _p(
    "gods", "bool",
    "devotion and the Favor card are in play: each player serves a god (Anubis or Horus), units "
    "devoted to the other god are playable but their abilities do not resolve, and playing a "
    "unit devoted to the god not Favored (or to both) flips the Favor card",
    "dunes", default=False,
)  # fmt: skip
RU_DEVOTED_DISCOUNT = _p(
    "devoted_discount", "int",
    "the first unit devoted to your god that you play each turn costs this much less "
    "(never below 0)",
    "dunes", default=0, hi=99,
)  # fmt: skip
RU_FAVOR_START_FIRST = _p(
    "favor_start", "reading",
    "whose god the Favor card starts on: `\"second_player\"` (the rulebook, line 57) or "
    "`\"first_player\"` (a designer's change, to measure what the rule is worth)",
    "dunes", default="second_player", choices=("second_player", "first_player"),
    name="RU_FAVOR_START_FIRST",
)  # fmt: skip
RU_WEALTH_REVEAL = _p(
    "wealth_reveal", "int",
    "at the start of the Wealth Step reveal this many top cards of the deck: a unit devoted to "
    "your god goes to your hand, any other to the discard pile",
    "dunes", default=0, hi=1, why="a switch: reveal the top card or not",
)  # fmt: skip
RU_REVEAL_REPEATS = _p(
    "wealth_reveal_repeats", "int",
    "times the player may discard a neutral unit from hand to repeat the reveal",
    "dunes", default=0, hi=10, name="RU_REVEAL_REPEATS",
)  # fmt: skip
RU_STRUCTS = _p(
    "structures_per_player", "int",
    "structures each player takes at setup: the first ones of their god in `[[structures]]` "
    "order; 0 = no structures",
    "dunes", default=0, hi=MAX_STRUCTS, why="structure slots per player", name="RU_STRUCTS",
)  # fmt: skip
# A Reign of War: the Portent and Feat steps, feats, Enrage.
RU_FEATS_TO_END = _p(
    "feats_to_end", "int",
    "completed feats that end the game (with `\"feats_completed\"` in `end_conditions`); "
    "0 = feats never end it",
    "reign", default=0, hi=MAX_FEATS, why="0 = completed feats never end the game",
)  # fmt: skip
RU_PORTENT = _p(
    "portent_step", "bool",
    "the turn has a Portent step after the Surge step: the active player resolves the "
    "`portent` ability of each of their Oracles in a city, in the order they choose",
    "reign", default=False, name="RU_PORTENT",
)  # fmt: skip
RU_FEAT_STEP = _p(
    "feat_step", "bool",
    "the turn has a Feat step after the Portent step: the active player turns face down each "
    "`[[feats]]` card whose condition they now meet (2 VP each at the end of the game)",
    "reign", default=False,
)  # fmt: skip
RU_ENRAGED_STRENGTH = _p(
    "enraged_strength", "int", "strength of an enraged unit (see `enrage`)", "reign",
    default=4, hi=99,
)  # fmt: skip
# 1: a Soldier's play ability triggers again when it is moved
RU_SOLDIER_ON_MOVE = _p(
    "soldier_ability_on_move", "bool",
    "a Soldier moved into another city by an ability resolves its `play` ability again there, "
    "after the moving ability, unless enraged; moves made by that re-triggered ability trigger "
    "nothing more. Off is the rulebook's text (abilities trigger on play; silent on moves); on "
    "is a first-edition review's account (`configs/rules/soldier-on-move.toml`)",
    "reign", default=False, name="RU_SOLDIER_ON_MOVE",
)  # fmt: skip
# Named readings (sim/data/interpretations.py): the first choice is the default reading, and
# the kernel slot holds the index of the one in play (0 for the default).
RU_BONUS_BASE_ONLY = _p(
    "extra_wealth_bonus", "reading",
    "Reign extra-wealth variant: when the Wealth Action Bonus applies on a turn with 4 or 5 "
    "actions: `\"all_actions\"`, every action of the turn went one way; `\"three_actions\"`, "
    "no bonus on a turn with extra actions (\"All 3 on cards\")",
    "reading", default="all_actions", choices=("all_actions", "three_actions"),
    name="RU_BONUS_BASE_ONLY",
)  # fmt: skip
RU_REWARDS_IN_HAND = _p(
    "rewards_count_as_hand", "bool",
    "unused reward cards kept in hand (Reign) count as cards in hand for \"no cards in hand\" "
    "(extra wealth) and hand-size conditions",
    "reading", default=False, name="RU_REWARDS_IN_HAND",
)  # fmt: skip
RU_END_AFTER_WAR = _p(
    "two_stacks_empty_check", "reading",
    "when \"two cities' reward stacks are empty\" ends the game: `\"end_of_turn\"`, or "
    "`\"after_war\"`, right after the War step that empties the second stack, without the "
    "Offering step",
    "reading", default="end_of_turn", choices=("end_of_turn", "after_war"), name="RU_END_AFTER_WAR",
)  # fmt: skip
# Reading reign_drafts: the pile draft's coins are a number, so the switch is the count.
RU_PILE_DRAFT_COINS = _p(
    "pile_draft_coins", "int",
    "Reign pile draft (`--variant pile-draft`): coins each player takes before the draft; each "
    "pile taken puts 1 of them in the middle (back in the supply), and the player starts the "
    "game with the rest (never below 0) instead of `start_coins`. The rulebook's number is 10; "
    "0 = the draft's coins are not played: the game starts with `start_coins`",
    "reading", default=0, hi=99, why="0 = not played: the game starts with start_coins",
)  # fmt: skip
# Readings of open rule text that both can be played (sim/data/interpretations.py names
# each, with the rulebook lines); the slot holds 1 when the other reading is in play.
RU_REPEAT_AFTER_MISS = _p(
    "reveal_repeat", "reading",
    "Dunes Wealth reveal: when \"discard a neutral unit ... to repeat this process once\" is "
    "offered: `\"always\"`, whatever the first reveal gave; `\"after_miss\"`, only after the "
    "revealed card was discarded",
    "reading", default="always", choices=("always", "after_miss"), name="RU_REPEAT_AFTER_MISS",
)  # fmt: skip
RU_TRIBUTE_FIRST = _p(
    "tribute_timing", "reading",
    "Aegean: when TRIBUTE resolves in an Offering: `\"after_gain\"`, after the offering's cards "
    "and coins; `\"after_discard\"`, straight after the discard, before the cards and coins",
    "reading", default="after_gain", choices=("after_gain", "after_discard"),
    name="RU_TRIBUTE_FIRST",
)  # fmt: skip
RU_REVEAL_NO_RESHUFFLE = _p(
    "reveal_reshuffles", "reading",
    "a card revealed from an empty deck (Reign \"Reveal the top N\", the Dunes Wealth reveal): "
    "`true`, it comes from the discard pile reshuffled, as a draw would; `false`, the reveal "
    "finds nothing",
    "reading", default=True, choices=(True, False), name="RU_REVEAL_NO_RESHUFFLE",
)  # fmt: skip
RU_FAVOR_BY_AGE = _p(
    "emissary_favor", "reading",
    "Dunes with the Emissary of War: whose god the Favor card starts on: `\"second_player\"`, "
    "the player the Emissary made second; `\"by_age\"`, the seat that is not the oldest",
    "reading", default="second_player", choices=("second_player", "by_age"),
    name="RU_FAVOR_BY_AGE",
)  # fmt: skip
RU_MANEUVER_EXACT = _p(
    "maneuver_count", "reading",
    "Dunes MANEUVER N (\"move units equal to the indicated number\"): `\"up_to\"`, up to N, "
    "the player may stop early; `\"exactly\"`, N units, or as many as can move",
    "reading", default="up_to", choices=("up_to", "exactly"), name="RU_MANEUVER_EXACT",
)  # fmt: skip
RU_NEUTRAL_FLIPS = _p(
    "favor_flip", "reading",
    "Dunes: which plays flip the Favor card: `\"devoted\"`, a unit devoted to the god not "
    "Favored (both gods: always); `\"every_unit\"`, also neutral units",
    "reading", default="devoted", choices=("devoted", "every_unit"), name="RU_NEUTRAL_FLIPS",
)  # fmt: skip
RU_FEATS_END_OPPONENT = _p(
    "feats_end", "reading",
    "Reign: whose 5 completed feats end the game at the end of a turn: `\"either_player\"`; "
    "`\"opponent\"`, only the active player's opponent's, as the Chinese text reads",
    "reading", default="either_player", choices=("either_player", "opponent"),
    name="RU_FEATS_END_OPPONENT",
)  # fmt: skip
RU_WARTORN_EITHER = _p(
    "war_torn_units", "reading",
    "whose 3 unit-slots in a city make it war-torn: `\"opponent\"`, the active player's "
    "opponent's; `\"either_player\"`, the active player's own count too",
    "reading", default="opponent", choices=("opponent", "either_player"),
    name="RU_WARTORN_EITHER",
)  # fmt: skip
RU_BUILD_FROM_HAND = _p(
    "build_from", "reading",
    "Dunes, Offering Step build: where the cards put under the structure come from: "
    "`\"deck\"`, the top of the deck; `\"hand\"`, the player's hand, chosen by the player "
    "(as many as the hand holds)",
    "reading", default="deck", choices=("deck", "hand"), name="RU_BUILD_FROM_HAND",
)  # fmt: skip
RU_STRUCT_EACH_SURGE = _p(
    "structure_ability", "reading",
    "Dunes: when a completed structure's ability resolves: `\"once\"`, when it is flipped; "
    "`\"each_surge\"`, at the start of each of its owner's Surge steps from then on",
    "reading", default="once", choices=("once", "each_surge"), name="RU_STRUCT_EACH_SURGE",
)  # fmt: skip
RU_STRUCT_CARDS_LEAVE = _p(
    "structure_cards", "reading",
    "Dunes: the cards under a structure when it is flipped to its completed side: "
    "`\"stay\"`, out of the game for good; `\"leave\"`, to the discard pile",
    "reading", default="stay", choices=("stay", "leave"), name="RU_STRUCT_CARDS_LEAVE",
)  # fmt: skip
RU_FEATS_EACH_STEP = _p(
    "feat_timing", "reading",
    "Reign: when a feat is completed: `\"feat_step\"`, in its owner's Feat step; "
    "`\"each_step\"`, at the end of every step of either player's turn whose end finds its "
    "condition met",
    "reading", default="feat_step", choices=("feat_step", "each_step"),
    name="RU_FEATS_EACH_STEP",
)  # fmt: skip
RU_DISCOUNT_ANY_DEVOTED = _p(
    "discount_unit", "reading",
    "Dunes: which unit takes the first-devoted-unit discount: `\"own_god\"`, the first unit "
    "devoted to the player's god; `\"any_devoted\"`, the first unit devoted to any god",
    "reading", default="own_god", choices=("own_god", "any_devoted"),
    name="RU_DISCOUNT_ANY_DEVOTED",
)  # fmt: skip
RU_REVEAL_KEEP_EXACT = _p(
    "reveal_keep_count", "reading",
    "Reign \"Reveal the top N cards of the deck; keep M and discard the rest\": "
    "`\"up_to\"`, up to M, the player may stop early; `\"exactly\"`, M cards, or as many as "
    "were revealed",
    "reading", default="up_to", choices=("up_to", "exactly"), name="RU_REVEAL_KEEP_EXACT",
)  # fmt: skip
RU_TEXT_UNITS_CAPACITY = _p(
    "units_in_card_texts", "reading",
    "how a card or feat text counts units (\"1 coin for each of your units here\", \"N or "
    "more units here\", \"N units in one city\"): `\"by_book\"`, a Beast or an enraged unit 2 "
    "and every other unit 1; `\"capacity\"`, as the city's capacity counts them (a COLOSSAL "
    "unit 2 as well)",
    "reading", default="by_book", choices=("by_book", "capacity"), name="RU_TEXT_UNITS_CAPACITY",
)  # fmt: skip
READING_SWITCH_KEYS = (
    "reveal_repeat", "tribute_timing", "reveal_reshuffles", "emissary_favor", "maneuver_count",
    "favor_flip", "feats_end", "war_torn_units", "build_from", "structure_ability",
    "structure_cards", "feat_timing", "discount_unit", "reveal_keep_count",
    "units_in_card_texts",
)  # fmt: skip
"""The readings above, each a rule switch with a test in both settings."""
_ru.loader_only(
    "maneuver_units", "reading",
    "whose units MANEUVER may move: `\"own\"` (moving the opponent's units is named, not yet "
    "playable)",
    "reading", default="own", choices=("own",),
)  # fmt: skip
# Slots the loader fills from the mix, the variant and the run rather than from a [rules] key.
_t = _ru.take
RU_TURN_CAP = _t("RU_TURN_CAP")
RU_EMISSARY = _t("RU_EMISSARY")  # 1: Emissary of War decides the first player
RU_FIRST_MODE = _t("RU_FIRST_MODE")  # how the default ("oldest") first player is chosen
RU_N_CARDS = _t("RU_N_CARDS")
RU_N_TILES = _t("RU_N_TILES")
RU_EXTRA_WEALTH = _t("RU_EXTRA_WEALTH")  # Reign: +1 action with no cards or no coins, +2 neither
RU_TRIAL = _t("RU_TRIAL")  # Reign Trial of Skill: each seat its own deck, one card of each kind
RU_SIMPLE_DRAFT = _t("RU_SIMPLE_DRAFT")  # Reign simple draft: 30 each, from packets of 10
RU_PILE_DRAFT = _t("RU_PILE_DRAFT")  # Reign pile draft: 10 piles (all copies of a kind) each
RU_CONSTRUCTED = _t("RU_CONSTRUCTED")  # Reign constructed: the pile draft takes RU_DECKLIST's
RU_DRAFT1 = _t("RU_DRAFT1")  # Aegean Draft Variant 1: draw 3, keep 2, pass 1, until 30 each
RU_DRAFT2 = _t("RU_DRAFT2")  # Aegean Draft Variant 2: 20 face up, alternate picks, three times
N_DECK_PILES = 10  # piles (kinds) in a constructed deck list
# RU_DECKLIST + N_DECK_PILES*p + i: the i-th pile (kind) of seat p's deck list
RU_DECKLIST = _t("RU_DECKLIST", 2 * N_DECK_PILES)
RU_DUPLICATE = _t("RU_DUPLICATE")  # 1: games 2k, 2k+1 share deal k, the other seat first
RU_GOD_SEATS = _t("RU_GOD_SEATS")  # how Dunes gods go to seats: GODS_BY_DEAL or a fixed GODS_P0_*
RU_COUNT = _ru.next
RULE_PARAMS: tuple[RuleParam, ...] = tuple(_ru.params)
"""Every rule parameter a ``[rules]`` table may hold, in the loader's order."""
RULE_REGIONS: tuple[tuple[str, int, int], ...] = tuple(_ru.regions)
"""Every region of the rules table as ``(name, first slot, slots)``, in order."""
del _p, _t
FIRST_P0 = 0
FIRST_P1 = 1
FIRST_ALTERNATE = 2
FIRST_RANDOM = 3

# RU_GOD_SEATS: seat 0's god changes every second deal (so it is independent of a first
# player alternating deal by deal), or both seats' gods are fixed.
GODS_BY_DEAL = 0
GODS_P0_ANUBIS = 1
GODS_P0_HORUS = 2

# --- random streams, separated by purpose so a change to one does not shift
# the draws of another (see sim.kernel.rng) ---------------------------------
RNG_DECK = 0
RNG_REWARDS = 1
RNG_SEAT = 2  # RNG_SEAT + p: that seat's bot
RNG_SETUP = 4  # first-player choice

# --- the flat table ``tab``: header of offsets, then the tables ---------------
_tb = _Regions()
TB_KIND = _tb.take("TB_KIND")  # offset of kind rows (K_COLS each)
TB_N_KINDS = _tb.take("TB_N_KINDS")
TB_CARD_KIND = _tb.take("TB_CARD_KIND")  # offset of physical card -> kind
TB_N_CARDS = _tb.take("TB_N_CARDS")
TB_ABIL = _tb.take("TB_ABIL")  # offset of ability rows (A_COLS each)
TB_OPS = _tb.take("TB_OPS")  # offset of op rows (OP_COLS each)
TB_REWARD = _tb.take("TB_REWARD")  # offset of reward kind rows (R_COLS each)
TB_TILE_KIND = _tb.take("TB_TILE_KIND")  # offset of physical tile -> reward kind
TB_N_TILES = _tb.take("TB_N_TILES")
TB_N_REWARD_KINDS = _tb.take("TB_N_REWARD_KINDS")
TB_STRUCT = _tb.take("TB_STRUCT")  # offset of structure rows (S_COLS each)
TB_N_STRUCTS = _tb.take("TB_N_STRUCTS")
TB_FEAT = _tb.take("TB_FEAT")  # offset of feat rows (FT_COLS each)
TB_N_FEATS = _tb.take("TB_N_FEATS")
TB_RULES = _tb.take("TB_RULES", RU_COUNT)  # the rules table (RU_*)
TB_HEADER = _tb.next
# At fixed offsets after the header, so that reading them takes one load, not a chain
# through the header: each physical card's kind row (a copy of the kind table's), then the
# physical card -> kind map (which TB_CARD_KIND also points at).
TB_CARD_ROWS = _tb.take("TB_CARD_ROWS", MAX_CARDS * K_COLS)  # + card * K_COLS + col
TB_CARD_KINDS = _tb.take("TB_CARD_KINDS", MAX_CARDS)  # + card
TB_REGIONS: tuple[tuple[str, int, int], ...] = tuple(_tb.regions)
"""The fixed regions at the start of ``tab`` as ``(name, first slot, slots)``; the tables the
header points at follow them."""

# --- output row (one per game): the kernel writes it, sim.run.engine turns it into columns ---


@dataclass(frozen=True)
class OutColumn:
    """One column of a run's Parquet row and where it comes from.

    A column ``per_seat`` is two Parquet columns, ``<name>_p0`` and ``<name>_p1``, read
    from ``offset + p``. ``dtype`` says how the engine builds it: ``int8``/``int16`` (the
    number itself), ``god`` (a dictionary of god names), ``end_reason`` (a dictionary of
    ``vocab.END_REASONS``), ``feat_ids`` (the set bits as a list), ``played``/``held`` (card
    kinds from the kernel's bit masks, which no output slot holds: ``offset`` is -1).
    """

    name: str
    offset: int
    per_seat: bool
    dtype: str
    doc: str
    weight: int = 0
    """VP the score counts per unit of this column (0: not a score component)."""
    label: str = ""
    """How a replay names the component: ``{n}`` the count, ``{w}`` the weight."""
    count: str = ""
    """For a component whose points are not a count (structures' VP): the column counted."""
    with_previous: bool = False
    """Written in one block with the column before it, seat by seat (``x_p0, y_p0, x_p1,
    y_p1``) rather than column by column."""
    only_in: str = ""
    """The set whose games give the column a meaning (``dunes``, ``reign``); in other games
    it holds zeros (``none``), which a load turns into nulls (``sim.analysis.columns``)."""


class _Out(_Regions):
    """The output row's allocator, recording each column declared on the way."""

    def __init__(self) -> None:
        super().__init__()
        self.columns: list[OutColumn] = []

    def col(self, region: str, name: str, per_seat: bool, dtype: str, doc: str, **kw: Any) -> int:
        """Take the slot(s) of output region ``region`` for the column ``name``."""
        offset = self.take(region, 2 if per_seat else 1)
        self.columns.append(OutColumn(name, offset, per_seat, dtype, doc, **kw))
        return offset

    def alias(
        self, offset: int, name: str, per_seat: bool, dtype: str, doc: str, **kw: Any
    ) -> None:
        """Another column read from slots already taken (or from the masks: offset -1)."""
        self.columns.append(OutColumn(name, offset, per_seat, dtype, doc, **kw))


_o = _Out()
O_FIRST = _o.col(
    "O_FIRST", "first_player", False, "int8", "the seat (0 or 1) that took the first turn"
)
O_WINNER = _o.col(
    "O_WINNER", "winner", False, "int8", "the winning seat (0 or 1); -1 a shared victory"
)
O_SCORE = _o.col(
    "O_SCORE", "score", True, "int16", "VP at the end: the sum of the components it counts"
)
O_REW_UNUSED = _o.col(
    "O_REW_UNUSED", "rewards_unused", True, "int16",
    "reward tiles won and not used (Reign: reward cards in hand)",
    weight=2, label="{n} unused reward x{w}",
)  # fmt: skip
O_REW_USED = _o.col(
    "O_REW_USED", "rewards_used", True, "int16", "reward tiles used (face up)",
    weight=1, label="{n} used reward x{w}",
)  # fmt: skip
O_VP_TOKENS = _o.col(
    "O_VP_TOKENS", "vp_tokens", True, "int16", "VP tokens taken", weight=2,
    label="{n} VP tokens x{w}",
)  # fmt: skip
O_TREASURED = _o.col(
    "O_TREASURED", "treasured", True, "int16", "TREASURED units in hand at the end", weight=1,
    label="{n} TREASURED in hand",
)  # fmt: skip
O_TURNS = _o.col("O_TURNS", "turns", False, "int16", "turns played: the game's length")
O_END_REASON = _o.col("O_END_REASON", "end_reason", False, "end_reason", "why the game ended")
O_PLAYED_N = _o.col("O_PLAYED_N", "units_played", True, "int16", "units the seat played")
_o.alias(
    -1, "played", True, "played", "the card kinds the seat played, as their ids (`id` in "
    "`_cards.parquet` and in `omensim cards`)",
    with_previous=True,
)  # fmt: skip
_o.alias(
    -1, "held", True, "held", "the card kinds that were ever in the seat's hand: dealt, drawn "
    "or taken into hand (a superset of `played`; the population of a card's effect)",
)  # fmt: skip
O_ERROR = _o.take("O_ERROR")  # non-zero: a scripted choice matched no legal option
O_GOD = _o.col(
    "O_GOD", "god", True, "god", "the god the seat serves (Dunes; `none` without gods)",
    only_in="dunes",
)  # fmt: skip
O_STRUCT_N = _o.col(
    "O_STRUCT_N", "structures_built", True, "int8", "structures completed (Dunes)",
    with_previous=True, only_in="dunes",
)  # fmt: skip
O_STRUCT_VP = _o.col(
    "O_STRUCT_VP", "structures_vp", True, "int16", "VP of the completed structures (Dunes)",
    weight=1, with_previous=True, label="{n} structures", count="structures_built",
    only_in="dunes",
)  # fmt: skip
O_FAVOR = _o.col(
    "O_FAVOR", "favored_at_end", False, "god", "the Favored god at the end (Dunes; `none` "
    "without gods)", only_in="dunes",
)  # fmt: skip
O_FEATS = _o.col(
    "O_FEATS", "feats", True, "int8", "feats completed (Reign)", weight=2,
    only_in="reign",
    label="{n} feats x{w}",
)  # fmt: skip
O_FEAT_MASK = _o.col(
    "O_FEAT_MASK", "feat_ids", True, "feat_ids", "ids of the feats completed (bit f: feat f)",
    with_previous=True, only_in="reign",
)  # fmt: skip
_o.alias(
    O_REW_UNUSED, "rewards_in_hand", True, "int16", "Reign's name for `rewards_unused`: reward "
    "cards kept in hand", with_previous=True, only_in="reign",
)  # fmt: skip
O_ENRAGED = _o.col(
    "O_ENRAGED", "enraged_total", True, "int16", "units the seat enraged (Reign)",
    with_previous=True, only_in="reign",
)  # fmt: skip
O_COLS = _o.next
OUT_COLUMNS: tuple[OutColumn, ...] = tuple(_o.columns)
"""Every column a game's row holds from the kernel, in the order the Parquet row has them."""
OUT_REGIONS: tuple[tuple[str, int, int], ...] = tuple(_o.regions)
"""Every region of the output row as ``(name, first slot, slots)``, in order."""
SCORE_TERMS: tuple[OutColumn, ...] = tuple(c for c in OUT_COLUMNS if c.weight)
"""The score's components: score = sum of ``weight * column`` (``sim.kernel.scoring``)."""
_weight = {c.name: c.weight for c in SCORE_TERMS}
# The weights as module constants, so numba freezes them into the scorer.
W_REW_UNUSED = _weight["rewards_unused"]
W_REW_USED = _weight["rewards_used"]
W_VP_TOKENS = _weight["vp_tokens"]
W_TREASURED = _weight["treasured"]
W_STRUCT_VP = _weight["structures_vp"]
W_FEATS = _weight["feats"]
del _weight


def row_blocks() -> list[tuple[OutColumn, ...]]:
    """``OUT_COLUMNS`` grouped as the row writes them: each block seat by seat."""
    blocks: list[list[OutColumn]] = []
    for c in OUT_COLUMNS:
        if c.with_previous and blocks:
            blocks[-1].append(c)
        else:
            blocks.append([c])
    return [tuple(b) for b in blocks]
