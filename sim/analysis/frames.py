"""Questions analysts ask of runs, answered as tidy pandas tables with honest intervals.

Every function takes a DataFrame of game rows (what :func:`sim.analysis.load` returns,
or several runs concatenated by :func:`sim.analysis.load_runs`, which adds a ``run``
label column) and returns a new tidy DataFrame: one row per group (and
per category, for distributions), plain columns, no index tricks. Nothing here
plays games or touches numba, so it is cheap to import and easy to test on
small synthetic frames.

Conventions used throughout:

* **A shared victory (``winner == -1``) is not a win** for the first player,
  nor for any seat. A rate of 50% therefore means balance only when shared
  victories are rare; the ``shared`` column says how rare.
* Intervals are two-sided 95% (``z = Z95``, :mod:`sim.run.stats`) unless a ``z`` argument says
  otherwise: Wilson for one proportion, Newcombe's hybrid score interval
  (his method 10) for a difference of two independent proportions, and a
  normal interval from the deal-level variance for the paired (duplicate)
  estimate.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from sim.base import layout as L
from sim.base.errors import FrameError
from sim.run.gods import GodCounts, god_figures
from sim.run.margins import MarginMoments
from sim.run.stats import Z95, newcombe_interval, normal_interval, wilson_interval

GROUP_COLS: tuple[str, ...] = ("mix", "variant", "strategy_p0", "strategy_p1")
"""Default grouping: what was played. Pass ``by=("run",)`` to keep runs apart."""

SCORE_WEIGHTS: dict[str, int] = {t.name: t.weight for t in L.SCORE_TERMS}
"""VP per unit of each score component, in the score's order (``sim.base.layout``)."""


# --- helpers ---------------------------------------------------------------------------------


def needs(*columns: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Refuse, as a :class:`sim.base.errors.FrameError`, a call whose first argument is not
    a DataFrame holding ``columns`` (instead of a ``KeyError`` from deep inside)."""

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def checked(df: Any, *args: Any, **kwargs: Any) -> Any:
            if not isinstance(df, pd.DataFrame):
                raise FrameError(
                    f"{f.__name__} needs a DataFrame of games, got {type(df).__name__}"
                )
            missing = [c for c in columns if c not in df.columns]
            if missing:
                raise FrameError(
                    f"{f.__name__} needs column(s) {', '.join(missing)}; load the games with "
                    "A.load or A.load_runs"
                )
            return f(df, *args, **kwargs)

        return checked

    return wrap


def _by(df: pd.DataFrame, by: Sequence[str] | str | None) -> list[str]:
    """The grouping columns that exist in ``df`` (a run without a column simply lacks it)."""
    if by is None:
        return []
    cols = [by] if isinstance(by, str) else list(by)
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise FrameError(f"no column {', '.join(map(repr, missing))} to group by")
    return cols


def _groupby(df: pd.DataFrame, cols: list[str]) -> Any:
    # observed/dropna: categorical labels must not invent empty groups, and NaN labels
    # must not silently drop games.
    if not cols:
        return df.assign(_all=0).groupby("_all", observed=True, dropna=False)
    return df.groupby(cols, observed=True, dropna=False, sort=True)


def _plain(frame: pd.DataFrame, cols: Iterable[str]) -> pd.DataFrame:
    """Group labels as the values they are, not as categoricals of the rows: a result
    table is small and reads the same however its rows were loaded."""
    for c in cols:
        if isinstance(frame[c].dtype, pd.CategoricalDtype):
            frame[c] = frame[c].astype(frame[c].cat.categories.dtype)
    return frame


def _finish(frame: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    frame = _plain(frame.reset_index(), cols)
    return frame.drop(columns=["_all"]) if not cols and "_all" in frame.columns else frame


@needs("winner", "first_player")
def first_player_won(df: pd.DataFrame) -> pd.Series:
    """Per game, whether the seat that took the first turn won outright (shared = False)."""
    return df["winner"].to_numpy() == df["first_player"].to_numpy()


# --- first-player advantage ------------------------------------------------------------------


@needs("winner", "first_player")
def first_player_advantage(
    df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS, z: float = Z95
) -> pd.DataFrame:
    """First-player win rate per group with its Wilson interval.

    A shared victory counts as *not* a first-player win (it is not a win for
    either seat); ``shared`` reports how many games that affected.

    Returns:
        Columns: the ``by`` columns, ``games``, ``first_player_wins``,
        ``shared``, ``rate``, ``lo``, ``hi``.
    """
    cols = _by(df, by)
    work = df[cols].copy()
    work["_win"] = first_player_won(df)
    work["_shared"] = df["winner"].to_numpy() == -1
    g = _groupby(work, cols)
    out = _finish(
        g.agg(games=("_win", "size"), first_player_wins=("_win", "sum"), shared=("_shared", "sum")),
        cols,
    )
    out["games"] = out["games"].astype(np.int64)
    out["first_player_wins"] = out["first_player_wins"].astype(np.int64)
    out["shared"] = out["shared"].astype(np.int64)
    out["rate"] = out["first_player_wins"] / out["games"]
    out["lo"], out["hi"] = wilson_interval(
        out["first_player_wins"].to_numpy(), out["games"].to_numpy(), z
    )
    return out


@needs("winner", "first_player")
def paired_first_player_advantage(
    df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS, z: float = Z95
) -> pd.DataFrame:
    """First-player win rate from duplicate deals, with the paired interval.

    In a ``--duplicate`` run every deal is played twice, once with each seat
    going first; the two games share a ``deal_id``. Per deal,
    ``d = mean over its games of 1[winner == first_player]`` (so 0, 0.5 or 1);
    the estimate is ``mean(d)`` and its interval ``mean ± z * sd(d)/sqrt(deals)``
    (normal approximation: with the thousands of deals a run has, the t quantile
    is all but the normal one). Because the deal's luck cancels inside
    a pair, this interval is usually narrower than the unpaired Wilson interval
    over the same games (``unpaired_lo``/``unpaired_hi``, given for comparison).
    Shared victories count as not-a-win.

    Deals are identified by ``(run, seed, deal_id)`` where those columns exist,
    so concatenated runs never merge their deals. Only deals played exactly
    twice with different first players are used; other games are counted in
    ``dropped_games``.

    Returns:
        Columns: the ``by`` columns, ``deals``, ``games``, ``rate``, ``lo``,
        ``hi``, ``se``, ``unpaired_lo``, ``unpaired_hi``, ``dropped_games``.

    Raises:
        ValueError: no ``deal_id`` column, or no deal that was played twice.
    """
    if "deal_id" not in df.columns:
        raise FrameError("no deal_id column: the paired estimate needs a run made with --duplicate")
    cols = _by(df, by)
    deal_key = [c for c in ("run", "seed") if c in df.columns and c not in cols] + ["deal_id"]
    work = df[list(dict.fromkeys([*cols, *deal_key, "first_player"]))].copy()
    work["_win"] = first_player_won(df).astype(np.float64)
    keys = [*cols, *deal_key]
    per_deal = work.groupby(keys, observed=True, dropna=False, sort=False).agg(
        n=("_win", "size"), d=("_win", "mean"), seats=("first_player", "nunique")
    )
    good = (per_deal["n"] == 2) & (per_deal["seats"] == 2)
    if not good.any():
        raise ValueError(
            "no deal appears twice with each seat going first: "
            "the paired estimate needs a run made with --duplicate"
        )
    per_deal = per_deal.reset_index()
    per_deal["_good"] = good.to_numpy()
    per_deal["_dropped"] = np.where(per_deal["_good"], 0, per_deal["n"])
    used = per_deal[per_deal["_good"]]
    g = _groupby(used, cols)
    out = _finish(
        g.agg(deals=("d", "size"), rate=("d", "mean"), sd=("d", "std"), wins=("d", "sum")),
        cols,
    )
    out["deals"] = out["deals"].astype(np.int64)
    out["games"] = 2 * out["deals"]
    # With one deal the sample sd is undefined; report the widest honest answer then.
    sd = out["sd"].fillna(np.inf).to_numpy()
    out["se"] = sd / np.sqrt(out["deals"].to_numpy())
    lo, hi = normal_interval(out["rate"], out["se"], z)
    out["lo"], out["hi"] = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
    wins = np.rint(2 * out["wins"].to_numpy()).astype(np.int64)
    out["unpaired_lo"], out["unpaired_hi"] = wilson_interval(wins, out["games"].to_numpy(), z)
    dropped = _finish(_groupby(per_deal, cols).agg(dropped_games=("_dropped", "sum")), cols)
    out = (
        out.merge(dropped, on=cols, how="left")
        if cols
        else out.assign(dropped_games=int(dropped["dropped_games"].iloc[0]))
    )
    out["dropped_games"] = out["dropped_games"].fillna(0).astype(np.int64)
    return out[
        [*cols, "deals", "games", "rate", "lo", "hi", "se", "unpaired_lo", "unpaired_hi",
         "dropped_games"]
    ]  # fmt: skip


@needs("winner", "first_player")
def difference(df: pd.DataFrame, group_col: str, a: Any, b: Any, z: float = Z95) -> pd.DataFrame:
    """Difference in first-player win rate between two groups, ``rate(a) - rate(b)``.

    For example ``difference(df, "variant", "emissary", "standard")`` or
    ``difference(df, "run", "new-card", "baseline")``. The interval is
    Newcombe's hybrid score interval (:func:`newcombe_interval`), which treats
    the two groups' games as independent samples (true for different runs or
    different games of one run). Shared victories count as not-a-win.

    Returns:
        One row: ``group_col``, ``a``, ``b``, ``games_a``, ``wins_a``,
        ``rate_a``, ``games_b``, ``wins_b``, ``rate_b``, ``diff``, ``lo``, ``hi``.

    Raises:
        ValueError: ``group_col`` is missing or ``a``/``b`` has no games.
    """
    if group_col not in df.columns:
        raise FrameError(f"no column {group_col!r} to compare")
    labels = df[group_col].astype(str).to_numpy()
    won = first_player_won(df)
    counts = {}
    for name, value in (("a", a), ("b", b)):
        mask = labels == str(value)
        if not mask.any():
            raise FrameError(f"no games with {group_col} == {value!r}")
        counts[name] = (int(won[mask].sum()), int(mask.sum()))
    (ka, na), (kb, nb) = counts["a"], counts["b"]
    return pd.DataFrame([difference_row(group_col, a, b, ka, na, kb, nb, z)])


def difference_row(
    group_col: str, a: Any, b: Any, ka: int, na: int, kb: int, nb: int, z: float = Z95
) -> dict[str, Any]:
    """One row of :func:`difference` from counts: ``ka`` first-player wins of ``na``
    games under ``a`` against ``kb`` of ``nb`` under ``b``, with Newcombe's interval."""
    lo, hi = newcombe_interval(ka, na, kb, nb, z)
    return {
        "group_col": group_col,
        "a": str(a),
        "b": str(b),
        "games_a": na,
        "wins_a": ka,
        "rate_a": ka / na,
        "games_b": nb,
        "wins_b": kb,
        "rate_b": kb / nb,
        "diff": ka / na - kb / nb,
        "lo": float(lo),
        "hi": float(hi),
    }


# --- cards -----------------------------------------------------------------------------------


def distinct_pairs(rows: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (row, kind) pairs among ``rows[i], kinds[i]``, sorted by row then kind.

    A kind played (or held) twice in one game counts once: the question is "did
    this player use the card", not how often.
    """
    if len(kinds) == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    # One int64 code per (row, kind), sorted and de-duplicated by hand: much faster than
    # unique(axis=0), and than numpy 2's hash-based np.unique (which dominated a large
    # streaming scan), on the tens of millions of pairs a large run has.
    width = int(kinds.max()) + 1
    codes = np.sort(rows.astype(np.int64) * width + kinds)
    codes = codes[np.concatenate(([True], codes[1:] != codes[:-1]))]
    return codes // width, codes % width


def add_kinds(
    counts: np.ndarray | None,
    wins: np.ndarray | None,
    rows: np.ndarray,
    kinds: np.ndarray,
    won: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per kind, ``counts`` plus the (row, kind) pairs of that kind, and ``wins`` plus those
    whose row is ``won``; both grown to the kinds seen (``None``: nothing counted yet)."""
    counts = np.zeros(0, np.int64) if counts is None else counts
    wins = np.zeros(0, np.int64) if wins is None else wins
    size = max(len(counts), int(kinds.max()) + 1 if len(kinds) else 0)
    counts = np.pad(counts, (0, size - len(counts))) + np.bincount(kinds, minlength=size)
    won_by = np.bincount(kinds, weights=won[rows], minlength=size).astype(np.int64)
    return counts, np.pad(wins, (0, size - len(wins))) + won_by


def played_pairs(lists: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(row index, kind id) for every distinct card kind in each row of a column of lists
    (``played_p*``, ``held_p*``); a missing list holds nothing.

    Takes the lists as :func:`sim.analysis.load` gives them (Arrow lists of kind ids, or
    with ``names=True`` of card names whose dictionary index is the kind id) and as
    ``pd.read_parquet`` does (an object column of id arrays).
    """
    if isinstance(lists.dtype, pd.ArrowDtype):
        arr = pa.array(lists)
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        if arr.null_count == len(arr):
            return np.empty(0, np.int64), np.empty(0, np.int64)
        values = pc.list_flatten(arr)
        if pa.types.is_dictionary(values.type):
            values = values.indices
        rows = pc.list_parent_indices(arr).to_numpy().astype(np.int64)
        return distinct_pairs(rows, values.to_numpy().astype(np.int64))
    values = lists.to_numpy()
    lengths = np.fromiter((0 if v is None else len(v) for v in values), np.int64, len(values))
    if lengths.sum() == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    kinds = np.concatenate([np.asarray(v, dtype=np.int64) for v in values if v is not None])
    rows = np.repeat(np.arange(len(values), dtype=np.int64), lengths)
    return distinct_pairs(rows, kinds)


def card_impact(
    df: pd.DataFrame,
    cards: Mapping[int, str] | Mapping[str, Mapping[int, str]] | None = None,
    min_games: int = 200,
    by: Sequence[str] | str | None = ("mix",),
    z: float = Z95,
) -> pd.DataFrame:
    """Per card kind: how often it is played and how its players fare.

    The unit of analysis is the *player-game* (each game gives two: seat 0 and
    seat 1). For each kind: ``played`` player-games in which that seat played
    it at least once (``share`` of all player-games), the win rate of those
    (``win_played``) and of all other player-games (``win_not``), and
    ``diff = win_played - win_not`` with Newcombe's interval. Shared victories
    are not wins. This is an association, not a causal effect: strong players'
    positions may simply let them play a card. The two seats of one game are
    not independent, so treat the interval as approximate.

    Kind ids are positions in the mix's card table, so results are grouped by
    ``mix`` by default. ``cards`` names the kinds: ``{kind: name}`` or
    ``{mix: {kind: name}}``; default ``df.attrs["card_names"]`` from
    :func:`sim.analysis.load_runs` or ``df.attrs["cards"]`` from :func:`sim.analysis.load`, else
    ``"kind N"``.

    Returns:
        Columns: the ``by`` columns, ``kind``, ``card``, ``played``, ``share``,
        ``win_played``, ``not_played``, ``win_not``, ``diff``, ``lo``, ``hi``,
        ``low_sample`` (fewer than ``min_games`` player-games on either side;
        kept, but not worth reading). Sorted by ``|diff|``, largest first, with
        the low-sample rows last.
    """
    cols = _by(df, by)
    if cards is None:
        # load_runs keeps {mix: {id: name}}, sim.analysis.load the run's card records.
        cards = df.attrs.get("card_names") or {
            int(c["id"]): str(c["name"]) for c in df.attrs.get("cards", [])
        }
    frames = []
    for key, part in _groupby(df, cols) if cols else [((), df)]:
        key = key if isinstance(key, tuple) else (key,)
        names = _names_for(cards, dict(zip(cols, key, strict=True)))
        winner = part["winner"].to_numpy()
        total = 2 * len(part)
        total_wins = int((winner == 0).sum() + (winner == 1).sum())
        played, played_wins = np.zeros(0, np.int64), np.zeros(0, np.int64)
        for seat in (0, 1):
            played, played_wins = add_kinds(
                played, played_wins, *played_pairs(part[f"played_p{seat}"]), winner == seat
            )
        frame = card_frame(played, played_wins, total, total_wins, names, min_games, z)
        for c, v in zip(cols, key, strict=True):
            frame[c] = v
        frames.append(frame)
    return order_card_frames(frames, cols)


def card_frame(
    played: np.ndarray,
    played_wins: np.ndarray,
    total: int,
    total_wins: int,
    names: Mapping[int, str],
    min_games: int = 200,
    z: float = Z95,
) -> pd.DataFrame:
    """One group's rows of :func:`card_impact` from its counts.

    ``played[k]``/``played_wins[k]``: player-games in which kind ``k`` was played
    and how many of them were won; ``total``/``total_wins``: all player-games and
    all wins of the group. Shared by the in-memory and the streaming
    (:mod:`sim.analysis.streaming`) paths.
    """
    kind = np.nonzero(played)[0]
    n1, k1 = played[kind], played_wins[kind]
    n0, k0 = total - n1, total_wins - k1
    lo, hi = newcombe_interval(k1, n1, k0, n0, z)
    with np.errstate(invalid="ignore", divide="ignore"):
        frame = pd.DataFrame(
            {
                "kind": kind.astype(np.int64),
                "card": [names.get(int(k), f"kind {k}") for k in kind],
                "played": n1,
                "share": n1 / total,
                "win_played": k1 / n1,
                "not_played": n0,
                "win_not": np.where(n0 > 0, k0 / np.maximum(n0, 1), np.nan),
                "lo": lo,
                "hi": hi,
            }
        )
    frame["diff"] = frame["win_played"] - frame["win_not"]
    frame["low_sample"] = (frame["played"] < min_games) | (frame["not_played"] < min_games)
    return frame


def order_card_frames(frames: list[pd.DataFrame], cols: list[str]) -> pd.DataFrame:
    """:func:`card_impact`'s groups in one table, largest ``|diff|`` first, low samples last."""
    order = [*cols, "kind", "card", "played", "share", "win_played", "not_played", "win_not",
             "diff", "lo", "hi", "low_sample"]  # fmt: skip
    if not frames:
        return pd.DataFrame(columns=order)
    out = pd.concat(frames, ignore_index=True)[order]
    out["_abs"] = out["diff"].abs()
    out = out.sort_values(["low_sample", "_abs"], ascending=[True, False], kind="stable")
    return out.drop(columns="_abs").reset_index(drop=True)


def _names_for(cards: Mapping[Any, Any], key: Mapping[str, Any]) -> dict[int, str]:
    """Pick the ``{kind: name}`` map for one group from either accepted shape of ``cards``."""
    if not cards:
        return {}
    first = next(iter(cards.values()))
    if isinstance(first, Mapping):  # {mix: {kind: name}}
        mix = key.get("mix")
        if mix is None and len(cards) == 1:
            return {int(k): str(v) for k, v in first.items()}
        return {int(k): str(v) for k, v in cards.get(str(mix), {}).items()}
    return {int(k): str(v) for k, v in cards.items()}


# --- distributions ---------------------------------------------------------------------------


def _distribution(
    df: pd.DataFrame, values: pd.Series | np.ndarray, name: str, by: Sequence[str] | str | None
) -> pd.DataFrame:
    """Counts and shares of ``values`` per group: the tidy form every histogram is drawn from."""
    cols = _by(df, by)
    work = df[cols].copy()
    work[name] = np.asarray(values)
    counts = work.groupby([*cols, name], observed=True, dropna=False, sort=True).size()
    out = _plain(counts.rename("games").reset_index(), [*cols, name])
    totals = (
        out.groupby(cols, observed=True, dropna=False)["games"].transform("sum")
        if cols
        else (out["games"].sum())
    )
    out["games"] = out["games"].astype(np.int64)
    out["share"] = out["games"] / totals
    return out


@needs("score_p0", "score_p1", "first_player")
def score_margins(df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS) -> pd.DataFrame:
    """Distribution of the first player's score minus the second player's.

    Signed from the first player's side, so the first-player advantage shows as
    a shift of the whole distribution; a margin of 0 is still decided by the
    tie-breaks (see ``winner``).

    Returns:
        Columns: the ``by`` columns, ``margin``, ``games``, ``share``.
    """
    s0 = df["score_p0"].to_numpy().astype(np.int64)
    s1 = df["score_p1"].to_numpy().astype(np.int64)
    first_is_0 = df["first_player"].to_numpy() == 0
    margin = np.where(first_is_0, s0 - s1, s1 - s0)
    return _distribution(df, margin, "margin", by)


@needs("turns")
def game_lengths(df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS) -> pd.DataFrame:
    """Distribution of game length in turns (games that hit the turn cap included).

    Returns:
        Columns: the ``by`` columns, ``turns``, ``games``, ``share``.
    """
    return _distribution(df, df["turns"].to_numpy().astype(np.int64), "turns", by)


@needs("end_reason")
def end_reasons(
    df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS, z: float = Z95
) -> pd.DataFrame:
    """How games ended, per group, with a Wilson interval on each share.

    Returns:
        Columns: the ``by`` columns, ``end_reason``, ``games``, ``share``, ``lo``, ``hi``.
    """
    out = _distribution(df, df["end_reason"].astype(str).to_numpy(), "end_reason", by)
    totals = np.rint(out["games"] / out["share"]).astype(np.int64)
    out["lo"], out["hi"] = wilson_interval(out["games"].to_numpy(), totals.to_numpy(), z)
    return out


def score_components(df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS) -> pd.DataFrame:
    """Where the points come from: each score component's share of all VP scored.

    Points are weighted as in the score (:data:`SCORE_WEIGHTS`) and summed over both
    seats; a component whose columns a run lacks or holds as nulls (e.g. ``feats_*``
    outside A Reign of War) scores nothing.

    Returns:
        Columns: the ``by`` columns, ``component``, ``weight``, ``points``,
        ``per_game`` (points per game, both seats together), ``share``.
    """
    cols = _by(df, by)
    work = df[cols].copy()
    for comp, w in SCORE_WEIGHTS.items():
        pts = np.zeros(len(df), dtype=np.int64)
        for seat in (0, 1):
            col = f"{comp}_p{seat}"
            if col in df.columns:
                # A null is a component not in that game's mix: it scores no points.
                pts += df[col].fillna(0).to_numpy(dtype=np.int64)
        work[comp] = w * pts
    g = _groupby(work, cols)
    sums = _finish(g[list(SCORE_WEIGHTS)].sum(), cols)
    games = _finish(g.size().rename("_games"), cols)
    sums = sums.merge(games, on=cols) if cols else sums.assign(_games=int(games["_games"].iloc[0]))
    long = sums.melt(
        id_vars=[*cols, "_games"], value_vars=list(SCORE_WEIGHTS), var_name="component",
        value_name="points",
    )  # fmt: skip
    long["weight"] = long["component"].map(SCORE_WEIGHTS).astype(np.int64)
    long["points"] = long["points"].astype(np.int64)
    long["per_game"] = long["points"] / long["_games"]
    if cols:
        total = long.groupby(cols, observed=True, dropna=False)["points"].transform("sum")
    else:
        total = long["points"].sum()
    long["share"] = np.where(total > 0, long["points"] / np.maximum(total, 1), 0.0)
    order = {c: i for i, c in enumerate(SCORE_WEIGHTS)}
    long = long.sort_values([*cols, "component"], key=lambda s: s.map(order) if s.name ==
                            "component" else s, kind="stable")  # fmt: skip
    return long[[*cols, "component", "weight", "points", "per_game", "share"]].reset_index(
        drop=True
    )


@needs("score_p0", "score_p1", "first_player", "turns", "end_reason")
def summary_stats(df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS) -> pd.DataFrame:
    """Mean first-player margin and game length per group, for one-line summaries.

    Returns:
        Columns: the ``by`` columns, ``games``, ``mean_margin``, ``margin_sd``,
        ``margin_lo``, ``margin_hi`` (the 95% t-interval on the per-game margins,
        :class:`sim.run.margins.MarginMoments`), ``mean_turns``, ``turn_cap_share``
        (games cut off at the turn cap).
    """
    cols = _by(df, by)
    work = df[cols].copy()
    s0 = df["score_p0"].to_numpy().astype(np.int64)
    s1 = df["score_p1"].to_numpy().astype(np.int64)
    work["_margin"] = np.where(df["first_player"].to_numpy() == 0, s0 - s1, s1 - s0)
    work["_turns"] = df["turns"].to_numpy()
    work["_cap"] = df["end_reason"].astype(str).to_numpy() == "turn_cap"
    work["_sq"] = work["_margin"] * work["_margin"]
    out = _finish(
        _groupby(work, cols).agg(
            games=("_margin", "size"),
            mean_margin=("_margin", "mean"),
            _total=("_margin", "sum"),
            _squares=("_sq", "sum"),
            mean_turns=("_turns", "mean"),
            turn_cap_share=("_cap", "mean"),
        ),
        cols,
    )
    out["games"] = out["games"].astype(np.int64)
    moments = [
        MarginMoments(int(n), int(t), int(q))
        for n, t, q in zip(out["games"], out.pop("_total"), out.pop("_squares"), strict=True)
    ]
    at = out.columns.get_loc("mean_margin") + 1
    figures = [m.figures() for m in moments]
    for i, key in enumerate(("sd", "lo", "hi")):
        out.insert(at + i, f"margin_{key}", [f[key] for f in figures])
    return out


def god_win_rates(df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS) -> pd.DataFrame:
    """Each Heir to the Dunes god's win rate per group, with 95% Wilson intervals.

    A god's games are those in which a seat served it; its wins, those its seat won
    outright; ``first_*`` and ``second_*`` split them by whether that seat took the
    first turn (:func:`sim.run.gods.god_figures`). Groups without gods have no row.

    Returns:
        Columns: the ``by`` columns, ``god``, then ``games``, ``wins``, ``rate``, ``lo``,
        ``hi`` and the same prefixed ``first_`` and ``second_``.
    """
    cols = _by(df, by)
    frames = []
    groups = [((), df)] if not cols else _groupby(df, cols)
    for key, part in groups:
        rows = pd.DataFrame(god_figures(GodCounts.from_frame(part)))
        if rows.empty:
            continue
        keys = key if isinstance(key, tuple) else (key,)
        for i, (c, v) in enumerate(zip(cols, keys, strict=True)):
            rows.insert(i, c, v)
        frames.append(rows)
    if not frames:
        return pd.DataFrame(columns=[*cols, "god", "games", "wins", "rate", "lo", "hi"])
    return pd.concat(frames, ignore_index=True)
