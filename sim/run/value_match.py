"""Two fits of the learned value played against each other: which one plays stronger.

A fit's held-out Brier score does not rank fits by strength: networks fitted on the same
positions from different starting weights score alike and play several points apart
(docs/bots-value.md). So the retrain (``tools/train_value.py``) keeps the fit that wins,
and ``benchmarks/bench_value.py`` plays a retrain against the shipped weights, both with
``value_match``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.base import layout as L
from sim.data.spec import RunSpec
from sim.run.engine import Engine
from strategies.greedy import FP_VALUE


class MatchResult(NamedTuple):
    """Games of the ``value`` bot reading weights ``a`` against the same bot reading ``b``."""

    a: int
    """games the seat reading ``a`` won"""
    b: int
    """games the seat reading ``b`` won"""
    games: int
    """games played; those neither won are shared victories"""

    @property
    def score(self) -> float:
        """``a``'s share of the points: a win 1, a shared victory 1/2."""
        return (self.a + (self.games - self.a - self.b) / 2) / self.games


def value_match(mix: str, a: np.ndarray, b: np.ndarray, games: int, seed: int) -> MatchResult:
    """``games`` games of ``mix`` (run ``seed``, seat-balanced duplicate deals: each deal
    played twice, ``a`` in each seat once) of the ``value`` bot reading weight row ``a``
    against it reading ``b`` (rows of ``strategies.value_features``' layout)."""
    half = games // 2
    if half < 1:
        raise ValueError(f"a value match needs at least 2 games, not {games}")
    won_a = won_b = 0
    for seat in (0, 1):
        spec = RunSpec(games=half, mix=mix, seed=seed, p0="value", p1="value", duplicate=True)
        engine = Engine(spec)
        engine.fp = engine.fp.copy()  # the compiled run's rows are shared
        engine.fp[seat, FP_VALUE:] = a
        engine.fp[1 - seat, FP_VALUE:] = b
        winner = engine.play_raw(0, half)[0][:, L.O_WINNER]
        won_a += int((winner == seat).sum())
        won_b += int((winner == 1 - seat).sum())
    return MatchResult(won_a, won_b, 2 * half)
