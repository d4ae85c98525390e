"""A turn: its steps in order, the end conditions, and handing the turn over."""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import trace as T
from sim.kernel.feats import feat_step, feats_done
from sim.kernel.offering import offering_step
from sim.kernel.portent import portent_step
from sim.kernel.surge import surge_step
from sim.kernel.tab import rule
from sim.kernel.war import war_step
from sim.kernel.wealth import wealth_step


@kernel
def empty_stacks(st):
    """How many cities' reward stacks are empty."""
    empty = 0
    for c in range(L.N_CITIES):
        if st[L.STACK_N + c] == 0:
            empty += 1
    return empty


@kernel
def end_reason(st, tab):
    """Whether the game ends now (at the end of a turn), as a vocab.ER_* code."""
    empty = empty_stacks(st)
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
    # Reign, Game end: read as either player holding 5 completed feats (reading
    # reign_feat_end; RU_FEATS_END_OPPONENT: only the active player's opponent, as written).
    if ends & V.END_FEATS:
        for p in range(2):
            if p == st[L.ACTIVE] and rule(tab, L.RU_FEATS_END_OPPONENT):
                continue
            if feats_done(st, tab, p) >= rule(tab, L.RU_FEATS_TO_END):
                return V.ER_FEATS
    return V.ER_NONE


@kernel
def end_turn(st, tab):
    """Check the end conditions, then hand the turn over (or stop at the turn cap)."""
    st[L.TURN] += 1
    T.event(st, E.EV_TURN, st[L.ACTIVE], st[L.TURN], -1, 0, 0)
    reason = end_reason(st, tab)
    if reason == V.ER_NONE and st[L.TURN] >= rule(tab, L.RU_TURN_CAP):
        reason = V.ER_TURN_CAP
    if reason != V.ER_NONE:
        st[L.GAME_OVER] = 1
        st[L.END_REASON] = reason
    st[L.ACTIVE] = 1 - st[L.ACTIVE]
    st[L.OPP_DISCARDED] = 0  # the count behind a Reign feat is per turn


# The steps of a turn, in the order every rulebook's turn runs them: the one list
# the kernel plays (``play_steps``), the scenario stepper steps and the replay
# describes. A step whose rule parameter is 0 is not in the set's turn (A Reign
# of War adds Portent and Feat between Surge and War).
S_WEALTH = 0
S_SURGE = 1
S_PORTENT = 2
S_FEAT = 3
S_WAR = 4
S_OFFERING = 5
N_STEPS = 6
STEP_NAMES = ("wealth", "surge", "portent", "feat", "war", "offering")
STEP_RULES = (-1, -1, L.RU_PORTENT, L.RU_FEAT_STEP, -1, -1)
"""Per step, the layout rule parameter that puts it in the turn (-1: every turn)."""


@kernel
def step_in_rules(tab, s):
    """Whether the set's rules put step ``s`` in a turn at all."""
    r = STEP_RULES[s]
    return r < 0 or rule(tab, r) != 0


@kernel
def plays_reign_steps(tab):
    """1 if the set's rules put the Portent or the Feat step (A Reign of War) in a turn,
    else 0. The run layer reads it to play a run without them with an entry point that
    never compiles their code (``sim.kernel.batch.range_kernel``)."""
    return 1 if step_in_rules(tab, S_PORTENT) or step_in_rules(tab, S_FEAT) else 0


@kernel
def no_portent_step(st, tab, fp, ask):
    """``portent_step`` where the rules have no Portent step: never called there
    (``step_applies``), so never compiled."""


@kernel
def no_feat_step(st, tab):
    """``feat_step`` where the rules have no Feat step (``no_portent_step``)."""


@kernel
def step_applies(st, tab, s):
    """Whether step ``s`` is played now: it is in the set's turn and the game goes on.

    Reading ``two_stacks_empty_check``: with RU_END_AFTER_WAR the game ends as soon as
    the War step leaves two stacks (or all three) empty, without the Offering (Supply) step.
    """
    if not step_in_rules(tab, s):
        return False
    if s == S_OFFERING and rule(tab, L.RU_END_AFTER_WAR):
        return not (rule(tab, L.RU_END) & V.END_TWO_CITIES_EMPTY and empty_stacks(st) >= 2)
    return True


@kernel
def run_step(st, tab, fp, ask, s):
    """Play step ``s`` of the active seat's turn, every choice by ``ask``."""
    T.push_cause(st, E.CA_STEP, s)
    if s == S_WEALTH:
        wealth_step(st, tab, fp, ask)
    elif s == S_SURGE:
        surge_step(st, tab, fp, ask)
    elif s == S_PORTENT:
        portent_step(st, tab, fp, ask)
    elif s == S_FEAT:
        feat_step(st, tab)
    elif s == S_WAR:
        war_step(st, tab, fp, ask)
    else:
        offering_step(st, tab, fp, ask)
    if s != S_FEAT and rule(tab, L.RU_FEATS_EACH_STEP) and step_in_rules(tab, S_FEAT):
        feat_step(st, tab)  # reading feat_timing: feats complete whenever met


@kernel
def play_steps(st, tab, fp, ask, first):
    """Steps ``first`` .. the last of the turn (those that apply), then the end of the turn."""
    for s in range(first, N_STEPS):
        if step_applies(st, tab, s):
            run_step(st, tab, fp, ask, s)
    end_turn(st, tab)


@kernel
def play_turn(st, tab, fp, ask):
    """One full turn of the active player, step by step, every choice by ``ask``.

    Games, scenarios and the look-ahead bot's rollouts all play turns through
    ``play_steps`` (a rollout that starts mid-turn finishes its step with the
    step's continuation, e.g. ``surge_rest``, and then plays the steps after it).
    """
    play_steps(st, tab, fp, ask, S_WEALTH)
