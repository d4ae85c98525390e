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
from strategies.greedy import (
    P_LEAF_VALUE,
    P_SEARCH_HORIZON,
    P_SEARCH_MARGIN,
    P_SEARCH_SCREEN,
    P_SEARCH_SIMS,
    P_SEARCH_WIDTH,
)
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
# A screened search whose first race world gives every option still in the running the
# outcome its screen world gave stops there: nothing hidden reached the play-outs' ends.
SAME_STOP = True


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
    ``RACED`` options stops as soon as ``lead_is_clear`` says so. With the profile's
    ``screen`` set, every option first meets one world (``_screen``): a leader
    ``margin`` points clear of the rest is played at once, else the best ``screen``
    go on, halved while more than ``RACED`` are left, then raced with the early stop.
    """
    if m == 1:
        return st[L.LA_SCRATCH]
    r = st[L.PROW + p]
    budget = max(int(fp[r, P_SEARCH_SIMS]), 1)
    horizon = DRAFT_HORIZON if dec == D.D_DRAFT else play_out_turns(tab, fp, r)
    clear_tallies(st, m)
    listed = m
    met = 0  # worlds each option still in the running has met
    # Summed squares of the per-world differences of options (0, 1), (0, 2) and (1, 2):
    # with at most three options, enough to know the noise of any two's comparison.
    q01 = q02 = q12 = 0.0
    decided = False
    first = 0  # worlds every listed option met before the halving: the screen's
    screen = int(fp[r, P_SEARCH_SCREEN])
    if screen > 0:
        m = _screen(st, tab, fp, p, dec, m, actions, total, horizon, screen)
        met = first = 1
        budget = max(budget - listed, 1)
        s0, s1, s2 = _sum(st, 0, m), _sum(st, 1, m), _sum(st, 2, m)
        q01, q02, q12 = (s0 - s1) ** 2, (s0 - s2) ** 2, (s1 - s2) ** 2
        decided = m == 1 or s0 - s1 > fp[r, P_SEARCH_MARGIN]
        if SAME_STOP and not decided:
            # A second world for the ones kept: if each comes out as in the first, nothing
            # hidden reaches the play-outs' ends, and more worlds would only repeat it.
            for j in range(m):  # the first world's sums, kept where candidates' marks were
                st[L.TMP2 + j] = st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j]
            tally(st, tab, fp, p, dec, m, actions, total, horizon, 1)
            met = 2
            first = 2
            budget = max(budget - m, 1)
            decided = _repeated(st, m)
            t0, t1, t2 = _sum(st, 0, m) - s0, _sum(st, 1, m) - s1, _sum(st, 2, m) - s2
            q01 += (t0 - t1) ** 2
            q02 += (t0 - t2) ** 2
            q12 += (t1 - t2) ** 2
    rounds = 0
    while (1 << rounds) < m:
        rounds += 1
    alive = m
    rnd = 0
    # A screened search halves while more than RACED are left, then races those; the
    # race's early stop reads only its own worlds (``set_aside``: the sums before it).
    raced = screen == 0 or m <= RACED
    set_aside0 = set_aside1 = set_aside2 = 0
    met0 = 0
    while alive > 1 and not decided:
        worlds = _worlds(budget, rounds, alive)
        if (m if screen == 0 else alive) > RACED:  # no early stop: the round's worlds at once
            tally(st, tab, fp, p, dec, m, actions, total, horizon, worlds)
            met += worlds
        else:
            if not raced:
                raced = True
                q01 = q02 = q12 = 0.0
                _to_front(st, m)
                set_aside0, set_aside1, set_aside2 = _set_aside(st, 0), _set_aside(st, 1), 0
                if alive > 2:
                    set_aside2 = _set_aside(st, 2)
                met0 = met
            for _ in range(worlds):
                v0, v1, v2 = _sum(st, 0, m), _sum(st, 1, m), _sum(st, 2, m)
                tally(st, tab, fp, p, dec, m, actions, total, horizon, 1)
                met += 1
                d0, d1, d2 = _sum(st, 0, m) - v0, _sum(st, 1, m) - v1, _sum(st, 2, m) - v2
                q01 += (d0 - d1) ** 2
                q02 += (d0 - d2) ** 2
                q12 += (d1 - d2) ** 2
                if met - met0 >= MIN_WORLDS and lead_is_clear(st, m, met - met0, q01, q02, q12):
                    decided = True
                    break
        if not decided:
            alive = _drop_worse_half(st, m, alive, rnd)
        rnd += 1
    st[L.LA_SCRATCH + L.LA_MAX_WIDTH] += set_aside0
    st[L.LA_SCRATCH + L.LA_MAX_WIDTH + 1] += set_aside1
    st[L.LA_SCRATCH + L.LA_MAX_WIDTH + 2] += set_aside2
    best = best_tallied(st, m)
    if T.tracing(st):
        _record_weighed(st, p, dec, n, m, listed, budget, met, best, first)
    return st[L.LA_SCRATCH + best]


@kernel
def _to_front(st, m):
    """Move the options still in the running among the ``m`` listed to the front of the list,
    in their order (each with its sum and mark)."""
    k = 0
    for j in range(m):
        if st[L.LA_SCRATCH + 2 * L.LA_MAX_WIDTH + j] == 0:
            for col in (0, L.LA_MAX_WIDTH, 2 * L.LA_MAX_WIDTH):
                a = st[L.LA_SCRATCH + col + k]
                st[L.LA_SCRATCH + col + k] = st[L.LA_SCRATCH + col + j]
                st[L.LA_SCRATCH + col + j] = a
            k += 1


@kernel
def _set_aside(st, j):
    """Option ``j``'s summed value so far, in thousandths, taken off its tally."""
    v = st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j]
    st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j] = 0
    return v


@kernel
def _screen(st, tab, fp, p, dec, m, actions, total, horizon, keep):
    """Play each of the ``m`` listed options in one sampled world, then move the best
    ``keep`` of them, best first, to the front of the list (the rest keep their one-world
    sums behind them); how many are kept.

    Among equal values the one the heuristic listed first goes first.
    """
    tally(st, tab, fp, p, dec, m, actions, total, horizon, 1)
    kept = min(keep, m)
    for j in range(kept):
        best = j
        for i in range(j + 1, m):
            if st[L.LA_SCRATCH + L.LA_MAX_WIDTH + i] > st[L.LA_SCRATCH + L.LA_MAX_WIDTH + best]:
                best = i
        for col in (0, L.LA_MAX_WIDTH):
            a = st[L.LA_SCRATCH + col + j]
            st[L.LA_SCRATCH + col + j] = st[L.LA_SCRATCH + col + best]
            st[L.LA_SCRATCH + col + best] = a
    return kept


@kernel
def _repeated(st, m):
    """Whether each of the ``m`` listed options, having met two worlds, summed exactly twice
    what it got in the first (kept at ``st[TMP2:]``): the second repeated the first."""
    for j in range(m):
        if st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j] != 2 * st[L.TMP2 + j]:
            return False
    return True


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
def _record_weighed(st, p, dec, n, m, listed, budget, met, best, first):
    """Trace the ``listed`` options searched, each with its mean play-out value over the
    worlds it met (``met`` for the ones still in the running, fewer for a dropped one; one
    for those a screen dropped, past the ``m`` it kept; ``first`` before the halving), and
    the choice: the replay's weighed options."""
    rounds = 0
    while (1 << rounds) < m:
        rounds += 1
    for j in range(listed):
        last = st[L.LA_SCRATCH + 2 * L.LA_MAX_WIDTH + j]  # round it was dropped after, + 1
        alive = m
        worlds = 1 if j >= m else (met if last == 0 else first)
        for _ in range(last if j < m else 0):
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
