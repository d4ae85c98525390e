"""Luck at chance events: what a seat's draws gave it beyond what they could have given.

Each time a seat takes the top card of a deck (a draw, a reveal, a card built from the
deck), the seat's luck on each feature of ``layout.LUCK_FEATURES`` (printed columns of
the card) grows by the card's value minus the mean value over the cards of that deck.
Every deck is shuffled before any card leaves it and nothing is ever put back on a
deck, and no bot reads a deck's order (the look-ahead deals the hidden cards again), so
given everything that happened before, the top card is uniform over the deck: each
increment has mean zero, and so has a game's luck, whatever the bots do. That is what
lets ``sim.analysis.luck`` subtract it from a game's outcome without moving the mean.

The sums are kept in fixed point (``layout.LUCK_SCALE``), rounded to nearest, so no
float enters the state; the rounding (below ``2**-17`` a draw) is the only error.
Nothing here reads or advances a random stream: the games are exactly those played
without it.
"""

from __future__ import annotations

from sim.base import layout as L
from sim.kernel.jit import kernel
from sim.kernel.tab import card_col


@kernel(inline=True)
def _add(st, i, num, n):
    """``st[i] += num / n`` in units of 1/LUCK_SCALE, rounded to nearest."""
    st[i] += (2 * num * L.LUCK_SCALE + n) // (2 * n)


@kernel
def _deck_sums(st, tab, d):
    """Sum each feature over deck ``d`` into ``LUCK_SUM`` (one pass over the deck)."""
    n = st[L.DECK_N + d]
    base = L.DECK + d * L.MAX_CARDS
    s0 = 0
    s1 = 0
    s2 = 0
    for i in range(n):
        c = st[base + i]
        s0 += card_col(tab, c, L.LUCK_FEATURES[0])
        s1 += card_col(tab, c, L.LUCK_FEATURES[1])
        s2 += card_col(tab, c, L.LUCK_FEATURES[2])
    sums = L.LUCK_SUM + d * L.N_LUCK
    st[sums] = s0
    st[sums + 1] = s1
    st[sums + 2] = s2
    st[L.LUCK_SUM_N + d] = n


@kernel
def card_taken(st, tab, p, d):
    """Seat ``p`` is about to take the top card of deck ``d`` (which holds a card): add
    the card's features minus their means over the deck to the seat's luck.

    The deck's sums are kept from one draw to the next (``LUCK_SUM``) and rebuilt only
    when the deck's count moved otherwise (cards shuffled in), so a draw costs a few
    loads, not a pass over the deck. A look-ahead's rollout (``LUCK_OFF``) skips it all:
    its luck is never read, and rollouts are most of a search bot's draws.
    """
    if st[L.LUCK_OFF]:
        return
    n = st[L.DECK_N + d]
    if st[L.LUCK_SUM_N + d] != n:
        _deck_sums(st, tab, d)
    top = st[L.DECK + d * L.MAX_CARDS + n - 1]
    acc = L.LUCK + p * L.N_LUCK
    sums = L.LUCK_SUM + d * L.N_LUCK
    for f in range(L.N_LUCK):
        x = card_col(tab, top, L.LUCK_FEATURES[f])
        _add(st, acc + f, n * x - st[sums + f], n)
        st[sums + f] -= x
    st[L.LUCK_SUM_N + d] = n - 1


@kernel
def write_luck(st, out):
    """Copy both seats' luck into the output row (``luck_*`` columns, fixed point)."""
    for f in range(L.N_LUCK):
        for p in range(2):
            out[L.O_LUCK + 2 * f + p] = st[L.LUCK + p * L.N_LUCK + f]
