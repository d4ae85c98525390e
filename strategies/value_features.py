"""What the learned value of a position reads: one seat's view of the game, as numbers.

``value_features(st, tab, p, par)`` writes the ``N_FEATURES`` figures of ``FEATURES``
into ``par`` (a preallocated float64 buffer; nothing is allocated). They are only
what seat ``p`` may see: its own hand (only through how many TREASURED units it
holds), the board, the counts of every pile and hand, the coins, the reward tiles
each seat has won (how many, and how many are used), the VP tokens, structures
and feats. Never the opponent's hand beyond its size, the deck order, the
face-down reward tiles or the cards under structures (beyond their count).

The model over them (``strategies.value``) is a network with one hidden layer of
``HIDDEN`` tanh units and a logistic output; its weights are one float row
(``N_VALUE_PARAMS``), laid out as ``W1`` (``HIDDEN`` rows of ``N_FEATURES``, one per
hidden unit), ``b1``, ``w2``, ``b2``. The features are fed raw: the fit folds their
scaling into ``W1`` and ``b1`` (``tools/train_value.py``).
"""

from __future__ import annotations

from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import board as B
from sim.kernel.scoring import rewards_used, treasured_in_hand
from sim.kernel.tab import card_col, feat_col, rule, struct_col

_PER_CITY = ("tiles", "my_strength", "their_strength", "my_slots", "their_slots", "wartorn")
FEATURES: tuple[str, ...] = (
    "my_score",  # VP the seat holds now, by the game's scoring
    "their_score",  # the opponent's, without its TREASURED units in hand (hidden)
    "my_coins",
    "their_coins",
    "my_hand",
    "their_hand",
    "my_treasured",  # TREASURED units in the seat's own hand
    "turn",
    "my_turn",  # 1 if the seat is the active one
    "i_went_first",
    "deck",  # cards left in the deck(s)
    "discard",  # cards in the discard pile(s)
    "coin_supply",
    "vp_supply",
    "tiles_left",
    "cities_empty",
    *(f"city{c}_{f}" for c in range(L.N_CITIES) for f in _PER_CITY),
    "tiles_where_ahead",  # tiles in cities where the seat's strength is greater
    "tiles_where_behind",
    "my_unused_rewards",
    "their_unused_rewards",
    "my_used_rewards",
    "their_used_rewards",
    "my_vp_tokens",
    "their_vp_tokens",
    "my_structures",
    "their_structures",
    "my_under",  # cards under the seat's structures
    "their_under",
    "favored",  # 1 if the seat's god is Favored
    "my_feats",
    "their_feats",
    "my_played",
    "their_played",
    "gods",  # the rules: Heir to the Dunes' gods
    "feats",  # the rules: A Reign of War's feats
    "feats_to_end",  # completed feats that end the game (0: they never do)
    "my_feat_progress",  # how near the seat is to its feats not yet completed, summed
    "their_feat_progress",
)
N_FEATURES = len(FEATURES)
HIDDEN = 16  # a multiple of 4: strategies.value reads four units at a time
N_VALUE_PARAMS = N_FEATURES * HIDDEN + HIDDEN + HIDDEN + 1
# Where each part of the weight row starts.
V_W1 = 0
V_B1 = N_FEATURES * HIDDEN
V_W2 = V_B1 + HIDDEN
V_B2 = V_W2 + HIDDEN
# Where the per-city figures start in FEATURES, and how many there are per city.
F_CITY = FEATURES.index("city0_tiles")
N_PER_CITY = len(_PER_CITY)


@kernel
def visible_score(st, tab, p, own):
    """Seat ``p``'s score as the game would count it now, with its TREASURED units in hand
    counted only if ``own`` (a seat sees its own hand, never the opponent's)."""
    used = rewards_used(st, p)
    unused = st[L.REW_N + p] - used
    feats = 0
    for f in range(L.MAX_FEATS):
        feats += st[L.FEAT_DONE + p * L.MAX_FEATS + f]
    vp = 0
    for s in range(L.MAX_STRUCTS):
        i = p * L.MAX_STRUCTS + s
        if st[L.STRUCT_KIND + i] >= 0 and st[L.STRUCT_DONE + i]:
            vp += struct_col(tab, st[L.STRUCT_KIND + i], L.S_VP)
    tre = treasured_in_hand(st, tab, p) if own else 0
    return (
        L.W_REW_UNUSED * unused
        + L.W_REW_USED * used
        + L.W_VP_TOKENS * st[L.VP + p]
        + L.W_TREASURED * tre
        + L.W_STRUCT_VP * vp
        + L.W_FEATS * feats
    )


@kernel
def _structures(st, p):
    """Seat ``p``'s completed structures."""
    k = 0
    for s in range(L.MAX_STRUCTS):
        i = p * L.MAX_STRUCTS + s
        if st[L.STRUCT_KIND + i] >= 0 and st[L.STRUCT_DONE + i]:
            k += 1
    return k


@kernel
def _feats(st, p):
    """Seat ``p``'s completed feats."""
    k = 0
    for f in range(L.MAX_FEATS):
        k += st[L.FEAT_DONE + p * L.MAX_FEATS + f]
    return k


@kernel
def _unit_type(st, tab, c, p, i):
    """The type a feat counts unit ``i`` of seat ``p``'s side of city ``c`` as: a Beast while
    enraged, else its card's."""
    if B.enraged(st, c, p, i):
        return V.T_BEAST
    return card_col(tab, B.slot_card(st, c, p, i), L.K_TYPE)


@kernel
def feat_progress(st, tab, p):
    """How near seat ``p`` is to the feats it has not completed: for each, the share of its
    condition (``sim.kernel.feats.feat_met``) met now, at most 1, summed. A condition
    counted only within one turn (the opponent's discards) reads 0: the value is asked
    between turns."""
    total = 0.0
    for f in range(min(tab[L.TB_N_FEATS], L.MAX_FEATS)):
        if st[L.FEAT_DONE + p * L.MAX_FEATS + f]:
            continue
        cond = feat_col(tab, f, L.FT_COND)
        n = max(feat_col(tab, f, L.FT_N), 1)
        got = 0
        if cond == V.F_TYPE_EACH_CITY:
            t = feat_col(tab, f, L.FT_TYPE)
            n = L.N_CITIES
            for c in range(L.N_CITIES):
                for i in range(B.n_units(st, c, p)):
                    if _unit_type(st, tab, c, p, i) == t:
                        got += 1
                        break
        elif cond == V.F_UNITS_ONE_CITY_GE:
            for c in range(L.N_CITIES):
                got = max(got, B.text_units(st, tab, c, p))
        elif cond == V.F_REWARDS_GE:
            got = st[L.REW_N + p]
        elif cond == V.F_COINS_GE:
            got = st[L.COINS + p]
        elif cond == V.F_ENRAGED_GE:
            for c in range(L.N_CITIES):
                for i in range(B.n_units(st, c, p)):
                    got += B.enraged(st, c, p, i) != 0
        total += min(got / n, 1.0)
    return total


@kernel
def value_features(st, tab, p, par):
    """Write seat ``p``'s ``FEATURES`` of position ``st`` into ``par[:N_FEATURES]``."""
    q = 1 - p
    par[0] = visible_score(st, tab, p, 1)
    par[1] = visible_score(st, tab, q, 0)
    par[2] = st[L.COINS + p]
    par[3] = st[L.COINS + q]
    par[4] = st[L.HAND_N + p]
    par[5] = st[L.HAND_N + q]
    par[6] = treasured_in_hand(st, tab, p)
    par[7] = st[L.TURN]
    par[8] = 1.0 if st[L.ACTIVE] == p else 0.0
    par[9] = 1.0 if st[L.FIRST] == p else 0.0
    par[10] = st[L.DECK_N] + st[L.DECK_N + 1]
    par[11] = st[L.DISC_N] + st[L.DISC_N + 1]
    par[12] = st[L.SUPPLY]
    par[13] = st[L.VP_SUPPLY]
    tiles = 0
    empty = 0
    ahead = 0
    behind = 0
    for c in range(L.N_CITIES):
        t = st[L.STACK_N + c]
        tiles += t
        empty += t == 0
        mine = 0
        theirs = 0
        for i in range(B.n_units(st, c, p)):
            mine += B.slot_strength(st, tab, c, p, i)
        for i in range(B.n_units(st, c, q)):
            theirs += B.slot_strength(st, tab, c, q, i)
        if mine > theirs:
            ahead += t
        elif theirs > mine:
            behind += t
        f = F_CITY + N_PER_CITY * c
        par[f] = t
        par[f + 1] = mine
        par[f + 2] = theirs
        par[f + 3] = B.side_weight(st, tab, c, p)
        par[f + 4] = B.side_weight(st, tab, c, q)
        par[f + 5] = st[L.WARTORN + c]
    par[14] = tiles
    par[15] = empty
    f = F_CITY + N_PER_CITY * L.N_CITIES
    par[f] = ahead
    par[f + 1] = behind
    used_p = rewards_used(st, p)
    used_q = rewards_used(st, q)
    par[f + 2] = st[L.REW_N + p] - used_p
    par[f + 3] = st[L.REW_N + q] - used_q
    par[f + 4] = used_p
    par[f + 5] = used_q
    par[f + 6] = st[L.VP + p]
    par[f + 7] = st[L.VP + q]
    par[f + 8] = _structures(st, p)
    par[f + 9] = _structures(st, q)
    par[f + 10] = st[L.UNDER_N + p]
    par[f + 11] = st[L.UNDER_N + q]
    par[f + 12] = 1.0 if B.favored(st, p) else 0.0
    par[f + 13] = _feats(st, p)
    par[f + 14] = _feats(st, q)
    par[f + 15] = st[L.PLAYED_N + p]
    par[f + 16] = st[L.PLAYED_N + q]
    par[f + 17] = 1.0 if rule(tab, L.RU_GODS) else 0.0
    par[f + 18] = 1.0 if rule(tab, L.RU_END) & V.END_FEATS else 0.0
    par[f + 19] = rule(tab, L.RU_FEATS_TO_END)
    par[f + 20] = feat_progress(st, tab, p)
    par[f + 21] = feat_progress(st, tab, q)
