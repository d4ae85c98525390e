"""Wilson score intervals: textbook values and the properties any interval must have."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.run.stats import format_rate, wilson_interval


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        # Textbook values (z = 1.96), e.g. Newcombe (1998), Brown, Cai & DasGupta (2001).
        (0, 10, 0.0, 0.2775),
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (81, 263, 0.2553, 0.3662),
        (1, 29, 0.0061, 0.1718),
        (15, 148, 0.0624, 0.1605),
    ],
)
def test_known_values(k: int, n: int, lo: float, hi: float) -> None:
    got_lo, got_hi = wilson_interval(k, n)
    assert got_lo == pytest.approx(lo, abs=5e-5)
    assert got_hi == pytest.approx(hi, abs=5e-5)


def test_scalar_inputs_give_python_floats() -> None:
    lo, hi = wilson_interval(3, 7)
    assert type(lo) is float and type(hi) is float


def test_vectorised_matches_scalar() -> None:
    k = np.array([0, 5, 81, 10, 7])
    n = np.array([10, 10, 263, 10, 1000])
    lo, hi = wilson_interval(k, n)
    assert lo.shape == hi.shape == (5,)
    for i in range(5):
        s_lo, s_hi = wilson_interval(int(k[i]), int(n[i]))
        assert lo[i] == pytest.approx(s_lo) and hi[i] == pytest.approx(s_hi)


def test_broadcasts_and_empty_sample() -> None:
    lo, hi = wilson_interval(np.array([[0, 1], [2, 0]]), 2)
    assert lo.shape == hi.shape == (2, 2)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wider_for_higher_confidence() -> None:
    lo95, hi95 = wilson_interval(40, 100)
    lo99, hi99 = wilson_interval(40, 100, z=2.576)
    assert lo99 < lo95 and hi99 > hi95


@pytest.mark.parametrize(
    ("k", "n", "z"), [(-1, 10, 1.96), (11, 10, 1.96), (1, -2, 1.96), (1, 2, 0)]
)
def test_rejects_impossible_counts(k: int, n: int, z: float) -> None:
    with pytest.raises(ValueError):
        wilson_interval(k, n, z)


def test_format_rate() -> None:
    assert format_rate(81, 263) == "30.80% (95% CI 25.53-36.62%)"
    assert "99% CI" in format_rate(81, 263, z=2.576)


counts = st.integers(min_value=1, max_value=10**9).flatmap(
    lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
)


@given(counts)
def test_contains_point_estimate_and_stays_in_unit_interval(kn: tuple[int, int]) -> None:
    k, n = kn
    lo, hi = wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


@given(counts, st.integers(min_value=2, max_value=1000))
def test_shrinks_with_more_games_at_the_same_rate(kn: tuple[int, int], factor: int) -> None:
    k, n = kn
    lo, hi = wilson_interval(k, n)
    lo2, hi2 = wilson_interval(k * factor, n * factor)
    assert hi2 - lo2 < hi - lo


@given(counts)
def test_symmetric_under_swapping_success_and_failure(kn: tuple[int, int]) -> None:
    k, n = kn
    lo, hi = wilson_interval(k, n)
    lo_f, hi_f = wilson_interval(n - k, n)
    assert lo == pytest.approx(1.0 - hi_f, abs=1e-12)
    assert hi == pytest.approx(1.0 - lo_f, abs=1e-12)
