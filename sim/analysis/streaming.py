"""The totals every table of runs is computed from, and the tables computed from them.

Every table of game rows is a function of small sufficient statistics (counts, sums and
value counts, per card kind too), folded into a :class:`RunTotals` a batch of Arrow rows at
a time: :func:`run_totals` reads a run's Parquet parts in game order, only the columns
needed (out of core: what ``omensim report`` reads); :mod:`sim.analysis.frames` folds each
group of a DataFrame as one batch. pyarrow, not DuckDB: ``benchmarks/bench_scan.py``
compares them; ``benchmarks/bench_scale.py`` measures the report's memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sim.analysis.loading import card_names, run_info
from sim.analysis.loading import cards as run_cards
from sim.analysis.paired import Outcomes, first_player_shift
from sim.analysis.report_tables import (
    QUANTILES,
    Tables,
    filled_lengths,
    shares_deals,
    with_impact,
)
from sim.base import layout as L
from sim.run import io
from sim.run.gods import GodCounts, god_figures
from sim.run.margins import moments_of_counts
from sim.run.seats import CAPPED, SeatCounts
from sim.run.stats import (
    Z95,
    counts_quantile,
    newcombe_interval,
    normal_interval,
    wilson_interval,
)

BATCH_ROWS = 1 << 16
SCORE_WEIGHTS: dict[str, int] = {t.name: t.weight for t in L.SCORE_TERMS}
"""VP per unit of each score component, in the score's order (``sim.base.layout``)."""


def scan(
    run_dir: Path | str, columns: Sequence[str], batch_rows: int = BATCH_ROWS
) -> Iterator[pa.RecordBatch]:
    """Record batches of ``columns`` of a run directory's parts, in game order, the run
    verified first (:func:`sim.run.io.verify_run`). Columns a part lacks (e.g. ``feats_p0``
    outside A Reign of War) are left out of its batches rather than failing."""
    if not isinstance(run_dir, str | Path | io.storage.UrlPath) or run_dir == "":
        raise io.RunReadError(f"a run directory (a path) is needed, got {run_dir!r}"[:200])
    try:
        manifest = io.verify_run(run_dir)  # every reader verifies: parts listed, checksums held
    except FileNotFoundError:
        raise io.RunReadError(f"{run_dir} is not a run directory (no {io.MANIFEST_NAME})") from None
    where = io.storage.location(run_dir)
    for entry in manifest["parts"]:
        part = where / entry["file"]
        pf = pq.ParquetFile(
            **(part.parquet_args() if hasattr(part, "parquet_args") else {"source": part})
        )
        wanted = [c for c in columns if c in pf.schema_arrow.names]
        yield from pf.iter_batches(batch_size=batch_rows, columns=wanted)


def _np(batch: pa.RecordBatch, name: str) -> np.ndarray:
    return batch.column(name).to_numpy(zero_copy_only=False).astype(np.int64)


def played_kinds(lists: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(row, kind) for every distinct card kind in each row of a column of card lists
    (``played_p*``, ``held_p*``), sorted by row then kind: kind ids, or card names whose
    dictionary index is the kind id (``A.load(..., names=True)``). A missing list holds
    nothing; a kind listed twice in a row counts once (did this player use the card)."""
    if pa.types.is_null(lists.type):  # a column of nothing but missing lists
        return np.empty(0, np.int64), np.empty(0, np.int64)
    values = pc.list_flatten(lists)
    if pa.types.is_dictionary(values.type):
        values = values.indices
    kinds = values.to_numpy(zero_copy_only=False).astype(np.int64)
    rows = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    # One int64 code per (row, kind), sorted and de-duplicated by hand: much faster than
    # unique(axis=0), and than numpy 2's hash-based np.unique (which dominated a large
    # streaming scan), on the tens of millions of pairs a large run has.
    width = int(kinds.max(initial=0)) + 1
    codes = np.sort(rows * width + kinds)
    codes = codes[np.diff(codes, prepend=-1) != 0]
    return codes // width, codes % width


def _pad(a: np.ndarray | None, size: int) -> np.ndarray:
    """``a`` (``None``: nothing counted) grown with zeros to ``size`` kinds."""
    a = np.zeros(0, np.int64) if a is None else a
    return np.pad(a, (0, size - len(a)))


def _add_counts(into: Counter[Any], values: np.ndarray) -> None:
    uniq, counts = np.unique(values, return_counts=True)
    into.update(dict(zip(uniq.tolist(), counts.tolist(), strict=True)))


@dataclass
class RunTotals:
    """Sufficient statistics of a group of games (a run) for every table of runs."""

    games: int = 0
    """Games counted (after any capped games were left out)."""
    seats: SeatCounts = field(default_factory=SeatCounts)
    """Outcomes by the seat that took the first turn (capped games counted, and any left
    out, as :class:`sim.run.seats.SeatCounts` counts them everywhere else)."""
    margins: Counter[int] = field(default_factory=Counter)
    turns: Counter[int] = field(default_factory=Counter)
    ends: Counter[str] = field(default_factory=Counter)
    points: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SCORE_WEIGHTS, 0))
    played: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    played_wins: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    seat0_wins: int = 0
    seat1_wins: int = 0
    held: np.ndarray | None = None
    """Per kind: player-games in which it was held at some point (runs with held_p0/p1)."""
    held_wins: np.ndarray | None = None
    """Per kind: of those player-games, the ones its holder won outright."""
    deals: int = 0
    deal_sum: float = 0.0
    deal_sq: float = 0.0
    deals_dropped: int = 0
    gods: GodCounts = field(default_factory=GodCounts)
    """Each Heir to the Dunes god's games and wins (none without gods)."""
    _carry: pa.Table | None = None

    def add(self, batch: pa.RecordBatch) -> None:
        """Fold one batch of game rows in; what a batch lacks the columns for stays 0."""
        names = set(batch.schema.names)
        self.games += batch.num_rows
        if "end_reason" in names:
            ends = batch.column("end_reason").cast(pa.string()).to_numpy(zero_copy_only=False)
            _add_counts(self.ends, np.asarray(ends, object).astype(str))
        if "winner" in names:
            winner = _np(batch, "winner")
            self.seat0_wins += int((winner == 0).sum())
            self.seat1_wins += int((winner == 1).sum())
            for what, seat in (("played", 0), ("played", 1), ("held", 0), ("held", 1)):
                if {f"{what}_p0", f"{what}_p1"} <= names:
                    rows, kinds = played_kinds(batch.column(f"{what}_p{seat}"))
                    counts, wins = getattr(self, what), getattr(self, f"{what}_wins")
                    size = max(0 if counts is None else len(counts), int(kinds.max(initial=-1)) + 1)
                    won = np.bincount(kinds, weights=(winner == seat)[rows], minlength=size)
                    setattr(self, what, _pad(counts, size) + np.bincount(kinds, minlength=size))
                    setattr(self, f"{what}_wins", _pad(wins, size) + won.astype(np.int64))
        if "first_player" in names:
            first = _np(batch, "first_player")
        if {"winner", "first_player"} <= names:
            capped = ends == CAPPED if "end_reason" in names else None
            self.seats = self.seats + SeatCounts.from_arrays(winner, first, capped)
            self.gods = self.gods + GodCounts.from_frame(pa.Table.from_batches([batch]))
            if "deal_id" in names:
                deals = {"deal": batch.column("deal_id"), "fp": first, "win": winner == first}
                self._add_deals(pa.table(deals))
        if {"score_p0", "score_p1", "first_player"} <= names:
            s0, s1 = _np(batch, "score_p0"), _np(batch, "score_p1")
            margin = np.where(first == 0, s0 - s1, s1 - s0)
            _add_counts(self.margins, margin)
        if "turns" in names:
            _add_counts(self.turns, _np(batch, "turns"))
        for comp, w in SCORE_WEIGHTS.items():
            for col in {f"{comp}_p0", f"{comp}_p1"} & names:
                # A null is a component not in that game's mix: it scores no points.
                self.points[comp] += w * int(pc.sum(batch.column(col)).as_py() or 0)

    def _add_deals(self, games: pa.Table) -> None:
        # Games of one deal are adjacent in game order; hold back the last deal of the
        # batch, whose second game may be in the next batch.
        if self._carry is not None:
            games = pa.concat_tables([self._carry, games])
        deal = games.column("deal").to_numpy()
        keep = deal != deal[-1]
        self._carry = games.filter(pa.array(~keep))
        self._fold_deals(games.filter(pa.array(keep)))

    def _fold_deals(self, games: pa.Table) -> None:
        if games.num_rows == 0:
            return
        g = games.group_by("deal").aggregate(
            [("win", "count"), ("win", "sum"), ("fp", "count_distinct")]
        )
        n = g.column("win_count").to_numpy()
        wins = g.column("win_sum").to_numpy().astype(np.float64)
        seats = g.column("fp_count_distinct").to_numpy()
        good = (n == 2) & (seats == 2)
        d = wins[good] / 2
        self.deals += int(good.sum())
        self.deal_sum += float(d.sum())
        self.deal_sq += float((d * d).sum())
        self.deals_dropped += int(n[~good].sum())

    def finish(self) -> None:
        """Fold in the deal held back from the last batch."""
        if self._carry is not None:
            carry, self._carry = self._carry, None
            self._fold_deals(carry)


def _capped(batch: pa.RecordBatch) -> pa.Array:
    """Per game of ``batch``: whether the turn cap stopped it."""
    return pc.equal(batch.column("end_reason").cast(pa.string()), CAPPED)


def run_totals(
    run_dir: Path | str, batch_rows: int = BATCH_ROWS, exclude_capped: bool = False
) -> RunTotals:
    """:class:`RunTotals` of one finished run, read batch by batch; with ``exclude_capped``
    its turn-capped games left out (and counted in ``seats.excluded_capped``)."""
    columns = ["winner", "first_player", "score_p0", "score_p1", "turns", "end_reason", "deal_id"]
    seated = ("played", "held", "god", *SCORE_WEIGHTS)
    columns += [f"{c}_p{seat}" for c in seated for seat in (0, 1)]
    totals = RunTotals()
    for batch in scan(run_dir, columns, batch_rows):
        if exclude_capped:
            capped = _capped(batch)
            left_out = int(pc.sum(capped).as_py() or 0)
            totals.seats = totals.seats + SeatCounts(excluded_capped=left_out)
            batch = batch.filter(pc.invert(capped))
        if batch.num_rows:
            totals.add(batch)
    totals.finish()
    return totals


# --- tables: one row, or one block of rows, per group --------------------------------------


def _keyed(keys: pd.DataFrame, parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Each group's table with the group's key columns (``keys``, one row a group) in front,
    every group in one table; a group whose table is empty has no rows."""
    frames = [
        pd.DataFrame({**key, **part}, index=part.index)
        for key, part in zip(keys.to_dict("records"), parts, strict=True)
        if len(part)
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=keys.columns)


def fpa_frame(keys: pd.DataFrame, totals: Sequence[RunTotals], z: float = Z95) -> pd.DataFrame:
    """The first player's wins of each group with their Wilson interval
    (:func:`sim.analysis.frames.first_player_advantage`)."""
    games = np.array([t.games for t in totals], np.int64)
    wins = np.array([t.seats.first_wins for t in totals], np.int64)
    lo, hi = wilson_interval(wins, games, z)
    shared = [t.seats.shared for t in totals]
    out = keys.assign(games=games, first_player_wins=wins, shared=shared, rate=wins / games)
    return out.assign(lo=lo, hi=hi)


def paired_frame(keys: pd.DataFrame, totals: Sequence[RunTotals], z: float = Z95) -> pd.DataFrame:
    """The paired (duplicate-deal) estimate of each group that has deals played twice
    (:func:`sim.analysis.frames.paired_first_player_advantage`)."""
    paired = [t.deals > 0 for t in totals]  # the others are not --duplicate runs
    keys, totals = keys.loc[paired].reset_index(drop=True), [t for t in totals if t.deals]
    n = np.array([t.deals for t in totals], np.int64)
    wins = np.array([t.deal_sum for t in totals], np.float64)
    rate = wins / n
    squares = np.array([t.deal_sq for t in totals], np.float64)
    # With one deal the sample sd is undefined; report the widest honest answer then.
    sd = np.sqrt(np.maximum(0.0, (squares - n * rate * rate) / np.maximum(n - 1, 1)))
    se = np.where(n > 1, sd, np.inf) / np.sqrt(n)
    lo, hi = np.clip(normal_interval(rate, se, z), 0.0, 1.0)
    ulo, uhi = wilson_interval(np.rint(2 * wins).astype(np.int64), 2 * n, z)
    out = keys.assign(deals=n, games=2 * n, rate=rate, lo=lo, hi=hi, se=se)
    dropped = [t.deals_dropped for t in totals]
    return out.assign(unpaired_lo=ulo, unpaired_hi=uhi, dropped_games=dropped)


def difference_frame(
    group_col: str, labels: Sequence[Any], wins: Sequence[int], games: Sequence[int], z: float = Z95
) -> pd.DataFrame:
    """:func:`sim.analysis.frames.difference` of each group against the first one (``a`` is
    each later label, ``b`` the first), from the groups' first-player ``wins`` of ``games``."""
    ka, na, kb, nb = np.asarray(wins[1:]), np.asarray(games[1:]), wins[0], games[0]
    lo, hi = newcombe_interval(ka, na, kb, nb, z)
    return pd.DataFrame(
        {
            "group_col": group_col,
            "a": [str(x) for x in labels[1:]],
            "b": str(labels[0]),
            "games_a": na,
            "wins_a": ka,
            "rate_a": ka / na,
            "games_b": nb,
            "wins_b": kb,
            "rate_b": kb / nb,
            "diff": ka / na - kb / nb,
            "lo": lo,
            "hi": hi,
        }
    )


CARD_COLUMNS = (
    "kind",
    "card",
    "played",
    "share",
    "win_played",
    "not_played",
    "win_not",
    "diff",
    "lo",
    "hi",
    "low_sample",
)
"""Columns of :func:`cards_frame` after the group's."""


def cards_frame(
    keys: pd.DataFrame,
    groups: Sequence[Sequence[RunTotals]],
    names: Sequence[Mapping[int, str]],
    min_games: int = 200,
    z: float = Z95,
) -> pd.DataFrame:
    """:func:`sim.analysis.frames.card_impact` of each group (its runs' totals pooled; kind
    ``k`` is named ``names[group][k]``): largest ``|diff|`` first, low samples last."""
    parts = []
    for group, named in zip(groups, names, strict=True):
        size = max(len(t.played) for t in group)
        played = sum((_pad(t.played, size) for t in group), np.zeros(size, np.int64))
        wins = sum((_pad(t.played_wins, size) for t in group), np.zeros(size, np.int64))
        total = 2 * sum(t.games for t in group)
        total_wins = sum(t.seat0_wins + t.seat1_wins for t in group)
        kind = np.nonzero(played)[0]
        n1, k1 = played[kind], wins[kind]
        n0, k0 = total - n1, total_wins - k1
        lo, hi = newcombe_interval(k1, n1, k0, n0, z)
        win_not = np.where(n0 > 0, k0 / np.maximum(n0, 1), np.nan)
        frame = pd.DataFrame(
            {
                "kind": kind.astype(np.int64),
                "card": [named.get(int(k), f"kind {k}") for k in kind],
                "played": n1,
                "share": n1 / total,
                "win_played": k1 / n1,
                "not_played": n0,
                "win_not": win_not,
                "diff": k1 / n1 - win_not,
                "lo": lo,
                "hi": hi,
                "low_sample": (n1 < min_games) | (n0 < min_games),
            }
        )
        parts.append(frame)
    out = _keyed(keys, parts).reindex(columns=[*keys.columns, *CARD_COLUMNS])
    out["_abs"] = out["diff"].abs()
    out = out.sort_values(["low_sample", "_abs"], ascending=[True, False], kind="stable")
    return out.drop(columns="_abs").reset_index(drop=True)


def stats_frame(keys: pd.DataFrame, totals: Sequence[RunTotals]) -> pd.DataFrame:
    """Each group's mean first-player margin with its t-interval, and its games' length
    (:func:`sim.analysis.frames.summary_stats`)."""
    games = np.array([t.games for t in totals], np.int64)
    margins = [moments_of_counts(t.margins).figures() for t in totals]
    return keys.assign(
        games=games,
        mean_margin=[m["mean"] for m in margins],
        **{f"margin_{k}": [m[k] for m in margins] for k in ("sd", "lo", "hi")},
        mean_turns=[moments_of_counts(t.turns).mean for t in totals],
        turn_cap_share=np.array([t.ends[CAPPED] for t in totals]) / games,
    )


def _counts(counter: Counter[Any], name: str) -> pd.DataFrame:
    """``counter`` (``{value: games}``) as ``name``, ``games``, ``share`` rows, by value."""
    values = sorted(counter)
    games = np.array([counter[v] for v in values], np.int64)
    values = np.array(values, object if name == "end_reason" else np.int64)
    return pd.DataFrame({name: values, "games": games, "share": games / games.sum()})


def distribution_frame(
    keys: pd.DataFrame, counters: Sequence[Counter[Any]], name: str
) -> pd.DataFrame:
    """Counts and shares of one value per group (the tidy form every histogram is drawn
    from): ``name``, ``games``, ``share``."""
    return _keyed(keys, [_counts(c, name) for c in counters])


def ends_frame(keys: pd.DataFrame, totals: Sequence[RunTotals], z: float = Z95) -> pd.DataFrame:
    """How each group's games ended, with a Wilson interval on each share
    (:func:`sim.analysis.frames.end_reasons`)."""
    parts = []
    for t in totals:
        part = _counts(t.ends, "end_reason")
        part["lo"], part["hi"] = wilson_interval(part["games"].to_numpy(), t.games, z)
        parts.append(part)
    return _keyed(keys, parts)


def components_frame(keys: pd.DataFrame, totals: Sequence[RunTotals]) -> pd.DataFrame:
    """Each score component's points per group and share of all VP scored
    (:func:`sim.analysis.frames.score_components`)."""
    weights = pd.DataFrame({"component": list(SCORE_WEIGHTS), "weight": SCORE_WEIGHTS.values()})
    parts = []
    for t in totals:
        points = np.array([t.points[c] for c in SCORE_WEIGHTS], np.int64)
        share = points / points.sum() if points.sum() > 0 else 0.0
        parts.append(weights.assign(points=points, per_game=points / t.games, share=share))
    return _keyed(keys, parts)


def gods_frame(keys: pd.DataFrame, totals: Sequence[RunTotals]) -> pd.DataFrame:
    """Each Heir to the Dunes god's win rate per group (:func:`sim.run.gods.god_figures`);
    groups without gods have no rows."""
    return _keyed(keys, [pd.DataFrame(god_figures(t.gods)) for t in totals])


# --- the report's tables ----------------------------------------------------------------


def outcomes_frame(keys: pd.DataFrame, totals: Sequence[RunTotals]) -> pd.DataFrame:
    """Per run: games, and the shares won by the first player, the second, shared,
    turn-capped, each with its Wilson interval. First + second + shared = 100%; ``capped``
    (games cut off by the turn cap, whoever won them) overlaps the others."""
    n = np.array([t.games for t in totals], np.int64)
    out = keys.assign(games=n)
    named = {"first": "first_wins", "second": "second_wins", "shared": "shared", "capped": "capped"}
    for name, counted in named.items():
        k = np.array([getattr(t.seats, counted) for t in totals], np.int64)
        out[name] = k / n
        out[f"{name}_lo"], out[f"{name}_hi"] = wilson_interval(k, n)
    return out


def seats_frame(keys: pd.DataFrame, totals: Sequence[RunTotals]) -> pd.DataFrame:
    """Per run and seat: the seat's win rate with its Wilson interval (shared is not a win)."""
    games = np.repeat(np.array([t.games for t in totals], np.int64), 2)
    wins = np.array([[t.seat0_wins, t.seat1_wins] for t in totals], np.int64).reshape(-1)
    lo, hi = wilson_interval(wins, games)
    seat = np.tile([0, 1], len(totals))
    out = keys.loc[keys.index.repeat(2)].reset_index(drop=True)
    return out.assign(seat=seat, games=games, wins=wins, rate=wins / games, lo=lo, hi=hi)


def quantiles_frame(keys: pd.DataFrame, totals: Sequence[RunTotals]) -> pd.DataFrame:
    """Per run: mean, the :data:`QUANTILES` and the maximum of game length in turns."""
    out = keys.assign(mean=[moments_of_counts(t.turns).mean for t in totals])
    hists = [np.array(sorted(t.turns.items()), np.int64).T for t in totals]  # values, counts
    for q in QUANTILES:
        out[f"p{round(q * 100)}"] = [counts_quantile(v.astype(float), c, q) for v, c in hists]
    return out.assign(max=[int(v.max()) for v, _ in hists])


def card_table_frame(
    info: pd.DataFrame, groups: Mapping[str, Sequence[RunTotals]], impact: pd.DataFrame
) -> pd.DataFrame:
    """One row per card kind of each mix (``groups``: its runs' totals): its printed figures,
    the share of player-games (two per game) in which it was played (``play_rate``) and held
    at some point (``hold_rate``, when the runs have ``held_p0/p1``), and its card effect
    (``impact``)."""
    frames = []
    for mix, group in groups.items():
        cards = run_cards(info["path"][info["mix"].astype(str) == mix].iloc[0])
        player_games = max(2 * sum(t.games for t in group), 1)
        for what, col in (("played", "play_rate"), ("held", "hold_rate")):
            if all(getattr(t, what) is not None for t in group):
                size = max(len(cards), *(len(getattr(t, what)) for t in group))
                counts = sum(_pad(getattr(t, what), size) for t in group)
                cards[col] = counts[: len(cards)] / player_games
        frames.append(with_impact(cards, impact, mix))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def first_win_outcomes(game_id: np.ndarray, winner: np.ndarray, first: np.ndarray) -> Outcomes:
    """:class:`Outcomes` of games known only by who won and who went first: all
    :func:`first_player_shift` needs (no card columns)."""
    none = np.zeros((len(game_id), 0), np.int8)
    return Outcomes(
        game_id=game_id.astype(np.int64),
        first_win=(winner == first).astype(np.int8),
        plays=none,
        wins=none,
        winner=winner.astype(np.int8),
        held0=none.astype(bool),
        held1=none.astype(bool),
        first=first.astype(np.int8),
    )


def _first_wins(run_dir: Path | str, exclude_capped: bool = False) -> Outcomes:
    """:func:`first_win_outcomes` of a run, reading only those columns."""
    parts = []
    for b in scan(run_dir, ["game_id", "winner", "first_player", "end_reason"]):
        b = b.filter(pc.invert(_capped(b))) if exclude_capped else b
        parts.append([_np(b, c) for c in ("game_id", "winner", "first_player")])
    return first_win_outcomes(*(np.concatenate(c) for c in zip(*parts, strict=True)))


def shifts_frame(info: pd.DataFrame, exclude_capped: bool = False) -> pd.DataFrame:
    """Each run minus the first, paired by game, for the runs that deal its games
    (:func:`sim.analysis.report_tables.shares_deals`), reading only game ids and outcomes.

    Pairing by game needs both runs' per-game outcomes at once: 10 bytes a game.
    With ``exclude_capped`` each run's turn-capped games are left out first.
    """
    runs = info["run"].tolist()
    base = None
    rows = []
    for i in range(1, len(runs)):
        if not shares_deals(info, i):
            continue
        base = base if base is not None else _first_wins(info["path"].iloc[0], exclude_capped)
        try:
            d = first_player_shift(base, _first_wins(info["path"].iloc[i], exclude_capped))
        except ValueError:
            continue  # no game in common
        rows.append({"a": runs[i], "b": runs[0], **asdict(d)})
    return pd.DataFrame(rows)


def report_totals(
    paths: Sequence[Path | str],
    batch_rows: int = BATCH_ROWS,
    exclude_capped: bool = False,
) -> tuple[pd.DataFrame, list[RunTotals]]:
    """The runs' table (:func:`sim.analysis.loading.run_info`, which checks every path first
    and raises as it does) and each run's totals, without the turn-capped games when
    ``exclude_capped``."""
    info = run_info(paths)  # validates every path before any is read
    return info, [run_totals(p, batch_rows, exclude_capped) for p in info["path"]]


def tables_from_totals(
    info: pd.DataFrame,
    totals: Sequence[RunTotals],
    min_games: int = 200,
    exclude_capped: bool = False,
) -> Tables:
    """The report's tables from :func:`report_totals` (``exclude_capped`` as given there)."""
    labels = [str(r) for r in info["run"]]
    runs = pd.DataFrame({"run": labels})
    of_mix: dict[str, dict[str, RunTotals]] = {}  # in order of first appearance
    names: dict[str, dict[int, str]] = {}
    mixes = info["mix"].astype(str)
    for label, path, mix, t in zip(labels, info["path"], mixes, totals, strict=True):
        of_mix.setdefault(mix, {})[label] = t
        names.setdefault(mix, card_names(path))
    # Runs of one mix share kind ids (and usually differ in what is compared), so card
    # impact pools them per mix: more player-games, tighter intervals.
    by_mix = sorted(of_mix)
    impact = cards_frame(
        pd.DataFrame({"mix": by_mix}),
        [list(of_mix[mix].values()) for mix in by_mix],
        [names[mix] for mix in by_mix],
        min_games,
    )
    strength = [strength_frame(of_mix[m], names[m]).assign(mix=m) for m in of_mix]
    strength = [f for f in strength if not f.empty]
    groups = {mix: list(runs.values()) for mix, runs in of_mix.items()}
    return Tables(
        info=info,
        fpa=fpa_frame(runs, totals),
        paired=paired_frame(runs, totals),
        diffs=difference_frame(
            "run", labels, [t.seats.first_wins for t in totals], [t.games for t in totals]
        ),
        shifts=shifts_frame(info, exclude_capped),
        cards=impact,
        card_table=card_table_frame(info, groups, impact),
        stats=stats_frame(runs, totals),
        outcomes=outcomes_frame(runs, totals),
        seats=seats_frame(runs, totals),
        margins=distribution_frame(runs, [t.margins for t in totals], "margin"),
        lengths=filled_lengths(distribution_frame(runs, [t.turns for t in totals], "turns")),
        length_quantiles=quantiles_frame(runs, totals),
        ends=ends_frame(runs, totals),
        components=components_frame(runs, totals),
        gods=gods_frame(runs, totals),
        strength=pd.concat(strength, ignore_index=True) if strength else pd.DataFrame(),
    )


STRENGTH_COLUMNS = (
    "bot",
    "kind",
    "card",
    "holders",
    "holder_wins",
    "rate",
    "lo",
    "hi",
    "played_per_game",
    "rank",
)
"""Columns of :func:`strength_frame` (``bot`` is the run's label)."""


def strength_frame(totals: Mapping[str, RunTotals], names: Mapping[int, str]) -> pd.DataFrame:
    """The strength table of runs of one mix, ``{label: RunTotals}``, sorted by label order
    then rank. Runs without ``held_p0/p1`` columns have no rows."""
    frames = []
    n_kinds = max(names, default=-1) + 1
    for label, t in totals.items():
        if t.held is None or t.held_wins is None or not t.games:
            continue
        size = max(n_kinds, len(t.held), len(t.played))
        held, wins = _pad(t.held, size), _pad(t.held_wins, size)
        lo, hi = np.where(held > 0, wilson_interval(wins, held), np.nan)
        rate = np.where(held > 0, wins / np.maximum(held, 1), np.nan)
        frame = pd.DataFrame(
            {
                "bot": label,
                "kind": np.arange(size, dtype=np.int64),
                "card": [names.get(k, f"kind {k}") for k in range(size)],
                "holders": held.astype(np.int64),
                "holder_wins": wins.astype(np.int64),
                "rate": rate,
                "lo": lo,
                "hi": hi,
                "played_per_game": _pad(t.played, size) / t.games,
            }
        )
        frame["rank"] = frame["rate"].rank(ascending=False, method="min").astype("Int64")
        frames.append(frame.sort_values(["rank", "kind"], kind="stable"))
    if not frames:
        return pd.DataFrame(columns=list(STRENGTH_COLUMNS))
    return pd.concat(frames, ignore_index=True)[list(STRENGTH_COLUMNS)]


def report_tables(
    paths: Sequence[Path | str], min_games: int = 200, batch_rows: int = BATCH_ROWS
) -> Tables:
    """Every table the report shows for finished runs, reading each run once, batch by batch
    (raising as :func:`report_totals`)."""
    info, totals = report_totals(paths, batch_rows)
    return tables_from_totals(info, totals, min_games)
