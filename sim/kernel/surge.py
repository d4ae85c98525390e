"""Surge step: play units, RALLY, use one reward tile, then end-of-Surge abilities."""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import board as B
from sim.kernel import decisions as D
from sim.kernel import trace as T
from sim.kernel import zones as Z
from sim.kernel.abilities import find_ability, run_ability, run_trigger
from sim.kernel.tab import (
    abil_col,
    card_col,
    card_kind,
    kind_col,
    reward_col,
    rule,
    struct_col,
    tile_kind,
)
from sim.kernel.zones import opt, put_opt

MAX_ACTIONS = 64  # plays + reward uses in one Surge; capacity bounds it far lower


@kernel
def mark_played(st, tab, p, card):
    """Record that seat ``p`` played a unit of ``card``'s kind (for the output)."""
    k = card_kind(tab, card)
    st[L.PLAYED + p * L.MASK_WORDS + (k >> 5)] |= 1 << (k & 31)
    st[L.PLAYED_N + p] += 1


@kernel
def takes_discount(st, tab, p, card):
    """Whether ``card`` is a unit the first-devoted-unit discount applies to, for seat ``p``.

    Dunes, Devotion and Favor: "The first time during a player's turn that they play a
    unit devoted to their god"; reading ``discount_unit``: with RU_DISCOUNT_ANY_DEVOTED,
    line 88's "the first devoted unit played", devoted to either god.
    """
    if st[L.GOD + p] == 0:
        return False
    if rule(tab, L.RU_DISCOUNT_ANY_DEVOTED):
        return card_col(tab, card, L.K_DEVOTION) != 0
    return B.devoted_to_own(st, tab, p, card)


@kernel
def surge_options(st, tab, fp, ask, p):
    """Fill the legal Surge options; returns how many (option 0 is to pass)."""
    put_opt(st, 0, D.ACT_PASS, 0, 0, 0)
    n = 1
    coins = st[L.COINS + p]
    hn = st[L.HAND_N + p]
    # Room and cost modifier depend on the city only: work them out once.
    for c in range(L.N_CITIES):
        st[L.CITY_SCRATCH + 2 * c] = B.room(st, tab, c, p)
    B.cost_modifiers(st, tab, p, L.CITY_SCRATCH + 1, 2)
    for wd in range(L.MASK_WORDS):
        st[L.SEEN_KINDS + wd] = 0
    for i in range(hn):
        card = Z.hand_card(st, p, i)
        k = card_kind(tab, card)
        # Two copies of a kind are the same play: offer only the first. A bit per
        # kind, not a rescan of the hand before it (two dependent loads a card,
        # and a loop of data-dependent length; `benchmarks/bench_min.py` times the turn).
        bit = 1 << (k & 31)
        if st[L.SEEN_KINDS + (k >> 5)] & bit:
            continue
        st[L.SEEN_KINDS + (k >> 5)] |= bit
        w = B.weight(tab, card)
        base_cost = kind_col(tab, k, L.K_COST)
        # Dunes, Devotion and Favor: the first unit devoted to your god each turn.
        if st[L.DISCOUNT_USED] == 0 and takes_discount(st, tab, p, card):
            base_cost -= rule(tab, L.RU_DEVOTED_DISCOUNT)
        for c in range(L.N_CITIES):
            cost = max(base_cost + st[L.CITY_SCRATCH + 2 * c + 1], 0)
            # Written whether or not it is legal, and counted only if it is: whether a
            # unit fits and is affordable is a coin toss to the branch predictor. The
            # row after the last option is never read.
            put_opt(st, n, D.ACT_PLAY, i, c, cost)
            n += (w <= st[L.CITY_SCRATCH + 2 * c]) & (cost <= coins)
        # Reign, Surge: "to use a beast's ability, pay its cost, resolve the
        # ability, then discard the card". Reading beast_one_ability: "the ability" is the
        # card's first beast block.
        a = find_ability(tab, card, V.TR_BEAST)
        if a >= 0 and kind_col(tab, k, L.K_COST) <= coins:
            put_opt(st, n, D.ACT_BEAST, i, a, kind_col(tab, k, L.K_COST))
            n += 1
        if n > L.MAX_OPTS - L.N_CITIES - 2 - L.MAX_REWARDS:
            break  # never overflow the options buffer (only a huge Reign hand gets here)
    if st[L.REWARDS_USED_TURN] < rule(tab, L.RU_REWARDS_PER_SURGE):
        for r in range(st[L.REW_N + p]):
            if st[L.REW_USED + p * L.MAX_REWARDS + r] == 0:
                put_opt(st, n, D.ACT_REWARD, r, st[L.REW + p * L.MAX_REWARDS + r], 0)
                n += 1
    return n


@kernel
def rally(st, tab, fp, ask, p, c):
    """After a unit is added to ``c``: pay for any RALLY abilities of one's units there.

    Aegean, Unit Card Types (Myrmidons): the new unit's own RALLY or those of
    units already in the city, each at most once per unit added.
    """
    if B.total(st, c, p, L.TOT_RALLY) == 0:
        put_opt(st, 0, -1, 0, 0, 0)  # the options as the scan would leave them
        return  # no unit here has a RALLY ability (the running totals)
    nd = 0  # st[L.TMP + :nd]: units already rallied for this addition
    for _ in range(L.N_SLOTS):
        put_opt(st, 0, -1, 0, 0, 0)
        n = 1
        for i in range(B.n_units(st, c, p)):
            card = B.slot_card(st, c, p, i)
            if not B.can_resolve(st, tab, p, card):
                continue
            seen = False
            for j in range(nd):
                if st[L.TMP + j] == card:
                    seen = True
            if seen:
                continue
            a = find_ability(tab, card, V.TR_RALLY)
            if a < 0:
                continue
            cost = abil_col(tab, a, L.A_COST)
            if cost <= st[L.COINS + p]:
                put_opt(st, n, i, card, cost, a)
                n += 1
        if n == 1:
            return
        k = ask(st, tab, fp, p, D.D_RALLY, n)
        if opt(st, k, 0) < 0:
            return
        card = opt(st, k, 1)
        a = opt(st, k, 3)
        prev = T.push_cause(st, E.CA_CARD, card)  # the RALLY's cost is paid for its unit
        Z.pay_coins(st, p, opt(st, k, 2))
        T.pop_cause(st, prev)
        st[L.TMP + nd] = card
        nd += 1
        run_ability(st, tab, fp, ask, p, a, c, card)


@kernel
def flip_favor(st, tab, card):
    """Dunes, Favor: playing a unit devoted to the god not Favored flips the Favor card.

    A unit devoted to both gods always flips it; neutral units never do. Reading
    ``dunes_favor_flip``: with RU_NEUTRAL_FLIPS neutral units flip it too.
    """
    dev = card_col(tab, card, L.K_DEVOTION)
    if st[L.FAVOR] == 0 or (dev == V.DEV_NEUTRAL and not rule(tab, L.RU_NEUTRAL_FLIPS)):
        return
    if dev == V.DEV_BOTH or dev != st[L.FAVOR]:
        st[L.FAVOR] = V.DEV_BOTH - st[L.FAVOR]
        T.event(st, E.EV_FAVOR, -1, st[L.FAVOR], card, 0, 0)


@kernel
def reinforce(st, tab, fp, ask, p, c):
    """Dunes, Followers: resolve the REINFORCE ability of one unit devoted to your god in ``c``."""
    put_opt(st, 0, -1, 0, 0, 0)
    if B.total(st, c, p, L.TOT_REINFORCE) == 0:
        return  # no unit here has a REINFORCE ability (the running totals)
    n = 1
    for i in range(B.n_units(st, c, p)):
        card = B.slot_card(st, c, p, i)
        if not B.devoted_to_own(st, tab, p, card):
            continue
        a = find_ability(tab, card, V.TR_REINFORCE)
        if a >= 0:
            put_opt(st, n, i, card, a, 0)
            n += 1
    if n == 1:
        return
    k = ask(st, tab, fp, p, D.D_REINFORCE, n)
    if opt(st, k, 0) >= 0:
        run_ability(st, tab, fp, ask, p, opt(st, k, 2), c, opt(st, k, 1))


@kernel
def play_unit(st, tab, fp, ask, p, hand_i, c, cost):
    """Pay and add the unit to city ``c``; then Favor, its abilities, REINFORCE and RALLY.

    Dunes, Devotion and Favor: "check the unit's devotion prior to resolving
    any abilities". Reading ``after_play_order``: the RALLY window comes last,
    after everything the play triggers.
    """
    T.event(st, E.EV_PLAY, p, cost, Z.hand_card(st, p, hand_i), c, 0)
    Z.pay_coins(st, p, cost)
    card = Z.hand_take(st, p, hand_i)
    B.city_add(st, tab, c, p, card)
    mark_played(st, tab, p, card)
    devoted = st[L.GOD + p] != 0 and B.devoted_to_own(st, tab, p, card)
    if takes_discount(st, tab, p, card):
        st[L.DISCOUNT_USED] = 1
    flip_favor(st, tab, card)
    run_trigger(st, tab, fp, ask, p, card, V.TR_PLAY, c)
    if B.favored(st, p):
        run_trigger(st, tab, fp, ask, p, card, V.TR_INVOCATION, c)
    run_trigger(st, tab, fp, ask, p, card, V.TR_MANEUVER, c)
    if devoted:
        reinforce(st, tab, fp, ask, p, c)
    rally(st, tab, fp, ask, p, c)


@kernel
def use_reward(st, tab, fp, ask, p, r):
    """Flip reward tile ``r`` of seat ``p`` face up and resolve its ability."""
    st[L.REW_USED + p * L.MAX_REWARDS + r] = 1
    st[L.REWARDS_USED_TURN] += 1
    tile = st[L.REW + p * L.MAX_REWARDS + r]
    T.event(st, E.EV_USE, p, 1, tile, 0, 0)
    prev = T.push_cause(st, E.CA_TILE, tile)
    rk = tile_kind(tab, tile)
    a0 = reward_col(tab, rk, L.R_ABIL_START)
    for a in range(a0, a0 + reward_col(tab, rk, L.R_ABIL_N)):
        run_ability(st, tab, fp, ask, p, a, -1, -1)
    T.pop_cause(st, prev)


@kernel
def exalt(st, tab, p, card):
    """EXALT: if the condition holds and a VP token is left, the unit leaves play with it."""
    a = find_ability(tab, card, V.TR_EXALT)
    if a < 0 or not B.can_resolve(st, tab, p, card):
        return
    loc = B.find_unit(st, card)
    if loc < 0:
        return
    c = B.loc_city(loc)
    if not B.condition(
        st, tab, p, c, card, abil_col(tab, a, L.A_COND), abil_col(tab, a, L.A_COND_N)
    ):
        return
    if st[L.VP_SUPPLY] == 0:
        return
    T.event(st, E.EV_EXALT, p, 1, card, c, 0)
    prev = T.push_cause(st, E.CA_CARD, card)
    B.city_take(st, tab, c, p, B.loc_slot(loc))
    Z.out_add(st, p, card)
    Z.gain_vp_tokens(st, p, 1)
    T.pop_cause(st, prev)


@kernel
def surge_end(st, tab, fp, ask, p):
    """Resolve end-of-Surge abilities (Keres), each followed by its EXALT check."""
    if B.seat_total(st, p, L.TOT_SURGE_END) == 0:
        return  # no unit of seat p has an end-of-Surge ability (the running totals)
    # Snapshot first: abilities and EXALT move units, so slots shift under us.
    m = 0
    for c in range(L.N_CITIES):
        for i in range(B.n_units(st, c, p)):
            card = B.slot_card(st, c, p, i)
            if find_ability(tab, card, V.TR_SURGE_END) >= 0:
                st[L.TMP2 + m] = card
                m += 1
    for j in range(m):
        card = st[L.TMP2 + j]
        loc = B.find_unit(st, card)
        if loc < 0 or B.loc_seat(loc) != p:
            continue
        run_trigger(st, tab, fp, ask, p, card, V.TR_SURGE_END, B.loc_city(loc))
        exalt(st, tab, p, card)


@kernel
def unleash_beast(st, tab, fp, ask, p, hand_i, a, cost):
    """Reign: pay a Beast's cost, resolve its ability (row ``a``, the card's first ``beast``
    block: reading ``beast_one_ability``), then discard it."""
    T.event(st, E.EV_BEAST, p, cost, Z.hand_card(st, p, hand_i), 0, 0)
    Z.pay_coins(st, p, cost)
    card = Z.hand_take(st, p, hand_i)
    mark_played(st, tab, p, card)
    run_ability(st, tab, fp, ask, p, a, -1, card)
    Z.discard_card(st, p, card)


@kernel
def _resolve_structure(st, tab, fp, ask, p, row):
    """Resolve the abilities of seat ``p``'s completed structure ``row``."""
    prev = T.push_cause(st, E.CA_STRUCT, row)
    a0 = struct_col(tab, row, L.S_ABIL_START)
    for a in range(a0, a0 + struct_col(tab, row, L.S_ABIL_N)):
        run_ability(st, tab, fp, ask, p, a, -1, -1)
    T.pop_cause(st, prev)


@kernel
def _release_under(st, p, i):
    """Reading ``structure_cards = "leave"``: the cards under structure slot ``i`` of seat
    ``p`` go to the discard pile as it is flipped. Under that reading a structure's cards are
    the last ones tucked (an earlier structure's left at its own flip)."""
    k = st[L.STRUCT_UNDER + i]
    for _ in range(min(k, st[L.UNDER_N + p])):
        st[L.UNDER_N + p] -= 1
        Z.discard_card(st, p, st[L.UNDER + p * L.MAX_CARDS + st[L.UNDER_N + p]])
    st[L.STRUCT_UNDER + i] = 0


@kernel
def complete_structures(st, tab, fp, ask, p):
    """Dunes, Surge Step: structures with at least their build cost underneath flip and resolve.

    Readings ``structure_ability`` and ``structure_cards``: with RU_STRUCT_EACH_SURGE a
    completed structure's ability resolves again at the start of each later Surge step; with
    RU_STRUCT_CARDS_LEAVE the cards under a structure go to the discard pile as it flips.
    """
    again = rule(tab, L.RU_STRUCT_EACH_SURGE)
    for s in range(L.MAX_STRUCTS):
        i = p * L.MAX_STRUCTS + s
        row = st[L.STRUCT_KIND + i]
        if row < 0:
            continue
        if st[L.STRUCT_DONE + i]:
            if again:
                _resolve_structure(st, tab, fp, ask, p, row)
            continue
        if st[L.STRUCT_UNDER + i] >= struct_col(tab, row, L.S_BUILD_COST):
            st[L.STRUCT_DONE + i] = 1
            T.event(st, E.EV_STRUCTURE, p, 1, row, s, 0)
            if rule(tab, L.RU_STRUCT_CARDS_LEAVE):
                _release_under(st, p, i)
            _resolve_structure(st, tab, fp, ask, p, row)


@kernel
def surge_begin(st, tab, fp, ask):
    """What happens before the first Surge action: counters reset, structures completed."""
    st[L.REWARDS_USED_TURN] = 0
    st[L.DISCOUNT_USED] = 0
    complete_structures(st, tab, fp, ask, st[L.ACTIVE])


@kernel
def surge_apply(st, tab, fp, ask, p, k):
    """Take Surge option ``k`` of ``st[OPTS]`` for seat ``p``; returns 1 when it is the pass."""
    act = opt(st, k, 0)
    if act == D.ACT_PASS:
        return 1
    if act == D.ACT_PLAY:
        play_unit(st, tab, fp, ask, p, opt(st, k, 1), opt(st, k, 2), opt(st, k, 3))
    elif act == D.ACT_BEAST:
        unleash_beast(st, tab, fp, ask, p, opt(st, k, 1), opt(st, k, 2), opt(st, k, 3))
    else:
        use_reward(st, tab, fp, ask, p, opt(st, k, 1))
    return 0


@kernel
def surge_rest(st, tab, fp, ask, actions):
    """The active seat's bot takes Surge actions until it passes, then the Surge ends.

    ``actions`` counts the actions already taken this Surge, so a look-ahead
    rollout that starts mid-Surge keeps the same bound as the real Surge; the
    count is in ``st[SURGE_ACTIONS]`` while the bot is asked, for that rollout
    (0 outside a Surge, so a state never differs by it after the step).
    """
    p = st[L.ACTIVE]
    for a in range(actions, MAX_ACTIONS):
        st[L.SURGE_ACTIONS] = a
        n = surge_options(st, tab, fp, ask, p)
        if surge_apply(st, tab, fp, ask, p, ask(st, tab, fp, p, D.D_SURGE, n)):
            break
    st[L.SURGE_ACTIONS] = 0  # only meaningful while a Surge choice is asked
    surge_end(st, tab, fp, ask, p)


@kernel
def surge_step(st, tab, fp, ask):
    """The active seat plays units and uses a reward tile until it passes."""
    surge_begin(st, tab, fp, ask)
    surge_rest(st, tab, fp, ask, 0)
