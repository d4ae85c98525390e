"""A race of candidates toward a target rate, paired on common random numbers: at looks of
doubling game counts a candidate shown farther from the target than a rival is dropped, one
shown at most ``precision`` closer than the leader rests. The tests, and why they hold the
race's error rate at ``alpha``: ``docs/balance.md``, "The race". Everything here works on
arrays; :mod:`sim.analysis.balance` plays the games.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.run.stats import (
    Z95,
    distance_diff,
    holm,
    normal_interval,
    normal_quantile,
    normal_sf,
    ratio_se,
)

ALPHA = 0.05
"""Chance, over the whole race, of dropping the best candidate."""
MIN_ALPHA = 1e-9
"""The smallest ``alpha`` the tests can use: a look tests at ``alpha / looks`` (at most 57
looks, doubling from a pilot of 100 to 2**62 games) through the normal quantile of
``1 - alpha / looks``, which is 1.0 in floating point below about 1e-16 (the quantile
undefined) and loses digits near it; from 1e-9 it is exact to five digits."""


def schedule(pilot: int, ceiling: int) -> list[int]:
    """The cumulative games of each look: pilot, 2 pilot, ... and the ceiling last."""
    if pilot < 1 or ceiling < pilot:
        raise ValueError(f"need 1 <= pilot <= ceiling, got pilot {pilot}, ceiling {ceiling}")
    looks = [pilot]
    while looks[-1] < ceiling:
        looks.append(min(ceiling, 2 * looks[-1]))
    return looks


@dataclass
class Estimate:
    """One candidate's rate over the games it played, with its 95% normal interval."""

    games: int
    count: int
    """Denominator: (game, seat) holders, or decisive games."""
    rate: float
    se: float
    lo: float
    hi: float


def estimate(num: np.ndarray, den: np.ndarray) -> Estimate:
    """The rate of ``sum(num) / sum(den)`` over the rows given, with its standard error."""
    rate, se = ratio_se(num, den)
    return Estimate(len(num), int(den.sum()), rate, se, *normal_interval(rate, se))


@dataclass
class Look:
    """What one look decided."""

    look: int
    games: int
    """Cumulative games of the survivors that played most at this look."""
    alive: list[int]
    estimates: dict[int, dict[str, float]]
    dropped: dict[int, str] = field(default_factory=dict)
    """Candidate -> why it was dropped here."""
    settled: str | None = None
    """Why the race stopped here, or ``None`` if it goes on."""
    level: float = math.nan
    """The Holm family level at this look (alpha / L)."""
    leader: int = -1
    """The closest estimate at this look (never dropped)."""
    resting: list[int] = field(default_factory=list)
    """Survivors shown at most ``precision`` closer to the target than the leader: they
    play no further games while that candidate leads."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (its candidate keys become strings in JSON)."""
        return dataclasses.asdict(self)


def decide(
    look: int,
    rows: dict[int, tuple[np.ndarray, np.ndarray]],
    labels: list[str],
    target: float,
    precision: float,
    level: float,
) -> Look:
    """One look's eliminations and stop decision over the survivors' ``rows[j] = (num, den)``
    per game (a resting candidate has fewer; a pair is compared over the games both played);
    ``level`` is this look's share of ``alpha``."""
    alive = sorted(rows)
    games = max(len(rows[j][0]) for j in alive)
    est = {j: estimate(*rows[j]) for j in alive}
    finite = [j for j in alive if math.isfinite(est[j].rate)]
    leader = min(finite, key=lambda j: (abs(est[j].rate - target), j)) if finite else alive[0]
    shown = {
        j: {k: getattr(e, k) for k in ("rate", "se", "count", "games")} for j, e in est.items()
    }
    result = Look(look, games, alive, shown, level=level, leader=leader)
    p: dict[int, float] = {}
    beaten_by: dict[int, tuple[int, float, float]] = {}
    rivals = max(1, len(alive) - 1)
    for j in alive:
        if j == leader:
            continue
        if not math.isfinite(est[j].rate):
            p[j], beaten_by[j] = 0.0, (leader, math.nan, math.nan)
            continue
        best = (1.0, leader, math.nan, math.nan)
        for i in alive:
            if i == j:
                continue
            d, se = distance_diff(target, rows[i], rows[j])
            if not (math.isfinite(d) and math.isfinite(se)):
                continue
            pij = (1.0 if d <= 0 else 0.0) if se == 0 else normal_sf(d / se)
            if pij < best[0]:
                best = (pij, i, d, se)
        p[j] = min(1.0, rivals * best[0])
        beaten_by[j] = best[1:]
    for j in sorted(holm(p, level)):
        i, d, se = beaten_by[j]
        why = f"{labels[i]} is closer to the target"
        if math.isfinite(d):
            why += f" by {d * 100:.2f} points (SE {se * 100:.2f}, adjusted p {p[j]:.2g})"
        result.dropped[j] = why
    survivors = [j for j in alive if j not in result.dropped]
    # One-sided: "j is at most precision closer than the leader", each rival at the look's
    # level (an intersection-union test: docs/balance.md).
    rivals_left = [j for j in survivors if j != leader]
    z = normal_quantile(1 - level)
    for j in rivals_left:
        d, se = distance_diff(target, rows[leader], rows[j])
        if math.isfinite(d) and math.isfinite(se) and d - z * se >= -precision:
            result.resting.append(j)
    lead = est[leader]
    narrow = math.isfinite(lead.se) and Z95 * lead.se <= precision
    if len(survivors) == 1 and narrow:
        result.settled = f"{labels[leader]} is the only candidate left and its interval is narrow"
    elif len(result.resting) == len(rivals_left) and narrow:
        result.settled = (
            f"none of the other {len(rivals_left)} candidates left is more than "
            f"{precision * 100:.2f} points closer to the target than {labels[leader]}, "
            "the closest estimate"
        )
    return result


def games_for(se: float, games: int, precision: float) -> int:
    """Games one candidate needs for a 95% half-width of ``precision``, from its SE at ``games``."""
    if not (math.isfinite(se) and se > 0):
        return games
    return math.ceil(games * (Z95 * se / precision) ** 2 * 1.05)
