"""The 95% intervals printed after a data-dependent stop hold the planted answer about 95%
of the time (``sim.analysis.coverage``; the full table is ``benchmarks/bench_coverage.py``'s).

Each check feeds synthetic games with a known answer through the command's own stopping
or selection code a few hundred times. With that many repeats a share's Monte Carlo
standard error is about 1.5 points, so the bound is 91%: an interval that ignored the stop
badly enough to matter (say 85% coverage) fails, a sound one passes.
"""

from __future__ import annotations

import gc

import pytest

from sim.analysis import coverage as C

BOUND = 0.91


@pytest.fixture(autouse=True, scope="module")
def _frozen_heap():
    """statsmodels' Holm collects garbage at every call: with the heap frozen that is quick."""
    gc.freeze()
    yield
    gc.unfreeze()


def test_run_until_ci_covers() -> None:
    c = C.run_until_ci(0.85, 0.01, 400, seed=11)
    assert c.share >= BOUND, c


def test_compare_until_ci_covers() -> None:
    c = C.compare_until_ci(0.56, 0.53, 0.2, 0.006, 300, seed=12)
    assert c.mean_games > 4096, "stopped at the first look: the stop was not put to the test"
    assert c.share >= BOUND, c


def test_balance_chosen_interval_covers() -> None:
    rate, shift = C.balance_choice([0.44, 0.48, 0.52, 0.56], 0.01, 200, seed=13)
    assert rate.share >= BOUND, rate
    assert shift.share >= BOUND, shift
