"""The report's aggregates computed out of core: one pass over each run, batch by batch.

Every table the report draws is a function of small sufficient statistics (counts, sums and
value counts per run and per card kind), so each run's Parquet parts are read in game order,
a batch at a time and only the columns needed, into a :class:`RunTotals`; the tables have the
columns of the :mod:`sim.analysis.frames` functions (``tests/analysis/test_streaming.py``
checks they agree). pyarrow, not DuckDB: ``benchmarks/bench_scan.py`` compares them;
``benchmarks/bench_scale.py`` measures the report's memory.
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

from sim.analysis.frames import (
    SCORE_WEIGHTS,
    add_kinds,
    card_frame,
    difference_row,
    distinct_pairs,
    order_card_frames,
)
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
from sim.run import io
from sim.run.gods import GodCounts, gods_frame
from sim.run.margins import moments_of_counts
from sim.run.seats import CAPPED, SeatCounts
from sim.run.stats import Z95, counts_quantile, normal_interval, wilson_interval

BATCH_ROWS = 1 << 16
_BASE_COLUMNS = ("winner", "first_player", "score_p0", "score_p1", "turns", "end_reason")


def scan(
    run_dir: Path | str, columns: Sequence[str], batch_rows: int = BATCH_ROWS
) -> Iterator[pa.RecordBatch]:
    """Record batches of ``columns`` of a run directory's parts, in game order.

    The run is verified first (:func:`sim.run.io.verify_run`). Columns a part lacks
    (e.g. ``feats_p0`` outside A Reign of War) are left out
    of its batches rather than failing.
    """
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
        names = set(pf.schema_arrow.names)
        wanted = [c for c in columns if c in names]
        yield from pf.iter_batches(batch_size=batch_rows, columns=wanted)


def _np(batch: pa.RecordBatch, name: str) -> np.ndarray:
    return batch.column(name).to_numpy(zero_copy_only=False).astype(np.int64)


def played_kinds(lists: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(row, kind) for every distinct kind in each row of a ``list<int16>`` column: the
    Arrow face of :func:`sim.analysis.frames.distinct_pairs`."""
    kinds = pc.list_flatten(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    rows = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    return distinct_pairs(rows, kinds)


def _add_counts(into: Counter[Any], values: np.ndarray) -> None:
    uniq, counts = np.unique(values, return_counts=True)
    for v, c in zip(uniq.tolist(), counts.tolist(), strict=True):
        into[v] += c


@dataclass
class RunTotals:
    """Sufficient statistics of one run for every table of the report."""

    seats: SeatCounts = field(default_factory=SeatCounts)
    """Outcomes by the seat that took the first turn (capped games counted, and any left
    out, as :class:`sim.run.seats.SeatCounts` counts them everywhere else)."""
    margin_sum: int = 0
    turns_sum: int = 0
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

    @property
    def games(self) -> int:
        """Games counted (after any capped games were left out)."""
        return self.seats.games

    def add(self, batch: pa.RecordBatch) -> None:
        """Fold one batch of game rows in."""
        winner, first = _np(batch, "winner"), _np(batch, "first_player")
        won = winner == first
        ends = np.asarray(batch.column("end_reason").cast(pa.string()).to_numpy(False), object)
        self.seats = self.seats + SeatCounts.from_arrays(winner, first, ends == CAPPED)
        self.seat0_wins += int((winner == 0).sum())
        self.seat1_wins += int((winner == 1).sum())
        s0, s1 = _np(batch, "score_p0"), _np(batch, "score_p1")
        margin = np.where(first == 0, s0 - s1, s1 - s0)
        turns = _np(batch, "turns")
        self.margin_sum += int(margin.sum())
        self.turns_sum += int(turns.sum())
        _add_counts(self.margins, margin)
        _add_counts(self.turns, turns)
        _add_counts(self.ends, ends.astype(str))
        names = set(batch.schema.names)
        if {"god_p0", "god_p1"} <= names:
            self.gods = self.gods + GodCounts.from_frame(pa.Table.from_batches([batch]))
        for comp, w in SCORE_WEIGHTS.items():
            for seat in (0, 1):
                col = f"{comp}_p{seat}"
                if col in names:
                    self.points[comp] += w * int(_np(batch, col).sum())
        for seat in (0, 1):
            if f"played_p{seat}" in names:
                self.played, self.played_wins = add_kinds(
                    self.played, self.played_wins, *played_kinds(batch.column(f"played_p{seat}")),
                    winner == seat,
                )
        if "held_p0" in names and "held_p1" in names:
            for seat in (0, 1):
                self.held, self.held_wins = add_kinds(
                    self.held, self.held_wins, *played_kinds(batch.column(f"held_p{seat}")),
                    winner == seat,
                )
        if "deal_id" in names:
            self._add_deals(pa.table({"deal": batch.column("deal_id"), "fp": first, "win": won}))

    def _add_deals(self, games: pa.Table) -> None:
        # Games of one deal are adjacent in game order; hold back the last deal of the
        # batch, whose second game may be in the next batch.
        if self._carry is not None:
            games = pa.concat_tables([self._carry, games])
        deal = games.column("deal").to_numpy()
        last = deal[-1]
        keep = deal != last
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
    """:class:`RunTotals` of one finished run, read batch by batch.

    With ``exclude_capped`` turn-capped games are dropped from every batch
    before it is counted (and counted in ``seats.excluded_capped``).
    """
    columns = [
        *_BASE_COLUMNS,
        "deal_id",
        "played_p0",
        "played_p1",
        "held_p0",
        "held_p1",
        "god_p0",
        "god_p1",
        *(f"{c}_p{s}" for c in SCORE_WEIGHTS for s in (0, 1)),
    ]
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


# --- the report's tables ----------------------------------------------------------------


def fpa_frame(labels: Sequence[str], totals: Sequence[RunTotals], z: float = Z95) -> pd.DataFrame:
    """:func:`sim.analysis.frames.first_player_advantage` by run, from totals."""
    out = pd.DataFrame(
        {
            "run": list(labels),
            "games": np.array([t.games for t in totals], np.int64),
            "first_player_wins": np.array([t.seats.first_wins for t in totals], np.int64),
            "shared": np.array([t.seats.shared for t in totals], np.int64),
        }
    )
    out["rate"] = out["first_player_wins"] / out["games"]
    out["lo"], out["hi"] = wilson_interval(
        out["first_player_wins"].to_numpy(), out["games"].to_numpy(), z
    )
    return out


def paired_frame(
    labels: Sequence[str], totals: Sequence[RunTotals], z: float = Z95
) -> pd.DataFrame:
    """The paired (duplicate-deal) estimate of each run that has deals played twice."""
    rows = []
    for label, t in zip(labels, totals, strict=True):
        if t.deals == 0:
            continue  # not a --duplicate run
        n = t.deals
        rate = t.deal_sum / n
        sd = np.sqrt(max(0.0, (t.deal_sq - n * rate * rate) / (n - 1))) if n > 1 else np.inf
        se = sd / np.sqrt(n)
        wins = int(np.rint(2 * t.deal_sum))
        ulo, uhi = wilson_interval(wins, 2 * n, z)
        rows.append(
            {
                "deals": n,
                "games": 2 * n,
                "rate": rate,
                "lo": float(np.clip(normal_interval(rate, se, z)[0], 0.0, 1.0)),
                "hi": float(np.clip(normal_interval(rate, se, z)[1], 0.0, 1.0)),
                "se": se,
                "unpaired_lo": float(ulo),
                "unpaired_hi": float(uhi),
                "dropped_games": t.deals_dropped,
                "run": label,
            }
        )
    return pd.DataFrame(rows)


def difference_frame(
    labels: Sequence[str], totals: Sequence[RunTotals], z: float = Z95
) -> pd.DataFrame:
    """:func:`sim.analysis.frames.difference` of every run against the first one."""
    rows = []
    base, tb = labels[0], totals[0]
    for label, t in zip(labels[1:], totals[1:], strict=True):
        rows.append(
            difference_row(
                "run", label, base, t.seats.first_wins, t.games, tb.seats.first_wins, tb.games, z
            )
        )
    return pd.DataFrame(rows)


def cards_frame(
    mixes: Sequence[str],
    totals: Sequence[RunTotals],
    names: dict[str, dict[int, str]],
    min_games: int = 200,
    z: float = Z95,
) -> pd.DataFrame:
    """:func:`sim.analysis.frames.card_impact` by mix (runs of one mix pooled)."""
    frames = []
    for mix in sorted(set(mixes)):
        group = [t for m, t in zip(mixes, totals, strict=True) if m == mix]
        size = max(len(t.played) for t in group)
        played = sum((np.pad(t.played, (0, size - len(t.played))) for t in group), np.zeros(size))
        wins = sum(
            (np.pad(t.played_wins, (0, size - len(t.played_wins))) for t in group), np.zeros(size)
        )
        frame = card_frame(
            played.astype(np.int64),
            wins.astype(np.int64),
            2 * sum(t.games for t in group),
            sum(t.seats.decisive for t in group),
            names.get(mix, {}),
            min_games,
            z,
        )
        frame["mix"] = mix
        frames.append(frame)
    return order_card_frames(frames, ["mix"])


def stats_frame(labels: Sequence[str], totals: Sequence[RunTotals]) -> pd.DataFrame:
    """:func:`sim.analysis.frames.summary_stats` by run."""
    games = np.array([t.games for t in totals], np.int64)
    margins = [moments_of_counts(t.margins).figures() for t in totals]
    return pd.DataFrame(
        {
            "run": list(labels),
            "games": games,
            "mean_margin": np.array([t.margin_sum for t in totals]) / games,
            **{f"margin_{k}": [m[k] for m in margins] for k in ("sd", "lo", "hi")},
            "mean_turns": np.array([t.turns_sum for t in totals]) / games,
            "turn_cap_share": np.array([t.seats.capped for t in totals]) / games,
        }
    )


def distribution_frame(
    labels: Sequence[str], counters: Sequence[Counter[Any]], name: str
) -> pd.DataFrame:
    """Counts and shares of one value per run (the tidy form every histogram is drawn from)."""
    frames = []
    for label, counter in zip(labels, counters, strict=True):
        values = sorted(counter)
        games = np.array([counter[v] for v in values], np.int64)
        frames.append(
            pd.DataFrame({"run": label, name: values, "games": games, "share": games / games.sum()})
        )
    out = pd.concat(frames, ignore_index=True)
    if name != "end_reason":
        out[name] = out[name].astype(np.int64)
    return out


def ends_frame(labels: Sequence[str], totals: Sequence[RunTotals], z: float = Z95) -> pd.DataFrame:
    """:func:`sim.analysis.frames.end_reasons` by run."""
    out = distribution_frame(labels, [t.ends for t in totals], "end_reason")
    games_of = dict(zip(labels, (t.games for t in totals), strict=True))
    total = out["run"].map(games_of).to_numpy().astype(np.int64)
    out["lo"], out["hi"] = wilson_interval(out["games"].to_numpy(), total, z)
    return out


def components_frame(labels: Sequence[str], totals: Sequence[RunTotals]) -> pd.DataFrame:
    """:func:`sim.analysis.frames.score_components` by run."""
    rows = []
    for label, t in zip(labels, totals, strict=True):
        total = sum(t.points.values())
        for comp, w in SCORE_WEIGHTS.items():
            pts = t.points[comp]
            rows.append(
                {
                    "run": label,
                    "component": comp,
                    "weight": w,
                    "points": pts,
                    "per_game": pts / t.games,
                    "share": pts / total if total > 0 else 0.0,
                }
            )
    out = pd.DataFrame(rows)
    out["weight"] = out["weight"].astype(np.int64)
    out["points"] = out["points"].astype(np.int64)
    return out


def outcomes_frame(labels: Sequence[str], totals: Sequence[RunTotals]) -> pd.DataFrame:
    """:func:`sim.analysis.report_tables.outcome_shares` from totals."""
    rows = []
    for label, t in zip(labels, totals, strict=True):
        n, first, shared = t.games, t.seats.first_wins, t.seats.shared
        row: dict[str, Any] = {"run": label, "games": n}
        for name, k in (
            ("first", first),
            ("second", n - first - shared),
            ("shared", shared),
            ("capped", t.seats.capped),
        ):
            lo, hi = wilson_interval(k, n)
            row |= {name: k / n, f"{name}_lo": lo, f"{name}_hi": hi}
        rows.append(row)
    return pd.DataFrame(rows)


def seats_frame(labels: Sequence[str], totals: Sequence[RunTotals]) -> pd.DataFrame:
    """:func:`sim.analysis.report_tables.seat_balance` from totals."""
    rows = []
    for label, t in zip(labels, totals, strict=True):
        for seat, k in ((0, t.seat0_wins), (1, t.seat1_wins)):
            lo, hi = wilson_interval(k, t.games)
            rows.append(
                {"run": label, "seat": seat, "games": t.games, "wins": k, "rate": k / t.games,
                 "lo": lo, "hi": hi}
            )  # fmt: skip
    return pd.DataFrame(rows)


def quantiles_frame(labels: Sequence[str], totals: Sequence[RunTotals]) -> pd.DataFrame:
    """:func:`sim.analysis.report_tables.length_quantiles` from the turn counts."""
    rows = []
    for label, t in zip(labels, totals, strict=True):
        values = np.array(sorted(t.turns), np.float64)
        counts = np.array([t.turns[int(v)] for v in values], np.int64)
        row: dict[str, Any] = {"run": label, "mean": t.turns_sum / t.games}
        for q in QUANTILES:
            row[f"p{round(q * 100)}"] = counts_quantile(values, counts, q)
        row["max"] = int(values.max())
        rows.append(row)
    return pd.DataFrame(rows)


def card_table_frame(
    info: pd.DataFrame, totals: Sequence[RunTotals], impact: pd.DataFrame
) -> pd.DataFrame:
    """:func:`sim.analysis.report_tables.card_table` from totals."""
    frames = []
    for mix, runs in info.groupby("mix", sort=False):
        group = [totals[i] for i in runs.index]
        cards = run_cards(runs["path"].iloc[0])
        n = len(cards)
        player_games = 2 * sum(t.games for t in group)

        def share(arrays: list[np.ndarray], n: int = n, total: int = player_games) -> np.ndarray:
            counts = np.zeros(n, np.int64)
            for a in arrays:
                m = min(n, len(a))
                counts[:m] += a[:m]
            return counts / max(total, 1)

        cards["play_rate"] = share([t.played for t in group])
        if all(t.held is not None for t in group):
            cards["hold_rate"] = share([t.held for t in group if t.held is not None])
        frames.append(with_impact(cards, impact, mix))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _first_wins(run_dir: Path | str, exclude_capped: bool = False) -> Outcomes:
    """Game ids and first-player wins of a run: all :func:`first_player_shift` needs."""
    ids, wins, winners = [], [], []
    for b in scan(run_dir, ["game_id", "winner", "first_player", "end_reason"]):
        if exclude_capped:
            b = b.filter(pc.invert(_capped(b)))
        ids.append(_np(b, "game_id"))
        wins.append((_np(b, "winner") == _np(b, "first_player")).astype(np.int8))
        winners.append(_np(b, "winner").astype(np.int8))
    game_id = np.concatenate(ids)
    none = np.zeros((len(game_id), 0), np.int8)
    return Outcomes(
        game_id=game_id,
        first_win=np.concatenate(wins),
        plays=none,
        wins=none,
        winner=np.concatenate(winners),
        held0=none.astype(bool),
        held1=none.astype(bool),
    )


def shifts_frame(info: pd.DataFrame, exclude_capped: bool = False) -> pd.DataFrame:
    """:func:`sim.analysis.report_tables.run_shifts`, reading only game ids and outcomes.

    Pairing by game needs both runs' per-game outcomes at once: 10 bytes a game.
    With ``exclude_capped`` each run's turn-capped games are left out first.
    """
    runs = info["run"].tolist()
    if len(runs) < 2:
        return pd.DataFrame()
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
    paths: Sequence[Path | str], batch_rows: int = BATCH_ROWS, exclude_capped: bool = False
) -> tuple[pd.DataFrame, list[RunTotals]]:
    """The runs' table (:func:`sim.analysis.loading.run_info`) and each run's totals.

    With ``exclude_capped`` every total leaves the run's turn-capped games out.

    Raises:
        sim.analysis.RunLoadError, sim.run.io.IncompleteRunError: as for
        :func:`sim.analysis.loading.load_runs` (every path is checked first).
    """
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
    mixes = [str(m) for m in info["mix"]]
    names: dict[str, dict[int, str]] = {}
    for path, mix in zip(info["path"], mixes, strict=True):
        names.setdefault(mix, card_names(path))
    impact = cards_frame(mixes, totals, names, min_games)
    return Tables(
        info=info,
        fpa=fpa_frame(labels, totals),
        paired=paired_frame(labels, totals),
        diffs=difference_frame(labels, totals),
        shifts=shifts_frame(info, exclude_capped),
        cards=impact,
        card_table=card_table_frame(info, totals, impact),
        stats=stats_frame(labels, totals),
        outcomes=outcomes_frame(labels, totals),
        seats=seats_frame(labels, totals),
        margins=distribution_frame(labels, [t.margins for t in totals], "margin"),
        lengths=filled_lengths(distribution_frame(labels, [t.turns for t in totals], "turns")),
        length_quantiles=quantiles_frame(labels, totals),
        ends=ends_frame(labels, totals),
        components=components_frame(labels, totals),
        gods=gods_frame(labels, [t.gods for t in totals]),
        strength=_strength_by_mix(labels, mixes, totals, names),
    )


STRENGTH_COLUMNS = (
    "bot", "kind", "card", "holders", "holder_wins", "rate", "lo", "hi", "played_per_game",
    "rank",
)  # fmt: skip
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
        held = np.pad(t.held, (0, size - len(t.held)))
        wins = np.pad(t.held_wins, (0, size - len(t.held_wins)))
        played = np.pad(t.played, (0, size - len(t.played)))
        lo, hi = wilson_interval(wins, held)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(held > 0, wins / np.maximum(held, 1), np.nan)
        frame = pd.DataFrame(
            {
                "bot": label,
                "kind": np.arange(size, dtype=np.int64),
                "card": [names.get(k, f"kind {k}") for k in range(size)],
                "holders": held.astype(np.int64),
                "holder_wins": wins.astype(np.int64),
                "rate": rate,
                "lo": np.where(held > 0, lo, np.nan),
                "hi": np.where(held > 0, hi, np.nan),
                "played_per_game": played / t.games,
            }
        )
        frame["rank"] = frame["rate"].rank(ascending=False, method="min").astype("Int64")
        frames.append(frame.sort_values(["rank", "kind"], kind="stable"))
    if not frames:
        return pd.DataFrame(columns=list(STRENGTH_COLUMNS))
    return pd.concat(frames, ignore_index=True)[list(STRENGTH_COLUMNS)]


def _strength_by_mix(
    labels: Sequence[str],
    mixes: Sequence[str],
    totals: Sequence[RunTotals],
    names: dict[str, dict[int, str]],
) -> pd.DataFrame:
    """:func:`strength_frame` per mix, with a ``mix`` column."""
    frames = []
    for mix in dict.fromkeys(mixes):
        runs = {lb: t for lb, m, t in zip(labels, mixes, totals, strict=True) if m == mix}
        frame = strength_frame(runs, names[mix])
        if not frame.empty:
            frames.append(frame.assign(mix=mix))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def report_tables(
    paths: Sequence[Path | str], min_games: int = 200, batch_rows: int = BATCH_ROWS
) -> Tables:
    """The report's tables for finished runs, reading each run once, batch by batch.

    Every table the report shows, computed without loading the rows whole.

    Raises:
        sim.analysis.RunLoadError, sim.run.io.IncompleteRunError: as for
        :func:`sim.analysis.loading.load_runs` (every path is checked first).
    """
    info, totals = report_totals(paths, batch_rows)
    return tables_from_totals(info, totals, min_games)
