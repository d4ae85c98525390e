"""Each Heir to the Dunes god's win rate: the figures that say whether a god, not a seat, wins.

In a mix whose base set has gods every game has one Anubis seat and one Horus
seat (``god_p0``, ``god_p1``). :class:`GodCounts` counts, for each god, the
games it was in play and the games its seat won outright, in all and split by
whether its seat took the first turn; :func:`god_rows` writes them with 95%
Wilson intervals for the run summary and the report. Mixes without gods have
no rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from sim.run.stats import wilson_interval

if TYPE_CHECKING:  # the run path counts from Arrow tables and never imports pandas
    import pandas as pd

GODS: tuple[str, ...] = ("anubis", "horus")
"""The gods a seat can serve, in the order every table lists them."""

COLUMNS: tuple[str, ...] = ("winner", "first_player", "god_p0", "god_p1")
"""The columns :meth:`GodCounts.from_frame` reads."""

_FIELDS = ("games", "wins", "first_games", "first_wins")


@dataclass(frozen=True)
class GodCounts:
    """Per god (in :data:`GODS` order): games in play, wins, and the same going first."""

    games: tuple[int, ...] = (0, 0)
    wins: tuple[int, ...] = (0, 0)
    first_games: tuple[int, ...] = (0, 0)
    """Games in which the god's seat took the first turn."""
    first_wins: tuple[int, ...] = (0, 0)

    def __add__(self, other: GodCounts) -> GodCounts:
        return GodCounts(
            *(
                tuple(a + b for a, b in zip(getattr(self, f), getattr(other, f), strict=True))
                for f in _FIELDS
            )
        )

    @property
    def in_play(self) -> bool:
        """Whether any game had gods."""
        return any(self.games)

    @classmethod
    def from_arrays(cls, winner: Any, first: Any, god_p0: Any, god_p1: Any) -> GodCounts:
        """Counts from per-game ``winner`` (0, 1, -1), ``first`` seat and both seats' god names."""
        return cls.from_codes(winner, first, name_codes(god_p0), name_codes(god_p1))

    @classmethod
    def from_codes(cls, winner: Any, first: Any, code_p0: Any, code_p1: Any) -> GodCounts:
        """Counts from per-game ``winner`` (0, 1, -1), ``first`` seat and both seats' gods as
        their index in :data:`GODS` (-1 for none)."""
        w = np.asarray(winner, np.int64)
        f = np.asarray(first, np.int64)
        c0 = np.asarray(code_p0, np.int64)
        c1 = np.asarray(code_p1, np.int64)
        out: dict[str, list[int]] = {k: [] for k in _FIELDS}
        for i in range(len(GODS)):
            seat = np.where(c0 == i, 0, np.where(c1 == i, 1, -1))
            mine = seat >= 0
            won = mine & (w == seat)
            went_first = mine & (f == seat)
            out["games"].append(int(mine.sum()))
            out["wins"].append(int(won.sum()))
            out["first_games"].append(int(went_first.sum()))
            out["first_wins"].append(int((won & went_first).sum()))
        return cls(*(tuple(out[k]) for k in _FIELDS))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame | pa.Table) -> GodCounts:
        """Counts from a run's rows (:data:`COLUMNS`; a frame without god columns has none)."""
        names = frame.column_names if isinstance(frame, pa.Table) else list(frame.columns)
        if not all(c in names for c in COLUMNS):
            return cls()
        if isinstance(frame, pa.Table):
            cols = [frame.column(c).to_numpy() for c in COLUMNS[:2]]
            return cls.from_codes(*cols, *(column_codes(frame.column(c)) for c in COLUMNS[2:]))
        cols = [frame[c].to_numpy() for c in COLUMNS[:2]]
        cols += [frame[c].astype(str).to_numpy() for c in COLUMNS[2:]]
        return cls.from_arrays(*cols)


def name_codes(names: Any) -> np.ndarray:
    """Each god name's index in :data:`GODS`, -1 for any other name."""
    g = np.asarray(names).astype(str)
    return np.select([g == god for god in GODS], list(range(len(GODS))), -1)


def column_codes(col: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """An Arrow column of god names as each row's index in :data:`GODS` (-1 for none).

    A dictionary column (what a run writes) is read by its codes through a table of its
    few names, never decoding a row: decoding a run's names took most of the time a run
    spends counting its gods after the last game.
    """
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    out = [np.zeros(0, np.int64)]
    for chunk in chunks:
        if pa.types.is_dictionary(chunk.type):
            names = chunk.dictionary.to_pylist()
            table = np.append(name_codes([str(n) for n in names]), -1) if names else np.full(1, -1)
            codes = chunk.indices.fill_null(len(table) - 1).to_numpy(zero_copy_only=False)
            out.append(table[codes])
        else:
            out.append(name_codes(chunk.cast(pa.string()).fill_null("").to_numpy(False)))
    return np.concatenate(out)


def god_figures(c: GodCounts) -> list[dict[str, Any]]:
    """One dict per god in play: ``god``, then ``games``/``wins``/``rate``/``lo``/``hi`` for
    all its games and the same prefixed ``first_`` and ``second_`` (95% Wilson)."""
    rows = []
    for i, god in enumerate(GODS):
        if not c.games[i]:
            continue
        row: dict[str, Any] = {"god": god}
        parts = {
            "": (c.wins[i], c.games[i]),
            "first_": (c.first_wins[i], c.first_games[i]),
            "second_": (c.wins[i] - c.first_wins[i], c.games[i] - c.first_games[i]),
        }
        for prefix, (k, n) in parts.items():
            lo, hi = wilson_interval(k, n)
            row |= {
                f"{prefix}games": n,
                f"{prefix}wins": k,
                f"{prefix}rate": k / n if n else float("nan"),
                f"{prefix}lo": lo,
                f"{prefix}hi": hi,
            }
        rows.append(row)
    return rows


def _rate(row: dict[str, Any], prefix: str = "", long: bool = False) -> str:
    if not row[f"{prefix}games"]:
        return "n/a"
    rate, lo, hi = (row[f"{prefix}{k}"] for k in ("rate", "lo", "hi"))
    if long:
        return f"{rate:.2%}  (95% CI {lo:.2%} to {hi:.2%})"
    return f"{rate:.1%} ({lo:.1%} to {hi:.1%})"


def god_rows(c: GodCounts) -> list[tuple[str, str]]:
    """``(label, figure)`` rows, one per god in play: its win rate, then going first.

    E.g. ``("anubis won", "48.30%  (95% CI ...); first 54.50% (...), second ...")``;
    nothing for a mix without gods.
    """
    return [
        (
            f"{row['god']} won",
            f"{_rate(row, long=True)}; going first {_rate(row, 'first_')}, "
            f"second {_rate(row, 'second_')}",
        )
        for row in god_figures(c)
    ]
