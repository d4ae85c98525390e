"""Bot dispatch: which strategy answers a decision, and scripted choices for scenarios."""

from __future__ import annotations

from sim.kernel import layout as L
from sim.kernel.jit import kernel
from sim.kernel.zones import opt
from strategies import decisions as D
from strategies.greedy import choose_greedy
from strategies.random_bot import choose_random

BOT_RANDOM = 0
BOT_GREEDY = 1


@kernel
def _scripted(st, dec, n):
    """Index of the option matching the next queued scripted choice, or -1.

    A queued row whose decision differs from ``dec`` waits for its decision;
    a row that matches no legal option is an error the scenario API reports.
    """
    pos = st[L.SCRIPT_POS]
    row = L.SCRIPT + 5 * pos
    if pos >= st[L.SCRIPT_N] or st[row] != dec:
        return -1
    st[L.SCRIPT_POS] = pos + 1
    for i in range(n):
        ok = True
        for j in range(4):
            want = st[row + 1 + j]
            if want != D.ANY and want != opt(st, i, j):
                ok = False
                break
        if ok:
            return i
    st[L.ERROR] = 1 + dec
    return 0


@kernel
def choose(st, tab, fp, p, dec, n):
    """Ask seat ``p``'s bot to pick one of the ``n`` legal options at ``st[OPTS]``."""
    if st[L.SCRIPT_N] > 0:
        i = _scripted(st, dec, n)
        if i >= 0:
            return i
    if n == 1:
        return 0
    if st[L.BOT + p] == BOT_GREEDY:
        return choose_greedy(st, tab, fp, p, dec, n)
    return choose_random(st, p, n)
