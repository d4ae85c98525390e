"""Paired (common-random-numbers) comparisons of two runs of the same games.

Game ``i`` depends only on ``(seed, i)``, so two runs with one seed deal the same games and
pairing them by ``game_id`` removes the variance they share. A card's headline is its
holders' win rate (intention-to-treat: every (game, seat) that held it in A or B); the
played-only rate is kept as ``conditional_*``. Intervals come from
:func:`sim.run.stats.paired_ratio_diff`; ``docs/usage.md`` says how to read them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from sim.run.margins import MarginShift, first_player_margins
from sim.run.seats import CAPPED
from sim.run.stats import Z95, p_values, paired_ratio_diff

LIST_COLUMNS = ("played_p0", "played_p1", "held_p0", "held_p1")
COLUMNS = ["game_id", "winner", "first_player", *LIST_COLUMNS]
READ_COLUMNS = [*COLUMNS, "end_reason", "score_p0", "score_p1"]
"""What pairing reads from a run: ``COLUMNS`` and, when present, ``end_reason`` and the
scores (for the first player's VP margin)."""


@dataclass
class Outcomes:
    """Per-game outcomes of one run, in ``game_id`` order, ready for pairing.

    ``plays[i, k]`` is how many seats (0, 1, 2) played kind ``k`` in game ``i``;
    ``wins[i, k]`` how many of those won it outright (0 or 1). ``held0/held1``
    say whether seat 0/1 held kind ``k``; ``winner`` is 0, 1 or -1 (shared).
    """

    game_id: np.ndarray  # int64[n]
    first_win: np.ndarray  # int8[n]: the first player won outright
    plays: np.ndarray  # int8[n, K]
    wins: np.ndarray  # int8[n, K]
    winner: np.ndarray  # int8[n]
    held0: np.ndarray  # bool[n, K]
    held1: np.ndarray  # bool[n, K]
    first: np.ndarray | None = None  # int8[n]: the seat that took the first turn
    capped: np.ndarray | None = None  # bool[n]: stopped at the turn cap (None: not known)
    margin: np.ndarray | None = None  # int64[n]: first player's VP margin (None: no scores)

    @property
    def games(self) -> int:
        return len(self.game_id)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame | pa.Table, n_kinds: int | None = None) -> Outcomes:
        """From a run's rows (pandas or pyarrow); ``n_kinds`` defaults to the largest id + 1."""
        table = frame
        if not isinstance(table, pa.Table):
            table = pa.Table.from_pandas(frame[[c for c in READ_COLUMNS if c in frame.columns]])
        names = set(table.column_names)
        missing = [c for c in COLUMNS if c not in names]
        if missing:
            raise ValueError(f"the run's rows lack column(s) {', '.join(missing)}")
        winner = _np(table, "winner").astype(np.int8)
        first = _np(table, "first_player").astype(np.int8)
        capped = margin = None
        if "end_reason" in names:  # else: not known
            capped = pc.equal(table.column("end_reason").cast(pa.string()), CAPPED)
            capped = np.asarray(capped.to_numpy(zero_copy_only=False), bool)
        if {"score_p0", "score_p1"} <= names:  # else: no scores
            margin = first_player_margins(first, _np(table, "score_p0"), _np(table, "score_p1"))
        flat = [pc.max(pc.list_flatten(table.column(c))).as_py() for c in LIST_COLUMNS]
        k = max([n_kinds or 0, *(m + 1 for m in flat if m is not None)])
        lists = {c: _played_matrix(table.column(c), k) for c in LIST_COLUMNS}
        played = [lists["played_p0"], lists["played_p1"]]
        plays = (played[0].astype(np.int8) + played[1]).astype(np.int8)
        wins = (played[0] & (winner == 0)[:, None]) | (played[1] & (winner == 1)[:, None])
        return cls(
            game_id=_np(table, "game_id").astype(np.int64),
            first_win=(winner == first).astype(np.int8),
            plays=plays,
            wins=wins.astype(np.int8),
            winner=winner,
            held0=lists["held_p0"],
            held1=lists["held_p1"],
            first=first,
            capped=capped,
            margin=margin,
        ).in_game_order()

    def in_game_order(self) -> Outcomes:
        """These games by ``game_id``: themselves when they are in order already (a run's
        parts are), so no matrix is copied."""
        ids = self.game_id
        return self if np.all(ids[1:] > ids[:-1]) else self.take(np.argsort(ids, kind="stable"))

    def take(self, index: np.ndarray) -> Outcomes:
        """The games at positions ``index``."""
        return Outcomes(**{k: None if v is None else v[index] for k, v in vars(self).items()})

    @staticmethod
    def concat(parts: list[Outcomes]) -> Outcomes:
        """Chunks of one run (already in game order) joined together."""
        k = max(p.plays.shape[1] for p in parts)

        def join(name: str) -> np.ndarray | None:
            vs = [getattr(p, name) for p in parts]
            if any(v is None for v in vs):
                return None
            return np.concatenate(
                [np.pad(v, ((0, 0), (0, k - v.shape[1]))) if v.ndim == 2 else v for v in vs]
            )

        return Outcomes(**{f.name: join(f.name) for f in fields(Outcomes)})


def _np(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).to_numpy()


def _played_matrix(col: pa.ChunkedArray, k: int) -> np.ndarray:
    """bool[n, k]: whether each row's list holds kind k."""
    arr = col.combine_chunks()
    kinds = pc.list_flatten(arr).to_numpy(zero_copy_only=False).astype(np.int64)
    rows = pc.list_parent_indices(arr).to_numpy(zero_copy_only=False).astype(np.int64)
    out = np.zeros((len(arr), k), bool)
    out[rows, kinds] = True
    return out


Rows = Outcomes | pd.DataFrame | pa.Table
"""A run's outcomes, or its rows (pandas or pyarrow)."""


def pair(a: Rows, b: Rows) -> tuple[Outcomes, Outcomes]:
    """The games both runs played, in the same order (paired by ``game_id``); a ValueError
    when they share none."""
    a, b = (r if isinstance(r, Outcomes) else Outcomes.from_frame(r) for r in (a, b))
    if np.array_equal(a.game_id, b.game_id):
        return a, b
    common, ia, ib = np.intersect1d(a.game_id, b.game_id, return_indices=True)
    if not len(common):
        raise ValueError("the two runs share no game_id; they cannot be paired")
    return a.take(ia), b.take(ib)


@dataclass(frozen=True)
class PairedDiff:
    """The change of one rate from run A to run B, paired by game."""

    metric: str
    games: int
    """Games paired."""
    count_a: int
    """Denominator of A's rate: games, or (game, seat) pairs that played the card."""
    count_b: int
    rate_a: float
    rate_b: float
    diff: float
    """``rate_b - rate_a``."""
    lo: float
    hi: float
    """The paired 95% (or ``z``) interval of ``diff``."""
    se_paired: float
    se_unpaired: float
    """Standard error of ``diff`` had A and B been independent runs of ``games`` each."""
    n_unpaired: float
    """Games per run two independent runs would need for the paired interval's width."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (non-finite numbers become ``None``)."""
        return {k: json_value(v) for k, v in asdict(self).items()}


def json_value(v: Any) -> Any:
    """A number as JSON holds it: a numpy scalar as Python's, a non-finite float as None."""
    v = v.item() if hasattr(v, "item") else v
    return None if isinstance(v, float) and not math.isfinite(v) else v


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as JSON-ready dicts (:func:`json_value` of each cell)."""
    return [{k: json_value(v) for k, v in row.items()} for row in frame.to_dict("records")]


def first_player_shift(a: Rows, b: Rows, z: float = Z95) -> PairedDiff:
    """Change of the first-player win rate from run A to run B, paired by game."""
    a, b = pair(a, b)
    ones = np.ones(a.games)
    r = paired_ratio_diff(a.first_win, ones, b.first_win, ones, z)
    return PairedDiff(
        metric="first_player_win_rate",
        games=a.games,
        **{k: (int(v) if k.startswith("count") else float(v)) for k, v in r.items()},
    )


def card_shifts(
    a: Rows,
    b: Rows,
    kinds_a: Mapping[str, int],
    kinds_b: Mapping[str, int] | None = None,
    z: float = Z95,
) -> pd.DataFrame:
    """Change of each card's holders' win rate (and ``conditional_*`` played-only rate) from
    run A to run B, paired by (game, seat), for the cards ``kinds_a`` names (``{card: kind
    id}``, :func:`kinds_of`) that ``kinds_b`` (B's ids, default A's) has too.

    One row per card: ``card``, ``kind_a``, ``kind_b``, ``games``, the columns of
    :func:`paired_ratio_diff` over the holders, ``p_value``, and the ``conditional_``
    ``count_a/b`` (plays), ``rate_a/b``, ``diff``, ``lo/hi`` and ``p_value``.
    """
    a, b = pair(a, b)
    names, ka, kb = card_ids(kinds_a, kinds_b)
    won_a, won_b, den = holders(a, b, ka, kb)
    itt = paired_ratio_diff(won_a, den, won_b, den, z)
    played = ((a.wins, ka), (a.plays, ka), (b.wins, kb), (b.plays, kb))
    cond = paired_ratio_diff(*(kind_columns(m, k) for m, k in played), z)
    frame = pd.DataFrame({"card": names, "kind_a": ka, "kind_b": kb, "games": a.games, **itt})
    frame["p_value"] = p_values(itt["diff"], itt["se_paired"])
    for key in ("count_a", "count_b", "rate_a", "rate_b", "diff", "lo", "hi"):
        frame[f"conditional_{key}"] = cond[key]
    frame["conditional_p_value"] = p_values(cond["diff"], cond["se_paired"])
    return frame


def card_ids(
    kinds_a: Mapping[str, int], kinds_b: Mapping[str, int] | None
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The card names both runs have and their kind ids in A and in B."""
    kinds_b = kinds_a if kinds_b is None else kinds_b
    names = [n for n in kinds_a if n in kinds_b]
    ka = np.array([kinds_a[n] for n in names], np.int64)
    kb = np.array([kinds_b[n] for n in names], np.int64)
    return names, ka, kb


def kind_columns(m: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Columns ``ks`` of ``m`` (zeros for a kind beyond its width)."""
    inside = ks < m.shape[1]
    out = np.zeros((m.shape[0], len(ks)), m.dtype)
    out[:, inside] = m[:, ks[inside]]
    return out


def holders(
    a: Outcomes, b: Outcomes, ka: np.ndarray, kb: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per game and card: the holders (in A or B) who won outright in A, in B, and the
    holders (the intention-to-treat population, the same in both runs)."""
    u0 = kind_columns(a.held0, ka) | kind_columns(b.held0, kb)
    u1 = kind_columns(a.held1, ka) | kind_columns(b.held1, kb)
    den = u0.astype(np.int8) + u1.astype(np.int8)

    def won(o: Outcomes) -> np.ndarray:
        return (u0 & (o.winner == 0)[:, None]).astype(np.int8) + (u1 & (o.winner == 1)[:, None])

    return won(a), won(b), den


@dataclass
class Comparison:
    """Run B against run A: the first-player win rate and every card's effect."""

    first_player: PairedDiff
    cards: pd.DataFrame
    """:func:`card_shifts` for every card both runs have."""
    margin: MarginShift | None = None
    """The first player's VP margin in A and B and its paired shift (None: no scores read)."""

    def table(self, cards: list[str] | None = None) -> pd.DataFrame:
        """One row per metric: the first-player rate, then ``cards`` (default: all)."""
        fp = pd.DataFrame([self.first_player.to_dict()])
        sel = self.cards if cards is None else self.cards[self.cards.card.isin(cards)]
        rows = sel.drop(columns=["kind_a", "kind_b"]).rename(columns={"card": "metric"})
        rows["metric"] = "card_win_rate: " + rows["metric"]
        return pd.concat([fp, rows], ignore_index=True)


def compare_runs(
    a: Rows,
    b: Rows,
    kinds_a: Mapping[str, int],
    kinds_b: Mapping[str, int] | None = None,
    z: float = Z95,
) -> Comparison:
    """Both comparisons at once; see :func:`first_player_shift` and :func:`card_shifts`."""
    a, b = pair(a, b)
    return Comparison(
        first_player_shift(a, b, z), card_shifts(a, b, kinds_a, kinds_b, z), margin_shift(a, b)
    )


def margin_shift(a: Rows, b: Rows) -> MarginShift | None:
    """The first player's VP margin in A and B, paired by game (None when either lacks scores)."""
    a, b = pair(a, b)
    if a.margin is None or b.margin is None:
        return None
    return MarginShift.from_margins(a.margin, b.margin)


def kinds_of(units: list[dict[str, Any]]) -> dict[str, int]:
    """``{card name: kind id}`` of a pool's units (``CardPool.units``)."""
    return {u["name"]: k for k, u in enumerate(units)}
