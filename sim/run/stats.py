"""Small, dependency-free statistics for reporting simulated rates honestly.

Everything here works on plain Python numbers and on numpy arrays alike, so a
report can compute intervals for one rate or for a whole table of them at once.
"""

from __future__ import annotations

from typing import overload

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike


@overload
def wilson_interval(successes: int, n: int, z: float = ...) -> tuple[float, float]: ...


@overload
def wilson_interval(
    successes: ArrayLike, n: ArrayLike, z: float = ...
) -> tuple[np.ndarray, np.ndarray]: ...


def wilson_interval(successes, n, z=1.96):
    """Wilson score interval for a binomial proportion ``successes / n``.

    Unlike the textbook normal ("Wald") interval, Wilson's interval stays
    inside [0, 1] and keeps close to its nominal coverage when the rate is near
    0 or 1 or the sample is small, which is exactly where balance questions
    ("does this card ever win?") live.

    Args:
        successes: number of successes; an int or an array of them.
        n: number of trials, broadcastable against ``successes``; every entry
            must satisfy ``0 <= successes <= n``. Where ``n == 0`` nothing is
            known and the interval is the whole of ``(0.0, 1.0)``.
        z: the standard-normal quantile for the confidence level wanted
            (1.96 for 95%, 2.576 for 99%).

    Returns:
        ``(lo, hi)``: two floats when both inputs are scalars, otherwise two
        numpy float arrays of the broadcast shape.

    Raises:
        ValueError: if a count is negative, ``successes > n``, or ``z <= 0``.

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
    # Compute with n = 1 where n == 0 to avoid 0/0; those entries are replaced below.
    m_safe = np.where(empty, 1.0, m)
    p = k / m_safe
    z2 = z * z
    denom = 1.0 + z2 / m_safe
    centre = (p + z2 / (2.0 * m_safe)) / denom
    half = z * np.sqrt(p * (1.0 - p) / m_safe + z2 / (4.0 * m_safe * m_safe)) / denom
    # Clip only floating-point dust: mathematically the bounds already lie in [0, 1],
    # and at k == 0 (k == n) the lower (upper) bound is exactly 0 (1).
    lo = np.clip(centre - half, 0.0, 1.0)
    hi = np.clip(centre + half, 0.0, 1.0)
    lo = np.where(k == 0, 0.0, lo)
    hi = np.where(k == m, 1.0, hi)
    lo = np.where(empty, 0.0, lo)
    hi = np.where(empty, 1.0, hi)
    if scalar:
        return float(lo), float(hi)
    return lo, hi


def format_rate(successes: int, n: int, z: float = 1.96, digits: int = 2) -> str:
    """Format a rate with its Wilson interval, e.g. ``"52.31% (95% CI 52.21-52.41%)"``.

    The confidence level in the label is derived from ``z`` (two-sided normal
    quantile), so a caller passing ``z=2.576`` gets "99% CI".
    """
    lo, hi = wilson_interval(successes, n, z)
    rate = successes / n if n else float("nan")
    level = _confidence_level(z)
    return f"{rate:.{digits}%} ({level} CI {lo * 100:.{digits}f}-{hi * 100:.{digits}f}%)"


def _confidence_level(z: float) -> str:
    """Two-sided confidence level for a normal quantile, as a short label like "95%"."""
    from math import erf, sqrt

    level = erf(z / sqrt(2.0)) * 100
    return f"{level:.0f}%" if abs(level - round(level)) < 0.05 else f"{level:.1f}%"
