"""The decisions the rules leave to a player, and how their options are encoded.

The kernel enumerates every legal option of a decision into ``st[OPTS:]`` (one
row of four ints each) and asks the seat's bot for an index. Legality lives
in the kernel, taste lives in the bot: a bot can never make an illegal move.

Option rows, by decision:

=============  ============================================================
D_EMISSARY     (hand index, card, 0, 0)
D_WEALTH       (actions spent on cards, actions in all, 0, 0)
D_SURGE        (ACT_PASS, 0, 0, 0) | (ACT_PLAY, hand index, city, cost)
               | (ACT_REWARD, reward index, tile, 0)
               | (ACT_BEAST, hand index, ability row, cost)  (Reign)
D_RALLY        (-1, 0, 0, 0) to stop | (slot, card, coin cost, ability row)
D_MAY          (1, op row, source card, 0) yes | (0, op row, source card, 0) no
D_DESTROY      (city, seat, slot, card)
D_RETURN       (city, seat, slot, card)
D_MOVE         (-1, 0, 0, 0) to stop | (from city, slot, to city, card); also MANEUVER
D_TAKE         (discard index, card, 0, 0)
D_DISCARD      (hand index, card, reason, 0); reason 0: an ability, 1: hand limit,
               2: ENTOMB (the card goes under a structure)
D_WAR_ORDER    (city, 0, 0, 0)
D_KEEP         (bit mask of slots kept, city, unit-slots kept, 0)
D_OFFER        (-1, 0, 0, 0) no offering | (hand index, card, 0, 0) offer it
               | (hand index, card, 1, structure) reveal it to build (Dunes)
D_SPLIT        (cards taken, offering value, 0, 0)
D_REVEAL       (-1, 0, 0, 0) stop | (hand index, neutral card, 0, 0) discard it to reveal again
D_REINFORCE    (-1, 0, 0, 0) none | (slot, card, ability row, 0)
D_ENRAGE       (city, slot, card, 0): one of your Soldiers/Oracles to enrage
D_PORTENT      (city, slot, card, 0): the Oracle to resolve next
D_KEEP_REVEALED  (-1, 0, 0, 0) keep no more | (index among the revealed, card, 0, 0)
D_DRAFT        (index in the packet, card, 0, 0): the card to keep (Reign simple draft)
               | (kind, its first card, copies, 0): the pile to take (Reign pile draft)
=============  ============================================================
"""

from __future__ import annotations

D_EMISSARY = 0
D_WEALTH = 1
D_SURGE = 2
D_RALLY = 3
D_MAY = 4
D_DESTROY = 5
D_RETURN = 6
D_MOVE = 7
D_TAKE = 8
D_DISCARD = 9
D_WAR_ORDER = 10
D_KEEP = 11
D_OFFER = 12
D_SPLIT = 13
D_REVEAL = 14
D_REINFORCE = 15
D_ENRAGE = 16
D_PORTENT = 17
D_KEEP_REVEALED = 18
D_DRAFT = 19
N_DECISIONS = 20

DECISIONS: dict[str, int] = {
    "emissary": D_EMISSARY,
    "wealth": D_WEALTH,
    "surge": D_SURGE,
    "rally": D_RALLY,
    "may": D_MAY,
    "destroy": D_DESTROY,
    "return": D_RETURN,
    "move": D_MOVE,
    "take": D_TAKE,
    "discard": D_DISCARD,
    "war_order": D_WAR_ORDER,
    "keep": D_KEEP,
    "offer": D_OFFER,
    "split": D_SPLIT,
    "reveal": D_REVEAL,
    "reinforce": D_REINFORCE,
    "enrage": D_ENRAGE,
    "portent": D_PORTENT,
    "keep_revealed": D_KEEP_REVEALED,
    "draft": D_DRAFT,
}

ACT_PASS = 0
ACT_PLAY = 1
ACT_REWARD = 2
ACT_BEAST = 3  # Reign: pay a Beast's cost, resolve its ability, discard it

ANY = -9  # wildcard in a scripted choice
