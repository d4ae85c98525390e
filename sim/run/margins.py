"""The first player's VP margin: its mean with a t-interval, for every summary.

The margin of a game is the first player's score minus the second player's
(so a first-player advantage is a positive mean; a margin of 0 is decided by
the tie-breaks). :class:`MarginMoments` keeps the count, sum and sum of
squares of the per-game margins as exact integers, so chunks add up to the
run's figure; :meth:`MarginMoments.interval` is the Student t-interval on the
per-game margins, mean +/- t(0.975, n-1) * sd / sqrt(n).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from sim.run.stats import signed_text, t_interval

if TYPE_CHECKING:  # the run path counts from Arrow tables and never imports pandas
    import pandas as pd

COLUMNS: tuple[str, ...] = ("first_player", "score_p0", "score_p1")
"""The columns :meth:`MarginMoments.from_frame` reads."""


def first_player_margins(first: Any, score_p0: Any, score_p1: Any) -> np.ndarray:
    """Per game, the first player's score minus the second player's (int64)."""
    s0 = np.asarray(score_p0, np.int64)
    s1 = np.asarray(score_p1, np.int64)
    return np.where(np.asarray(first) == 0, s0 - s1, s1 - s0)


@dataclass(frozen=True)
class MarginMoments:
    """Count, sum and sum of squares of the first player's per-game VP margins."""

    games: int = 0
    total: int = 0
    squares: int = 0

    def __add__(self, other: MarginMoments) -> MarginMoments:
        return MarginMoments(
            self.games + other.games, self.total + other.total, self.squares + other.squares
        )

    @classmethod
    def from_margins(cls, margins: Any) -> MarginMoments:
        """Moments of an array of per-game margins."""
        m = np.asarray(margins, np.int64)
        return cls(len(m), int(m.sum()), int((m * m).sum()))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame | pa.Table) -> MarginMoments:
        """Moments from a run's rows (:data:`COLUMNS`)."""
        if isinstance(frame, pa.Table):
            cols = [frame.column(c).to_numpy() for c in COLUMNS]
        else:
            cols = [frame[c].to_numpy() for c in COLUMNS]
        return cls.from_margins(first_player_margins(*cols))

    @property
    def mean(self) -> float:
        """Mean margin (nan without games)."""
        return self.total / self.games if self.games else math.nan

    @property
    def sd(self) -> float:
        """Sample standard deviation of the margins (nan with fewer than two games)."""
        if self.games < 2:
            return math.nan
        # Exact integers up to here, so no cancellation before the one division.
        num = self.squares * self.games - self.total * self.total
        return math.sqrt(max(num, 0) / (self.games * (self.games - 1)))

    def interval(self) -> tuple[float, float]:
        """The 95% t-interval on the mean margin."""
        return t_interval(self.mean, self.sd, self.games)

    def figures(self) -> dict[str, float]:
        """``{"games", "mean", "sd", "lo", "hi"}`` (95% t-interval)."""
        lo, hi = self.interval()
        return {"games": self.games, "mean": self.mean, "sd": self.sd, "lo": lo, "hi": hi}


def margin_row(m: MarginMoments) -> tuple[str, str]:
    """``("first VP margin", "+2.31 VP  (95% t-interval +2.10 to +2.52; sd 9.8)")``."""
    if not m.games:
        return ("first VP margin", "n/a")
    lo, hi = m.interval()
    return (
        "first VP margin",
        f"{m.mean:+.2f} VP  (95% t-interval {lo:+.2f} to {hi:+.2f}; sd {m.sd:.1f} per game)",
    )


def margin_text(m: MarginMoments) -> str:
    """``"+2.31 (+2.10 to +2.52)"``: the mean margin in VP and its 95% t-interval, for tables."""
    if m.games < 2:
        return "n/a" if not m.games else f"{m.mean:+.2f}"
    return signed_text(m.mean, *m.interval())


@dataclass(frozen=True)
class MarginShift:
    """The first player's margin in runs A and B over the same games, and its paired shift.

    ``shift`` holds the moments of the per-game differences ``B - A``, so its
    t-interval is the paired interval: the deal's luck, common to both runs,
    cancels game by game.
    """

    a: MarginMoments
    b: MarginMoments
    shift: MarginMoments

    @classmethod
    def from_margins(cls, a: Any, b: Any) -> MarginShift:
        """From the per-game margins of A and B, game ``i`` of one paired with game ``i``."""
        ma, mb = np.asarray(a, np.int64), np.asarray(b, np.int64)
        if ma.shape != mb.shape:
            raise ValueError(f"paired margins need as many games in A ({len(ma)}) as B ({len(mb)})")
        return cls(
            MarginMoments.from_margins(ma),
            MarginMoments.from_margins(mb),
            MarginMoments.from_margins(mb - ma),
        )

    def figures(self) -> dict[str, float]:
        """``a_mean, a_lo, a_hi, b_mean, b_lo, b_hi, diff, lo, hi, sd`` (VP; 95% t-intervals)."""
        a, b, d = self.a.figures(), self.b.figures(), self.shift.figures()
        out = {f"a_{k}": a[k] for k in ("mean", "lo", "hi")}
        out |= {f"b_{k}": b[k] for k in ("mean", "lo", "hi")}
        return out | {
            "games": d["games"],
            "diff": d["mean"],
            "lo": d["lo"],
            "hi": d["hi"],
            "sd": d["sd"],
        }

    def text(self) -> str:
        """:func:`shift_text` of :meth:`figures`."""
        return shift_text(self.figures()) if self.shift.games else "n/a"


def shift_text(f: Mapping[str, float]) -> str:
    """``"+0.80 -> +0.95 VP, change +0.15 VP (95% paired t-interval -0.05 to +0.35)"`` from
    :meth:`MarginShift.figures` (or a row holding them, as ``compare.json`` does)."""
    return (
        f"{f['a_mean']:+.2f} -> {f['b_mean']:+.2f} VP, change {f['diff']:+.2f} VP "
        f"(95% paired t-interval {f['lo']:+.2f} to {f['hi']:+.2f})"
    )


def moments_of_counts(counts: dict[int, int]) -> MarginMoments:
    """Moments of a margin histogram (``{margin: games}``), e.g. ``RunTotals.margins``."""
    games = sum(counts.values())
    total = sum(int(v) * int(c) for v, c in counts.items())
    squares = sum(int(v) * int(v) * int(c) for v, c in counts.items())
    return MarginMoments(games, total, squares)


MARGIN_QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
"""Quantiles of the first player's VP margin the reports list."""
SIDES = ("ahead", "level", "behind")
"""Where the first player ended on VP: the shares :func:`margin_distribution` gives."""


def margin_distribution(
    values: Any, games: Any, qs: Iterable[float] = MARGIN_QUANTILES
) -> dict[str, Any]:
    """The first player's VP margin from its histogram (``games[i]`` games ended with margin
    ``values[i]``): ``games``, the mean with its 95% t-interval (``lo``, ``hi``) and ``sd``
    (:class:`MarginMoments`), the quantiles ``qs`` as ``p10``... (the
    smallest margin at least a share ``q`` of games do not exceed) and the shares of games
    the first player ended ``ahead``, ``level`` and ``behind`` on VP."""
    v = np.asarray(values, np.int64)
    n = np.asarray(games, np.int64)
    if not n.sum():
        nan = math.nan
        row = {"games": 0, "mean": nan, "lo": nan, "hi": nan, "sd": nan}
        return row | {f"p{round(q * 100)}": nan for q in qs} | dict.fromkeys(SIDES, nan)
    order = np.argsort(v, kind="stable")
    v, n = v[order], n[order]
    m = moments_of_counts(dict(zip(v.tolist(), n.tolist(), strict=True))).figures()
    total = max(int(n.sum()), 1)
    share = n / total
    cum = np.cumsum(share)
    row: dict[str, Any] = {k: m[k] for k in ("games", "mean", "lo", "hi", "sd")}
    for q in qs:
        row[f"p{round(q * 100)}"] = int(v[min(np.searchsorted(cum, q - 1e-12), len(cum) - 1)])
    row |= {
        "ahead": float(share[v > 0].sum()),
        "level": float(share[v == 0].sum()),
        "behind": float(share[v < 0].sum()),
    }
    return row
