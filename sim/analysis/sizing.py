"""Sizing a paired question by its headlines (the first-player shift, each changed card's
holders' shift): :func:`play_until` plays both arms until every 95% half-width is narrow
enough; :func:`plan_pairs` scales a pilot's half-widths by ``1/sqrt(n)`` into games and time.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.analysis.paired import READ_COLUMNS, Outcomes, card_ids, holders
from sim.run.stats import Z95, paired_ratio_diff

PLAN_PILOT = 2_000
"""Games per arm of ``--plan``'s pilot (fewer when ``--games`` is smaller)."""


Terms = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""A headline's per-game ``(num_a, den_a, num_b, den_b)``."""


def headline_terms(
    a: Outcomes,
    b: Outcomes,
    kinds_a: Mapping[str, int],
    kinds_b: Mapping[str, int],
    first: bool = True,
) -> dict[str, Terms]:
    """The :data:`Terms` of every headline of the pair ``a``, ``b``: the first-player win rate
    (``"first player"``, unless ``first`` is False) and each card's holders' win rate, as
    :func:`sim.analysis.paired.card_shifts` counts it."""
    ones = np.ones(a.games, np.int8)
    out = {"first player": (a.first_win, ones, b.first_win, ones)} if first else {}
    names, ka, kb = card_ids(kinds_a, kinds_b)
    won_a, won_b, den = holders(a, b, ka, kb)
    for i, name in enumerate(names):
        out[f"{name}: holders"] = (won_a[:, i], den[:, i], won_b[:, i], den[:, i])
    return out


def half_widths(terms: Mapping[str, Terms]) -> dict[str, float]:
    """Each headline's paired 95% half-width (``inf`` while it is undefined)."""
    out = {}
    for name, (na, da, nb, db) in terms.items():
        r = paired_ratio_diff(na, da, nb, db)
        se = float(r["se_paired"])
        out[name] = Z95 * se if math.isfinite(se) and da.sum() > 0 else math.inf
    return out


Arm = Callable[[int, int], Outcomes]
"""One arm of a pair: ``arm(start, n)`` plays (or recalls) games ``start .. start+n-1``."""


def engine_arm(engine: Any, bar: Any = None) -> Arm:
    """An arm that plays ``engine``: one kernel call a request, or with ``bar`` (a
    :class:`sim.run.progress.Bar`) calls of a fraction of a second that each advance it."""
    tick = None if bar is None else (lambda rows: bar.advance(len(rows)))

    def arm(start: int, n: int) -> Outcomes:
        table = engine.play(start, n, tick=tick).select(READ_COLUMNS)
        return Outcomes.from_frame(table, len(engine.pool.units))

    return arm


def cached_arm(engine: Any) -> Arm:
    """An arm that plays each ``(start, n)`` once and recalls it after (a sweep's baseline,
    which every cell pairs with)."""
    return functools.cache(engine_arm(engine))


@dataclass
class Stopped:
    """What :func:`play_until` played."""

    a: Outcomes
    b: Outcomes
    games: int


def play_until(
    arms: Sequence[Arm],
    games: int,
    until_ci: float,
    kinds_a: Mapping[str, int],
    kinds_b: Mapping[str, int],
    bar: Any = None,
    step: int | None = None,
    first: bool = True,
) -> Stopped:
    """Play A and B a kernel call at a time until every headline's half-width is at most
    ``until_ci`` (or ``games`` are played); ``bar`` advances by both arms' games.
    ``first``: the first-player shift is a headline (a compare's; not a sweep cell's).
    ``step``: games per arm between two looks; default one kernel call of ``run
    --until-ci``'s, :data:`sim.run.engine.MAX_STEP`."""
    if step is None:
        from sim.run.engine import MAX_STEP  # deferred: importing it loads the batch kernel

        step = MAX_STEP
    parts: list[tuple[Outcomes, Outcomes]] = []
    terms: dict[str, list[Terms]] = {}  # each headline's, step by step
    start = 0
    while start < games:
        n = min(step, games - start)
        a, b = arms[0](start, n), arms[1](start, n)
        parts.append((a, b))
        start += n
        for name, t in headline_terms(a, b, kinds_a, kinds_b, first).items():
            terms.setdefault(name, []).append(t)
        if bar is not None:
            bar.advance(2 * n)
        widths = half_widths(
            {k: [np.concatenate(c) for c in zip(*t, strict=True)] for k, t in terms.items()}
        )
        if all(w <= until_ci for w in widths.values()):
            break
    return Stopped(*(Outcomes.concat(list(arm)) for arm in zip(*parts, strict=True)), start)


@dataclass
class Plan:
    """A pilot's half-widths, scaled to the games a question needs."""

    pilot: int
    widths: dict[str, float]
    """Each headline's half-width over the pilot."""
    width: float
    games: int
    """Games per run (each arm, or each cell) for ``width`` on every headline."""
    runs: int
    """How many runs of ``games`` the question plays (2 for a compare, cells + 1 for a sweep)."""
    games_per_second: float

    @property
    def total(self) -> int:
        """Games in all."""
        return self.games * self.runs

    @property
    def seconds(self) -> float:
        """Wall time at the pilot's speed."""
        return self.total / self.games_per_second if self.games_per_second > 0 else math.inf

    def lines(self) -> list[str]:
        """The plan as lines a person reads."""
        worst = max(self.widths, key=lambda k: self.widths[k]) if self.widths else "-"
        return [
            f"plan: a pilot of {self.pilot:,} games per run gave these 95% half-widths:",
            *(f"  {k}: +/- {w * 100:.2f} points" for k, w in self.widths.items()),
            f"For +/- {self.width * 100:.2f} points on every headline (the widest: {worst}): "
            f"{self.games:,} games per run, {self.runs} runs, {self.total:,} games in all, "
            f"about {_duration(self.seconds)} on this machine "
            f"({self.games_per_second:,.0f} games/s in the pilot).",
        ]


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "an unknown time"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def needed(width_at_pilot: float, pilot: int, width: float) -> int:
    """Games for ``width`` when the pilot of ``pilot`` games gave ``width_at_pilot``."""
    if not math.isfinite(width_at_pilot):
        return pilot
    return max(pilot, math.ceil(pilot * (width_at_pilot / width) ** 2))


def plan_pairs(
    pairs: Sequence[tuple[Arm, Arm]],
    kinds: Sequence[tuple[Mapping[str, int], Mapping[str, int]]],
    pilot: int,
    width: float,
    runs: int,
    bar: Any = None,
    first: bool = True,
) -> Plan:
    """Play ``pilot`` games of each ``(arm A, arm B)`` pair (a run several pairs share, a
    sweep's baseline, is one :func:`cached_arm`) and plan ``runs`` runs for ``width``."""
    widths: dict[str, float] = {}
    t0 = time.perf_counter()
    for (arm_a, arm_b), (ka, kb) in zip(pairs, kinds, strict=True):
        a, b = arm_a(0, pilot), arm_b(0, pilot)
        if bar is not None:
            bar.advance(2 * pilot)
        for name, w in half_widths(headline_terms(a, b, ka, kb, first)).items():
            widths[name] = max(widths.get(name, 0.0), w)
    speed = 2 * pilot * len(pairs) / max(time.perf_counter() - t0, 1e-9)
    games = max((needed(w, pilot, width) for w in widths.values()), default=pilot)
    return Plan(pilot, widths, width, games, runs, speed)
