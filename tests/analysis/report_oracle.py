"""The report's tables computed in pandas from the loaded rows: the oracle the tables read
batch by batch from Parquet (``sim.analysis.streaming``) are checked against."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from sim import analysis as A
from sim.analysis.loading import cards as run_cards
from sim.analysis.paired import first_player_shift
from sim.analysis.report_tables import QUANTILES, Tables, filled_lengths, shares_deals, with_impact
from sim.analysis.streaming import played_kinds


def _paired_by_run(df: pd.DataFrame) -> pd.DataFrame:
    """The paired estimate for every run that has duplicate deals; other runs are skipped."""
    if "deal_id" not in df.columns:
        return pd.DataFrame()
    frames = []
    for run, part in df.groupby("run", sort=False):
        try:
            frames.append(A.paired_first_player_advantage(part, by=None))
            frames[-1].insert(0, "run", run)
        except ValueError:
            continue  # not a --duplicate run: no pairs, nothing to pair
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def outcome_shares(df: pd.DataFrame) -> pd.DataFrame:
    """Per run: games, and the shares won by the first player, the second, shared, turn-capped.

    First + second + shared = 100%; ``capped`` (games cut off by the turn cap,
    whoever won them) overlaps the others. Wilson 95% intervals on each share.
    """
    rows = []
    for run, part in df.groupby("run", sort=False):
        n = len(part)
        winner = part["winner"].to_numpy()
        first = int(np.count_nonzero(winner == part["first_player"].to_numpy()))
        shared = int(np.count_nonzero(winner == -1))
        capped = int(np.count_nonzero(part["end_reason"].astype(str).to_numpy() == "turn_cap"))
        row: dict[str, Any] = {"run": run, "games": n}
        for name, k in (
            ("first", first),
            ("second", n - first - shared),
            ("shared", shared),
            ("capped", capped),
        ):
            lo, hi = A.wilson_interval(k, n)
            row |= {name: k / n, f"{name}_lo": lo, f"{name}_hi": hi}
        rows.append(row)
    return pd.DataFrame(rows)


def seat_balance(df: pd.DataFrame) -> pd.DataFrame:
    """Per run and seat: the seat's win rate with its Wilson interval (shared is not a win)."""
    rows = []
    for run, part in df.groupby("run", sort=False):
        n = len(part)
        for seat in (0, 1):
            k = int(np.count_nonzero(part["winner"].to_numpy() == seat))
            lo, hi = A.wilson_interval(k, n)
            rows.append(
                {"run": run, "seat": seat, "games": n, "wins": k, "rate": k / n, "lo": lo, "hi": hi}
            )
    return pd.DataFrame(rows)


def length_quantiles(df: pd.DataFrame, qs: Iterable[float] = QUANTILES) -> pd.DataFrame:
    """Per run: mean, the quantiles ``qs`` and the maximum of game length in turns."""
    rows = []
    for run, part in df.groupby("run", sort=False):
        turns = part["turns"].to_numpy()
        row: dict[str, Any] = {"run": run, "mean": float(turns.mean())}
        for q in qs:
            row[f"p{round(q * 100)}"] = float(np.quantile(turns, q))
        row["max"] = int(turns.max())
        rows.append(row)
    return pd.DataFrame(rows)


def run_shifts(df: pd.DataFrame, info: pd.DataFrame) -> pd.DataFrame:
    """Each run minus the first, paired by game, for the runs that deal its games.

    Runs with one seed and one mix play the same deals at the same game indices
    (common random numbers), so the paired interval is usually much narrower than
    Newcombe's for independent runs. Runs of another seed or mix are left out
    (:func:`shares_deals`).
    """
    runs = info["run"].tolist()
    if len(runs) < 2:
        return pd.DataFrame()
    base = df[df["run"] == runs[0]]
    rows = []
    for i, run in enumerate(runs[1:], start=1):
        if not shares_deals(info, i):
            continue
        try:
            d = first_player_shift(base, df[df["run"] == run])
        except ValueError:
            continue  # no game in common
        rows.append({"a": run, "b": runs[0], **asdict(d)})
    return pd.DataFrame(rows)


def _list_share(lists: pd.Series, n_kinds: int) -> np.ndarray:
    """Per kind id: the share of rows whose list holds it (at least once)."""
    _, kinds = played_kinds(pa.chunked_array(pa.array(lists)).combine_chunks())
    counts = np.bincount(kinds, minlength=n_kinds)
    if len(counts) > n_kinds:
        raise IndexError(f"kind id {len(counts) - 1} is past the mix's {n_kinds} card kinds")
    return counts / max(len(lists), 1)


def card_table(df: pd.DataFrame, info: pd.DataFrame, impact: pd.DataFrame) -> pd.DataFrame:
    """One row per card kind of each mix: its printed figures, how often it is played
    (and held at some point, when the runs have ``held_p0/p1``), and its card effect.

    ``play rate`` and ``hold rate`` are shares of player-games (two per game);
    the effect is :func:`sim.analysis.card_impact`'s ``diff`` (win rate when
    played minus when not) with its Newcombe interval.
    """
    frames = []
    for mix, runs in info.groupby("mix", sort=False):
        cards = run_cards(runs["path"].iloc[0])
        part = df[df["mix"] == mix]
        n = len(cards)
        both = pd.concat([part["played_p0"], part["played_p1"]], ignore_index=True)
        cards["play_rate"] = _list_share(both, n)
        if "held_p0" in part.columns and "held_p1" in part.columns:
            held = pd.concat([part["held_p0"], part["held_p1"]], ignore_index=True)
            cards["hold_rate"] = _list_share(held, n)
        frames.append(with_impact(cards, impact, mix))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def compute(df: pd.DataFrame, min_games: int) -> Tables:
    info = pd.DataFrame(df.attrs["runs"])
    runs = info["run"].tolist()
    diffs = pd.concat(
        [A.difference(df, "run", r, runs[0]) for r in runs[1:]] or [pd.DataFrame()],
        ignore_index=True,
    )
    by = ("run",)
    position = {r: i for i, r in enumerate(runs)}

    def ordered(frame: pd.DataFrame) -> pd.DataFrame:
        # groupby sorts runs by name; show them in the order the user gave them.
        if frame.empty:
            return frame
        key = frame["run"].map(position)
        return frame.iloc[np.argsort(key.to_numpy(), kind="stable")].reset_index(drop=True)

    # Runs of one mix share kind ids (and usually differ in what we compare), so pool
    # them per mix for card impact: more player-games, tighter intervals.
    impact = A.card_impact(df, min_games=min_games, by=("mix",))
    return Tables(
        info=info,
        fpa=ordered(A.first_player_advantage(df, by=by)),
        paired=ordered(_paired_by_run(df)),
        diffs=diffs,
        shifts=run_shifts(df, info),
        cards=impact,
        card_table=card_table(df, info, impact),
        stats=ordered(A.summary_stats(df, by=by)),
        outcomes=outcome_shares(df),
        seats=seat_balance(df),
        margins=ordered(A.score_margins(df, by=by)),
        lengths=filled_lengths(ordered(A.game_lengths(df, by=by))),
        length_quantiles=length_quantiles(df),
        ends=ordered(A.end_reasons(df, by=by)),
        components=ordered(A.score_components(df, by=by)),
        gods=ordered(A.god_win_rates(df, by=by)),
    )
