"""Questions analysts ask of runs, answered as tidy pandas tables with honest intervals.

Every function takes a DataFrame of game rows (:func:`sim.analysis.load`, or several runs
from :func:`sim.analysis.load_runs` with its ``run`` column) and returns a new tidy
DataFrame: one row per group (and per category, for distributions). Each group's rows are
folded into a ``RunTotals`` and every table is computed from it by
:mod:`sim.analysis.streaming`, as the report's are, so each figure has one code path. A
shared victory (``winner == -1``) is a win for no seat; intervals are two-sided 95% (``z``),
of the kinds ``docs/statistics.md`` lists.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
import pyarrow as pa

from sim.analysis.streaming import (
    SCORE_WEIGHTS,
    RunTotals,
    cards_frame,
    components_frame,
    difference_frame,
    distribution_frame,
    ends_frame,
    fpa_frame,
    gods_frame,
    paired_frame,
    stats_frame,
)
from sim.base.errors import FrameError
from sim.run.stats import Z95

GROUP_COLS: tuple[str, ...] = ("mix", "variant", "strategy_p0", "strategy_p1")
"""Default grouping: what was played. Pass ``by=("run",)`` to keep runs apart."""

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
    cols = [] if by is None else [by] if isinstance(by, str) else list(by)
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise FrameError(f"no column {', '.join(map(repr, missing))} to group by")
    return cols


def _totals(
    df: pd.DataFrame, by: Sequence[str] | str | None, columns: Sequence[str]
) -> tuple[pd.DataFrame, list[RunTotals]]:
    """The ``by`` groups of ``df``: their keys (one row a group, labels as the plain values
    they are) and each group's :class:`RunTotals`, folded from the ``columns`` it has."""
    cols = _by(df, by)
    present = [c for c in columns if c in df.columns]
    work = df[list(dict.fromkeys([*cols, *present]))]
    # observed/dropna: categorical labels must not invent empty groups, and NaN labels
    # must not silently drop games.
    groups = work.groupby(cols, observed=True, dropna=False) if cols else [((), work)]
    keys, totals = [], []
    for key, part in groups:
        if len(part):
            t = RunTotals()
            rows = pa.Table.from_pandas(part[present], preserve_index=False)
            for batch in rows.combine_chunks().to_batches():
                t.add(batch)
            t.finish()
            keys.append(key)
            totals.append(t)
    return pd.DataFrame(keys, columns=cols), totals


@needs("winner", "first_player")
def first_player_won(df: pd.DataFrame) -> pd.Series:
    """Per game, whether the seat that took the first turn won outright (shared = False)."""
    return df["winner"].to_numpy() == df["first_player"].to_numpy()


# --- first-player advantage ------------------------------------------------------------------


@needs("winner", "first_player")
def first_player_advantage(
    df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS, z: float = Z95
) -> pd.DataFrame:
    """First-player win rate per group with its Wilson interval (``shared``: games won by
    neither seat, so not first-player wins).

    Returns:
        Columns: the ``by`` columns, ``games``, ``first_player_wins``,
        ``shared``, ``rate``, ``lo``, ``hi``.
    """
    return fpa_frame(*_totals(df, by, ("winner", "first_player")), z)


@needs("winner", "first_player")
def paired_first_player_advantage(
    df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS, z: float = Z95
) -> pd.DataFrame:
    """First-player win rate from duplicate deals, with the paired interval.

    In a ``--duplicate`` run every deal is played twice, once with each seat going first.
    Per deal ``d`` is the share of its two games the first player won (0, 0.5 or 1); the
    estimate is ``mean(d)``, its interval ``mean ± z * sd(d)/sqrt(deals)`` (normal: a run has
    thousands of deals). The deal's luck cancels inside a pair, so this interval is usually
    narrower than the unpaired Wilson one (``unpaired_lo``/``unpaired_hi``). Deals are
    ``(run, seed, deal_id)`` where those columns exist; games not in a deal played exactly
    twice with different first players are ``dropped_games``.

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
    work = df[list(dict.fromkeys([*cols, "winner", "first_player"]))].assign(
        deal_id=df.groupby(deal_key, observed=True, dropna=False, sort=False).ngroup()
    )
    keys, totals = _totals(work, cols, ("winner", "first_player", "deal_id"))
    if not any(t.deals for t in totals):
        raise ValueError(
            "no deal appears twice with each seat going first: "
            "the paired estimate needs a run made with --duplicate"
        )
    return paired_frame(keys, totals, z)


@needs("winner", "first_player")
def difference(df: pd.DataFrame, group_col: str, a: Any, b: Any, z: float = Z95) -> pd.DataFrame:
    """Difference in first-player win rate between two groups, ``rate(a) - rate(b)``.

    For example ``difference(df, "variant", "emissary", "standard")``. The interval is
    Newcombe's (:func:`sim.run.stats.newcombe_interval`), for independent samples (different
    runs, or different games of one run).

    Returns:
        One row: ``group_col``, ``a``, ``b``, ``games_a``, ``wins_a``,
        ``rate_a``, ``games_b``, ``wins_b``, ``rate_b``, ``diff``, ``lo``, ``hi``.

    Raises:
        ValueError: ``group_col`` is missing or ``a``/``b`` has no games.
    """
    if group_col not in df.columns:
        raise FrameError(f"no column {group_col!r} to compare")
    labels, won = df[group_col].astype(str).to_numpy(), first_player_won(df)
    masks = [labels == str(value) for value in (b, a)]
    for value, mask in zip((a, b), masks[::-1], strict=True):
        if not mask.any():
            raise FrameError(f"no games with {group_col} == {value!r}")
    wins, games = [int(won[m].sum()) for m in masks], [int(m.sum()) for m in masks]
    return difference_frame(group_col, [b, a], wins, games, z)


# --- cards -----------------------------------------------------------------------------------


def card_impact(
    df: pd.DataFrame,
    cards: Mapping[int, str] | Mapping[str, Mapping[int, str]] | None = None,
    min_games: int = 200,
    by: Sequence[str] | str | None = ("mix",),
    z: float = Z95,
) -> pd.DataFrame:
    """Per card kind: how often it is played and how its players fare.

    Per *player-game* (two a game): ``played`` player-games in which that seat played the
    kind at least once (``share`` of all), their win rate ``win_played``, that of the others
    ``win_not``, and ``diff = win_played - win_not`` with Newcombe's interval (approximate:
    the two seats of a game are not independent). An association, not a causal effect.

    Kind ids are positions in the mix's card table, hence grouped by ``mix`` by default.
    ``cards`` names them, ``{kind: name}`` or ``{mix: {kind: name}}``; default the frame's
    ``attrs`` (:func:`sim.analysis.load_runs`, :func:`sim.analysis.load`), else ``"kind N"``.

    Returns:
        Columns: the ``by`` columns, ``kind``, ``card``, ``played``, ``share``,
        ``win_played``, ``not_played``, ``win_not``, ``diff``, ``lo``, ``hi``,
        ``low_sample`` (fewer than ``min_games`` player-games on either side;
        kept, but not worth reading). Sorted by ``|diff|``, largest first, with
        the low-sample rows last.
    """
    if cards is None:
        # load_runs keeps {mix: {id: name}}, sim.analysis.load the run's card records.
        cards = df.attrs.get("card_names") or {
            int(c["id"]): str(c["name"]) for c in df.attrs.get("cards", [])
        }
    keys, totals = _totals(df, by, ("winner", "played_p0", "played_p1"))
    names = [_names_for(cards, key) for key in keys.to_dict("records")]
    return cards_frame(keys, [[t] for t in totals], names, min_games, z)


def _names_for(cards: Mapping[Any, Any], key: Mapping[str, Any]) -> dict[int, str]:
    """Pick the ``{kind: name}`` map for one group from either accepted shape of ``cards``."""
    if cards and isinstance(next(iter(cards.values())), Mapping):  # {mix: {kind: name}}
        mix = key.get("mix")
        only = mix is None and len(cards) == 1
        cards = next(iter(cards.values())) if only else cards.get(str(mix), {})
    return {int(k): str(v) for k, v in cards.items()}


# --- distributions ---------------------------------------------------------------------------


@needs("score_p0", "score_p1", "first_player")
def score_margins(df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS) -> pd.DataFrame:
    """Distribution of the first player's score minus the second player's.

    Signed from the first player's side, so the first-player advantage shows as
    a shift of the whole distribution; a margin of 0 is still decided by the
    tie-breaks (see ``winner``).

    Returns:
        Columns: the ``by`` columns, ``margin``, ``games``, ``share``.
    """
    keys, totals = _totals(df, by, ("score_p0", "score_p1", "first_player"))
    return distribution_frame(keys, [t.margins for t in totals], "margin")


@needs("turns")
def game_lengths(df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS) -> pd.DataFrame:
    """Distribution of game length in turns (games that hit the turn cap included).

    Returns:
        Columns: the ``by`` columns, ``turns``, ``games``, ``share``.
    """
    keys, totals = _totals(df, by, ("turns",))
    return distribution_frame(keys, [t.turns for t in totals], "turns")


@needs("end_reason")
def end_reasons(
    df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS, z: float = Z95
) -> pd.DataFrame:
    """How games ended, per group, with a Wilson interval on each share.

    Returns:
        Columns: the ``by`` columns, ``end_reason``, ``games``, ``share``, ``lo``, ``hi``.
    """
    return ends_frame(*_totals(df, by, ("end_reason",)), z)


def score_components(df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS) -> pd.DataFrame:
    """Where the points come from: each score component's share of all VP scored.

    Points are weighted as in the score (:data:`SCORE_WEIGHTS`) and summed over both
    seats; a component whose columns a run lacks or holds as nulls (e.g. ``feats_*``
    outside A Reign of War) scores nothing.

    Returns:
        Columns: the ``by`` columns, ``component``, ``weight``, ``points``,
        ``per_game`` (points per game, both seats together), ``share``.
    """
    columns = [f"{c}_p{seat}" for c in SCORE_WEIGHTS for seat in (0, 1)]
    return components_frame(*_totals(df, by, columns))


@needs("score_p0", "score_p1", "first_player", "turns", "end_reason")
def summary_stats(df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS) -> pd.DataFrame:
    """Mean first-player margin and game length per group, for one-line summaries.

    Returns:
        Columns: the ``by`` columns, ``games``, ``mean_margin``, ``margin_sd``,
        ``margin_lo``, ``margin_hi`` (the 95% t-interval on the per-game margins,
        :class:`sim.run.margins.MarginMoments`), ``mean_turns``, ``turn_cap_share``
        (games cut off at the turn cap).
    """
    return stats_frame(
        *_totals(df, by, ("score_p0", "score_p1", "first_player", "turns", "end_reason"))
    )


def god_win_rates(df: pd.DataFrame, by: Sequence[str] | str | None = GROUP_COLS) -> pd.DataFrame:
    """Each Heir to the Dunes god's win rate per group, with 95% Wilson intervals.

    A god's games are those in which a seat served it; its wins, those its seat won
    outright; ``first_*`` and ``second_*`` split them by whether that seat took the
    first turn (:func:`sim.run.gods.god_figures`). Groups without gods have no row.

    Returns:
        Columns: the ``by`` columns, ``god``, then ``games``, ``wins``, ``rate``, ``lo``,
        ``hi`` and the same prefixed ``first_`` and ``second_``.
    """
    keys, totals = _totals(df, by, ("winner", "first_player", "god_p0", "god_p1"))
    out = gods_frame(keys, totals)
    empty = [*keys.columns, "god", "games", "wins", "rate", "lo", "hi"]
    return out if len(out) else pd.DataFrame(columns=empty)
