"""Luck at chance events: what a seat's draws gave it beyond what they could have given.

Counted only in a run that asks for it (``RU_LUCK``, ``RunSpec.luck``); set-up sets
``LUCK_OFF`` otherwise, and a draw then pays one test of a state word.

Each time a seat takes the top card of a deck (a draw, a reveal, a card built from the
deck), the seat's luck on each feature of ``layout.LUCK_NAMES`` grows by the feature of
the card that came minus its mean over every card of that deck, had it come instead. A
feature is a function of the card *and of the position it comes into* (the seat's coins,
the strengths in each city, the reward tiles left), so it values what the card does
there, not only what is printed on it: a linear value of the position after the draw,
whose weights the analysis fits (``sim.analysis.luck``), differs between the card that
came and the mean of the others by exactly these terms.

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
from sim.compiler import kernel
from sim.kernel.tab import card_col, rule


@kernel
def _add(st, i, num, n):
    """``st[i] += num / n`` in units of 1/LUCK_SCALE, rounded to nearest."""
    st[i] += (2 * num * L.LUCK_SCALE + n) // (2 * n)


@kernel
def luck_setup(st, tab):
    """At set-up: count luck in this game only if the run asks (``RU_LUCK``)."""
    st[L.LUCK_OFF] = 1 - rule(tab, L.RU_LUCK)


@kernel
def _features(st, tab, p, card, tiles, at):
    """Feature ``f`` of ``card`` coming to seat ``p`` now, added to ``st[at + f]``.

    In ``layout.LUCK_NAMES`` order; ``tiles`` is the reward tiles left in the cities and
    ``LUCK_TMP + 2*c`` (``+1``) the seat's (the other seat's) strength in city ``c``, or -1
    for a city with no tile left.
    """
    s = card_col(tab, card, L.K_STRENGTH)
    k = card_col(tab, card, L.K_COST)
    afford = 1 if k <= st[L.COINS + p] else 0
    swing = 0
    for c in range(L.N_CITIES):
        mine = st[L.LUCK_TMP + 2 * c]
        if mine >= 0:
            theirs = st[L.LUCK_TMP + 2 * c + 1]
            # Behind or level now, ahead (or level from behind) with the card's strength.
            if mine <= theirs and mine + s >= theirs and s > 0:
                swing += 1
    st[at] += s
    st[at + 1] += card_col(tab, card, L.K_OFFERING)
    st[at + 2] += k
    st[at + 3] += afford
    st[at + 4] += s * afford
    st[at + 5] += s * tiles
    st[at + 6] += swing
    st[at + 7] += swing * afford


@kernel
def _count(st, tab, p, d):
    """Add the luck of the top card of deck ``d`` (which holds a card) to seat ``p``."""
    q = 1 - p
    tiles = 0
    for c in range(L.N_CITIES):
        left = st[L.STACK_N + c]
        tiles += left
        if left > 0:
            # The sides' running base strengths (sim.kernel.board.total; not imported,
            # board's zones import this module).
            st[L.LUCK_TMP + 2 * c] = st[L.SIDE_TOT + (2 * c + p) * L.TOT_COLS + L.TOT_STRENGTH]
            st[L.LUCK_TMP + 2 * c + 1] = st[L.SIDE_TOT + (2 * c + q) * L.TOT_COLS + L.TOT_STRENGTH]
        else:
            st[L.LUCK_TMP + 2 * c] = -1
    # Sums over the deck's cards at 2*N_CITIES.., the top card's at 2*N_CITIES+N_LUCK..
    sums = L.LUCK_TMP + 2 * L.N_CITIES
    top_at = sums + L.N_LUCK
    for f in range(2 * L.N_LUCK):
        st[sums + f] = 0
    n = st[L.DECK_N + d]
    base = L.DECK + d * L.MAX_CARDS
    for i in range(n):
        _features(st, tab, p, st[base + i], tiles, sums)
    _features(st, tab, p, st[base + n - 1], tiles, top_at)
    acc = L.LUCK + p * L.N_LUCK
    for f in range(L.N_LUCK):
        _add(st, acc + f, n * st[top_at + f] - st[sums + f], n)


@kernel
def card_taken(st, tab, p, d):
    """Seat ``p`` is about to take the top card of deck ``d`` (which holds a card): add
    each feature of the card minus its mean over the deck to the seat's luck.

    A plain run (and a look-ahead's rollout) has ``LUCK_OFF`` set: one test, no call.
    A counted draw passes once over the deck (the features depend on the position, so
    no sum can be kept from one draw to the next).
    """
    if st[L.LUCK_OFF] == 0:
        _count(st, tab, p, d)


@kernel
def write_luck(st, out):
    """Copy both seats' luck into the output row (``luck_*`` columns, fixed point)."""
    for f in range(L.N_LUCK):
        for p in range(2):
            out[L.O_LUCK + 2 * f + p] = st[L.LUCK + p * L.N_LUCK + f]
