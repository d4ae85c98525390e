"""Portent step (A Reign of War): Oracles resolve their abilities."""

from __future__ import annotations

from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import board as B
from sim.kernel import decisions as D
from sim.kernel.abilities import find_ability, run_trigger
from sim.kernel.zones import opt, put_opt


@kernel
def portent_step(st, tab, fp, ask):
    """Reign, Portent: resolve each of your Oracles in the cities, in the order you choose.

    Enraged Oracles have no abilities; each Oracle resolves once, even if an
    ability moves it.
    """
    p = st[L.ACTIVE]
    m = 0
    for c in range(L.N_CITIES):
        for i in range(B.n_units(st, c, p)):
            card = B.slot_card(st, c, p, i)
            if find_ability(tab, card, V.TR_PORTENT) >= 0 and not B.enraged(st, c, p, i):
                st[L.TMP2 + m] = card
                m += 1
    for _ in range(m):
        n = 0
        for j in range(m):
            card = st[L.TMP2 + j]
            if card < 0:
                continue
            loc = B.find_unit(st, card)
            if (
                loc < 0
                or B.loc_seat(loc) != p
                or B.enraged(st, B.loc_city(loc), p, B.loc_slot(loc))
            ):
                st[L.TMP2 + j] = -1
                continue
            put_opt(st, n, B.loc_city(loc), B.loc_slot(loc), card, j)
            n += 1
        if n == 0:
            return
        k = ask(st, tab, fp, p, D.D_PORTENT, n)
        st[L.TMP2 + opt(st, k, 3)] = -1
        run_trigger(st, tab, fp, ask, p, opt(st, k, 2), V.TR_PORTENT, opt(st, k, 0))
