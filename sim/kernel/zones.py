"""Deck, discard pile, hands, coins and VP tokens: moving cards between zones.

Every card move goes through these functions, which is what lets the
property tests claim conservation: a card is always in exactly one zone.
"""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.compiler import kernel
from sim.kernel import trace as T
from sim.kernel.rng import shuffle
from sim.kernel.tab import rule


@kernel
def pile_of(st, p):
    """Which deck/discard pile seat ``p`` uses: 0 when shared, else its own."""
    return p if st[L.OWN_DECKS] else 0


@kernel
def discard_card(st, p, card):
    """Put ``card`` face up on the discard pile seat ``p`` uses."""
    d = pile_of(st, p)
    n = st[L.DISC_N + d]
    st[L.DISC + d * L.MAX_CARDS + n] = card
    st[L.DISC_N + d] = n + 1


@kernel
def reshuffle(st, d):
    """Shuffle discard pile ``d`` into deck ``d`` (rulebooks: when the deck runs out)."""
    nd = st[L.DISC_N + d]
    base = st[L.DECK_N + d]
    for i in range(nd):
        st[L.DECK + d * L.MAX_CARDS + base + i] = st[L.DISC + d * L.MAX_CARDS + i]
    st[L.DISC_N + d] = 0
    st[L.DECK_N + d] = base + nd
    T.event(st, E.EV_RESHUFFLE, -1, nd, d, 0, 0)
    shuffle(st, L.DECK + d * L.MAX_CARDS, base + nd, L.RNG_DECK)


@kernel
def pop_deck(st, tab, p):
    """Take the top card of seat ``p``'s deck, reshuffling if empty; -1 if none at all."""
    d = pile_of(st, p)
    if st[L.DECK_N + d] == 0:
        reshuffle(st, d)
        if st[L.DECK_N + d] == 0:
            return L.NO_CARD
    n = st[L.DECK_N + d] - 1
    st[L.DECK_N + d] = n
    return st[L.DECK + d * L.MAX_CARDS + n]


@kernel
def reveal_deck(st, tab, p):
    """Reveal the top card of seat ``p``'s deck (-1 if none): a reveal is not a draw.

    Reading ``reveal_reshuffles``: an empty deck is reshuffled first, as for a
    draw; with RU_REVEAL_NO_RESHUFFLE it reveals nothing.
    """
    if rule(tab, L.RU_REVEAL_NO_RESHUFFLE) and st[L.DECK_N + pile_of(st, p)] == 0:
        return L.NO_CARD
    return pop_deck(st, tab, p)


@kernel
def hand_card(st, p, i):
    """The card at position ``i`` of seat ``p``'s hand."""
    return st[L.HAND + p * L.MAX_CARDS + i]


@kernel
def hand_add(st, p, card):
    """Add ``card`` to seat ``p``'s hand."""
    n = st[L.HAND_N + p]
    st[L.HAND + p * L.MAX_CARDS + n] = card
    st[L.HAND_N + p] = n + 1
    st[L.HELD + p * L.MASK_WORDS + (card >> 5)] |= 1 << (card & 31)


@kernel
def hand_count(st, tab, p):
    """Cards in seat ``p``'s hand for "no cards in hand" and hand-size conditions.

    Reading ``reign_rewards_in_hand``: with RU_REWARDS_IN_HAND the unused reward
    cards a Reign player keeps in hand count too.
    """
    n = st[L.HAND_N + p]
    if rule(tab, L.RU_REWARDS_IN_HAND):
        for i in range(st[L.REW_N + p]):
            if st[L.REW_USED + p * L.MAX_REWARDS + i] == 0:
                n += 1
    return n


@kernel
def hand_take(st, p, i):
    """Remove and return the card at position ``i`` of seat ``p``'s hand."""
    base = L.HAND + p * L.MAX_CARDS
    n = st[L.HAND_N + p] - 1
    card = st[base + i]
    # Order in hand carries no meaning, so swap-remove keeps this O(1).
    st[base + i] = st[base + n]
    st[L.HAND_N + p] = n
    return card


@kernel
def draw(st, tab, p, n):
    """Seat ``p`` draws ``n`` cards; returns how many it actually drew."""
    got = 0
    for _ in range(n):
        card = pop_deck(st, tab, p)
        if card == L.NO_CARD:
            break
        hand_add(st, p, card)
        T.event(st, E.EV_DRAW, p, 1, card, 0, 0)
        got += 1
    return got


@kernel
def gain_coins(st, p, n):
    """Seat ``p`` gains up to ``n`` coins; never more than the supply holds."""
    k = min(n, st[L.SUPPLY])
    if k > 0:
        st[L.SUPPLY] -= k
        st[L.COINS + p] += k
        T.event(st, E.EV_COINS, p, k, -1, st[L.COINS + p], 0)
    return k


@kernel
def pay_coins(st, p, n):
    """Seat ``p`` returns up to ``n`` coins to the supply; returns how many."""
    k = min(n, st[L.COINS + p])
    if k > 0:
        st[L.COINS + p] -= k
        st[L.SUPPLY] += k
        T.event(st, E.EV_COINS, p, -k, -1, st[L.COINS + p], 0)
    return k


@kernel
def gain_vp_tokens(st, p, n):
    """Seat ``p`` takes up to ``n`` VP tokens from those left to earn."""
    k = min(n, st[L.VP_SUPPLY])
    if k > 0:
        st[L.VP_SUPPLY] -= k
        st[L.VP + p] += k
        T.event(st, E.EV_VP, p, k, -1, st[L.VP + p], 0)
    return k


@kernel
def out_add(st, p, card):
    """Take ``card`` out of play in front of seat ``p`` (an exalted Keres)."""
    n = st[L.OUT_N + p]
    st[L.OUT + p * L.MAX_CARDS + n] = card
    st[L.OUT_N + p] = n + 1


@kernel
def take_discard(st, p, i):
    """Remove and return card ``i`` of seat ``p``'s discard pile (keeps pile order)."""
    d = pile_of(st, p)
    base = L.DISC + d * L.MAX_CARDS
    n = st[L.DISC_N + d] - 1
    card = st[base + i]
    for j in range(i, n):
        st[base + j] = st[base + j + 1]
    st[L.DISC_N + d] = n
    return card


@kernel
def put_opt(st, i, a, b, c, d):
    """Write option row ``i`` of the current decision."""
    o = L.OPTS + L.OPT_W * i
    st[o] = a
    st[o + 1] = b
    st[o + 2] = c
    st[o + 3] = d


@kernel
def opt(st, i, j):
    """Field ``j`` of option row ``i``."""
    return st[L.OPTS + L.OPT_W * i + j]


@kernel
def current_structure(st, p):
    """Seat ``p``'s structure being built (cards under it, not completed), else its first
    incomplete one; -1 when all are complete or it has none.

    Dunes, Structures: "A player can only build 1 of their structures at a time."
    """
    first = -1
    for s in range(L.MAX_STRUCTS):
        i = p * L.MAX_STRUCTS + s
        if st[L.STRUCT_KIND + i] < 0 or st[L.STRUCT_DONE + i]:
            continue
        if st[L.STRUCT_UNDER + i] > 0:
            return s
        if first < 0:
            first = s
    return first


@kernel
def put_under(st, p, s, card):
    """Tuck ``card`` under seat ``p``'s structure ``s``."""
    n = st[L.UNDER_N + p]
    st[L.UNDER + p * L.MAX_CARDS + n] = card
    st[L.UNDER_N + p] = n + 1
    st[L.STRUCT_UNDER + p * L.MAX_STRUCTS + s] += 1
    T.event(st, E.EV_UNDER, p, 1, card, s, 0)


@kernel
def build_from_deck(st, tab, p, s, n):
    """Put the top ``n`` cards of seat ``p``'s deck under structure ``s``; returns how many."""
    got = 0
    for _ in range(n):
        card = pop_deck(st, tab, p)
        if card == L.NO_CARD:
            break
        put_under(st, p, s, card)
        got += 1
    return got
