"""The project's statistics, in one place: every interval, paired difference, ratio
difference, multiple-testing correction, sample-size rule and the formats they print in.

Run summaries, compare, sweep, balance, race, tournament, panels, mixes, laws, strength
and the reports all read their figures from here, so one statistic is computed one way
and printed one way. It sits in ``sim.run`` (below ``sim.analysis``) because the run
summary and ``--until-ci`` use it too.

Where the numbers come from:

* Normal quantiles and tails: :class:`statistics.NormalDist` (the standard library).
* Student t quantiles: ``scipy.special.stdtrit``, imported when first needed
  (``scipy.special`` loads neither pandas nor BLAS, so a run's summary can use it).
* Holm and the other corrections: ``statsmodels.stats.multitest.multipletests``.
* Wilson's score interval is its closed form here, vectorised over numpy arrays:
  ``statsmodels.stats.proportion.proportion_confint`` gives the same numbers
  (``tests/run/test_stats.py`` checks it), but importing statsmodels loads pandas
  and scipy's BLAS, which ``omensim run`` keeps out of its process
  (:func:`sim.run.io.arrow_without_pandas`, :func:`sim.run.session.numba_without_blas`);
  Newcombe's interval for a difference is built from it the same way.
* A ratio of sums (holders' win rate, the first player's share of decisive games) has
  its standard error from the delta method: each game's term
  ``(num - rate * den) / mean(den)``.

Every interval is two-sided at :data:`LEVEL`; :data:`Z95` is its normal quantile.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator, Mapping
from statistics import NormalDist
from typing import Any, overload

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike

LEVEL = 0.95
"""The confidence level of every interval the project prints."""
_NORMAL = NormalDist()
Z95 = _NORMAL.inv_cdf(0.5 + LEVEL / 2)
"""The standard-normal quantile of a two-sided :data:`LEVEL` interval (1.95996...)."""


# --- distributions ----------------------------------------------------------------------------


def normal_quantile(p: float) -> float:
    """Phi^-1(p), the standard-normal quantile, for 0 < p < 1."""
    return _NORMAL.inv_cdf(p)


def normal_sf(z: float) -> float:
    """The standard normal's upper tail, 1 - Phi(z)."""
    return _NORMAL.cdf(-z)


def p_values(diff: ArrayLike, se: ArrayLike) -> np.ndarray:
    """Two-sided normal p-values of ``diff / se`` (NaN where undefined; 1 where both are 0)."""
    d = np.asarray(diff, np.float64)
    s = np.asarray(se, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        zs = np.abs(d) / s
    zs = np.where((s == 0) & (d == 0), 0.0, zs)
    return np.array([2 * normal_sf(x) if np.isfinite(x) else np.nan for x in zs.ravel()]).reshape(
        zs.shape
    )


def t_quantile(df: int, level: float = LEVEL) -> float:
    """The Student t quantile of a two-sided ``level`` interval on ``df`` degrees of freedom
    (infinite below one degree of freedom)."""
    if df < 1:
        return math.inf
    from scipy.special import stdtrit  # deferred: scipy is only needed once figures print

    return float(stdtrit(df, 0.5 + level / 2))


def t_interval(mean: float, sd: float, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The t-interval ``mean +/- t(n-1) * sd / sqrt(n)`` (the whole line below two values)."""
    if n < 2:
        return (-math.inf, math.inf)
    half = t_quantile(n - 1, level) * sd / math.sqrt(n)
    return (mean - half, mean + half)


# --- proportions ------------------------------------------------------------------------------


@overload
def wilson_interval(successes: int, n: int, z: float = ...) -> tuple[float, float]: ...


@overload
def wilson_interval(
    successes: ArrayLike, n: ArrayLike, z: float = ...
) -> tuple[np.ndarray, np.ndarray]: ...


def wilson_interval(successes, n, z=Z95):
    """Wilson's score interval for a binomial proportion ``successes / n``.

    It stays inside [0, 1] and keeps close to its nominal coverage near 0 and 1 and on
    small samples, where balance questions ("does this card ever win?") live. Scalars in,
    two floats out; arrays in, two arrays of the broadcast shape out. Where ``n == 0``
    nothing is known and the interval is ``(0, 1)``.

    Raises:
        ValueError: a count is negative, ``successes > n``, or ``z <= 0``.

    Example:
        >>> lo, hi = wilson_interval(81, 263)
        >>> round(lo, 4), round(hi, 4)
        (0.2553, 0.3662)
    """
    scalar = np.ndim(successes) == 0 and np.ndim(n) == 0
    k = np.asarray(successes, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    if not z > 0:
        raise ValueError(f"z must be positive, got {z}")
    if np.any(k < 0) or np.any(m < 0):
        raise ValueError("successes and n must be non-negative")
    if np.any(k > m):
        raise ValueError("successes must not exceed n")
    empty = m == 0
    m_safe = np.where(empty, 1.0, m)  # 0/0 avoided; those entries are (0, 1) below
    p = k / m_safe
    z2 = z * z
    denom = 1.0 + z2 / m_safe
    centre = (p + z2 / (2.0 * m_safe)) / denom
    half = z * np.sqrt(p * (1.0 - p) / m_safe + z2 / (4.0 * m_safe * m_safe)) / denom
    # The bounds lie in [0, 1] and are exactly 0 (1) at k == 0 (k == n): clip the dust.
    lo = np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    hi = np.where(k == m, 1.0, np.clip(centre + half, 0.0, 1.0))
    lo = np.where(empty, 0.0, lo)
    hi = np.where(empty, 1.0, hi)
    if scalar:
        return float(lo), float(hi)
    return lo, hi


def newcombe_interval(
    k1: Any, n1: Any, k2: Any, n2: Any, z: float = Z95
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval for ``k1/n1 - k2/n2`` (independent samples).

    Newcombe (1998), method 10: each proportion's Wilson interval ``(l_i, u_i)``
    combined as ``d - sqrt((p1-l1)^2 + (u2-p2)^2)`` and ``d + sqrt((u1-p1)^2 +
    (p2-l2)^2)`` (statsmodels' ``confint_proportions_2indep(method="newcomb")``).
    Scalars or arrays; returns arrays (0-d for scalars).
    """
    k1, n1, k2, n2 = (np.asarray(v, dtype=np.float64) for v in (k1, n1, k2, n2))
    l1, u1 = wilson_interval(k1, n1, z)
    l2, u2 = wilson_interval(k2, n2, z)
    p1 = np.divide(k1, n1, out=np.full(np.broadcast(k1, n1).shape, np.nan), where=n1 > 0)
    p2 = np.divide(k2, n2, out=np.full(np.broadcast(k2, n2).shape, np.nan), where=n2 > 0)
    d = p1 - p2
    lo = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return np.asarray(lo), np.asarray(hi)


@contextlib.contextmanager
def library_quiet() -> Iterator[None]:
    """Around a call into a statistics library (statsmodels): the warnings it raises are
    dropped, numpy's floating-point ones too. Its edge cases (a rate of 0 or 1, a
    family of one) print a warning and return a number or NaN, which is the answer: a
    command's output is ours alone. Exceptions pass, so an error is never hidden."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def two_proportions_p(k1: int, n1: int, k2: int, n2: int) -> float:
    """The two-sided p-value that ``k1/n1`` and ``k2/n2`` (independent samples) differ:
    statsmodels' ``test_proportions_2indep`` with its defaults (its warnings dropped:
    :func:`library_quiet`)."""
    from statsmodels.stats.proportion import test_proportions_2indep  # deferred: loads pandas

    with library_quiet():
        return float(test_proportions_2indep(int(k1), int(n1), int(k2), int(n2)).pvalue)


# --- ratios of sums (delta method) ------------------------------------------------------------


def ratio_terms(num: np.ndarray, den: np.ndarray) -> tuple[float, np.ndarray]:
    """``(rate, per-game delta-method terms)`` of ``sum(num) / sum(den)``."""
    n = len(num)
    total = float(den.sum())
    if total == 0:
        return math.nan, np.zeros(n)
    rate = float(num.sum()) / total
    return rate, (num - rate * den) / (total / n)


def ratio_se(num: np.ndarray, den: np.ndarray) -> tuple[float, float]:
    """``(rate, standard error)`` of ``sum(num) / sum(den)`` over the games given."""
    n = len(num)
    rate, t = ratio_terms(num.astype(np.float64), den.astype(np.float64))
    se = float(np.sqrt(np.var(t, ddof=1) / n)) if n > 1 and math.isfinite(rate) else math.nan
    return rate, se


def paired_ratio_se(
    num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray
) -> tuple[float, float]:
    """``(rate_b - rate_a, its paired standard error)`` over the games both played
    (:func:`paired_ratio_diff` of one column)."""
    n = min(len(num_a), len(num_b))
    r = paired_ratio_diff(num_a[:n], den_a[:n], num_b[:n], den_b[:n])
    diff, se = float(r["diff"]), float(r["se_paired"])
    return diff, (se if n > 1 and math.isfinite(diff) else math.nan)


def distance_diff(
    target: float, a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
) -> tuple[float, float]:
    """``(d_b - d_a, standard error)``: how much farther from ``target`` B is than A.

    ``d = |rate - target|``, linearised around each estimate (delta method):
    each candidate's per-game terms carry the sign of its side of the target.
    Paired over the games both played.
    """
    n = min(len(a[0]), len(b[0]))
    ra, ta = ratio_terms(a[0][:n].astype(np.float64), a[1][:n].astype(np.float64))
    rb, tb = ratio_terms(b[0][:n].astype(np.float64), b[1][:n].astype(np.float64))
    if n < 2 or not (math.isfinite(ra) and math.isfinite(rb)):
        return math.nan, math.nan
    sa = 1.0 if ra >= target else -1.0
    sb = 1.0 if rb >= target else -1.0
    d = abs(rb - target) - abs(ra - target)
    return d, float(np.sqrt(np.var(sb * tb - sa * ta, ddof=1) / n))


def paired_ratio_diff(
    num_a: np.ndarray,
    den_a: np.ndarray,
    num_b: np.ndarray,
    den_b: np.ndarray,
    z: float = Z95,
) -> dict[str, np.ndarray]:
    """Paired difference of two ratio estimates ``sum(num)/sum(den)``, column by column.

    Rows are paired games (shape ``(n,)`` or ``(n, K)``). Uses the delta
    method: each game's term ``(num - rate * den) / mean(den)``; the variance
    of B's term minus A's, over games, gives the paired standard error, and the
    sum of the two variances the unpaired one. Counts (integer or bool arrays) get
    those variances from exact integer moments (:func:`counts_moments`,
    :func:`term_variances`), block by block; other numbers in floats.

    Returns:
        A dict of arrays (one entry per column): ``count_a``, ``count_b``,
        ``rate_a``, ``rate_b``, ``diff``, ``lo``, ``hi``, ``se_paired``,
        ``se_unpaired``, ``n_unpaired``.
    """
    raw = [np.asarray(x) for x in (num_a, den_a, num_b, den_b)]
    n = raw[0].shape[0]
    exact = counts_moments(raw)
    with np.errstate(divide="ignore", invalid="ignore"):
        if exact is not None:
            sums, moments = exact
            na_s, ca, nb_s, cb = (s.reshape(raw[0].shape[1:]) for s in sums.astype(np.float64))
            ra, rb = na_s / ca, nb_s / cb
            var_p, var_u = (v.reshape(raw[0].shape[1:]) for v in term_variances(n, sums, moments))
        else:
            na, da, nb, db = (x.astype(np.float64) for x in raw)
            ca, cb = da.sum(0), db.sum(0)
            ra, rb = na.sum(0) / ca, nb.sum(0) / cb
            ta = (na - ra * da) / (ca / n)
            tb = (nb - rb * db) / (cb / n)
            ddof = 1 if n > 1 else 0
            var_p = np.var(tb - ta, axis=0, ddof=ddof)
            var_u = np.var(ta, axis=0, ddof=ddof) + np.var(tb, axis=0, ddof=ddof)
        se_p, se_u = np.sqrt(var_p / n), np.sqrt(var_u / n)
        diff = rb - ra
        n_unp = np.where(var_p > 0, n * var_u / var_p, np.where(var_u > 0, np.inf, np.nan))
    return {
        "count_a": ca.astype(np.int64),
        "count_b": cb.astype(np.int64),
        "rate_a": ra,
        "rate_b": rb,
        "diff": diff,
        "lo": diff - z * se_p,
        "hi": diff + z * se_p,
        "se_paired": se_p,
        "se_unpaired": se_u,
        "n_unpaired": n_unp,
    }


MOMENT_ROWS = 2048
"""Games whose products are summed at a time by :func:`counts_moments`: a block small
enough to stay in cache, where a float copy of a compare's whole (games x cards) matrices
took a gigabyte or more and most of the compare's time after its games."""

MOMENT_PAIRS = ((0, 0), (0, 1), (1, 1), (2, 2), (2, 3), (3, 3), (0, 2), (0, 3), (1, 2), (1, 3))
"""The products of (num_a, den_a, num_b, den_b) whose sums the paired variances need."""


def counts_moments(arrays: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """For four integer arrays of ``n`` games (``(n,)`` or ``(n, ...)``): each one's column
    sums and the column sums of the products :data:`MOMENT_PAIRS`, as ``int64`` arrays of
    shape ``(4, K)`` and ``(10, K)``, exact. None if any array is not integer (or bool), or
    its values could overflow the sums."""
    if not all(x.dtype == bool or np.issubdtype(x.dtype, np.integer) for x in arrays):
        return None
    n = arrays[0].shape[0]
    flat = [x.reshape(n, math.prod(x.shape[1:])) for x in arrays]
    top = max((int(np.abs(x).max()) if x.size else 0) for x in flat)
    if top * top * max(n, 1) >= 2**62:
        return None
    k = flat[0].shape[1]
    sums = np.zeros((4, k), np.int64)
    products = np.zeros((len(MOMENT_PAIRS), k), np.int64)
    for lo in range(0, n, MOMENT_ROWS):
        block = [x[lo : lo + MOMENT_ROWS].astype(np.int64) for x in flat]
        for u in range(4):
            sums[u] += block[u].sum(0)
        for i, (u, v) in enumerate(MOMENT_PAIRS):
            products[i] += np.einsum("ij,ij->j", block[u], block[v])
    return sums, products


def term_variances(n: int, sums: np.ndarray, products: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The variances over games of the paired delta-method term ``tb - ta`` and the sum of
    those of ``ta`` and ``tb`` (:func:`paired_ratio_diff`), from :func:`counts_moments`.

    With ``ra = sum(na) / ca`` and ``ca = sum(da)``, A's term is ``n * A / ca**2`` where
    ``A = ca * na - sum(na) * da`` is an integer whose sum is 0, so every variance is a
    ratio of integers, worked out in Python's integers: exact before its one rounding, and
    0 exactly when the two runs' counts are the same (``n_unpaired`` is then ``inf``).
    NaN for a column without a denominator in either run, or without games.
    """
    pairs = {p: i for i, p in enumerate(MOMENT_PAIRS)}
    ddof = 1 if n > 1 else 0
    var_p = np.full(sums.shape[1], np.nan)
    var_u = np.full(sums.shape[1], np.nan)
    for j in range(sums.shape[1]):
        s_na, ca, s_nb, cb = (int(s) for s in sums[:, j])
        q = {p: int(products[i, j]) for p, i in pairs.items()}
        if n - ddof <= 0 or ca == 0 or cb == 0:
            continue
        aa = ca * ca * q[0, 0] - 2 * ca * s_na * q[0, 1] + s_na * s_na * q[1, 1]
        bb = cb * cb * q[2, 2] - 2 * cb * s_nb * q[2, 3] + s_nb * s_nb * q[3, 3]
        ab = ca * cb * q[0, 2] - ca * s_nb * q[0, 3] - s_na * cb * q[1, 2] + s_na * s_nb * q[1, 3]
        scale = n * n
        m = n - ddof
        paired = bb * ca**4 - 2 * ab * ca**2 * cb**2 + aa * cb**4
        var_p[j] = scale * paired / (ca**4 * cb**4 * m)
        var_u[j] = scale * aa / (ca**4 * m) + scale * bb / (cb**4 * m)
    return var_p, var_u


def counts_quantile(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """``np.quantile(data, q)`` (linear interpolation) of the data with these value counts
    (``values`` sorted), without expanding them."""
    h = (int(counts.sum()) - 1) * q
    lo, hi = int(np.floor(h)), int(np.ceil(h))
    ends = np.cumsum(counts)  # order statistic i is values[searchsorted(ends, i, "right")]
    x_lo = values[np.searchsorted(ends, lo, side="right")]
    x_hi = values[np.searchsorted(ends, hi, side="right")]
    return float(x_lo + (h - lo) * (x_hi - x_lo))


def normal_interval(estimate: Any, se: Any, z: float = Z95) -> tuple[Any, Any]:
    """``(estimate - z se, estimate + z se)``: the normal interval of an estimate."""
    return estimate - z * se, estimate + z * se


# --- multiple testing and sample sizes --------------------------------------------------------


CORRECTIONS = {
    "holm": "Holm step-down (family-wise error 5% over all cells)",
    "fdr_bh": "Benjamini-Hochberg (false discovery rate 5% over all cells)",
    "none": "no correction (each cell at 5% on its own)",
}
"""Multiple-testing corrections (``--correction``): a ``multipletests`` method name, or
``none``, and how each reads in a table's notes."""


def adjust_p(
    p: ArrayLike, method: str = "holm", alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray]:
    """``(reject, adjusted p)`` of ``p`` under ``method`` (a key of :data:`CORRECTIONS`),
    ``statsmodels.stats.multitest.multipletests``; NaN p-values are left out of the family
    (never rejected, adjusted NaN)."""
    p = np.asarray(p, np.float64)
    reject = np.zeros(len(p), bool)
    adjusted = np.full(len(p), np.nan)
    ok = np.isfinite(p)
    if not ok.any():
        return reject, adjusted
    if method == "none":
        adjusted[ok] = p[ok]
        reject[ok] = p[ok] < alpha
        return reject, adjusted
    from statsmodels.stats.multitest import multipletests  # deferred: loads pandas

    with library_quiet():
        r, adj, _, _ = multipletests(p[ok], alpha=alpha, method=method)
    reject[ok], adjusted[ok] = r, adj
    return reject, adjusted


def holm(p: Mapping[int, float], alpha: float) -> set[int]:
    """The keys Holm's step-down rejects at family-wise level ``alpha``."""
    keys = list(p)
    if not keys:
        return set()
    reject, _ = adjust_p([p[k] for k in keys], "holm", alpha)
    return {k for k, r in zip(keys, reject, strict=True) if r}


def games_for_half_width(sd: float, half_width: float, z: float = Z95) -> float:
    """Games (or pairs) whose mean has a ``z`` half-width of ``half_width``, for per-game
    standard deviation ``sd`` (infinite when ``half_width`` is 0)."""
    if half_width <= 0:
        return math.inf
    return (z * sd / half_width) ** 2


def brier_log_loss(p: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Brier score and log loss of probabilities ``p`` for 0/1 outcomes ``y`` (a value's
    calibration: ``benchmarks/bench_value.py``, ``tools/train_value.py``)."""
    q = np.clip(p, 1e-9, 1 - 1e-9)
    return float(np.mean((p - y) ** 2)), float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))


# --- formats ----------------------------------------------------------------------------------


def _missing(x: Any) -> bool:
    return x is None or not math.isfinite(x)


def pct(x: Any, digits: int = 2) -> str:
    """A rate in percent, ``"52.10%"`` (``"-"`` when there is none)."""
    return "-" if _missing(x) else f"{x:.{digits}%}"


def points(x: Any, digits: int = 2) -> str:
    """A difference of rates in signed points, ``"+1.23"`` (``"-"`` when there is none)."""
    return "-" if _missing(x) else f"{x * 100:+.{digits}f}"


def signed_text(mean: float, lo: float, hi: float) -> str:
    """``"+2.31 (+2.10 to +2.52)"``: a signed figure and its interval (``"-"`` when none)."""
    if _missing(mean):
        return "-"
    return f"{mean:+.2f} ({lo:+.2f} to {hi:+.2f})"


def rate_cell(rate: float, lo: float, hi: float, digits: int = 1) -> str:
    """``"52.1% (51.0-53.2)"``: a rate and its interval in a table cell (``"-"`` when none)."""
    if _missing(rate):
        return "-"
    return f"{rate:.{digits}%} ({lo * 100:.{digits}f}-{hi * 100:.{digits}f})"


def rate_ci(rate: float, lo: float, hi: float, digits: int = 2) -> str:
    """``"55.47% (95% CI 53.68-57.24%)"``: a rate and its interval in a sentence."""
    return f"{rate:.{digits}%} (95% CI {lo * 100:.{digits}f}-{hi * 100:.{digits}f}%)"


def diff_ci(diff: float, lo: float, hi: float) -> str:
    """``"-2.80 pp (95% CI -5.31 to -0.29)"``: a difference of rates in points, in a sentence."""
    return f"{diff * 100:+.2f} pp (95% CI {lo * 100:+.2f} to {hi * 100:+.2f})"
