"""Cities: units on each side, capacity, strength, unit cost and war-torn state.

Ongoing (TR_STATIC) abilities are not stored anywhere: they are read off the
units in play whenever a strength or a cost is asked for, so a unit that
leaves a city takes its effect with it and nothing can go stale.
"""

from __future__ import annotations

from sim.data import vocab as V
from sim.kernel import layout as L
from sim.kernel import zones as Z
from sim.kernel.jit import kernel
from sim.kernel.tab import abil_col, card_col, card_kind, kind_col, op_col, rule


@kernel(inline=True)
def side(c, p):
    """Index of seat ``p``'s side of city ``c`` (for SIDE_N and SLOT)."""
    return 2 * c + p


@kernel(inline=True)
def slot_card(st, c, p, i):
    """Card in slot ``i`` of seat ``p``'s side of city ``c``."""
    return st[L.SLOT + side(c, p) * L.N_SLOTS + i]


@kernel(inline=True)
def n_units(st, c, p):
    """Cards on seat ``p``'s side of city ``c``."""
    return st[L.SIDE_N + side(c, p)]


@kernel(inline=True)
def has_kw(tab, card, kw):
    """Whether ``card`` carries keyword bit ``kw``."""
    return (card_col(tab, card, L.K_KEYWORDS) & kw) != 0


@kernel(inline=True)
def weight(tab, card):
    """Unit-slots a card fills: COLOSSAL units and Reign Beasts count 2.

    Both count 2 for capacity, war-torn and keeping (Reign: "a beast counts as
    2 (also when combined with other games)").
    """
    if has_kw(tab, card, V.KW_COLOSSAL) or card_col(tab, card, L.K_TYPE) == V.T_BEAST:
        return 2
    return 1


@kernel(inline=True)
def enraged(st, c, p, i):
    """Whether the unit in slot ``i`` of seat ``p``'s side of city ``c`` is enraged."""
    return st[L.ENRAGED + side(c, p) * L.N_SLOTS + i] != 0


@kernel(inline=True)
def slot_weight(st, tab, c, p, i):
    """Unit-slots the unit in a slot fills: an enraged unit is a Beast and counts 2."""
    if enraged(st, c, p, i):
        return 2
    return weight(tab, slot_card(st, c, p, i))


@kernel(inline=True)
def side_weight(st, tab, c, p):
    """Unit-slots used on seat ``p``'s side of city ``c``."""
    w = 0
    for i in range(n_units(st, c, p)):
        w += slot_weight(st, tab, c, p, i)
    return w


@kernel(inline=True)
def room(st, tab, c, p):
    """Unit-slots still free on seat ``p``'s side of city ``c``: the one capacity rule.

    Whatever joins a side (a unit played or moved, an Enrage that makes a unit
    count 2) fits when it needs at most this many more slots.
    """
    return rule(tab, L.RU_CAPACITY) - side_weight(st, tab, c, p)


@kernel
def fits(st, tab, c, p, card):
    """Whether ``card`` can join seat ``p``'s side of city ``c`` without exceeding capacity."""
    return weight(tab, card) <= room(st, tab, c, p)


@kernel
def city_add(st, c, p, card):
    """Put ``card`` on seat ``p``'s side of city ``c`` (caller checked ``fits``)."""
    s = side(c, p)
    n = st[L.SIDE_N + s]
    st[L.SLOT + s * L.N_SLOTS + n] = card
    st[L.ENRAGED + s * L.N_SLOTS + n] = 0
    st[L.SIDE_N + s] = n + 1


@kernel
def city_take(st, c, p, i):
    """Remove and return the card in slot ``i`` of seat ``p``'s side of city ``c``."""
    s = side(c, p)
    base = L.SLOT + s * L.N_SLOTS
    n = st[L.SIDE_N + s] - 1
    card = st[base + i]
    rage = L.ENRAGED + s * L.N_SLOTS
    for j in range(i, n):
        st[base + j] = st[base + j + 1]
        st[rage + j] = st[rage + j + 1]
    st[base + n] = L.NO_CARD
    st[rage + n] = 0
    st[L.SIDE_N + s] = n
    return card


@kernel
def city_move(st, f, i, t, p):
    """Move seat ``p``'s unit in slot ``i`` of city ``f`` to city ``t``; it stays enraged."""
    rage = enraged(st, f, p, i)
    card = city_take(st, f, p, i)
    city_add(st, t, p, card)
    if rage:
        st[L.ENRAGED + side(t, p) * L.N_SLOTS + n_units(st, t, p) - 1] = 1


@kernel
def find_unit(st, card):
    """Locate ``card`` in the cities: returns ``c*16 + p*8 + slot``, or -1."""
    for c in range(L.N_CITIES):
        for p in range(2):
            for i in range(n_units(st, c, p)):
                if slot_card(st, c, p, i) == card:
                    return c * 16 + p * 8 + i
    return -1


@kernel(inline=True)
def favored(st, p):
    """Whether seat ``p``'s god is Favored (never, when gods are not in play)."""
    return st[L.FAVOR] != 0 and st[L.FAVOR] == st[L.GOD + p]


@kernel(inline=True)
def devoted_to_own(st, tab, p, card):
    """Whether ``card`` is devoted to seat ``p``'s god (units devoted to both count)."""
    return (card_col(tab, card, L.K_DEVOTION) & st[L.GOD + p]) != 0


@kernel(inline=True)
def can_resolve(st, tab, p, card):
    """Dunes, Devotion: a player cannot resolve abilities of units devoted to the other god.

    Without gods in play (no Dunes base) devotion is ignored.
    """
    dev = card_col(tab, card, L.K_DEVOTION)
    return st[L.GOD + p] == 0 or dev == 0 or (dev & st[L.GOD + p]) != 0


@kernel
def condition(st, tab, p, c, src, cond, n):
    """Evaluate a vocabulary condition for seat ``p`` with source unit ``src`` in city ``c``.

    ``c`` is -1 when the source is not in a city (a reward tile, an offering):
    then city conditions are false.
    """
    if cond == V.C_NONE:
        return True
    if cond == V.C_HAND_LE:
        return Z.hand_count(st, tab, p) <= n
    if cond == V.C_COINS_GE:
        return st[L.COINS + p] >= n
    if cond == V.C_COINS_LE:
        return st[L.COINS + p] <= n
    if cond == V.C_REWARDS_GE:
        return st[L.REW_N + p] >= n
    if cond == V.C_FAVORED:
        return favored(st, p)
    if cond == V.C_NOT_FAVORED:
        return not favored(st, p)
    if cond == V.C_STRUCTURES_GE:
        done = 0
        for s in range(L.MAX_STRUCTS):
            done += st[L.STRUCT_DONE + p * L.MAX_STRUCTS + s]
        return done >= n
    if c < 0:
        return False
    if cond == V.C_CITY_HAS_TILES:
        return st[L.STACK_N + c] > 0
    if cond == V.C_CITY_NO_TILES:
        return st[L.STACK_N + c] == 0
    if cond == V.C_OWN_UNITS_GE:
        return side_weight(st, tab, c, p) >= n
    if cond == V.C_ENEMY_UNITS_GE:
        return side_weight(st, tab, c, 1 - p) >= n
    if cond == V.C_ENEMY_PRESENT:
        return n_units(st, c, 1 - p) > 0
    if cond == V.C_OWN_TYPE_HERE_GE:
        t = card_col(tab, src, L.K_TYPE)
        k = 0
        for i in range(n_units(st, c, p)):
            u = slot_card(st, c, p, i)
            if u != src and card_col(tab, u, L.K_TYPE) == t:
                k += 1
        return k >= n
    return False


@kernel
def _static_sum(st, tab, p, cc, src, op_code, c, card):
    """Total of the ongoing ``op_code`` effects of ``src`` (in city ``cc``) on ``card`` in ``c``."""
    total = 0
    k = card_kind(tab, src)
    a0 = kind_col(tab, k, L.K_ABIL_START)
    for a in range(a0, a0 + kind_col(tab, k, L.K_ABIL_N)):
        if abil_col(tab, a, L.A_TRIGGER) != V.TR_STATIC:
            continue
        o0 = abil_col(tab, a, L.A_OP_START)
        for o in range(o0, o0 + abil_col(tab, a, L.A_OP_N)):
            if op_col(tab, o, L.OP_CODE) != op_code:
                continue
            tg = op_col(tab, o, L.OP_TARGET)
            if op_code == V.OP_STRENGTH:
                if tg == V.TG_SELF and src != card:
                    continue
                if tg == V.TG_OWN_OTHERS and src == card:
                    continue
            elif tg == V.TG_SAME_CITY and cc != c:
                continue
            if condition(
                st, tab, p, cc, src, op_col(tab, o, L.OP_COND), op_col(tab, o, L.OP_COND_N)
            ):
                total += op_col(tab, o, L.OP_N)
    return total


@kernel(inline=True)
def slot_strength(st, tab, c, p, i):
    """Strength the unit in slot ``i`` of seat ``p``'s side of ``c`` brings, effects included.

    Strength effects reach only units in their source's city, so only that
    city's units are scanned. Dunes, Unit Card Types (Initiate): "all of a player's
    units with INVOCATION are +1 strength if their god is Favored."
    """
    if enraged(st, c, p, i):
        # Reign, Enrage: "it counts as a beast of strength 4 with no abilities".
        return rule(tab, L.RU_ENRAGED_STRENGTH)
    card = slot_card(st, c, p, i)
    s = card_col(tab, card, L.K_STRENGTH)
    if has_kw(tab, card, V.KW_INVOCATION) and favored(st, p):
        s += 1
    for j in range(n_units(st, c, p)):
        src = slot_card(st, c, p, j)
        if (
            card_col(tab, src, L.K_STATIC)
            and can_resolve(st, tab, p, src)
            and not enraged(st, c, p, j)
        ):
            s += _static_sum(st, tab, p, c, src, V.OP_STRENGTH, c, card)
    return max(s, 0)


@kernel
def cost_modifier(st, tab, p, c):
    """Change to the cost of any unit seat ``p`` plays into city ``c`` (ongoing effects)."""
    total = 0
    for cc in range(L.N_CITIES):
        for i in range(n_units(st, cc, p)):
            src = slot_card(st, cc, p, i)
            if (
                card_col(tab, src, L.K_STATIC)
                and can_resolve(st, tab, p, src)
                and not enraged(st, cc, p, i)
            ):
                total += _static_sum(st, tab, p, cc, src, V.OP_COST, c, -1)
    return total


@kernel(inline=True)
def cost_modifiers(st, tab, p, at, stride):
    """``cost_modifier`` of seat ``p`` for every city at once, into ``st[at + stride * c]``.

    One pass over the seat's units instead of a pass to find any ongoing effect and
    then one per city (the Surge asks for all three cities at every decision, issue
    15). The same integer sums as ``cost_modifier``, added in another order. Inlined:
    as a call it cost Reign, where no unit has an ongoing effect, 2% a turn.
    """
    for c in range(L.N_CITIES):
        st[at + stride * c] = 0
    for cc in range(L.N_CITIES):
        for i in range(n_units(st, cc, p)):
            src = slot_card(st, cc, p, i)
            if (
                card_col(tab, src, L.K_STATIC)
                and can_resolve(st, tab, p, src)
                and not enraged(st, cc, p, i)
            ):
                for c in range(L.N_CITIES):
                    st[at + stride * c] += _static_sum(st, tab, p, cc, src, V.OP_COST, c, -1)


@kernel
def side_strength(st, tab, c, p):
    """Total strength of seat ``p``'s units in city ``c`` (War step)."""
    total = 0
    for i in range(n_units(st, c, p)):
        total += slot_strength(st, tab, c, p, i)
    return total


@kernel(inline=True)
def side_cost(st, tab, c, p):
    """Total printed cost of seat ``p``'s units in city ``c`` (the war tie-break)."""
    total = 0
    for i in range(n_units(st, c, p)):
        total += card_col(tab, slot_card(st, c, p, i), L.K_COST)
    return total


@kernel
def play_cost(st, tab, p, card, c):
    """Coins seat ``p`` pays to play ``card`` into city ``c`` (ongoing modifiers, min 0)."""
    return max(card_col(tab, card, L.K_COST) + cost_modifier(st, tab, p, c), 0)


@kernel(inline=True)
def is_war_torn(st, tab, c, active):
    """War-torn test: tiles remain and the opponent fills >= 3 slots or both >= 5."""
    if st[L.STACK_N + c] == 0:
        return False  # a city without tiles is never war-torn again
    opp = side_weight(st, tab, c, 1 - active)
    total = opp + side_weight(st, tab, c, active)
    return opp >= rule(tab, L.RU_WARTORN_ENEMY) or total >= rule(tab, L.RU_WARTORN_TOTAL)
