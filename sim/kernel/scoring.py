"""End of game: the score, its components, and the tie-breaks of the base set."""

from __future__ import annotations

from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel.tab import card_col, rule, struct_col


@kernel
def rewards_used(st, p):
    """Reward tiles seat ``p`` has used (face up)."""
    k = 0
    for r in range(st[L.REW_N + p]):
        k += st[L.REW_USED + p * L.MAX_REWARDS + r]
    return k


@kernel
def treasured_in_hand(st, tab, p):
    """TREASURED units in seat ``p``'s hand."""
    k = 0
    for i in range(st[L.HAND_N + p]):
        card = st[L.HAND + p * L.MAX_CARDS + i]
        if card_col(tab, card, L.K_KEYWORDS) & V.KW_TREASURED:
            k += 1
    return k


@kernel
def structures_into(st, tab, out, p):
    """Completed structures of seat ``p`` and their VP, into an output row."""
    n = 0
    vp = 0
    for s in range(L.MAX_STRUCTS):
        i = p * L.MAX_STRUCTS + s
        if st[L.STRUCT_KIND + i] >= 0 and st[L.STRUCT_DONE + i]:
            n += 1
            vp += struct_col(tab, st[L.STRUCT_KIND + i], L.S_VP)
    out[L.O_STRUCT_N + p] = n
    out[L.O_STRUCT_VP + p] = vp


@kernel
def score_into(st, tab, out):
    """Write both seats' scores and components into an output row (O_* columns).

    The score is each component times its weight (``layout.SCORE_TERMS``): unused
    rewards (Reign: reward cards in hand), used ones, VP tokens, TREASURED units in
    hand, completed structures' VP (Dunes, scoring D) and completed feats (Reign).
    """
    out[L.O_FAVOR] = st[L.FAVOR]
    for p in range(2):
        used = rewards_used(st, p)
        unused = st[L.REW_N + p] - used
        tre = treasured_in_hand(st, tab, p)
        vp = st[L.VP + p]
        structures_into(st, tab, out, p)
        out[L.O_GOD + p] = st[L.GOD + p]
        out[L.O_REW_UNUSED + p] = unused
        out[L.O_REW_USED + p] = used
        out[L.O_VP_TOKENS + p] = vp
        out[L.O_TREASURED + p] = tre
        feats = 0
        mask = 0
        for f in range(L.MAX_FEATS):
            if st[L.FEAT_DONE + p * L.MAX_FEATS + f]:
                feats += 1
                mask |= 1 << f
        out[L.O_FEATS + p] = feats
        out[L.O_FEAT_MASK + p] = mask
        out[L.O_ENRAGED + p] = st[L.ENRAGED_N + p]
        out[L.O_SCORE + p] = (
            L.W_REW_UNUSED * unused
            + L.W_REW_USED * used
            + L.W_VP_TOKENS * vp
            + L.W_TREASURED * tre
            + L.W_STRUCT_VP * out[L.O_STRUCT_VP + p]
            + L.W_FEATS * feats
        )


@kernel
def tiebreak_value(out, code, p):
    """A seat's figure for one tie-break code (higher wins)."""
    if code == V.TB_UNUSED_REWARDS:
        return out[L.O_REW_UNUSED + p]
    if code == V.TB_VP_TOKENS:
        return out[L.O_VP_TOKENS + p]
    if code == V.TB_TREASURED:
        return out[L.O_TREASURED + p]
    if code == V.TB_USED_REWARDS:
        return out[L.O_REW_USED + p]
    if code == V.TB_FAVORED:
        return 1 if out[L.O_FAVOR] != 0 and out[L.O_FAVOR] == out[L.O_GOD + p] else 0
    return 0


@kernel
def winner_of(tab, out):
    """The winning seat, or -1 for a shared victory once every tie-break is equal."""
    a = out[L.O_SCORE]
    b = out[L.O_SCORE + 1]
    if a != b:
        return 0 if a > b else 1
    for i in range(L.N_TIEBREAKS):
        code = rule(tab, L.RU_TIEBREAKS + i)
        if code == V.TB_END:
            break
        a = tiebreak_value(out, code, 0)
        b = tiebreak_value(out, code, 1)
        if a != b:
            return 0 if a > b else 1
    return -1
