"""The effect interpreter: resolves ability rows of ``T.abil`` / ``T.ops``.

An ability is a short list of vocabulary operations (see ``sim.base.vocab``). Each
op is mandatory unless flagged "may" (rulebooks: "All unit abilities are
considered to be mandatory unless their text ... contains the word may"), and
does as much as it can when it cannot do all of it (no target, empty supply).
Ongoing ops (strength, cost) are never executed here; ``board`` reads them.
"""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import board as B
from sim.kernel import decisions as D
from sim.kernel import trace as T
from sim.kernel import zones as Z
from sim.kernel.tab import abil_col, card_col, card_kind, kind_col, op_col, rule
from sim.kernel.zones import opt, put_opt


@kernel
def in_target(c, tg, cc):
    """Whether city ``cc`` is among an op's target cities, for a source in city ``c``.

    Without a source city (a reward tile, an offering) every city is a target.
    """
    if c < 0:
        return True
    if tg == V.TG_SAME_CITY:
        return cc == c
    if tg == V.TG_OTHER_CITY:
        return cc != c
    return True


@kernel
def discard_from_hand(st, tab, fp, ask, p, n, reason):
    """Seat ``p`` chooses and discards ``n`` cards from its own hand."""
    for _ in range(n):
        hn = min(st[L.HAND_N + p], L.MAX_OPTS)
        if hn == 0:
            return
        for i in range(hn):
            put_opt(st, i, i, Z.hand_card(st, p, i), reason, 0)
        k = ask(st, tab, fp, p, D.D_DISCARD, hn)
        T.event(st, E.EV_DISCARD, p, 1, opt(st, k, 1), 0, 0)
        Z.discard_card(st, p, Z.hand_take(st, p, opt(st, k, 0)))
        if reason == 0 and p != st[L.ACTIVE]:
            st[L.OPP_DISCARDED] += 1  # for the Reign feat "opponent discards 3 in a turn"


@kernel
def enemy_targets(st, tab, fp, ask, p, c, tg, limit):
    """Fill options with enemy units in the target cities with strength <= limit."""
    q = 1 - p
    n = 0
    for cc in range(L.N_CITIES):
        if not in_target(c, tg, cc):
            continue
        for i in range(B.n_units(st, cc, q)):
            card = B.slot_card(st, cc, q, i)
            # Reading ability_strength: the Strength it brings to a conflict here.
            if limit > 0 and B.slot_strength(st, tab, cc, q, i) > limit:
                continue
            put_opt(st, n, cc, q, i, card)
            n += 1
    return n


@kernel
def destroy_unit(st, tab, c, q, i):
    """Destroy the unit in slot ``i`` of seat ``q``'s side of city ``c``: to the discard pile."""
    T.event(st, E.EV_DESTROY, q, 1, B.slot_card(st, c, q, i), c, 0)
    Z.discard_card(st, q, B.city_take(st, tab, c, q, i))


@kernel
def _hit_enemy(st, tab, fp, ask, p, c, o, to_hand):
    """Destroy (or return to hand) up to N enemy units chosen by seat ``p``."""
    for _ in range(op_col(tab, o, L.OP_N)):
        n = enemy_targets(
            st, tab, fp, ask, p, c, op_col(tab, o, L.OP_TARGET), op_col(tab, o, L.OP_M)
        )
        if n == 0:
            return
        k = ask(st, tab, fp, p, D.D_RETURN if to_hand else D.D_DESTROY, n)
        cc = opt(st, k, 0)
        q = opt(st, k, 1)
        if to_hand:
            T.event(st, E.EV_RETURN, q, 1, opt(st, k, 3), cc, 0)
            Z.hand_add(st, q, B.city_take(st, tab, cc, q, opt(st, k, 2)))
        else:
            destroy_unit(st, tab, cc, q, opt(st, k, 2))


@kernel
def _room_for(st, tab, f, i, t, p):
    """Whether seat ``p``'s unit in slot ``i`` of city ``f`` fits into city ``t``."""
    return B.slot_weight(st, tab, f, p, i) <= B.room(st, tab, t, p)


@kernel
def _note_moved(st, tab, card):
    """Queue a moved Soldier whose play ability triggers again (``soldier_ability_on_move``).

    A move made by an ability that a move triggered is not queued: one level
    only, so a Soldier that moves itself cannot trigger itself without end.
    """
    if not rule(tab, L.RU_SOLDIER_ON_MOVE) or st[L.MOVE_TRIGGERED]:
        return
    if card_col(tab, card, L.K_TYPE) != V.T_SOLDIER or st[L.MOVED_N] >= L.MAX_MOVED:
        return
    for j in range(st[L.MOVED_N]):
        if st[L.MOVED + j] == card:
            return  # queued already: a Soldier resolves once per moving ability
    st[L.MOVED + st[L.MOVED_N]] = card
    st[L.MOVED_N] += 1


@kernel
def _moved_now(st, card):
    """Whether the move op resolving now has moved ``card`` already."""
    for j in range(st[L.MOVED_NOW_N]):
        if st[L.MOVED_NOW + j] == card:
            return True
    return False


@kernel
def _chosen_move(st, tab, fp, ask, p, n):
    """Seat ``p`` picks one of the ``n`` move options (option 0: stop) and makes it.

    The moved unit is noted, so the op's later choices leave it out: "move units
    equal to the indicated number" moves that many units, each once (a unit moved
    into a city and straight out again would be a transfer no single move allows).
    """
    k = ask(st, tab, fp, p, D.D_MOVE, n)
    if opt(st, k, 0) < 0:
        return False
    B.city_move(st, tab, opt(st, k, 0), opt(st, k, 1), opt(st, k, 2), p)
    if st[L.MOVED_NOW_N] < L.N_CITIES * L.N_SLOTS:
        st[L.MOVED_NOW + st[L.MOVED_NOW_N]] = opt(st, k, 3)
        st[L.MOVED_NOW_N] += 1
    _note_moved(st, tab, opt(st, k, 3))
    return True


@kernel
def _move(st, tab, fp, ask, p, c, o):
    """Seat ``p`` moves up to N of its units (each once) from the origin city(ies) to others
    with room."""
    tg = op_col(tab, o, L.OP_TARGET)
    st[L.MOVED_NOW_N] = 0
    for _ in range(op_col(tab, o, L.OP_N)):
        put_opt(st, 0, -1, 0, 0, 0)
        n = 1
        for f in range(L.N_CITIES):
            if not in_target(c, tg, f):
                continue
            for i in range(B.n_units(st, f, p)):
                card = B.slot_card(st, f, p, i)
                if _moved_now(st, card):
                    continue
                for t in range(L.N_CITIES):
                    if t != f and _room_for(st, tab, f, i, t, p):
                        put_opt(st, n, f, i, t, card)
                        n += 1
        if not _chosen_move(st, tab, fp, ask, p, n):
            return


@kernel
def _take_discard(st, tab, fp, ask, p, o):
    """Seat ``p`` takes up to N units (cost <= M) from its discard pile into hand."""
    limit = op_col(tab, o, L.OP_M)
    d = Z.pile_of(st, p)
    for _ in range(op_col(tab, o, L.OP_N)):
        n = 0
        for i in range(st[L.DISC_N + d]):
            card = st[L.DISC + d * L.MAX_CARDS + i]
            if limit > 0 and card_col(tab, card, L.K_COST) > limit:
                continue
            put_opt(st, n, i, card, 0, 0)
            n += 1
        if n == 0:
            return
        k = ask(st, tab, fp, p, D.D_TAKE, n)
        T.event(st, E.EV_TAKE, p, 1, opt(st, k, 1), 0, 0)
        Z.hand_add(st, p, Z.take_discard(st, p, opt(st, k, 0)))


@kernel
def _maneuver(st, tab, fp, ask, p, c, o):
    """MANEUVER n: move up to N of your units without MANEUVER into or out of city ``c``,
    each unit once.

    Dunes, Unit Card Types (Vizier). Reading ``maneuver_count``: with
    RU_MANEUVER_EXACT a MANEUVER the player takes up moves N units, or as many
    as can move (no option to stop early).
    """
    if c < 0:
        return
    first = 0 if rule(tab, L.RU_MANEUVER_EXACT) else 1
    st[L.MOVED_NOW_N] = 0
    for _ in range(op_col(tab, o, L.OP_N)):
        put_opt(st, 0, -1, 0, 0, 0)
        n = first
        for f in range(L.N_CITIES):
            for i in range(B.n_units(st, f, p)):
                card = B.slot_card(st, f, p, i)
                if B.has_kw(tab, card, V.KW_MANEUVER) or _moved_now(st, card):
                    continue
                for t in range(L.N_CITIES):
                    if t == f or (f != c and t != c):
                        continue
                    if _room_for(st, tab, f, i, t, p):
                        put_opt(st, n, f, i, t, card)
                        n += 1
        if n == 0 or not _chosen_move(st, tab, fp, ask, p, n):
            return


@kernel
def _entomb(st, tab, fp, ask, p, c, o, src):
    """ENTOMB: the source unit (target self) or N cards from hand go under your structure."""
    s = Z.current_structure(st, p)
    if s < 0:
        return
    if op_col(tab, o, L.OP_TARGET) == V.TG_SELF:
        loc = B.find_unit(st, src)
        if loc >= 0 and B.loc_seat(loc) == p:
            Z.put_under(st, p, s, B.city_take(st, tab, B.loc_city(loc), p, B.loc_slot(loc)))
        return
    tuck_from_hand(st, tab, fp, ask, p, s, op_col(tab, o, L.OP_N))


@kernel
def tuck_from_hand(st, tab, fp, ask, p, s, n):
    """Seat ``p`` chooses ``n`` cards of its hand (as many as it holds) and puts them under
    its structure ``s`` (ENTOMB; a build under the reading ``build_from = "hand"``)."""
    for _ in range(n):
        hn = st[L.HAND_N + p]
        if hn == 0:
            return
        for i in range(hn):
            put_opt(st, i, i, Z.hand_card(st, p, i), 2, 0)
        k = ask(st, tab, fp, p, D.D_DISCARD, hn)
        Z.put_under(st, p, s, Z.hand_take(st, p, opt(st, k, 0)))


@kernel
def can_enrage(st, tab, c, p, i):
    """Whether seat ``p``'s unit in slot ``i`` of city ``c`` may be enraged.

    Reign, Enrage: only Soldiers and Oracles; an enraged unit counts 2, and a
    unit whose enraging would put its side over capacity is not enraged.
    """
    if B.enraged(st, c, p, i):
        return False
    t = card_col(tab, B.slot_card(st, c, p, i), L.K_TYPE)
    if t != V.T_SOLDIER and t != V.T_ORACLE:
        return False
    return 2 - B.slot_weight(st, tab, c, p, i) <= B.room(st, tab, c, p)


@kernel
def enrage_at(st, tab, c, p, i):
    """Enrage seat ``p``'s unit in slot ``i`` of city ``c``, if the rules allow; True if done."""
    if not can_enrage(st, tab, c, p, i):
        return False
    T.event(st, E.EV_ENRAGE, p, 1, B.slot_card(st, c, p, i), c, 0)
    B.set_enraged(st, tab, c, p, i, 1)
    st[L.ENRAGED_N + p] += 1
    return True


@kernel
def _enrage(st, tab, fp, ask, p, c, o, src):
    """Enrage up to N of your Soldiers/Oracles (the source itself with target self)."""
    tg = op_col(tab, o, L.OP_TARGET)
    if tg == V.TG_SELF:
        loc = B.find_unit(st, src)
        if loc >= 0 and B.loc_seat(loc) == p:
            enrage_at(st, tab, B.loc_city(loc), p, B.loc_slot(loc))
        return
    for _ in range(op_col(tab, o, L.OP_N)):
        n = 0
        for cc in range(L.N_CITIES):
            if not in_target(c, tg, cc):
                continue
            for i in range(B.n_units(st, cc, p)):
                if can_enrage(st, tab, cc, p, i):
                    put_opt(st, n, cc, i, B.slot_card(st, cc, p, i), 0)
                    n += 1
        if n == 0:
            return
        k = ask(st, tab, fp, p, D.D_ENRAGE, n)
        enrage_at(st, tab, opt(st, k, 0), p, opt(st, k, 1))


@kernel
def _reveal_keep(st, tab, fp, ask, p, o):
    """Reveal the top N cards, keep up to M (M=0: all) in hand, discard the rest.

    Reign, Other rules: "A revealed card is discarded unless its text says
    otherwise"; keeping a revealed card is not drawing. Reading
    ``reveal_keep_count``: with RU_REVEAL_KEEP_EXACT the player keeps M, or as many
    as were revealed (no option to stop early).
    """
    n = 0
    for _ in range(min(op_col(tab, o, L.OP_N), L.MAX_REVEALED)):
        card = Z.reveal_deck(st, tab, p)
        if card == L.NO_CARD:
            break
        st[L.REVEALED + n] = card
        n += 1
    keep = op_col(tab, o, L.OP_M)
    if keep == 0:
        keep = n
    # Option 0 stops keeping; under the reading "exactly" the revealed cards overwrite it.
    first = 0 if rule(tab, L.RU_REVEAL_KEEP_EXACT) else 1
    for _ in range(keep):
        put_opt(st, 0, -1, 0, 0, 0)
        m = first
        for j in range(n):
            if st[L.REVEALED + j] >= 0:
                put_opt(st, m, j, st[L.REVEALED + j], 0, 0)
                m += 1
        if m == first:
            break
        k = ask(st, tab, fp, p, D.D_KEEP_REVEALED, m)
        if opt(st, k, 0) < 0:
            break
        T.event(st, E.EV_REVEAL, p, 1, opt(st, k, 1), 0, 0)
        Z.hand_add(st, p, opt(st, k, 1))
        st[L.REVEALED + opt(st, k, 0)] = -1
    for j in range(n):
        if st[L.REVEALED + j] >= 0:
            T.event(st, E.EV_REVEAL, p, 0, st[L.REVEALED + j], 0, 0)
            Z.discard_card(st, p, st[L.REVEALED + j])


@kernel
def run_op(st, tab, fp, ask, p, o, c, src):
    """Resolve op row ``o`` for seat ``p`` from source ``src`` in city ``c`` (-1: none)."""
    code = op_col(tab, o, L.OP_CODE)
    if code == V.OP_STRENGTH or code == V.OP_COST:
        return
    if not B.condition(st, tab, p, c, src, op_col(tab, o, L.OP_COND), op_col(tab, o, L.OP_COND_N)):
        return
    if op_col(tab, o, L.OP_MAY):
        put_opt(st, 0, 1, o, src, 0)
        put_opt(st, 1, 0, o, src, 0)
        if opt(st, ask(st, tab, fp, p, D.D_MAY, 2), 0) == 0:
            return
    n = op_col(tab, o, L.OP_N)
    q = 1 - p
    if code == V.OP_GAIN_COINS:
        Z.gain_coins(st, p, n)
    elif code == V.OP_DRAW:
        Z.draw(st, tab, p, n)
    elif code == V.OP_OPP_DISCARD:
        discard_from_hand(st, tab, fp, ask, q, n, 0)
    elif code == V.OP_DESTROY:
        _hit_enemy(st, tab, fp, ask, p, c, o, False)
    elif code == V.OP_RETURN_ENEMY:
        _hit_enemy(st, tab, fp, ask, p, c, o, True)
    elif code == V.OP_MOVE:
        _move(st, tab, fp, ask, p, c, o)
    elif code == V.OP_TAKE_DISCARD:
        _take_discard(st, tab, fp, ask, p, o)
    elif code == V.OP_GAIN_VP:
        Z.gain_vp_tokens(st, p, n)
    elif code == V.OP_STEAL_COINS:
        k = min(n, st[L.COINS + q])
        st[L.COINS + q] -= k
        st[L.COINS + p] += k
        T.event(st, E.EV_STEAL, p, k, q, st[L.COINS + q], st[L.COINS + p])
    elif code == V.OP_OPP_LOSE_COINS:
        Z.pay_coins(st, q, n)
    elif code == V.OP_GAIN_COINS_PER_UNIT and c >= 0:
        Z.gain_coins(st, p, n * B.text_units(st, tab, c, p))
    elif code == V.OP_MANEUVER:
        _maneuver(st, tab, fp, ask, p, c, o)
    elif code == V.OP_ENTOMB:
        _entomb(st, tab, fp, ask, p, c, o, src)
    elif code == V.OP_GAIN_FAVOR:
        if st[L.GOD + p] != 0:
            st[L.FAVOR] = st[L.GOD + p]
            T.event(st, E.EV_FAVOR, p, st[L.FAVOR], -1, 0, 0)
    elif code == V.OP_ENRAGE:
        _enrage(st, tab, fp, ask, p, c, o, src)
    elif code == V.OP_REVEAL_KEEP:
        _reveal_keep(st, tab, fp, ask, p, o)
    elif code == V.OP_BUILD_FROM_DECK:
        s = Z.current_structure(st, p)
        if s >= 0:
            Z.build_from_deck(st, tab, p, s, n)


@kernel
def _resolve_ability(st, tab, fp, ask, p, a, c, src):
    """Resolve ability row ``a`` (its condition, then its ops in printed order)."""
    if not B.condition(
        st, tab, p, c, src, abil_col(tab, a, L.A_COND), abil_col(tab, a, L.A_COND_N)
    ):
        return
    prev = T.push_cause(st, E.CA_CARD, src)  # src -1 (a tile, a structure): its caller's
    o0 = abil_col(tab, a, L.A_OP_START)
    for o in range(o0, o0 + abil_col(tab, a, L.A_OP_N)):
        run_op(st, tab, fp, ask, p, o, c, src)
    T.pop_cause(st, prev)


@kernel
def _trigger_once(st, tab, fp, ask, p, card, trigger, c):
    """Resolve every ability of ``card`` with ``trigger``, without the moved Soldiers'."""
    k = card_kind(tab, card)
    if not kind_col(tab, k, L.K_TRIGGERS) & (1 << trigger) or not B.can_resolve(st, tab, p, card):
        return 0
    a0 = kind_col(tab, k, L.K_ABIL_START)
    ran = 0
    for a in range(a0, a0 + kind_col(tab, k, L.K_ABIL_N)):
        if abil_col(tab, a, L.A_TRIGGER) == trigger:
            _resolve_ability(st, tab, fp, ask, p, a, c, card)
            ran += 1
    return ran


@kernel
def _moved_soldiers(st, tab, fp, ask):
    """``soldier_ability_on_move``: the Soldiers the last ability moved resolve their play
    ability again, in the order moved, each in the city it is in now.

    A Soldier no longer in a city, or enraged (a Beast with no abilities, Other
    rules, Enrage), does nothing. Run after the moving ability has resolved, so
    no ability is interrupted; the queue is empty unless the rule is on.
    """
    m = st[L.MOVED_N]
    if m == 0 or st[L.MOVE_TRIGGERED]:
        return
    st[L.MOVE_TRIGGERED] = 1
    for j in range(m):
        card = st[L.MOVED + j]
        loc = B.find_unit(st, card)
        if loc < 0:
            continue
        c = B.loc_city(loc)
        q = B.loc_seat(loc)
        if B.enraged(st, c, q, B.loc_slot(loc)):
            continue
        _trigger_once(st, tab, fp, ask, q, card, V.TR_PLAY, c)
    st[L.MOVED_N] = 0
    st[L.MOVE_TRIGGERED] = 0


@kernel
def run_ability(st, tab, fp, ask, p, a, c, src):
    """Resolve ability row ``a``, then the play abilities of the Soldiers it moved."""
    _resolve_ability(st, tab, fp, ask, p, a, c, src)
    _moved_soldiers(st, tab, fp, ask)


@kernel
def _fire_trigger(st, tab, fp, ask, p, card, trigger, c):
    """``run_trigger`` once the card has an ability with ``trigger`` (or moves are queued)."""
    ran = _trigger_once(st, tab, fp, ask, p, card, trigger, c)
    _moved_soldiers(st, tab, fp, ask)
    return ran


@kernel
def run_trigger(st, tab, fp, ask, p, card, trigger, c):
    """Resolve every ability of ``card`` with ``trigger``; returns how many ran.

    Nothing runs for a unit devoted to the other god (Dunes, Devotion). The
    Soldiers those abilities moved then resolve theirs (``_moved_soldiers``).
    Most cards have no ability for most triggers: that case is answered here,
    inlined into the caller, without a call (three such calls a play).
    """
    if st[L.MOVED_N] == 0 and not kind_col(tab, card_kind(tab, card), L.K_TRIGGERS) & (
        1 << trigger
    ):
        return 0
    return _fire_trigger(st, tab, fp, ask, p, card, trigger, c)


@kernel
def find_ability(tab, card, trigger):
    """First ability row of ``card`` with ``trigger``, or -1."""
    k = card_kind(tab, card)
    if not kind_col(tab, k, L.K_TRIGGERS) & (1 << trigger):
        return -1  # the usual case, answered without scanning the abilities
    a0 = kind_col(tab, k, L.K_ABIL_START)
    for a in range(a0, a0 + kind_col(tab, k, L.K_ABIL_N)):
        if abil_col(tab, a, L.A_TRIGGER) == trigger:
            return a
    return -1
