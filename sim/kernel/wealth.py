"""Wealth step (every rulebook: "Wealth Step")."""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import decisions as D
from sim.kernel import trace as T
from sim.kernel import zones as Z
from sim.kernel.tab import card_col, rule
from sim.kernel.zones import opt, put_opt


@kernel
def wealth_actions(st, tab):
    """Wealth actions this turn: fewer on the first player's first turn.

    Reign variant (extra wealth actions): one more for a player with no cards
    in hand or no coins, two with neither.
    """
    n = rule(tab, L.RU_WEALTH_ACTIONS)
    if st[L.TURN] == 0:
        n = rule(tab, L.RU_FIRST_TURN_WEALTH)
    if rule(tab, L.RU_EXTRA_WEALTH):
        p = st[L.ACTIVE]
        n += (Z.hand_count(st, tab, p) == 0) + (st[L.COINS + p] == 0)
    return n


@kernel
def take_split(st, tab, fp, ask, p, cards, total):
    """Draw ``cards`` and gain ``total - cards`` coins, with the Wealth Action Bonus.

    The bonus (one more of the same) applies when all actions went one way.
    Reading ``extra_wealth_bonus``: with RU_BONUS_BASE_ONLY a turn with extra
    wealth actions (Reign variant) gets no bonus, as the rule speaks of "all 3".
    """
    bonus = rule(tab, L.RU_WEALTH_BONUS)
    if rule(tab, L.RU_BONUS_BASE_ONLY):
        base = rule(tab, L.RU_FIRST_TURN_WEALTH if st[L.TURN] == 0 else L.RU_WEALTH_ACTIONS)
        if total > base:
            bonus = 0
    coins = total - cards
    if total > 0 and cards == total:
        cards += bonus
    elif total > 0 and coins == total:
        coins += bonus
    Z.draw(st, tab, p, cards)
    Z.gain_coins(st, p, coins)


@kernel
def reveal_top(st, tab, p):
    """Reveal the top card: devoted to seat ``p``'s god, into its hand (returns 1); else
    discarded (returns 0, also when there was no card to reveal)."""
    card = Z.reveal_deck(st, tab, p)
    if card == L.NO_CARD:
        return 0
    if (card_col(tab, card, L.K_DEVOTION) & st[L.GOD + p]) != 0:
        T.event(st, E.EV_REVEAL, p, 1, card, 0, 0)
        Z.hand_add(st, p, card)
        return 1
    T.event(st, E.EV_REVEAL, p, 0, card, 0, 0)
    Z.discard_card(st, p, card)
    return 0


@kernel
def reveal(st, tab, fp, ask, p):
    """Dunes, Wealth Step: reveal the top card; a neutral unit may be discarded to repeat.

    Reading ``reveal_repeat``: the repeat is offered whatever the first reveal
    gave; with RU_REPEAT_AFTER_MISS only after a revealed card was discarded.
    """
    kept = reveal_top(st, tab, p)
    for _ in range(rule(tab, L.RU_REVEAL_REPEATS)):
        if kept and rule(tab, L.RU_REPEAT_AFTER_MISS):
            return
        put_opt(st, 0, -1, 0, 0, 0)
        n = 1
        for i in range(st[L.HAND_N + p]):
            card = Z.hand_card(st, p, i)
            if card_col(tab, card, L.K_DEVOTION) == V.DEV_NEUTRAL:
                put_opt(st, n, i, card, 0, 0)
                n += 1
        if n == 1:
            return
        k = ask(st, tab, fp, p, D.D_REVEAL, n)
        if opt(st, k, 0) < 0:
            return
        T.event(st, E.EV_DISCARD, p, 1, opt(st, k, 1), 0, 0)
        Z.discard_card(st, p, Z.hand_take(st, p, opt(st, k, 0)))
        kept = reveal_top(st, tab, p)


@kernel
def wealth_step(st, tab, fp, ask):
    """Choose all actions first, then take them; all-cards or all-coins earns the bonus."""
    p = st[L.ACTIVE]
    if rule(tab, L.RU_WEALTH_REVEAL):
        reveal(st, tab, fp, ask, p)
    n = wealth_actions(st, tab)
    for k in range(n + 1):
        put_opt(st, k, k, n, 0, 0)
    k = opt(st, ask(st, tab, fp, p, D.D_WEALTH, n + 1), 0)
    take_split(st, tab, fp, ask, p, k, n)
