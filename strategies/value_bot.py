"""``value``: takes the option whose position after it the learned value likes best.

At each decision with a continuation in the kernel (the Surge's plays and reward
use, the Wealth split, the Offering, the War step's order of conflicts, the units
kept after a war) the bot lists every option (the heuristic's best
``LA_MAX_WIDTH`` if there are more), deals the cards it cannot see again once
(``strategies.lookahead.sample_world``, which never peeks; the world comes from
its own seed stream, so its play is deterministic given the deal), and in that one
world takes each option and finishes the turn with the kernel's own continuation
and the heuristic, as the search's play-outs do. Each end of turn is valued by the
learned value (``strategies.value.leaf_value``: the position the opponent starts
its turn from, the kind of position the value was fitted on). The best is played;
among equal values, the option the heuristic ranks first, as greedy breaks ties.

Draft picks and the decisions inside an ability's effect stay the heuristic's.
"""

from __future__ import annotations

from sim.base import layout as L
from sim.compiler import kernel
from sim.kernel import decisions as D
from sim.kernel.zones import opt
from strategies.lookahead import best_tallied, candidates, clear_tallies, tally


@kernel
def value_option(st, tab, fp, p, dec, n):
    """The option (index into ``st[OPTS]``, ``n > 1`` of them) seat ``p`` takes at ``dec`` by
    the learned value, or -1 if ``dec`` is not one it values (the heuristic's then)."""
    actions = 0
    total = 0
    if dec == D.D_SURGE:
        m = candidates(st, tab, fp, p, dec, n, L.LA_MAX_WIDTH)
        actions = st[L.SURGE_ACTIONS]
    elif dec == D.D_WEALTH:
        # Option k spends k of the step's actions on cards.
        m = min(n, L.LA_MAX_WIDTH)
        for j in range(m):
            st[L.LA_SCRATCH + j] = j
        total = opt(st, 0, 1)
    elif dec == D.D_OFFER or dec == D.D_WAR_ORDER or dec == D.D_KEEP:
        m = candidates(st, tab, fp, p, dec, n, L.LA_MAX_WIDTH)
    else:
        return -1
    clear_tallies(st, m)
    tally(st, tab, fp, p, dec, m, actions, total, 0, 1)
    return st[L.LA_SCRATCH + best_tallied(st, m)]
