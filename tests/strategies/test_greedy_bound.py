"""The greedy bot's Surge skips a play only when the play could not have been chosen.

``strategies.greedy.choose_greedy`` does not score a Surge play whose upper bound
(``play_bound``, from ``cache_bounds``) is at or below the tie margin under the best
value found so far: such a play can neither be the best nor tie with it, so skipping it
changes neither the pick nor the tie-break's random draws. Over Surge decisions of random
games, under the shipped weights and under random ones of either sign, these compiled
checks score every option in full (the scorer without the skip, written out here) and
compare: every bound is at least its option's value, and the pruned choice leaves the
same pick and the same state (the random streams included) as the full one.
"""

from __future__ import annotations

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from sim.base import layout as L
from sim.kernel import decisions as D
from sim.kernel import turn as TU
from sim.kernel.rng import uniform
from sim.kernel.surge import MAX_ACTIONS, surge_apply, surge_begin, surge_end, surge_options
from sim.run.scenario import Scenario
from strategies import greedy as G


@numba.njit
def full_choice(st, tab, fp, p, n, out):  # pragma: no cover - compiled
    """The Surge choice with every option scored (``choose_greedy`` without the skip);
    counts into ``out[5]`` the options the bound would have skipped."""
    r = st[L.PROW + p]
    urg, cw, need = G.decision_figures(st, tab, fp, p, D.D_SURGE, r)
    skip = G.bounded(st, tab, fp, D.D_SURGE, r)
    best = -1e300
    pick = 0
    ties = 0
    for i in range(n):
        if skip and G.play_bound(st, tab, fp, p, i, r, cw) <= best - 1e-9:
            out[5] += 1
        v = G.score_option(st, tab, fp, p, D.D_SURGE, i, r, urg, cw, need)
        if v > best + 1e-9:
            best = v
            pick = i
            ties = 1
        elif v > best - 1e-9:
            ties += 1
            if uniform(st, L.RNG_SEAT + p) * ties < 1.0:
                pick = i
    return pick


@numba.njit
def surge_checks(st, tab, fp, ask, out):  # pragma: no cover - compiled
    """Play the active seat's Surge; at each decision count into ``out``: [0] options,
    [1] bounds below their option's value, [2] pruned picks or states unlike the full
    one's, [3] options with a bound, [4] decisions, [5] options skipped."""
    p = st[L.ACTIVE]
    surge_begin(st, tab, fp, ask)
    for a in range(MAX_ACTIONS):
        st[L.SURGE_ACTIONS] = a
        n = surge_options(st, tab, fp, ask, p)
        out[4] += 1
        full = st.copy()
        want = full_choice(full, tab, fp, p, n, out)
        pruned = st.copy()
        got = G.choose_greedy(pruned, tab, fp, p, D.D_SURGE, n)
        if got != want or not np.array_equal(full, pruned):
            out[2] += 1
        # Each bound against its option's value, on the figures the choice worked out
        # (where the choice reads the bound: not with a Reign feat's term, which it leaves out).
        r = st[L.PROW + p]
        urg, cw, need = G.decision_figures(full, tab, fp, p, D.D_SURGE, r)
        for i in range(n):
            out[0] += 1
            b = G.play_bound(full, tab, fp, p, i, r, cw)
            if b < 1e300 and G.bounded(st, tab, fp, D.D_SURGE, r):
                out[3] += 1
                if G.score_option(full, tab, fp, p, D.D_SURGE, i, r, urg, cw, need) > b:
                    out[1] += 1
        if surge_apply(st, tab, fp, ask, p, want):
            break
    st[L.SURGE_ACTIONS] = 0
    surge_end(st, tab, fp, ask, p)


def play(sc: Scenario, turns: int) -> np.ndarray:
    """Play ``turns`` turns of ``sc``, each Surge through ``surge_checks``; the counts."""
    out = np.zeros(6, np.int64)
    for _ in range(turns):
        if sc.over:
            break
        for step in sc.turn_steps():
            if step.name != "surge":
                getattr(sc, step.name)()
                continue
            sc.sync_totals()
            if TU.step_applies(sc.st, sc.tab, TU.S_SURGE):
                surge_checks(sc.st, sc.tab, sc.fp, sc.ask, out)
        sc.end_turn()
    return out


@settings(max_examples=20, deadline=None)
@given(
    mix=hs.sampled_from(["aegean", "dunes", "dunes+aegean", "reign"]),
    game=hs.integers(0, 10_000),
    weights=hs.none()
    | hs.lists(
        hs.floats(-6.0, 6.0, allow_nan=False),
        min_size=G.N_GREEDY_PARAMS,
        max_size=G.N_GREEDY_PARAMS,
    ),
)
def test_a_skipped_play_could_not_have_been_chosen(
    mix: str, game: int, weights: list[float] | None
) -> None:
    sc = Scenario.from_game(mix, 1, game)
    if weights is not None:
        # Random weights of either sign, for both seats (patience kept: games must end).
        for p in range(2):
            for j, w in enumerate(weights):
                if j != G.P_PATIENCE:
                    sc.fp[p, j] = w
        G.prepare(sc.tab, sc.fp)
    options, unsafe, unlike, with_bound, _, _ = play(sc, 40)
    assert unsafe == 0, f"{unsafe} of {with_bound} bounds below their option's value"
    assert unlike == 0, f"{unlike} pruned choices unlike the full scorer's"
    assert options > 0


def test_the_bound_does_skip_plays_in_dunes_aegean() -> None:
    """Not vacuous: under the shipped weights the bound skips a good share of the plays
    into cities with tiles, and the pruned choice still equals the full one."""
    sc = Scenario.from_game("dunes+aegean", 1, 7)
    options, unsafe, unlike, with_bound, decisions, skipped = play(sc, 60)
    assert decisions > 20
    assert skipped > with_bound // 5, (skipped, with_bound, options)
    assert unsafe == 0 and unlike == 0
