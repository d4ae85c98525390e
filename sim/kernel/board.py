"""Cities: units on each side, capacity, strength, unit cost and war-torn state.

Ongoing (TR_STATIC) abilities are not stored anywhere: they are read off the
units in play whenever a strength or a cost is asked for, so a unit that
leaves a city takes its effect with it and nothing can go stale.
"""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import trace as T
from sim.kernel import zones as Z
from sim.kernel.tab import abil_col, card_col, card_kind, kind_col, op_col, rule


@kernel
def side(c, p):
    """Index of seat ``p``'s side of city ``c`` (for SIDE_N and SLOT)."""
    return 2 * c + p


@kernel
def slot_card(st, c, p, i):
    """Card in slot ``i`` of seat ``p``'s side of city ``c``."""
    return st[L.SLOT + side(c, p) * L.N_SLOTS + i]


@kernel
def n_units(st, c, p):
    """Cards on seat ``p``'s side of city ``c``."""
    return st[L.SIDE_N + side(c, p)]


@kernel
def has_kw(tab, card, kw):
    """Whether ``card`` carries keyword bit ``kw``."""
    return (card_col(tab, card, L.K_KEYWORDS) & kw) != 0


@kernel
def weight(tab, card):
    """Unit-slots a card fills: COLOSSAL units and Reign Beasts count 2.

    Both count 2 for capacity, war-torn and keeping (Reign: "a beast counts as
    2 (also when combined with other games)").
    """
    if has_kw(tab, card, V.KW_COLOSSAL) or card_col(tab, card, L.K_TYPE) == V.T_BEAST:
        return 2
    return 1


@kernel
def enraged(st, c, p, i):
    """Whether the unit in slot ``i`` of seat ``p``'s side of city ``c`` is enraged."""
    return st[L.ENRAGED + side(c, p) * L.N_SLOTS + i] != 0


@kernel
def slot_type(st, tab, c, p, i):
    """The type (``vocab.T_*``) of the unit in a slot: an enraged unit is a Beast."""
    if enraged(st, c, p, i):
        return V.T_BEAST
    return card_col(tab, slot_card(st, c, p, i), L.K_TYPE)


@kernel
def slot_weight(st, tab, c, p, i):
    """Unit-slots the unit in a slot fills: an enraged unit is a Beast and counts 2."""
    if enraged(st, c, p, i):
        return 2
    return weight(tab, slot_card(st, c, p, i))


@kernel
def total(st, c, p, col):
    """Running total ``col`` (``layout.TOT_*``) of seat ``p``'s side of city ``c``."""
    return st[L.SIDE_TOT + side(c, p) * L.TOT_COLS + col]


@kernel
def seat_total(st, p, col):
    """Running total ``col`` of seat ``p``'s sides of every city."""
    t = 0
    for c in range(L.N_CITIES):
        t += total(st, c, p, col)
    return t


@kernel
def tally(st, tab, c, p, card, rage, sign):
    """Add (``sign`` 1) or take away (-1) one unit's share of its side's running totals.

    The one place that says what a unit adds to each total, so the totals and
    a rescan of the slots (``resync_totals``) cannot disagree on it.
    """
    t = L.SIDE_TOT + side(c, p) * L.TOT_COLS
    st[t + L.TOT_COST] += sign * card_col(tab, card, L.K_COST)
    trig = card_col(tab, card, L.K_TRIGGERS)
    if trig & (1 << V.TR_RALLY):
        st[t + L.TOT_RALLY] += sign
    if trig & (1 << V.TR_REINFORCE):
        st[t + L.TOT_REINFORCE] += sign
    if trig & (1 << V.TR_SURGE_END):
        st[t + L.TOT_SURGE_END] += sign
    if rage:
        # Reign, Enrage: "it counts as a beast of strength 4 with no abilities".
        st[t + L.TOT_WEIGHT] += 2 * sign
        st[t + L.TOT_TEXT_UNITS] += 2 * sign
        st[t + L.TOT_STRENGTH] += sign * rule(tab, L.RU_ENRAGED_STRENGTH)
        return
    st[t + L.TOT_WEIGHT] += sign * weight(tab, card)
    st[t + L.TOT_STRENGTH] += sign * card_col(tab, card, L.K_STRENGTH)
    kind = card_col(tab, card, L.K_TYPE)
    st[t + L.TOT_TEXT_UNITS] += sign * (2 if kind == V.T_BEAST else 1)
    if kind == V.T_SOLDIER:
        st[t + L.TOT_SOLDIERS] += sign
    if has_kw(tab, card, V.KW_INVOCATION):
        st[t + L.TOT_INVOKE] += sign
    fx = card_col(tab, card, L.K_STATIC)
    if fx & L.STATIC_COST:
        st[t + L.TOT_COST_FX] += sign
    if fx & L.STATIC_STRENGTH:
        st[t + L.TOT_STRENGTH_FX] += sign


@kernel
def resync_totals(st, tab):
    """Recompute every side's running totals from its slots.

    For positions written from Python (``sim.run.positions``, tests that poke
    the state): the kernel itself keeps the totals as it moves units.
    """
    for s in range(2 * L.N_CITIES * L.TOT_COLS):
        st[L.SIDE_TOT + s] = 0
    for c in range(L.N_CITIES):
        for p in range(2):
            for i in range(n_units(st, c, p)):
                tally(st, tab, c, p, slot_card(st, c, p, i), enraged(st, c, p, i), 1)


@kernel
def side_weight(st, tab, c, p):
    """Unit-slots used on seat ``p``'s side of city ``c`` (a running total)."""
    return total(st, c, p, L.TOT_WEIGHT)


@kernel
def text_units(st, tab, c, p):
    """Seat ``p``'s units in city ``c`` as a card or feat text counts them (reading
    ``units_in_card_texts``): a Beast or an enraged unit 2 ("a beast always counts as 2
    units"), any other unit 1, since the Aegean and Dunes books give a COLOSSAL unit its 2
    only for the capacity, the war-torn test and the keep. Under the other reading, the
    capacity's count. Both are running totals: the conditions of ongoing strength effects
    ask for them whenever a side's strength is worked out."""
    if rule(tab, L.RU_TEXT_UNITS_CAPACITY):
        return side_weight(st, tab, c, p)
    return total(st, c, p, L.TOT_TEXT_UNITS)


@kernel
def soldiers(st, c, p):
    """Soldiers on seat ``p``'s side of city ``c``, enraged ones not counted (a running total)."""
    return total(st, c, p, L.TOT_SOLDIERS)


@kernel
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
def place_unit(st, tab, c, p, card, rage):
    """Put ``card`` on seat ``p``'s side of city ``c``, enraged if ``rage``, with its totals."""
    s = side(c, p)
    n = st[L.SIDE_N + s]
    st[L.SLOT + s * L.N_SLOTS + n] = card
    st[L.ENRAGED + s * L.N_SLOTS + n] = rage
    st[L.SIDE_N + s] = n + 1
    tally(st, tab, c, p, card, rage, 1)


@kernel
def city_add(st, tab, c, p, card):
    """Put ``card`` on seat ``p``'s side of city ``c`` (caller checked ``fits``)."""
    place_unit(st, tab, c, p, card, 0)


@kernel
def city_take(st, tab, c, p, i):
    """Remove and return the card in slot ``i`` of seat ``p``'s side of city ``c``."""
    s = side(c, p)
    base = L.SLOT + s * L.N_SLOTS
    n = st[L.SIDE_N + s] - 1
    card = st[base + i]
    rage = L.ENRAGED + s * L.N_SLOTS
    tally(st, tab, c, p, card, st[rage + i], -1)
    for j in range(i, n):
        st[base + j] = st[base + j + 1]
        st[rage + j] = st[rage + j + 1]
    st[base + n] = L.NO_CARD
    st[rage + n] = 0
    st[L.SIDE_N + s] = n
    return card


@kernel
def city_move(st, tab, f, i, t, p):
    """Move seat ``p``'s unit in slot ``i`` of city ``f`` to city ``t``; it stays enraged."""
    rage = st[L.ENRAGED + side(f, p) * L.N_SLOTS + i]
    T.event(st, E.EV_MOVE, p, 1, slot_card(st, f, p, i), f, t)
    place_unit(st, tab, t, p, city_take(st, tab, f, p, i), rage)


@kernel
def set_enraged(st, tab, c, p, i, rage):
    """Enrage (``rage`` 1) or flip back (0) the unit in a slot, moving its totals with it."""
    f = L.ENRAGED + side(c, p) * L.N_SLOTS + i
    if st[f] == rage:
        return
    card = slot_card(st, c, p, i)
    tally(st, tab, c, p, card, st[f], -1)
    st[f] = rage
    tally(st, tab, c, p, card, rage, 1)


@kernel
def pack_loc(c, p, i):
    """Slot ``i`` of seat ``p``'s side of city ``c`` as one int (``layout.LOC_*``)."""
    return c * L.LOC_CITY + p * L.LOC_SEAT + i


@kernel
def loc_city(loc):
    """The city of a packed location."""
    return loc // L.LOC_CITY


@kernel
def loc_seat(loc):
    """The seat whose side a packed location is on."""
    return (loc // L.LOC_SEAT) % 2


@kernel
def loc_slot(loc):
    """The slot of a packed location on its side."""
    return loc % L.LOC_SEAT


@kernel
def find_unit(st, card):
    """Locate ``card`` in the cities: its packed location (:func:`pack_loc`), or -1."""
    for c in range(L.N_CITIES):
        for p in range(2):
            for i in range(n_units(st, c, p)):
                if slot_card(st, c, p, i) == card:
                    return pack_loc(c, p, i)
    return -1


@kernel
def favored(st, p):
    """Whether seat ``p``'s god is Favored (never, when gods are not in play)."""
    return st[L.FAVOR] != 0 and st[L.FAVOR] == st[L.GOD + p]


@kernel
def devoted_to_own(st, tab, p, card):
    """Whether ``card`` is devoted to seat ``p``'s god (units devoted to both count)."""
    return (card_col(tab, card, L.K_DEVOTION) & st[L.GOD + p]) != 0


@kernel
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
        return text_units(st, tab, c, p) >= n
    if cond == V.C_ENEMY_UNITS_GE:
        return text_units(st, tab, c, 1 - p) >= n
    if cond == V.C_ENEMY_PRESENT:
        return n_units(st, c, 1 - p) > 0
    if cond == V.C_OWN_TYPE_HERE_GE:
        # Reading reign_enraged_type: an enraged Soldier is a Beast, not "another Soldier".
        t = card_col(tab, src, L.K_TYPE)
        k = 0
        for i in range(n_units(st, c, p)):
            if slot_card(st, c, p, i) != src and slot_type(st, tab, c, p, i) == t:
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


@kernel
def slot_strength(st, tab, c, p, i):
    """Strength the unit in slot ``i`` of seat ``p``'s side of ``c`` brings, effects included.

    Strength effects reach only units in their source's city, so only that
    city's units are scanned. Dunes, Unit Card Types (Initiate): "all of a player's
    units with INVOCATION are +1 strength if their god is Favored." Reign, Enrage: an
    enraged unit "counts as a beast of strength 4 with no abilities": 4 stands for its
    printed strength and it loses its own abilities (INVOCATION among them, and it is no
    source below), while the other units' ongoing effects (Aegean Moirai) still reach it,
    as they reach a printed Beast.
    """
    card = slot_card(st, c, p, i)
    if enraged(st, c, p, i):
        s = rule(tab, L.RU_ENRAGED_STRENGTH)
    else:
        s = card_col(tab, card, L.K_STRENGTH)
        if has_kw(tab, card, V.KW_INVOCATION) and favored(st, p):
            s += 1
    for j in range(n_units(st, c, p)):
        src = slot_card(st, c, p, j)
        if (
            card_col(tab, src, L.K_STATIC) & L.STATIC_STRENGTH
            and can_resolve(st, tab, p, src)
            and not enraged(st, c, p, j)
        ):
            s += _static_sum(st, tab, p, c, src, V.OP_STRENGTH, c, card)
    return max(s, 0)


@kernel
def cost_fx_in_play(st, p):
    """Whether any unit of seat ``p`` in play has an ongoing cost op (the running totals)."""
    return seat_total(st, p, L.TOT_COST_FX) != 0


@kernel
def cost_source(st, tab, p, cc, i):
    """The card in slot ``i`` of seat ``p``'s side of ``cc`` if its ongoing cost effect is in
    force (printed, resolvable for ``p``, not enraged away), else -1: the one test both
    ``cost_modifier`` and ``cost_modifiers`` apply."""
    src = slot_card(st, cc, p, i)
    if (
        card_col(tab, src, L.K_STATIC) & L.STATIC_COST
        and can_resolve(st, tab, p, src)
        and not enraged(st, cc, p, i)
    ):
        return src
    return -1


@kernel
def cost_modifier(st, tab, p, c):
    """Change to the cost of any unit seat ``p`` plays into city ``c`` (ongoing effects).

    0 at once when no unit of seat ``p`` in play has an ongoing cost op (the
    running totals say so); otherwise read off the units.
    """
    if not cost_fx_in_play(st, p):
        return 0
    s = 0
    for cc in range(L.N_CITIES):
        for i in range(n_units(st, cc, p)):
            src = cost_source(st, tab, p, cc, i)
            if src >= 0:
                s += _static_sum(st, tab, p, cc, src, V.OP_COST, c, -1)
    return s


@kernel
def cost_modifiers(st, tab, p, at, stride):
    """``cost_modifier`` of seat ``p`` for every city at once, into ``st[at + stride * c]``.

    One pass over the seat's units instead of one per city (the Surge asks for all
    three cities at every decision). The same integer sums as
    ``cost_modifier``, added in another order. Inlined: as a call it slowed Reign, where
    no unit has an ongoing effect (`benchmarks/bench_min.py --mix reign` times it).
    """
    for c in range(L.N_CITIES):
        st[at + stride * c] = 0
    if not cost_fx_in_play(st, p):
        return
    for cc in range(L.N_CITIES):
        for i in range(n_units(st, cc, p)):
            src = cost_source(st, tab, p, cc, i)
            if src >= 0:
                _add_cost_ops(st, tab, p, cc, src, at, stride)


@kernel
def _add_cost_ops(st, tab, p, cc, src, at, stride):
    """Add the ongoing cost ops of ``src`` (in city ``cc``) to ``st[at + stride * c]`` of each
    city ``c`` they reach: what ``_static_sum`` gives city by city, in one scan of the
    source's ops, each op's condition tested once (it does not depend on the city)."""
    k = card_kind(tab, src)
    a0 = kind_col(tab, k, L.K_ABIL_START)
    for a in range(a0, a0 + kind_col(tab, k, L.K_ABIL_N)):
        if abil_col(tab, a, L.A_TRIGGER) != V.TR_STATIC:
            continue
        o0 = abil_col(tab, a, L.A_OP_START)
        for o in range(o0, o0 + abil_col(tab, a, L.A_OP_N)):
            if op_col(tab, o, L.OP_CODE) != V.OP_COST:
                continue
            if not condition(
                st, tab, p, cc, src, op_col(tab, o, L.OP_COND), op_col(tab, o, L.OP_COND_N)
            ):
                continue
            n = op_col(tab, o, L.OP_N)
            if op_col(tab, o, L.OP_TARGET) == V.TG_SAME_CITY:
                st[at + stride * cc] += n
            else:
                for c in range(L.N_CITIES):
                    st[at + stride * c] += n


@kernel
def strength_scan(st, tab, c, p):
    """Total strength of seat ``p``'s units in city ``c``, unit by unit with every effect.

    The sum of ``slot_strength`` over the side's units, with each source's ops read
    once instead of once per unit they might reach: an op's condition does not depend
    on the unit, only whether it reaches it (itself, the others, or all). A source's
    ops to all units and to the others are summed over the side (``every``, ``others``);
    what differs for the source itself (its own op, not its op to the others) is kept
    per slot in ``st[STRENGTH_SCRATCH:]``. Each unit's strength is then clipped at 0 as
    ``slot_strength`` does, from the same integers.
    """
    n = n_units(st, c, p)
    every = 0
    others = 0
    for j in range(n):
        st[L.STRENGTH_SCRATCH + j] = 0
        src = slot_card(st, c, p, j)
        if (
            card_col(tab, src, L.K_STATIC) & L.STATIC_STRENGTH
            and can_resolve(st, tab, p, src)
            and not enraged(st, c, p, j)
        ):
            e, own, oth = _strength_ops(st, tab, p, c, src)
            every += e
            others += oth
            st[L.STRENGTH_SCRATCH + j] = own - oth
    s = 0
    invoke = favored(st, p)
    for i in range(n):
        if enraged(st, c, p, i):
            # Reign, Enrage: a strength-4 Beast with no abilities of its own; the others'
            # effects reach it (its own scratch is 0: it is no source).
            s += max(rule(tab, L.RU_ENRAGED_STRENGTH) + every + others, 0)
            continue
        card = slot_card(st, c, p, i)
        u = card_col(tab, card, L.K_STRENGTH) + every + others + st[L.STRENGTH_SCRATCH + i]
        if invoke and has_kw(tab, card, V.KW_INVOCATION):
            u += 1
        s += max(u, 0)
    return s


@kernel
def _strength_ops(st, tab, p, cc, src):
    """The ongoing strength ops of ``src`` (in city ``cc``) whose condition holds, summed by
    whom they reach: (every unit of its side, the source itself only, the others only).

    The same walk as ``_add_cost_ops`` with another op code, kept apart: one walk for both,
    returning a fourth sum for the cost's own city, made the kernel slower
    (`benchmarks/bench_min.py`)."""
    every = 0
    own = 0
    others = 0
    k = card_kind(tab, src)
    a0 = kind_col(tab, k, L.K_ABIL_START)
    for a in range(a0, a0 + kind_col(tab, k, L.K_ABIL_N)):
        if abil_col(tab, a, L.A_TRIGGER) != V.TR_STATIC:
            continue
        o0 = abil_col(tab, a, L.A_OP_START)
        for o in range(o0, o0 + abil_col(tab, a, L.A_OP_N)):
            if op_col(tab, o, L.OP_CODE) != V.OP_STRENGTH:
                continue
            if not condition(
                st, tab, p, cc, src, op_col(tab, o, L.OP_COND), op_col(tab, o, L.OP_COND_N)
            ):
                continue
            tg = op_col(tab, o, L.OP_TARGET)
            if tg == V.TG_SELF:
                own += op_col(tab, o, L.OP_N)
            elif tg == V.TG_OWN_OTHERS:
                others += op_col(tab, o, L.OP_N)
            else:
                every += op_col(tab, o, L.OP_N)
    return every, own, others


@kernel
def side_strength(st, tab, c, p):
    """Total strength of seat ``p``'s units in city ``c`` (War step).

    Without an ongoing strength op on the side, the strength is its running
    base total plus the Favored INVOCATION bonus: strength effects reach only
    their source's side (``slot_strength``), and printed strengths are never
    negative (``sim.data.schema``), so no unit's ``max(s, 0)`` clips. Otherwise
    the effects are read off the units (``strength_scan``), as always.
    """
    if total(st, c, p, L.TOT_STRENGTH_FX) == 0:
        s = total(st, c, p, L.TOT_STRENGTH)
        if favored(st, p):
            s += total(st, c, p, L.TOT_INVOKE)
        return s
    return strength_scan(st, tab, c, p)


@kernel
def side_cost(st, tab, c, p):
    """Total printed cost of seat ``p``'s units in city ``c`` (the war tie-break)."""
    return total(st, c, p, L.TOT_COST)


@kernel
def play_cost(st, tab, p, card, c):
    """Coins seat ``p`` pays to play ``card`` into city ``c`` (ongoing modifiers, min 0)."""
    return max(card_col(tab, card, L.K_COST) + cost_modifier(st, tab, p, c), 0)


@kernel
def is_war_torn(st, tab, c, active):
    """War-torn test: tiles remain and the opponent fills >= 3 slots or both >= 5.

    Reading ``war_torn_opponent``: with RU_WARTORN_EITHER the active player's own
    units count against the threshold too.
    """
    if st[L.STACK_N + c] == 0:
        return False  # a city without tiles is never war-torn again
    opp = side_weight(st, tab, c, 1 - active)
    mine = side_weight(st, tab, c, active)
    total = opp + mine
    if rule(tab, L.RU_WARTORN_EITHER) and mine > opp:
        opp = mine
    return opp >= rule(tab, L.RU_WARTORN_ENEMY) or total >= rule(tab, L.RU_WARTORN_TOTAL)
