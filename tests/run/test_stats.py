"""The statistics module: Wilson score intervals (textbook values and the properties any
interval must have), and every figure it shares with a statistics library equal to that
library's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.run import stats as S
from sim.run.stats import wilson_interval


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


def test_formats() -> None:
    """The shapes figures print in, and a dash where there is no figure."""
    lo, hi = wilson_interval(81, 263)
    assert S.rate_ci(81 / 263, lo, hi) == "30.80% (95% CI 25.53-36.62%)"
    assert S.rate_cell(81 / 263, lo, hi) == "30.8% (25.5-36.6)"
    assert S.diff_ci(-0.028, -0.0531, -0.0029) == "-2.80 pp (95% CI -5.31 to -0.29)"
    assert S.signed_text(2.314, 2.1, 2.52) == "+2.31 (+2.10 to +2.52)"
    assert (S.pct(0.521), S.points(0.0123)) == ("52.10%", "+1.23")
    for f in (S.pct, S.points):
        assert f(None) == f(math.nan) == "-"
    assert S.rate_cell(math.nan, 0, 1) == S.signed_text(math.nan, 0, 1) == "-"


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


@given(counts)
def test_wilson_is_statsmodels_wilson(kn: tuple[int, int]) -> None:
    """The closed form here (kept so ``omensim run`` never imports statsmodels) gives
    statsmodels' Wilson interval."""
    from statsmodels.stats.proportion import proportion_confint

    k, n = kn
    want = proportion_confint(k, n, alpha=1 - S.LEVEL, method="wilson")
    assert wilson_interval(k, n) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(
    ("k1", "n1", "k2", "n2"), [(56, 70, 48, 80), (9, 10, 3, 10), (0, 12, 5, 40)]
)
def test_newcombe_is_statsmodels_newcombe(k1: int, n1: int, k2: int, n2: int) -> None:
    from statsmodels.stats.proportion import confint_proportions_2indep

    want = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", alpha=1 - S.LEVEL)
    got = S.newcombe_interval(k1, n1, k2, n2)
    assert (float(got[0]), float(got[1])) == pytest.approx(want, abs=1e-12)


def test_quantiles_are_the_libraries_quantiles() -> None:
    from scipy import stats as sp

    assert pytest.approx(sp.norm.ppf(0.975), abs=1e-12) == S.Z95
    assert pytest.approx(sp.norm.ppf(0.95), abs=1e-12) == S.normal_quantile(0.95)
    assert pytest.approx(sp.norm.sf(1.3), abs=1e-12) == S.normal_sf(1.3)
    for df in (1, 4, 30, 999):
        assert pytest.approx(sp.t.ppf(0.975, df), rel=1e-12) == S.t_quantile(df)
    assert S.t_quantile(0) == math.inf
    p = S.p_values(np.array([0.0, 1.0, -2.0, 1.0]), np.array([0.0, 1.0, 1.0, np.nan]))
    np.testing.assert_allclose(p[:3], [1.0, 2 * sp.norm.sf(1), 2 * sp.norm.sf(2)], atol=1e-12)
    assert np.isnan(p[3])


def test_holm_rejects_what_statsmodels_holm_rejects() -> None:
    from statsmodels.stats.multitest import multipletests

    p = {3: 0.01, 5: 0.04, 7: 0.03, 9: 0.005, 11: float("nan")}
    finite = [k for k in p if math.isfinite(p[k])]
    want, _, _, _ = multipletests([p[k] for k in finite], alpha=0.05, method="holm")
    assert S.holm(p, 0.05) == {k for k, r in zip(finite, want, strict=True) if r}
    assert S.holm({}, 0.05) == set()


def test_paired_ratio_se_is_the_delta_method() -> None:
    """Paired by game: the standard error of the difference of two ratios of sums is the
    spread of the per-game delta-method terms' differences."""
    rng = np.random.default_rng(3)
    den = rng.integers(0, 3, 400)
    num_a = rng.binomial(den, 0.5)
    num_b = np.minimum(num_a + rng.binomial(1, 0.1, 400), den)
    d, se = S.paired_ratio_se(num_a, den, num_b, den)
    ra, rb = num_a.sum() / den.sum(), num_b.sum() / den.sum()
    ta = (num_a - ra * den) / den.mean()
    tb = (num_b - rb * den) / den.mean()
    assert d == pytest.approx(rb - ra)
    assert se == pytest.approx(np.std(tb - ta, ddof=1) / math.sqrt(400))


def test_one_z95_in_the_code() -> None:
    """The 95% normal quantile is written once; everything else reads it from there."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "sim"
    found = [p for p in root.rglob("*.py") for line in p.read_text().splitlines()
             if line.strip().startswith("Z95 =")]  # fmt: skip
    assert [p.name for p in found] == ["stats.py"]


def test_the_libraries_edge_cases_warn_nothing_and_errors_still_raise() -> None:
    """A rate of 0 makes statsmodels divide by zero and warn; the p-value is the answer, and
    a command's output is ours alone. An error is not a warning: it still raises."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning that leaked would raise here
        assert 0 <= S.two_proportions_p(1, 1, 0, 1) <= 1
        reject, adjusted = S.adjust_p([0.01, float("nan"), 0.5])
        assert reject[0] and np.isnan(adjusted[1])
    with pytest.raises(ValueError):
        S.adjust_p([0.01, 0.2], "no-such-method")
