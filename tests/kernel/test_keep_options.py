"""The keep options after a war are every maximal set of units within the slots kept.

``sim.kernel.war.keep_options`` reads each unit's slot count once (a bit set of the
units filling 2); over positions of random games, this compiled check lists the options
the plain way (each unit's ``slot_weight`` read for every candidate set) and compares
them row for row, order included (the bot's tie draws follow the order).
"""

from __future__ import annotations

import numba
from hypothesis import given, settings
from hypothesis import strategies as hs

from sim.base import layout as L
from sim.kernel import board as B
from sim.kernel.war import keep_options
from sim.kernel.zones import opt
from sim.run.scenario import Scenario


@numba.njit
def keep_mismatches(st, tab, fp, ask, c, p, keep):  # pragma: no cover - compiled
    """Options of ``keep_options`` unlike the plain enumeration's (or a count unlike)."""
    n = keep_options(st, tab, fp, ask, c, p, keep)
    m = B.n_units(st, c, p)
    j = 0
    bad = 0
    for mask in range(1 << m):
        w = 0
        for i in range(m):
            if mask & (1 << i):
                w += B.slot_weight(st, tab, c, p, i)
        if w > keep:
            continue
        maximal = True
        for i in range(m):
            if not mask & (1 << i) and w + B.slot_weight(st, tab, c, p, i) <= keep:
                maximal = False
        if not maximal:
            continue
        if j >= n or opt(st, j, 0) != mask or opt(st, j, 1) != c or opt(st, j, 2) != w:
            bad += 1
        j += 1
    return bad + (1 if j != n else 0)


@settings(max_examples=20, deadline=None)
@given(
    mix=hs.sampled_from(["aegean", "dunes", "dunes+aegean", "reign"]),
    game=hs.integers(0, 10_000),
    turns=hs.integers(0, 30),
)
def test_keep_options_are_the_maximal_sets(mix: str, game: int, turns: int) -> None:
    sc = Scenario.from_game(mix, 1, game)
    for _ in range(turns):
        if sc.over:
            break
        sc.turn()
    for c in range(L.N_CITIES):
        for p in range(2):
            for keep in range(L.N_SLOTS + 1):
                assert keep_mismatches(sc.st.copy(), sc.tab, sc.fp, sc.ask, c, p, keep) == 0
