"""Feat step (A Reign of War): turn completed feat cards face down."""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import board as B
from sim.kernel import trace as T
from sim.kernel.tab import feat_col, rule


@kernel
def feat_met(st, tab, p, f):
    """Whether seat ``p`` meets the condition of feat row ``f`` right now."""
    cond = feat_col(tab, f, L.FT_COND)
    n = feat_col(tab, f, L.FT_N)
    if cond == V.F_TYPE_EACH_CITY:
        t = feat_col(tab, f, L.FT_TYPE)
        for c in range(L.N_CITIES):
            found = False
            for i in range(B.n_units(st, c, p)):
                if B.slot_type(st, tab, c, p, i) == t:
                    found = True
                    break
            if not found:
                return False
        return True
    if cond == V.F_OPP_DISCARDED_GE:
        return st[L.OPP_DISCARDED] >= n
    if cond == V.F_UNITS_ONE_CITY_GE:
        for c in range(L.N_CITIES):
            if B.text_units(st, tab, c, p) >= n:
                return True
        return False
    if cond == V.F_REWARDS_GE:
        return st[L.REW_N + p] >= n
    if cond == V.F_COINS_GE:
        return st[L.COINS + p] >= n
    if cond == V.F_ENRAGED_GE:
        k = 0
        for c in range(L.N_CITIES):
            for i in range(B.n_units(st, c, p)):
                if B.enraged(st, c, p, i):
                    k += 1
        return k >= n
    return False


@kernel
def feat_step(st, tab):
    """Turn face down each feat whose condition the active player now meets.

    Reading ``feat_timing``: with RU_FEATS_EACH_STEP a feat is completed whenever its
    condition is met (reign-of-war.en.md, lines 47-49), checked at the end of every step
    (``turn.run_step`` calls this after each one) for both players; the opponent's
    "opponent discards" feat counts only on its owner's turn, where its count is kept.
    """
    for q in range(2):
        p = st[L.ACTIVE] if q == 0 else 1 - st[L.ACTIVE]
        if q == 1 and not rule(tab, L.RU_FEATS_EACH_STEP):
            return
        for f in range(min(tab[L.TB_N_FEATS], L.MAX_FEATS)):
            if st[L.FEAT_DONE + p * L.MAX_FEATS + f] != 0:
                continue
            if q == 1 and feat_col(tab, f, L.FT_COND) == V.F_OPP_DISCARDED_GE:
                continue
            if feat_met(st, tab, p, f):
                st[L.FEAT_DONE + p * L.MAX_FEATS + f] = 1
                T.event(st, E.EV_FEAT, p, 1, f, 0, 0)


@kernel
def feats_done(st, tab, p):
    """Completed feats of seat ``p``."""
    k = 0
    for f in range(min(tab[L.TB_N_FEATS], L.MAX_FEATS)):
        k += st[L.FEAT_DONE + p * L.MAX_FEATS + f]
    return k
