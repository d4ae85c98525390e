"""How often the 95% intervals printed after a data-dependent stop hold the planted answer.

Each check feeds synthetic games with a known answer through a command's own stopping or
selection code, many times, and counts the printed intervals that held the answer
(``benchmarks/bench_coverage.py`` prints the table; ``docs/statistics.md`` reads it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.analysis import balance as B
from sim.analysis import balance_question as Q
from sim.analysis.paired import Outcomes, first_player_shift
from sim.analysis.sizing import play_until
from sim.analysis.streaming import first_win_outcomes
from sim.data.spec import RunSpec
from sim.run.runner import games_to_play, until_ci_reached
from sim.run.stats import wilson_interval


@dataclass(frozen=True)
class Coverage:
    """The share of ``reps`` printed intervals that held the planted answer."""

    check: str
    setting: str
    reps: int
    covered: int
    mean_games: float

    @property
    def share(self) -> float:
        return self.covered / self.reps

    @property
    def se(self) -> float:
        """Monte Carlo standard error of :attr:`share`."""
        p = self.share
        return float(np.sqrt(p * (1 - p) / self.reps))


def run_until_ci(p: float, until_ci: float, reps: int, seed: int = 0) -> Coverage:
    """``run --until-ci``: first-player wins at rate ``p``, stopped at the first game where
    the rule holds (as the ledger does), then the Wilson interval the summary prints."""
    rng = np.random.default_rng(seed)
    ceiling = games_to_play(10**9, until_ci)
    n = np.arange(1, ceiling + 1)
    covered, games = 0, 0
    for _ in range(reps):
        wins = np.cumsum(rng.random(ceiling) < p)
        hit = np.flatnonzero(until_ci_reached(wins, n, until_ci))
        k = int(hit[0]) + 1 if len(hit) else ceiling
        lo, hi = wilson_interval(int(wins[k - 1]), k)
        covered += lo <= p <= hi
        games += k
    return Coverage("run --until-ci", f"rate {p:.2f}, --until-ci {until_ci}", reps, covered,
                    games / reps)  # fmt: skip


def _outcomes(first_win: np.ndarray, start: int) -> Outcomes:
    """Rows of ``len(first_win)`` games that only say whether the first player (seat 0) won."""
    n = len(first_win)
    return first_win_outcomes(np.arange(start, start + n), np.where(first_win, 0, 1), np.zeros(n))


class _PairedStream:
    """Arms A and B over the same games: A's first player wins at ``p_a``; B replays a
    share ``changed`` of the games anew at ``p_new`` and keeps the rest as A played them."""

    def __init__(self, rng: np.random.Generator, p_a: float, p_new: float, changed: float):
        self.rng, self.p_a, self.p_new, self.changed = rng, p_a, p_new, changed
        self.b: dict[int, np.ndarray] = {}

    def arm_a(self, start: int, n: int) -> Outcomes:
        a = self.rng.random(n) < self.p_a
        anew = self.rng.random(n) < self.p_new
        self.b[start] = np.where(self.rng.random(n) < self.changed, anew, a)
        return _outcomes(a, start)

    def arm_b(self, start: int, n: int) -> Outcomes:
        return _outcomes(self.b.pop(start), start)


def compare_until_ci(
    p_a: float, p_b: float, changed: float, until_ci: float, reps: int, seed: int = 0,
    step: int | None = None,
) -> Coverage:  # fmt: skip
    """``compare --until-ci``: A's first player wins at ``p_a``, B's at ``p_b``, a share
    ``changed`` of the games differing between the arms (:class:`_PairedStream`). Stopped by
    :func:`play_until`; the printed interval is the paired first-player shift's."""
    rng = np.random.default_rng(seed)
    p_new = p_a + (p_b - p_a) / changed
    if not 0 <= p_new <= 1:
        raise ValueError(f"no rate of the changed games moves {p_a} to {p_b}")
    ceiling = 4 * games_to_play(10**9, until_ci)
    covered = games = 0
    for _ in range(reps):
        s = _PairedStream(rng, p_a, p_new, changed)
        stopped = play_until([s.arm_a, s.arm_b], ceiling, until_ci, {}, {}, step=step)
        shift = first_player_shift(stopped.a, stopped.b)
        covered += shift.lo <= p_b - p_a <= shift.hi
        games += stopped.games
    setting = f"{p_a:.2f} -> {p_b:.2f}, {changed:.0%} of games changed, --until-ci {until_ci}"
    return Coverage("compare --until-ci", setting, reps, covered, games / reps)


class _Player:
    """Stands in for :class:`sim.analysis.balance.CandidatePlayer`: candidate ``j``'s games
    are wins at ``rates[j]``, each candidate's game ``i`` its own draw."""

    key: Mapping[str, str] = {"digest": "coverage stand-in"}
    rates: Sequence[float] = ()
    seed = 0

    def __init__(self, *args: object) -> None:
        self.rng = np.random.default_rng(self.seed)

    def play(self, j: int, start: int, stop: int, bar: Any) -> B.Rows:
        n = stop - start
        num = (self.rng.random(n) < self.rates[j]).astype(np.int8)
        return num, np.ones(n, np.int8), np.zeros(n, np.int16)


def balance_choice(
    rates: Sequence[float], tolerance: float, reps: int, seed: int = 0, pilot: int = 500
) -> tuple[Coverage, Coverage]:
    """``balance``: candidates ``start_coins = 2, 3, ...`` whose rates are ``rates`` race
    toward 50% (``start_coins = 4`` is the shipped value, so 3 to 5 rates); the coverage of
    the chosen candidate's printed rate interval, and of its printed shift from shipped."""
    spec = RunSpec(games=1, mix="aegean", seed=0)
    q = Q.rule_question(spec, ["start_coins"], [tuple(range(2, 2 + len(rates)))])
    if len(q.candidates) != len(rates):
        raise ValueError("give 3 to 5 rates: start_coins = 2, 3, 4 (shipped), ...")
    shipped = q.candidates.index(q.shipped)
    rate_hits = shift_hits = games = 0
    original = B.CandidatePlayer
    try:
        for r in range(reps):
            B.CandidatePlayer = type("P", (_Player,), {"rates": rates, "seed": seed * 7919 + r})
            result = B.race(q, spec, tolerance=tolerance, pilot=pilot, progress=False)
            c, j = result.chosen_row, result.chosen
            rate_hits += c.lo <= rates[j] <= c.hi
            shift_hits += j == shipped or c.shift_lo <= rates[j] - rates[shipped] <= c.shift_hi
            games += result.games
    finally:
        B.CandidatePlayer = original
    setting = f"rates {', '.join(f'{x:.3f}' for x in rates)}, tolerance {tolerance}"
    return (
        Coverage("balance: chosen rate", setting, reps, rate_hits, games / reps),
        Coverage("balance: chosen shift", setting, reps, shift_hits, games / reps),
    )
