"""A turn: its steps in order, the end conditions, and handing the turn over."""

from __future__ import annotations

from sim.data import vocab as V
from sim.kernel import layout as L
from sim.kernel.feats import feat_step, feats_done
from sim.kernel.jit import kernel
from sim.kernel.offering import offering_step
from sim.kernel.portent import portent_step
from sim.kernel.surge import surge_step
from sim.kernel.tab import rule
from sim.kernel.war import war_step
from sim.kernel.wealth import wealth_step


@kernel
def end_reason(st, tab):
    """Whether the game ends now (at the end of a turn), as a vocab.ER_* code."""
    empty = 0
    for c in range(L.N_CITIES):
        if st[L.STACK_N + c] == 0:
            empty += 1
    ends = rule(tab, L.RU_END)
    if ends & V.END_ALL_CITIES_EMPTY and empty == L.N_CITIES:
        return V.ER_ALL_CITIES_EMPTY
    if ends & V.END_TWO_CITIES_EMPTY and empty >= 2:
        return V.ER_TWO_CITIES_EMPTY
    if ends & V.END_ALL_STRUCTURES and rule(tab, L.RU_STRUCTS) > 0:
        p = st[L.ACTIVE]
        done = 0
        for s in range(L.MAX_STRUCTS):
            done += st[L.STRUCT_DONE + p * L.MAX_STRUCTS + s]
        if done >= rule(tab, L.RU_STRUCTS):
            return V.ER_ALL_STRUCTURES
    # Reign, Game end: read as either player holding 5 completed feats.
    if ends & V.END_FEATS:
        for p in range(2):
            if feats_done(st, tab, p) >= rule(tab, L.RU_FEATS_TO_END):
                return V.ER_FEATS
    return V.ER_NONE


@kernel
def end_turn(st, tab):
    """Check the end conditions, then hand the turn over (or stop at the turn cap)."""
    st[L.TURN] += 1
    reason = end_reason(st, tab)
    if reason == V.ER_NONE and st[L.TURN] >= rule(tab, L.RU_TURN_CAP):
        reason = V.ER_TURN_CAP
    if reason != V.ER_NONE:
        st[L.GAME_OVER] = 1
        st[L.END_REASON] = reason
    st[L.ACTIVE] = 1 - st[L.ACTIVE]
    st[L.OPP_DISCARDED] = 0  # the count behind a Reign feat is per turn


@kernel
def after_surge(st, tab, fp, ask):
    """The steps of a turn after the Surge, then the end of the turn.

    A Reign of War puts its Portent and Feat steps between Surge and War.
    """
    if rule(tab, L.RU_PORTENT):
        portent_step(st, tab, fp, ask)
    if rule(tab, L.RU_FEAT_STEP):
        feat_step(st, tab)
    war_step(st, tab, fp, ask)
    after_war(st, tab, fp, ask)


@kernel
def after_war(st, tab, fp, ask):
    """The steps of a turn after the War step (the Offering), then the end of the turn."""
    # Reading ``two_stacks_empty_check``: with RU_END_AFTER_WAR the game ends as soon as
    # the War step leaves two stacks empty, without the Offering (Supply) step.
    if not (rule(tab, L.RU_END_AFTER_WAR) and end_reason(st, tab) == V.ER_TWO_CITIES_EMPTY):
        offering_step(st, tab, fp, ask)
    end_turn(st, tab)


@kernel
def play_turn(st, tab, fp, ask):
    """One full turn of the active player, step by step, every choice by ``ask``.

    The only place a turn's steps are put in order: games, scenarios and the
    look-ahead bot's rollouts all play turns through it (a rollout that starts
    mid-turn finishes it with ``surge_rest`` or ``surge_step`` and ``after_surge``).
    """
    wealth_step(st, tab, fp, ask)
    surge_step(st, tab, fp, ask)
    after_surge(st, tab, fp, ask)
