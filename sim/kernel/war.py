"""War step: resolve war-torn cities, in the order the active player chooses."""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import board as B
from sim.kernel import decisions as D
from sim.kernel import trace as T
from sim.kernel.abilities import destroy_unit
from sim.kernel.tab import rule
from sim.kernel.zones import opt, put_opt


@kernel
def conflict_result(tab, strength, other_strength, soldiers, other_soldiers, cost, other_cost):
    """+1 if the side with the first figures wins a conflict against the other, -1 if it
    loses, 0 if nobody wins: strength, then the set's tie-break.

    Aegean and Dunes break a tie by the higher total cost of the units, Reign by
    more Soldiers (``rules.war_tie_break``). The one statement of who wins a war:
    the War step and the greedy bot's estimate both read it.
    """
    if strength != other_strength:
        return 1 if strength > other_strength else -1
    if rule(tab, L.RU_WAR_TIE) == V.WAR_TIE_SOLDIERS:
        a = soldiers
        o = other_soldiers
    else:
        a = cost
        o = other_cost
    if a != o:
        return 1 if a > o else -1
    return 0


@kernel
def war_winner(st, tab, c, active):
    """Seat that wins the conflict in ``c`` (-1: nobody), by strength then the set's tie-break."""
    q = 1 - active
    r = conflict_result(
        tab,
        B.side_strength(st, tab, c, active),
        B.side_strength(st, tab, c, q),
        B.soldiers(st, c, active),
        B.soldiers(st, c, q),
        B.side_cost(st, tab, c, active),
        B.side_cost(st, tab, c, q),
    )
    if r == 0:
        return -1
    return active if r > 0 else q


@kernel
def keep_options(st, tab, fp, ask, c, p, keep):
    """Every maximal set of seat ``p``'s units in ``c`` filling at most ``keep`` slots.

    A unit fills 1 or 2 slots (``board.slot_weight``): the units filling 2 are read once,
    as a bit set, instead of once per unit of every candidate set.
    """
    m = B.n_units(st, c, p)
    heavy = 0
    for i in range(m):
        if B.slot_weight(st, tab, c, p, i) == 2:
            heavy |= 1 << i
    n = 0
    for mask in range(1 << m):
        w = 0
        for i in range(m):
            if mask & (1 << i):
                w += 1 + ((heavy >> i) & 1)
        if w > keep:
            continue
        maximal = True
        for i in range(m):
            if not mask & (1 << i) and w + 1 + ((heavy >> i) & 1) <= keep:
                maximal = False
                break
        if maximal:
            put_opt(st, n, mask, c, w, 0)
            n += 1
    return n


@kernel
def destroy_unkept(st, tab, c, p, kept):
    """Destroy seat ``p``'s units in ``c`` whose slot is not in the bit set ``kept``."""
    for i in range(B.n_units(st, c, p) - 1, -1, -1):
        if not kept & (1 << i):
            destroy_unit(st, tab, c, p, i)


@kernel
def destroy_down_to(st, tab, fp, ask, c, p, keep):
    """Seat ``p`` chooses which units to keep in ``c`` (``keep`` slots) and destroys the rest.

    COLOSSAL counts 2, so a winner keeping 1 can never keep one.
    """
    n = keep_options(st, tab, fp, ask, c, p, keep)
    destroy_unkept(st, tab, c, p, opt(st, ask(st, tab, fp, p, D.D_KEEP, n), 0))


@kernel
def keep_rest(st, tab, fp, ask, p, k):
    """The rest of a conflict after seat ``p`` chose keep option ``k``: its units not kept are
    destroyed, then (if ``st[WAR_PENDING]`` says so) the other side keeps and destroys.

    A look-ahead bot continues a rollout from a keep choice with it.
    """
    c = opt(st, k, 1)
    destroy_unkept(st, tab, c, p, opt(st, k, 0))
    pending = st[L.WAR_PENDING]
    st[L.WAR_PENDING] = 0
    if pending > 0:
        destroy_down_to(st, tab, fp, ask, c, 1 - p, pending - 1)
    st[L.WARTORN + c] = 0


@kernel
def resolve_conflict(st, tab, fp, ask, c):
    """Resolve war-torn city ``c``: reward to the victor, then both sides destroy down,
    the victor first (reading ``war_keep_order``: the active player first when nobody
    wins)."""
    active = st[L.ACTIVE]
    w = war_winner(st, tab, c, active)
    first = active
    keep = rule(tab, L.RU_LOSER_KEEPS)
    if T.tracing(st):
        s0, s1 = B.side_strength(st, tab, c, 0), B.side_strength(st, tab, c, 1)
        T.event(st, E.EV_CONFLICT, w, 0, c, s0, s1)
    if w >= 0:
        n = st[L.STACK_N + c] - 1
        tile = st[L.STACK + c * L.MAX_STACK + n]
        T.event(st, E.EV_TILE, w, 1, tile, c, 0)
        st[L.STACK_N + c] = n
        r = st[L.REW_N + w]
        st[L.REW + w * L.MAX_REWARDS + r] = tile
        st[L.REW_USED + w * L.MAX_REWARDS + r] = 0
        st[L.REW_N + w] = r + 1
        first = w
        keep = rule(tab, L.RU_WINNER_KEEPS)
    st[L.WAR_PENDING] = 1 + rule(tab, L.RU_LOSER_KEEPS)
    n = keep_options(st, tab, fp, ask, c, first, keep)
    keep_rest(st, tab, fp, ask, first, ask(st, tab, fp, first, D.D_KEEP, n))
    return w


@kernel
def war_order_options(st, tab):
    """Flip the war-torn tokens of the cities at war now and list them; how many."""
    n = 0
    for c in range(L.N_CITIES):
        st[L.WARTORN + c] = 1 if B.is_war_torn(st, tab, c, st[L.ACTIVE]) else 0
        if st[L.WARTORN + c]:
            put_opt(st, n, c, 0, 0, 0)
            n += 1
    return n


@kernel
def war_rest(st, tab, fp, ask, k):
    """The rest of the War step after the active player chose war-order option ``k``: that
    conflict, then the others until none remain (a look-ahead rollout continues with it)."""
    resolve_conflict(st, tab, fp, ask, opt(st, k, 0))
    for _ in range(L.N_CITIES * 4):
        n = war_order_options(st, tab)
        if n == 0:
            return
        resolve_conflict(
            st, tab, fp, ask, opt(st, ask(st, tab, fp, st[L.ACTIVE], D.D_WAR_ORDER, n), 0)
        )


@kernel
def war_step(st, tab, fp, ask):
    """Resolve war-torn cities until none remain, in the order the active player chooses."""
    n = war_order_options(st, tab)
    if n > 0:
        war_rest(st, tab, fp, ask, ask(st, tab, fp, st[L.ACTIVE], D.D_WAR_ORDER, n))
