"""The greedy scorer's per-decision figures equal what each option would work out itself.

``strategies.greedy.decision_figures`` works out, once per decision, figures every
option shares: a Surge decision's war outcome of each city as it stands (``CI_BEFORE``,
which ``play_value`` compares each play with) and, at a choice of the units to keep
after a war, each unit's strength and cost. The lean scorer must value every option
exactly as the full one did (same operations, same order, so the same floats and the
same choices, ties and random draws included): over positions of random games, these
compiled checks recompute each figure the full way and compare.
"""

from __future__ import annotations

import numba
from hypothesis import given, settings
from hypothesis import strategies as hs

from sim.base import layout as L
from sim.kernel import board as B
from sim.kernel import decisions as D
from sim.kernel.tab import card_col
from sim.kernel.zones import put_opt
from sim.run.scenario import Scenario
from strategies import greedy as G


@numba.njit
def surge_mismatches(st, tab, fp, p):  # pragma: no cover - compiled
    """Cities whose cached war outcome differs from ``war_outcome`` worked out afresh."""
    r = st[L.PROW + p]
    G.decision_figures(st, tab, fp, p, D.D_SURGE, r)
    bad = 0
    for c in range(L.N_CITIES):
        if st[L.STACK_N + c] == 0:
            continue  # play_value stops before it reads the figure
        full = G.war_outcome(st, tab, c, 0, 0, 0, 0)
        if st[L.BOT_SCRATCH + L.BOT_CITY_W * c + G.CI_BEFORE] != full:
            bad += 1
    return bad


@numba.njit
def keep_mismatches(st, tab, fp, p, c):  # pragma: no cover - compiled
    """Keep options (every subset of seat ``p``'s units in ``c``) whose lean value is not
    bit for bit the full one: each unit's strength rescanned for each option."""
    r = st[L.PROW + p]
    m = B.n_units(st, c, p)
    n = 1 << m
    for mask in range(n):
        put_opt(st, mask, mask, c, 0, 0)
    urg, cw, need = G.decision_figures(st, tab, fp, p, D.D_KEEP, r)
    bad = 0
    for i in range(n):
        lean = G.score_option(st, tab, fp, p, D.D_KEEP, i, r, urg, cw, need)
        full = 0.0
        for s in range(m):
            if i & (1 << s):
                full += B.slot_strength(st, tab, c, p, s)
                full += fp[r, G.P_KEEP_COST] * card_col(tab, B.slot_card(st, c, p, s), L.K_COST)
        full = full + 0.01 * 0  # the options' third field, slots kept, is 0 here
        if lean != full:
            bad += 1
    return bad


@settings(max_examples=25)
@given(
    mix=hs.sampled_from(["aegean", "dunes", "dunes+aegean", "reign"]),
    game=hs.integers(0, 10_000),
    turns=hs.integers(0, 30),
)
def test_the_lean_figures_are_the_full_ones(mix: str, game: int, turns: int) -> None:
    sc = Scenario.from_game(mix, 1, game)
    for _ in range(turns):
        if sc.over:
            break
        for step in sc.turn_steps():
            getattr(sc, step.name)()
            for p in range(2):
                # Copies: the checks write options and the bot's scratch.
                assert surge_mismatches(sc.st.copy(), sc.tab, sc.fp, p) == 0
                for c in range(L.N_CITIES):
                    assert keep_mismatches(sc.st.copy(), sc.tab, sc.fp, p, c) == 0
        sc.end_turn()
