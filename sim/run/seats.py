"""First-player figures that count what they say: the one block every summary prints.

A run's first-player win rate alone misleads: shared victories count as "not
a win" for either seat, so "52.1% vs 50%" can hide a first player who beats
the second 54.3 to 43.9, and turn-capped games (stopped by the simulator, not
ended by the rules) mix an artificial ending in. :class:`SeatCounts` keeps the
counts apart and :func:`seat_lines` writes the five figures, each with a 95%
Wilson interval:

* **first-player win rate**: games the seat that took the first turn won outright;
* **second-player win rate**: games the other seat won outright;
* **shared victories**: games both seats won (a tie the rules do not break);
* **turn-capped games**: games stopped at ``--turn-cap`` before the rules ended them;
* **first player among decisive games**: first-player wins over games someone won
  outright; 50% means no first-player advantage, whatever the share of ties.

``run``, ``report``, ``compare`` and ``tournament`` all call :func:`seat_lines`
(or :func:`seat_figures` for a table), so the figures agree everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sim.run.stats import wilson_interval

if TYPE_CHECKING:  # the run path counts seats from Arrow tables and never imports pandas
    import pandas as pd

CAPPED = "turn_cap"
"""The ``end_reason`` of a game the simulator stopped at ``--turn-cap``."""


@dataclass(frozen=True)
class SeatCounts:
    """Outcome counts of a set of games, by the seat that took the first turn."""

    games: int = 0
    first_wins: int = 0
    second_wins: int = 0
    shared: int = 0
    capped: int = 0
    """Turn-capped games (already counted in the four figures above unless excluded)."""
    excluded_capped: int = 0
    """Turn-capped games left out of every figure (``--exclude-capped``)."""

    def __add__(self, other: SeatCounts) -> SeatCounts:
        return SeatCounts(
            *(getattr(self, f) + getattr(other, f) for f in self.__dataclass_fields__)
        )

    @property
    def decisive(self) -> int:
        """Games someone won outright."""
        return self.first_wins + self.second_wins

    @classmethod
    def from_arrays(
        cls, winner: Any, first: Any, capped: Any = None, exclude_capped: bool = False
    ) -> SeatCounts:
        """Counts from per-game ``winner`` (0, 1, -1), ``first`` seat and ``capped`` flags."""
        w = np.asarray(winner, np.int64)
        f = np.asarray(first, np.int64)
        cap = np.zeros(len(w), bool) if capped is None else np.asarray(capped, bool)
        excluded = int(cap.sum()) if exclude_capped else 0
        if exclude_capped:
            w, f, cap = w[~cap], f[~cap], cap[~cap]
        return cls(
            games=len(w),
            first_wins=int(np.count_nonzero(w == f)),
            second_wins=int(np.count_nonzero((w >= 0) & (w != f))),
            shared=int(np.count_nonzero(w < 0)),
            capped=int(cap.sum()),
            excluded_capped=excluded,
        )

    @classmethod
    def from_frame(cls, frame: pd.DataFrame | pa.Table, exclude_capped: bool = False) -> SeatCounts:
        """Counts from a run's rows (``winner``, ``first_player``, optional ``end_reason``)."""
        if isinstance(frame, pa.Table):
            winner = frame.column("winner").to_numpy()
            first = frame.column("first_player").to_numpy()
            capped = None
            if "end_reason" in frame.column_names:
                er = frame.column("end_reason")
                if pa.types.is_dictionary(er.type):
                    er = er.cast(pa.string())
                capped = pc.equal(er, CAPPED).to_numpy(zero_copy_only=False)
        else:
            winner = frame["winner"].to_numpy()
            first = frame["first_player"].to_numpy()
            capped = None
            if "end_reason" in frame.columns:
                capped = (frame["end_reason"].astype(str) == CAPPED).to_numpy()
        return cls.from_arrays(winner, first, capped, exclude_capped)


FIGURES = (
    ("first_player", "first player won", "first_wins", "games"),
    ("second_player", "second player won", "second_wins", "games"),
    ("shared", "shared victories", "shared", "games"),
    ("capped", "turn-capped games", "capped", "games"),
    ("first_of_decisive", "first player among decisive games", "first_wins", "decisive"),
)


def seat_figures(c: SeatCounts) -> dict[str, dict[str, float]]:
    """``{figure: {"count", "n", "rate", "lo", "hi"}}`` for the five figures (95% Wilson)."""
    out: dict[str, dict[str, float]] = {}
    for key, _, num, den in FIGURES:
        k, n = getattr(c, num), getattr(c, den)
        lo, hi = wilson_interval(k, n)
        out[key] = {"count": k, "n": n, "rate": k / n if n else float("nan"), "lo": lo, "hi": hi}
    return out


def seat_columns(c: SeatCounts) -> dict[str, float]:
    """The five figures flattened for a table row: ``<figure>_rate/_lo/_hi``, plus counts."""
    row: dict[str, float] = {
        "games": c.games,
        "first_wins": c.first_wins,
        "second_wins": c.second_wins,
        "shared": c.shared,
        "capped": c.capped,
    }
    for key, fig in seat_figures(c).items():
        row[f"{key}_rate"], row[f"{key}_lo"], row[f"{key}_hi"] = fig["rate"], fig["lo"], fig["hi"]
    return row


SHORT_LABELS = {
    "first_player": "first player won",
    "second_player": "second player won",
    "shared": "shared victories",
    "capped": "turn-capped",
    "first_of_decisive": "first of decisive",
}
"""Row labels of :func:`seat_rows` (short, for an aligned block)."""


def seat_rows(c: SeatCounts) -> list[tuple[str, str]]:
    """``(label, figure)`` rows of the five figures, then what was done with capped games.

    Each figure is ``"52.10%  (95% CI 51.79% to 52.41%)"``; the note row says
    how many turn-capped games are included or were left out.
    """
    figs = seat_figures(c)
    rows = []
    for key, _, _, _ in FIGURES:
        f = figs[key]
        rate = f"{f['rate']:.2%}" if f["n"] else "n/a"
        rows.append((SHORT_LABELS[key], f"{rate}  (95% CI {f['lo']:.2%} to {f['hi']:.2%})"))
    if c.excluded_capped:
        rows.append(
            (
                "capped games",
                f"{c.excluded_capped:,} turn-capped games were left out of every figure "
                "(--exclude-capped); the rows are still in the data",
            )
        )
    elif c.capped:
        rows.append(
            (
                "capped games",
                f"the {c.capped:,} turn-capped games are included, scored as they stood "
                "(--exclude-capped leaves them out)",
            )
        )
    return rows


def seat_lines(
    c: SeatCounts, indent: str = "  ", extra: Sequence[tuple[str, str]] = ()
) -> list[str]:
    """:func:`seat_rows` and the ``extra`` rows as aligned lines, for the text of compare,
    report and tournament."""
    rows = [*seat_rows(c), *extra]
    width = max(len(label) for label, _ in rows)
    return [f"{indent}{label.ljust(width)}  {value}" for label, value in rows]


def first_player_label(first: str, variants: tuple[str, ...] | list[str]) -> str:
    """Who takes the first turn, in words; the Emissary of War decides it when in play."""
    if "emissary" in variants:
        return "the Emissary of War deciding who goes first"
    return {
        "p0": "p0 always going first",
        "p1": "p1 always going first",
        "alternate": "seats alternating who goes first",
        "random": "a random first player each game",
    }.get(first, first)
