"""``search``: determinized search over sampled worlds, one budget per decision.

At every decision the rules leave to it with more than one legal option (the
Surge's plays, moves and reward use, the Wealth split, the Offering, the War
step's order of conflicts, the units it keeps after a war, its draft picks)
the bot lists its heuristic's best ``width`` options (the profile's knob,
``SEARCH_WIDTH`` by default; every split of the Wealth step) and shares its
budget, the profile's ``simulations``, among
them by sequential halving: in each of ``ceil(log2(m))`` rounds the options
still in the running are played out in the same new sampled worlds (common
random numbers), and the worse half is dropped. The option with the best
summed outcome over all its worlds is played. A round gives every option at
least one world, so a budget below the option count still tries them all.

The worlds are played one at a time, and a decision of at most ``RACED``
options stops early, once it has met ``MIN_WORLDS`` worlds, when more worlds
would not change the choice: the leader's mean lead over the runner-up is
``LEAD_Z`` standard errors clear of 0 (the error from the two options'
per-world differences, so a lead that one lucky world made does not count), or
the two came out equal in every world. A clear decision stops after a few worlds;
the close ones get the whole budget.

A play-out is the look-ahead bot's (``strategies.lookahead``): the cards the
seat cannot see are dealt again at random (``sample_world``, which never
peeks), the option is taken and its step finished with the kernel's own
continuation, and the game goes on for ``horizon`` more turns (``SEARCH_HORIZON``
by default; ``FEATS_TURNS`` more for a learned-value search where feats end the game)
with the heuristic answering for both seats (a draft pick's play-outs
play the whole game). The position is then scored by ``rollout_value``, or, with
the profile's ``value = 1``, by the learned value of the position
(``strategies.value``): the ``vsearch`` profile searches every option that way. A
play-out answers with ``choose_heuristic``, so it never starts another search.

Decisions inside an ability's effect (a discard, a target, a "may") have no
continuation of their own to play from and stay the heuristic's.
"""

from __future__ import annotations

import numpy as np

from sim.base import events as E
from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import decisions as D
from sim.kernel import trace as T
from sim.kernel.tab import rule
from sim.kernel.zones import opt
from strategies.greedy import P_LEAF_VALUE, P_SEARCH_HORIZON, P_SEARCH_SIMS, P_SEARCH_WIDTH
from strategies.lookahead import (
    DRAFT_HORIZON,
    best_tallied,
    candidates,
    clear_tallies,
    tally,
)

# Options searched per decision, by default (the profile's ``width``): the heuristic's
# best. With play-outs scored by ``rollout_value``, three beat six at every budget
# measured: the budget goes to options worth telling apart (the width and horizon tables:
# git show 53865f2:docs/bots-search.md).
SEARCH_WIDTH = 3
# Whole turns a play-out plays after the current one, by default (the profile's
# ``horizon``). With three options, one turn played as strong as two at half the cost of
# a play-out (the same tables).
SEARCH_HORIZON = 1
# Turns a play-out scored by the learned value plays beyond the profile's horizon where
# completed feats end the game (A Reign of War): a feat is completed over several turns,
# and the value at the end of the searcher's own turn sees too little of the race for
# them. Elsewhere the extra turn played weaker and slower (docs/results.md, the skill
# ladder), so it is the rule set's, not the profile's.
FEATS_TURNS = 1
# A decision of at most RACED options stops as soon as, after MIN_WORLDS worlds or more,
# the leader's mean lead over the runner-up is LEAD_Z standard errors clear of 0 (the
# error from the two options' per-world differences), or the two came out equal in every
# world. At one standard error the bot lost the thinnest ladder rung; at two it plays as
# strong as the unstopped search (docs/bots-search.md).
RACED = 3
MIN_WORLDS = 4
LEAD_Z = 2.0


@kernel
def play_out_turns(tab, fp, r):
    """Whole turns a play-out of parameter row ``r`` plays after the current one: the
    profile's ``horizon``, and ``FEATS_TURNS`` more if its play-outs are scored by the
    learned value where completed feats end the game."""
    horizon = int(fp[r, P_SEARCH_HORIZON])
    if fp[r, P_LEAF_VALUE] > 0 and rule(tab, L.RU_END) & V.END_FEATS:
        horizon += FEATS_TURNS
    return horizon


@kernel
def _drop_worse_half(st, m, alive, rnd):
    """Drop the worse ``alive // 2`` of the options still in the running, marking each with
    ``rnd + 1`` (the round it last played); how many are left.

    Among equal sums the one the heuristic listed later goes first.
    """
    for _ in range(alive // 2):
        worst = -1
        for j in range(m):
            out = st[L.LA_SCRATCH + 2 * L.LA_MAX_WIDTH + j]
            v = st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j]
            if out == 0 and (worst < 0 or v <= st[L.LA_SCRATCH + L.LA_MAX_WIDTH + worst]):
                worst = j
        st[L.LA_SCRATCH + 2 * L.LA_MAX_WIDTH + worst] = rnd + 1
    return alive - alive // 2


@kernel
def best_by_halving(st, tab, fp, p, dec, n, m, actions, total):
    """Of the ``m`` options listed in ``st[LA_SCRATCH:]`` (of ``n``), the one sequential
    halving keeps.

    The budget (``simulations`` play-outs) is split evenly over the rounds and,
    within a round, over the options still in the running; every survivor has
    met the same worlds, so their sums compare fairly. A decision of at most
    ``RACED`` options stops as soon as ``lead_is_clear`` says so.
    """
    if m == 1:
        return st[L.LA_SCRATCH]
    budget = max(int(fp[st[L.PROW + p], P_SEARCH_SIMS]), 1)
    horizon = DRAFT_HORIZON if dec == D.D_DRAFT else play_out_turns(tab, fp, st[L.PROW + p])
    rounds = 0
    while (1 << rounds) < m:
        rounds += 1
    clear_tallies(st, m)
    alive = m
    rnd = 0
    met = 0  # worlds each option still in the running has met
    # Summed squares of the per-world differences of options (0, 1), (0, 2) and (1, 2):
    # with at most three options, enough to know the noise of any two's comparison.
    q01 = q02 = q12 = 0.0
    decided = False
    while alive > 1 and not decided:
        worlds = _worlds(budget, rounds, alive)
        if m > RACED:  # no early stop: the round's worlds at once
            tally(st, tab, fp, p, dec, m, actions, total, horizon, worlds)
            met += worlds
        else:
            for _ in range(worlds):
                v0, v1, v2 = _sum(st, 0, m), _sum(st, 1, m), _sum(st, 2, m)
                tally(st, tab, fp, p, dec, m, actions, total, horizon, 1)
                met += 1
                d0, d1, d2 = _sum(st, 0, m) - v0, _sum(st, 1, m) - v1, _sum(st, 2, m) - v2
                q01 += (d0 - d1) ** 2
                q02 += (d0 - d2) ** 2
                q12 += (d1 - d2) ** 2
                if met >= MIN_WORLDS and lead_is_clear(st, m, met, q01, q02, q12):
                    decided = True
                    break
        if not decided:
            alive = _drop_worse_half(st, m, alive, rnd)
        rnd += 1
    best = best_tallied(st, m)
    if T.tracing(st):
        _record_weighed(st, p, dec, n, m, budget, met, best)
    return st[L.LA_SCRATCH + best]


@kernel
def _sum(st, j, m):
    """Option ``j``'s summed value, in VP (0 past the ``m`` listed)."""
    if j >= m:
        return 0.0
    return st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j] / 1000.0


@kernel
def lead_is_clear(st, m, met, q01, q02, q12):
    """Whether the leader of the (at most three) options still in the running, each having
    met ``met`` worlds, is played without more: its play-outs and the runner-up's came out
    equal in every world, or its mean lead is ``LEAD_Z`` standard errors clear of 0 (the
    errors from the per-world differences' squares ``q01``, ``q02``, ``q12``)."""
    lead = best_tallied(st, m)
    second = -1
    for j in range(m):
        out = st[L.LA_SCRATCH + 2 * L.LA_MAX_WIDTH + j]
        v = st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j]
        if (
            j != lead
            and out == 0
            and (second < 0 or v > st[L.LA_SCRATCH + L.LA_MAX_WIDTH + second])
        ):
            second = j
    a, b = min(lead, second), max(lead, second)
    q = q01 if b == 1 else (q02 if a == 0 else q12)
    mean = (_sum(st, lead, m) - _sum(st, second, m)) / met
    if q == 0.0:
        return True  # the same outcome in every world
    var = max(q / met - mean * mean, 0.0)
    return mean > LEAD_Z * np.sqrt(var / met)


@kernel
def _worlds(budget, rounds, alive):
    """Worlds each of the ``alive`` options still in the running meets in one round."""
    return max(budget // rounds // alive, 1)


@kernel
def _record_weighed(st, p, dec, n, m, budget, met, best):
    """Trace the ``m`` options searched, each with its mean play-out value over the worlds
    it met (``met`` for the ones still in the running, fewer for a dropped one), and the
    choice: the replay's weighed options."""
    rounds = 0
    while (1 << rounds) < m:
        rounds += 1
    for j in range(m):
        last = st[L.LA_SCRATCH + 2 * L.LA_MAX_WIDTH + j]  # round it was dropped after, + 1
        alive = m
        worlds = met if last == 0 else 0
        for _ in range(last):
            worlds += _worlds(budget, rounds, alive)
            alive -= alive // 2
        mean = st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j] / 1000.0 / worlds
        T.option(st, p, dec, st[L.LA_SCRATCH + j], mean)
    T.event(st, E.EV_CHOICE, p, n, st[L.LA_SCRATCH + best], dec, E.VALUED_BY_ROLLOUTS)


@kernel
def search_option(st, tab, fp, p, dec, n):
    """The option (index into ``st[OPTS]``, ``n > 1`` of them) seat ``p`` takes at ``dec``,
    by search, or -1 if ``dec`` is not one the search plans (the heuristic's then).

    A Surge decision is asked from inside ``surge_rest``, which keeps the count of
    this Surge's actions in ``st[SURGE_ACTIONS]``; the play-outs finish the Surge
    under the same bound.
    """
    width = int(fp[st[L.PROW + p], P_SEARCH_WIDTH])
    if dec == D.D_SURGE:
        m = candidates(st, tab, fp, p, dec, n, width)
        return best_by_halving(st, tab, fp, p, dec, n, m, st[L.SURGE_ACTIONS], 0)
    if dec == D.D_WEALTH:
        # Option k spends k of the step's actions on cards: every split is searched.
        m = min(n, L.LA_MAX_WIDTH)
        for j in range(m):
            st[L.LA_SCRATCH + j] = j
        return best_by_halving(st, tab, fp, p, dec, n, m, 0, opt(st, 0, 1))
    if dec == D.D_OFFER or dec == D.D_WAR_ORDER or dec == D.D_KEEP or dec == D.D_DRAFT:
        m = candidates(st, tab, fp, p, dec, n, width)
        return best_by_halving(st, tab, fp, p, dec, n, m, 0, 0)
    return -1
