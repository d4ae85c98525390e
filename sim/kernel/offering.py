"""Offering step: discard one unit for its offering value, TRIBUTE, then the limits."""

from __future__ import annotations

from sim import vocab as V
from sim.kernel import layout as L
from sim.kernel import zones as Z
from sim.kernel.abilities import discard_from_hand, run_trigger
from sim.kernel.jit import kernel
from sim.kernel.tab import card_col, rule
from sim.kernel.zones import opt, put_opt
from strategies import decisions as D
from strategies.policy import choose


@kernel
def make_offering(st, tab, fp, p, hand_i):
    """Discard the card, split its offering value between cards and coins, then TRIBUTE."""
    card = Z.hand_take(st, p, hand_i)
    Z.discard_card(st, p, card)
    v = card_col(tab, card, L.K_OFFERING)
    for k in range(v + 1):
        put_opt(st, k, k, v, 0, 0)
    k = opt(st, choose(st, tab, fp, p, D.D_SPLIT, v + 1), 0)
    Z.draw(st, p, k)
    Z.gain_coins(st, p, v - k)
    run_trigger(st, tab, fp, p, card, V.TR_TRIBUTE, -1)


@kernel
def enforce_limits(st, tab, fp, p):
    """End of the Offering step: discard down to the hand limit, return coins over the limit."""
    limit = rule(tab, L.RU_HAND_LIMIT)
    if limit > 0 and st[L.HAND_N + p] > limit:
        discard_from_hand(st, tab, fp, p, st[L.HAND_N + p] - limit, 1)
    limit = rule(tab, L.RU_COIN_LIMIT)
    if limit > 0 and st[L.COINS + p] > limit:
        Z.pay_coins(st, p, st[L.COINS + p] - limit)


@kernel
def offering_step(st, tab, fp):
    """The active seat may offer one unit from hand; then hand and coin limits."""
    p = st[L.ACTIVE]
    put_opt(st, 0, -1, 0, 0, 0)
    n = 1
    for i in range(st[L.HAND_N + p]):
        put_opt(st, n, i, Z.hand_card(st, p, i), 0, 0)
        n += 1
    k = choose(st, tab, fp, p, D.D_OFFER, n)
    if opt(st, k, 0) >= 0:
        make_offering(st, tab, fp, p, opt(st, k, 0))
    enforce_limits(st, tab, fp, p)
