"""Wealth step (every rulebook: "Wealth Step")."""

from __future__ import annotations

from sim.kernel import layout as L
from sim.kernel import zones as Z
from sim.kernel.jit import kernel
from sim.kernel.tab import rule
from sim.kernel.zones import opt, put_opt
from strategies import decisions as D
from strategies.policy import choose


@kernel
def wealth_actions(st, tab):
    """Wealth actions this turn: fewer on the first player's first turn."""
    if st[L.TURN] == 0:
        return rule(tab, L.RU_FIRST_TURN_WEALTH)
    return rule(tab, L.RU_WEALTH_ACTIONS)


@kernel
def take_split(st, tab, fp, p, cards, total):
    """Draw ``cards`` and gain ``total - cards`` coins, with the Wealth Action Bonus.

    The bonus (one more of the same) applies when all actions went one way.
    """
    bonus = rule(tab, L.RU_WEALTH_BONUS)
    coins = total - cards
    if total > 0 and cards == total:
        cards += bonus
    elif total > 0 and coins == total:
        coins += bonus
    Z.draw(st, p, cards)
    Z.gain_coins(st, p, coins)


@kernel
def wealth_step(st, tab, fp):
    """Choose all actions first, then take them; all-cards or all-coins earns the bonus."""
    p = st[L.ACTIVE]
    n = wealth_actions(st, tab)
    for k in range(n + 1):
        put_opt(st, k, k, n, 0, 0)
    k = opt(st, choose(st, tab, fp, p, D.D_WEALTH, n + 1), 0)
    take_split(st, tab, fp, p, k, n)
