"""``search``: determinized search over sampled worlds, one budget per decision.

At every decision the rules leave to it with more than one legal option (the
Surge's plays, moves and reward use, the Wealth split, the Offering, the War
step's order of conflicts, the units it keeps after a war, its draft picks)
the bot lists its heuristic's best ``SEARCH_WIDTH`` options (every split of
the Wealth step) and shares its budget, the profile's ``simulations``, among
them by sequential halving: in each of ``ceil(log2(m))`` rounds the options
still in the running are played out in the same new sampled worlds (common
random numbers), and the worse half is dropped. The option with the best
summed outcome over all its worlds is played. A round gives every option at
least one world, so a budget below the option count still tries them all.

A play-out is the look-ahead bot's (``strategies.lookahead``): the cards the
seat cannot see are dealt again at random (``sample_world``, which never
peeks), the option is taken and its step finished with the kernel's own
continuation, and the game goes on for ``SEARCH_HORIZON`` more turns with the
heuristic answering for both seats (a draft pick's play-outs play the whole
game). The position is then scored by ``rollout_value``. A play-out answers
with ``choose_heuristic``, so it never starts another search.

Decisions inside an ability's effect (a discard, a target, a "may") have no
continuation of their own to play from and stay the heuristic's.
"""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.kernel import decisions as D
from sim.kernel import trace as T
from sim.kernel.jit import kernel
from sim.kernel.zones import opt
from strategies.greedy import P_SEARCH_SIMS
from strategies.lookahead import (
    DRAFT_HORIZON,
    best_tallied,
    candidates,
    clear_tallies,
    tally,
)

# Options searched per decision: the heuristic's best. Three beat six at every budget
# measured: the budget goes to options worth telling apart (docs/bots-search.md).
SEARCH_WIDTH = 3
# Whole turns a play-out plays after the current one. With three options, one turn
# played as strong as two at half the cost of a play-out (docs/bots-search.md).
SEARCH_HORIZON = 1


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
    met the same worlds, so their sums compare fairly.
    """
    if m == 1:
        return st[L.LA_SCRATCH]
    budget = max(int(fp[st[L.PROW + p], P_SEARCH_SIMS]), 1)
    horizon = DRAFT_HORIZON if dec == D.D_DRAFT else SEARCH_HORIZON
    rounds = 0
    while (1 << rounds) < m:
        rounds += 1
    clear_tallies(st, m)
    alive = m
    rnd = 0
    while alive > 1:
        tally(st, tab, fp, p, dec, m, actions, total, horizon, _worlds(budget, rounds, alive))
        alive = _drop_worse_half(st, m, alive, rnd)
        rnd += 1
    best = best_tallied(st, m)
    if T.tracing(st):
        _record_weighed(st, p, dec, n, m, budget, rounds, best)
    return st[L.LA_SCRATCH + best]


@kernel(inline=True)
def _worlds(budget, rounds, alive):
    """Worlds each of the ``alive`` options still in the running meets in one round."""
    return max(budget // rounds // alive, 1)


@kernel
def _record_weighed(st, p, dec, n, m, budget, rounds, best):
    """Trace the ``m`` options searched, each with its mean play-out value over the worlds
    it met (a dropped option met fewer), and the choice: the replay's weighed options."""
    for j in range(m):
        last = st[L.LA_SCRATCH + 2 * L.LA_MAX_WIDTH + j]  # round it was dropped after, + 1
        played = rounds if last == 0 else last
        alive = m
        worlds = 0
        for _ in range(played):
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
    if dec == D.D_SURGE:
        m = candidates(st, tab, fp, p, dec, n, SEARCH_WIDTH)
        return best_by_halving(st, tab, fp, p, dec, n, m, st[L.SURGE_ACTIONS], 0)
    if dec == D.D_WEALTH:
        # Option k spends k of the step's actions on cards: every split is searched.
        m = min(n, L.LA_MAX_WIDTH)
        for j in range(m):
            st[L.LA_SCRATCH + j] = j
        return best_by_halving(st, tab, fp, p, dec, n, m, 0, opt(st, 0, 1))
    if dec == D.D_OFFER or dec == D.D_WAR_ORDER or dec == D.D_KEEP or dec == D.D_DRAFT:
        m = candidates(st, tab, fp, p, dec, n, SEARCH_WIDTH)
        return best_by_halving(st, tab, fp, p, dec, n, m, 0, 0)
    return -1
