"""Offering step: discard one unit for its offering value, TRIBUTE, then the limits."""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import board as B
from sim.kernel import decisions as D
from sim.kernel import trace as T
from sim.kernel import zones as Z
from sim.kernel.abilities import discard_from_hand, run_trigger, tuck_from_hand
from sim.kernel.tab import card_col, rule
from sim.kernel.zones import opt, put_opt


@kernel
def make_offering(st, tab, fp, ask, p, hand_i):
    """Discard the card, split its offering value between cards and coins, then TRIBUTE.

    Reading ``tribute_timing``: TRIBUTE comes after the offering's cards and
    coins; with RU_TRIBUTE_FIRST it comes straight after the discard.
    """
    card = Z.hand_take(st, p, hand_i)
    T.event(st, E.EV_OFFER, p, 1, card, 0, 0)
    Z.discard_card(st, p, card)
    first = rule(tab, L.RU_TRIBUTE_FIRST)
    if first:
        run_trigger(st, tab, fp, ask, p, card, V.TR_TRIBUTE, -1)
    v = card_col(tab, card, L.K_OFFERING)
    for k in range(v + 1):
        put_opt(st, k, k, v, 0, 0)
    k = opt(st, ask(st, tab, fp, p, D.D_SPLIT, v + 1), 0)
    Z.draw(st, tab, p, k)
    Z.gain_coins(st, p, v - k)
    if not first:
        run_trigger(st, tab, fp, ask, p, card, V.TR_TRIBUTE, -1)


@kernel
def enforce_limits(st, tab, fp, ask, p):
    """End of the Offering step: discard down to the hand limit, return coins over the limit."""
    limit = rule(tab, L.RU_HAND_LIMIT)
    if limit > 0 and st[L.HAND_N + p] > limit:
        discard_from_hand(st, tab, fp, ask, p, st[L.HAND_N + p] - limit, 1)
    limit = rule(tab, L.RU_COIN_LIMIT)
    if limit > 0 and st[L.COINS + p] > limit:
        Z.pay_coins(st, p, st[L.COINS + p] - limit)


@kernel
def build(st, tab, fp, ask, p, hand_i, s):
    """Dunes, Offering Step: reveal a unit to build structure ``s``.

    Cards equal to its strength go under the structure, then its LABOR resolves
    and it goes on top of the discard pile. Reading ``build_from``: the rulebook
    leaves the source open; the cards come from the top of the deck, or with
    RU_BUILD_FROM_HAND from the player's hand (the player chooses them).
    """
    card = Z.hand_take(st, p, hand_i)
    T.event(st, E.EV_OFFER, p, 1, card, 1, s)  # a build: the unit revealed for it
    if rule(tab, L.RU_BUILD_FROM_HAND):
        tuck_from_hand(st, tab, fp, ask, p, s, card_col(tab, card, L.K_STRENGTH))
    else:
        Z.build_from_deck(st, tab, p, s, card_col(tab, card, L.K_STRENGTH))
    run_trigger(st, tab, fp, ask, p, card, V.TR_LABOR, -1)
    Z.discard_card(st, p, card)


@kernel
def _build_options(st, p, i, card, current, n):
    """Add the structures hand card ``i`` could build: the one in progress, or any incomplete."""
    if st[L.STRUCT_UNDER + p * L.MAX_STRUCTS + current] > 0:
        put_opt(st, n, i, card, 1, current)
        return n + 1
    for s in range(L.MAX_STRUCTS):
        j = p * L.MAX_STRUCTS + s
        if st[L.STRUCT_KIND + j] >= 0 and st[L.STRUCT_DONE + j] == 0:
            put_opt(st, n, i, card, 1, s)
            n += 1
    return n


@kernel
def offering_step(st, tab, fp, ask):
    """The active seat may offer one unit (or build with it); then hand and coin limits.

    Reign calls it the Supply step; there the active player's enraged units
    turn back first ("All of the active player's enraged units are flipped
    back during that player's Supply step").
    """
    p = st[L.ACTIVE]
    for c in range(L.N_CITIES):
        for i in range(B.n_units(st, c, p)):
            if B.enraged(st, c, p, i):  # a call only for the few enraged units
                B.set_enraged(st, tab, c, p, i, 0)
    put_opt(st, 0, -1, 0, 0, 0)
    n = 1
    s = Z.current_structure(st, p) if rule(tab, L.RU_STRUCTS) > 0 else -1
    for i in range(st[L.HAND_N + p]):
        card = Z.hand_card(st, p, i)
        if n > L.MAX_OPTS - 2 * L.MAX_STRUCTS:
            break  # never overflow the options buffer (only a huge Reign hand gets here)
        put_opt(st, n, i, card, 0, 0)
        n += 1
        if s >= 0:
            n = _build_options(st, p, i, card, s, n)
    offering_rest(st, tab, fp, ask, p, ask(st, tab, fp, p, D.D_OFFER, n))


@kernel
def offering_rest(st, tab, fp, ask, p, k):
    """The rest of the Offering step after seat ``p`` chose option ``k``: the offering (or the
    build), then the limits. A look-ahead rollout continues from an Offering choice with it."""
    if opt(st, k, 0) >= 0:
        if opt(st, k, 2) == 1:
            build(st, tab, fp, ask, p, opt(st, k, 0), opt(st, k, 3))
        else:
            make_offering(st, tab, fp, ask, p, opt(st, k, 0))
    enforce_limits(st, tab, fp, ask, p)
