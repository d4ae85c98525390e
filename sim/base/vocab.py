"""The closed vocabulary that card data is written in.

Every name a TOML file may use (unit types, keywords, ability triggers,
effect operations, targets, conditions) maps here to the small integer the
numba kernel switches on. This module is the single place where a name meets
its code, so the compiler (`sim.data.cards`), the kernel (`sim.kernel`) and the
documentation (`configs/README.md`) cannot drift apart.

The integers are plain module constants so numba freezes them at compile time
(they never change at run time).
"""

from __future__ import annotations

# --- unit types -------------------------------------------------------------
# Edge of the Aegean
T_MYRMIDON = 0
T_AUTOMATON = 1
T_KERES = 2
T_MOIRAI = 3
# Heir to the Dunes
T_EMBALMED = 4
T_FOLLOWER = 5
T_INITIATE = 6
T_VIZIER = 7
# A Reign of War
T_SOLDIER = 8
T_BEAST = 9
T_ORACLE = 10

UNIT_TYPES: dict[str, int] = {
    "myrmidon": T_MYRMIDON,
    "automaton": T_AUTOMATON,
    "keres": T_KERES,
    "moirai": T_MOIRAI,
    "embalmed": T_EMBALMED,
    "follower": T_FOLLOWER,
    "initiate": T_INITIATE,
    "vizier": T_VIZIER,
    "soldier": T_SOLDIER,
    "beast": T_BEAST,
    "oracle": T_ORACLE,
}

# --- devotion (Heir to the Dunes): which god(s) a unit is devoted to --------
DEV_NEUTRAL = 0
DEV_ANUBIS = 1
DEV_HORUS = 2
DEV_BOTH = 3  # DEV_ANUBIS | DEV_HORUS: a bit per god

DEVOTIONS: dict[str, int] = {
    "neutral": DEV_NEUTRAL,
    "anubis": DEV_ANUBIS,
    "horus": DEV_HORUS,
    "both": DEV_BOTH,
}
GODS: dict[str, int] = {"anubis": DEV_ANUBIS, "horus": DEV_HORUS}

# --- keywords (bit flags) ---------------------------------------------------
KW_COLOSSAL = 1 << 0
KW_RALLY = 1 << 1
KW_TRIBUTE = 1 << 2
KW_EXALT = 1 << 3
KW_TREASURED = 1 << 4
KW_LABOR = 1 << 5
KW_REINFORCE = 1 << 6
KW_INVOCATION = 1 << 7
KW_MANEUVER = 1 << 8
KW_ENTOMB = 1 << 9

KEYWORDS: dict[str, int] = {
    "COLOSSAL": KW_COLOSSAL,
    "RALLY": KW_RALLY,
    "TRIBUTE": KW_TRIBUTE,
    "EXALT": KW_EXALT,
    "TREASURED": KW_TREASURED,
    "LABOR": KW_LABOR,
    "REINFORCE": KW_REINFORCE,
    "INVOCATION": KW_INVOCATION,
    "MANEUVER": KW_MANEUVER,
    "ENTOMB": KW_ENTOMB,
}

# --- ability triggers: when a block of operations runs ----------------------
TR_PLAY = 0  # right after the unit is added to a city
TR_RALLY = 1  # Aegean: after a unit is added to this unit's city, for a coin cost
TR_SURGE_END = 2  # Aegean Keres: at the end of the owner's Surge step
TR_EXALT = 3  # Aegean Keres: condition checked after its Surge-end ability
TR_STATIC = 4  # Aegean Moirai: ongoing while the unit is in a city
TR_TRIBUTE = 5  # Aegean Automaton: after it is discarded as an Offering
TR_REWARD = 6  # a reward tile or card, when its owner uses it
TR_REINFORCE = 7  # Dunes Follower: chosen after a unit devoted to your god enters its city
TR_INVOCATION = 8  # Dunes Initiate: on play, if the owner's god is Favored
TR_MANEUVER = 9  # Dunes Vizier: on play (holds a "maneuver" op)
TR_LABOR = 10  # Dunes Embalmed: when revealed to build a structure
TR_COMPLETE = 11  # Dunes structure: when it is flipped to its completed side
TR_BEAST = 12  # Reign Beast: when paid for and discarded from hand (instead of played)
TR_PORTENT = 13  # Reign Oracle: in its owner's Portent step, while in a city

TRIGGERS: dict[str, int] = {
    "play": TR_PLAY,
    "rally": TR_RALLY,
    "surge_end": TR_SURGE_END,
    "exalt": TR_EXALT,
    "static": TR_STATIC,
    "tribute": TR_TRIBUTE,
    "reward": TR_REWARD,
    "reinforce": TR_REINFORCE,
    "invocation": TR_INVOCATION,
    "maneuver": TR_MANEUVER,
    "labor": TR_LABOR,
    "complete": TR_COMPLETE,
    "beast": TR_BEAST,
    "portent": TR_PORTENT,
}

# --- effect operations --------------------------------------------------------
# Each op row is (OP, N, M, TARGET, COND, COND_N, MAY, spare); see OP_* columns
# in sim.base.layout. N is the amount, M a limit (0 means "no limit").
OP_GAIN_COINS = 0  # gain N coins from the supply (never more than it holds)
OP_DRAW = 1  # draw N cards
OP_OPP_DISCARD = 2  # the opponent discards N cards of their choice
OP_DESTROY = 3  # destroy N enemy units with strength <= M (M=0: any), TARGET
OP_MOVE = 4  # move up to N of your units between cities, TARGET as origin
OP_TAKE_DISCARD = 5  # take N units with cost <= M from the discard pile to hand
OP_GAIN_VP = 6  # gain N VP tokens from the supply
OP_STEAL_COINS = 7  # take up to N coins from the opponent
OP_OPP_LOSE_COINS = 8  # the opponent returns up to N coins to the supply
OP_RETURN_ENEMY = 9  # return an enemy unit (strength <= M) to its owner's hand
OP_STRENGTH = 10  # static: +N strength to TARGET units while COND holds
OP_COST = 11  # static: units you play into TARGET cost N more (N<0: less), min 0
OP_GAIN_COINS_PER_UNIT = 12  # gain N coins per unit of yours in this city (board.text_units)
OP_MANEUVER = 13  # move up to N of your units without MANEUVER into or out of this city
OP_ENTOMB = 14  # put cards under your structure in progress: TARGET self, or N from hand
OP_GAIN_FAVOR = 15  # turn the Favor card to your god
OP_BUILD_FROM_DECK = 16  # put the top N cards of the deck under your structure in progress
OP_ENRAGE = 17  # enrage up to N of your Soldiers/Oracles (TARGET: self, same_city, any_city)
OP_REVEAL_KEEP = 18  # reveal the top N cards of the deck, keep up to M in hand, discard the rest

OPS: dict[str, int] = {
    "gain_coins": OP_GAIN_COINS,
    "draw": OP_DRAW,
    "opponent_discards": OP_OPP_DISCARD,
    "destroy": OP_DESTROY,
    "move": OP_MOVE,
    "take_from_discard": OP_TAKE_DISCARD,
    "gain_vp_token": OP_GAIN_VP,
    "steal_coins": OP_STEAL_COINS,
    "opponent_loses_coins": OP_OPP_LOSE_COINS,
    "return_enemy": OP_RETURN_ENEMY,
    "strength": OP_STRENGTH,
    "cost": OP_COST,
    "gain_coins_per_unit": OP_GAIN_COINS_PER_UNIT,
    "maneuver": OP_MANEUVER,
    "entomb": OP_ENTOMB,
    "gain_favor": OP_GAIN_FAVOR,
    "build_from_deck": OP_BUILD_FROM_DECK,
    "enrage": OP_ENRAGE,
    "reveal_keep": OP_REVEAL_KEEP,
}
# Ops that only make sense as ongoing (static) modifiers, and vice versa.
STATIC_OPS = frozenset({OP_STRENGTH, OP_COST})

# --- targets ------------------------------------------------------------------
TG_ANY_CITY = 0  # any city
TG_SAME_CITY = 1  # the city the source unit is in
TG_OTHER_CITY = 2  # any city but the source's
TG_SELF = 3  # static: the source unit only
TG_OWN_OTHERS = 4  # static: the owner's other units in the source's city
TG_OWN_ALL = 5  # static: all of the owner's units in the source's city
TG_FROM_HAND = 6  # entomb: cards chosen from the owner's hand

TARGETS: dict[str, int] = {
    "any_city": TG_ANY_CITY,
    "same_city": TG_SAME_CITY,
    "other_city": TG_OTHER_CITY,
    "self": TG_SELF,
    "own_others_here": TG_OWN_OTHERS,
    "own_all_here": TG_OWN_ALL,
    "from_hand": TG_FROM_HAND,
}

# --- conditions ---------------------------------------------------------------
# Evaluated for the owner of the source unit, in the source's city where that
# matters; COND_N is the threshold.
C_NONE = 0
C_CITY_HAS_TILES = 1  # the source's city still has reward tiles
C_CITY_NO_TILES = 2  # the source's city has no reward tiles left
C_OWN_UNITS_GE = 3  # owner has >= N units in the source's city (board.text_units' count)
C_ENEMY_UNITS_GE = 4  # opponent has >= N units in the source's city (board.text_units' count)
C_HAND_LE = 5  # owner holds <= N cards
C_COINS_GE = 6  # owner has >= N coins
C_COINS_LE = 7  # owner has <= N coins
C_REWARDS_GE = 8  # owner has earned >= N reward tiles
C_ENEMY_PRESENT = 9  # opponent has at least one unit in the source's city
C_OWN_TYPE_HERE_GE = 10  # owner has >= N other units of the source's type here
C_FAVORED = 11  # the owner's god is Favored
C_NOT_FAVORED = 12  # the owner's god is not Favored
C_STRUCTURES_GE = 13  # the owner has completed >= N structures

CONDITIONS: dict[str, int] = {
    "none": C_NONE,
    "city_has_tiles": C_CITY_HAS_TILES,
    "city_has_no_tiles": C_CITY_NO_TILES,
    "own_units_here_at_least": C_OWN_UNITS_GE,
    "enemy_units_here_at_least": C_ENEMY_UNITS_GE,
    "hand_at_most": C_HAND_LE,
    "coins_at_least": C_COINS_GE,
    "coins_at_most": C_COINS_LE,
    "rewards_at_least": C_REWARDS_GE,
    "enemy_present_here": C_ENEMY_PRESENT,
    "own_same_type_here_at_least": C_OWN_TYPE_HERE_GE,
    "favored": C_FAVORED,
    "not_favored": C_NOT_FAVORED,
    "structures_built_at_least": C_STRUCTURES_GE,
}

# --- rule-set flags and end conditions --------------------------------------
WAR_TIE_COST = 0  # Aegean, Dunes: tie goes to the higher total unit cost
WAR_TIE_SOLDIERS = 1  # Reign: tie goes to the player with more Soldiers

WAR_TIE_BREAKS: dict[str, int] = {"cost": WAR_TIE_COST, "soldiers": WAR_TIE_SOLDIERS}

END_ALL_CITIES_EMPTY = 1 << 0  # Aegean: no city has tiles at the end of a turn
END_TWO_CITIES_EMPTY = 1 << 1  # Dunes, Reign: two or more cities have no tiles
END_ALL_STRUCTURES = 1 << 2  # Dunes: the active player has built all their structures
END_FEATS = 1 << 3  # Reign: a player has completed the set's number of feats (5)

END_CONDITIONS: dict[str, int] = {
    "all_cities_empty": END_ALL_CITIES_EMPTY,
    "two_cities_empty": END_TWO_CITIES_EMPTY,
    "all_structures_built": END_ALL_STRUCTURES,
    "feats_completed": END_FEATS,
}

# Score tie-breaks, applied in the order the base set's rulebook lists them.
TB_END = 0
TB_UNUSED_REWARDS = 1
TB_VP_TOKENS = 2
TB_TREASURED = 3
TB_USED_REWARDS = 4
TB_FAVORED = 5  # Dunes: the player whose god is Favored

TIEBREAKS: dict[str, int] = {
    "unused_rewards": TB_UNUSED_REWARDS,
    "vp_tokens": TB_VP_TOKENS,
    "treasured_in_hand": TB_TREASURED,
    "used_rewards": TB_USED_REWARDS,
    "favored": TB_FAVORED,
}

# Why a game ended; written to the `end_reason` column by name.
ER_NONE = 0
ER_ALL_CITIES_EMPTY = 1
ER_TWO_CITIES_EMPTY = 2
ER_TURN_CAP = 3
ER_ALL_STRUCTURES = 4
ER_FEATS = 5

END_REASONS: tuple[str, ...] = (
    "none",
    "all_cities_empty",
    "two_cities_empty",
    "turn_cap",
    "all_structures_built",
    "feats_completed",
)

# --- feat conditions (Reign): checked in the Feat step for the active player ---
F_TYPE_EACH_CITY = 0  # a unit of TYPE on your side of every city
F_OPP_DISCARDED_GE = 1  # the opponent discarded >= N cards this turn (by your abilities)
F_UNITS_ONE_CITY_GE = 2  # >= N units on your side of one city (board.text_units' count)
F_REWARDS_GE = 3  # >= N reward cards won
F_COINS_GE = 4  # >= N coins
F_ENRAGED_GE = 5  # >= N of your units enraged at once

FEAT_CONDITIONS: dict[str, int] = {
    "type_in_each_city": F_TYPE_EACH_CITY,
    "opponent_discarded_this_turn": F_OPP_DISCARDED_GE,
    "units_in_one_city": F_UNITS_ONE_CITY_GE,
    "rewards_at_least": F_REWARDS_GE,
    "coins_at_least": F_COINS_GE,
    "enraged_at_least": F_ENRAGED_GE,
}


def name_of(table: dict[str, int], code: int) -> str:
    """Return the vocabulary name for ``code`` in ``table`` (inverse lookup)."""
    for name, value in table.items():
        if value == code:
            return name
    raise KeyError(code)


def keyword_names(mask: int) -> list[str]:
    """Return the keyword names set in a keyword bitmask, in vocabulary order."""
    return [name for name, bit in KEYWORDS.items() if mask & bit]
