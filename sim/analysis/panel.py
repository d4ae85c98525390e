"""Bot sensitivity: the same question answered under several bots, and whether the answer holds.

A balance figure is measured with some bot at the table. A panel replays the
same games (same seed, same game indices) once per bot in self-play, so a
designer can see whether "the first player is favoured" is a fact about the
game or about one bot's play.

Everything here is a pure function over counts or game rows; the CLI only
plays the runs and prints what these return.

Conventions, as in :mod:`sim.analysis.frames`:

* A shared victory (``winner == -1``) is a win for neither seat.
* A game is *decisive* when one seat won outright (shared victories are not).
  Turn-capped games still have a winner on points and count as decisive; their
  share is reported so a reader can see how much of a figure rests on them.
* Which seat is *favoured* is read from the decisive games only: the first
  player is favoured when it wins more than half of them, and the lean is
  *significant* when the 95% Wilson interval of that share excludes one half.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.run.margins import MarginMoments, first_player_margins, margin_text, shift_text
from sim.run.stats import Z95, wilson_interval

COUNT_COLS = ("bot", "games", "first_wins", "second_wins", "shared", "turn_capped")
MARGIN_COUNT_COLS = ("margin_games", "margin_total", "margin_squares")
"""Optional count columns: the :class:`sim.run.margins.MarginMoments` of the first player's
VP margins, from which :func:`first_player_panel` gives the mean margin and its interval."""


def parse_panel(text: str) -> tuple[str, ...]:
    """``"greedy, economic,greedy"`` -> ``("greedy", "economic")``: names in order, no repeats.

    Raises:
        ValueError: the text names no bot at all.
    """
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not names:
        raise ValueError("--panel needs at least one bot, e.g. 'greedy,economic,lookahead'")
    return names


def panel_dir_names(bots: Sequence[str]) -> dict[str, str]:
    """``{bot: sub-directory name}``: a shipped name as is, a profile path by its file stem.

    Two bots that would share a name (``a/x.toml`` and ``b/x.toml``) get ``-2``,
    ``-3``, ... so every bot keeps its own run directory.
    """
    out: dict[str, str] = {}
    used: set[str] = set()
    for bot in bots:
        base = Path(bot).stem if bot.endswith(".toml") else bot
        name, k = base, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        out[bot] = name
    return out


def outcome_counts(df: pd.DataFrame, by: str = "bot") -> pd.DataFrame:
    """Per ``by`` group, the outcome counts a panel table is built from.

    Args:
        df: game rows with ``winner``, ``first_player`` and ``end_reason`` (as a
            run's Parquet has them) and a ``by`` column naming the bot.

    Returns:
        Columns ``bot, games, first_wins, second_wins, shared, turn_capped``, one
        row per group in order of first appearance.
    """
    winner = df["winner"].to_numpy()
    first = df["first_player"].to_numpy()
    work = pd.DataFrame(
        {
            "bot": df[by].astype(str).to_numpy(),
            "first_wins": winner == first,
            "second_wins": (winner != first) & (winner != -1),
            "shared": winner == -1,
            "turn_capped": df["end_reason"].astype(str).to_numpy() == "turn_cap",
        }
    )
    margins = {"score_p0", "score_p1"} <= set(df.columns)
    if margins:
        m = first_player_margins(first, df["score_p0"], df["score_p1"])
        work["margin_total"], work["margin_squares"] = m, m * m
    g = work.groupby("bot", sort=False)
    summed = ["first_wins", "second_wins", "shared", "turn_capped"]
    summed += ["margin_total", "margin_squares"] if margins else []
    out = g[summed].sum().astype(np.int64)
    out.insert(0, "games", g.size().astype(np.int64))
    if margins:
        out.insert(len(COUNT_COLS) - 1, "margin_games", out["games"])
    return out.reset_index()[[*COUNT_COLS, *(MARGIN_COUNT_COLS if margins else ())]]


def counts_from_results(results: Mapping[str, Any]) -> pd.DataFrame:
    """Outcome counts from finished runs' summaries (``{bot: RunResult}``), no Parquet read.

    Each result needs ``games``, ``first_player_wins``, ``shared`` and ``turn_capped``
    (as :class:`sim.run.runner.RunResult` has them); when every result has its
    ``outcomes`` the first player's margins are counted too (:data:`MARGIN_COUNT_COLS`).
    """
    rows = [
        (
            bot,
            r.games,
            r.first_player_wins,
            r.games - r.first_player_wins - r.shared,
            r.shared,
            r.turn_capped,
        )
        for bot, r in results.items()
    ]
    out = pd.DataFrame(rows, columns=list(COUNT_COLS)).astype({c: np.int64 for c in COUNT_COLS[1:]})
    if results and all(getattr(r, "outcomes", None) is not None for r in results.values()):
        m = [r.outcomes.margins for r in results.values()]
        for col, key in zip(MARGIN_COUNT_COLS, ("games", "total", "squares"), strict=True):
            out[col] = np.array([getattr(x, key) for x in m], np.int64)
    return out


def first_player_panel(counts: pd.DataFrame, z: float = Z95) -> pd.DataFrame:
    """The first-player question, one row per bot, with intervals and the lean.

    Args:
        counts: columns as :func:`outcome_counts` returns (built from game rows
            or from run summaries).

    Returns:
        ``counts`` plus ``rate, lo, hi`` (first-player wins over all games, Wilson),
        ``decisive, decisive_share``, ``first_share, first_lo, first_hi`` (first-player
        wins over decisive games, Wilson), ``shared_share, capped_share``,
        ``favoured`` ("first", "second" or "neither") and ``significant`` (the
        decisive-share interval excludes one half); with :data:`MARGIN_COUNT_COLS` in
        ``counts`` also ``margin, margin_lo, margin_hi, margin_sd`` (the first player's
        mean VP margin and its 95% t-interval).
    """
    has_margins = set(MARGIN_COUNT_COLS) <= set(counts.columns)
    cols = [*COUNT_COLS, *(MARGIN_COUNT_COLS if has_margins else ())]
    out = counts[cols].copy().reset_index(drop=True)
    games = out["games"].to_numpy(np.int64)
    first = out["first_wins"].to_numpy(np.int64)
    second = out["second_wins"].to_numpy(np.int64)
    decisive = first + second
    out["rate"] = first / np.maximum(games, 1)
    out["lo"], out["hi"] = wilson_interval(first, games, z)
    out["decisive"] = decisive
    out["decisive_share"] = decisive / np.maximum(games, 1)
    out["first_share"] = np.where(decisive > 0, first / np.maximum(decisive, 1), np.nan)
    lo, hi = wilson_interval(first, np.maximum(decisive, 1), z)
    out["first_lo"] = np.where(decisive > 0, lo, np.nan)
    out["first_hi"] = np.where(decisive > 0, hi, np.nan)
    out["shared_share"] = out["shared"] / np.maximum(games, 1)
    out["capped_share"] = out["turn_capped"] / np.maximum(games, 1)
    out["favoured"] = np.select([first > second, second > first], ["first", "second"], "neither")
    out["significant"] = (decisive > 0) & ((out["first_lo"] > 0.5) | (out["first_hi"] < 0.5))
    if has_margins:
        figures = [
            MarginMoments(int(n), int(t), int(q)).figures()
            for n, t, q in out[list(MARGIN_COUNT_COLS)].itertuples(index=False)
        ]
        for col, key in (("margin", "mean"), ("margin_lo", "lo"), ("margin_hi", "hi")):
            out[col] = [f[key] for f in figures]
        out["margin_sd"] = [f["sd"] for f in figures]
    return out


def margin_cell(table: pd.DataFrame) -> list[str]:
    """Per row of :func:`first_player_panel`, ``"+0.80 (+0.33 to +1.27)"`` (VP)."""
    return [
        margin_text(MarginMoments(int(n), int(t), int(q)))
        for n, t, q in table[list(MARGIN_COUNT_COLS)].itertuples(index=False)
    ]


def first_player_verdict(table: pd.DataFrame) -> str:
    """The one line a designer reads: does the first-player answer hold under every bot?

    ``"first player favoured under every bot: yes (significant under 2 of 3)"``;
    when the answer is no, the bots that disagree are named with their lean.
    """
    n = len(table)
    fav = table["favoured"].to_numpy() == "first"
    sig = int((fav & table["significant"].to_numpy(bool)).sum())
    head = f"first player favoured under every bot: {'yes' if n and fav.all() else 'no'}"
    line = f"{head} (significant under {sig} of {n})"
    if n and not fav.all():
        others = [
            f"{row.bot}: {row.favoured} favoured{' (significant)' if row.significant else ''}"
            if row.favoured != "neither"
            else f"{row.bot}: neither favoured"
            for row in table.itertuples()
            if row.favoured != "first"
        ]
        line += "; " + "; ".join(others)
    return line


def format_first_player_panel(table: pd.DataFrame) -> str:
    """An aligned text table of :func:`first_player_panel`, then its verdict line."""
    head = ("bot", "games", "first player won (95% CI)", "decisive", "first of decisive (95% CI)",
            "shared", "turn-capped")  # fmt: skip
    margins = "margin" in table.columns
    if margins:
        head = (*head, "first VP margin (95% CI)")
    cells = margin_cell(table) if margins else [None] * len(table)
    rows = [head]
    for r, margin in zip(table.itertuples(), cells, strict=True):
        of_decisive = (
            f"{r.first_share:.2%} ({r.first_lo:.2%} to {r.first_hi:.2%})"
            f"{' *' if r.significant else ''}"
            if r.decisive
            else "n/a"
        )
        rows.append(
            (
                str(r.bot),
                f"{r.games:,}",
                f"{r.rate:.2%} ({r.lo:.2%} to {r.hi:.2%})",
                f"{r.decisive_share:.2%}",
                of_decisive,
                f"{r.shared_share:.2%}",
                f"{r.capped_share:.2%}",
                *(() if margin is None else (margin,)),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines.append("* the first player's share of decisive games differs from 50% (95% CI)")
    lines.append(first_player_verdict(table))
    return "\n".join(lines)


def effect_panel(effects: pd.DataFrame) -> pd.DataFrame:
    """Per measure, how many bots see a change move it up or down, and how many significantly.

    Args:
        effects: one row per (bot, measure) with ``bot``, ``metric``, ``diff``
            (B - A), ``lo`` and ``hi`` (its interval), as the per-bot
            ``CompareResult.table()`` rows stacked with a ``bot`` column.

    Returns:
        One row per ``metric`` in order of first appearance: ``bots``, ``up``,
        ``down``, ``up_significant``, ``down_significant`` (the interval is above
        or below zero), and ``same_sign`` (every bot moved it the same way).
    """
    work = pd.DataFrame(
        {
            "metric": effects["metric"].astype(str).to_numpy(),
            "up": effects["diff"].to_numpy() > 0,
            "down": effects["diff"].to_numpy() < 0,
            "up_significant": effects["lo"].to_numpy() > 0,
            "down_significant": effects["hi"].to_numpy() < 0,
        }
    )
    g = work.groupby("metric", sort=False)
    out = g[["up", "down", "up_significant", "down_significant"]].sum().astype(np.int64)
    out.insert(0, "bots", g.size().astype(np.int64))
    out = out.reset_index()
    out["same_sign"] = (out["up"] == out["bots"]) | (out["down"] == out["bots"])
    return out


METRIC_LABELS = {"first_player_win_rate": "the first-player win rate"}


def format_shifts(effects: pd.DataFrame) -> list[str]:
    """One line per (bot, measure) row of a compare panel: A -> B and the paired shift.

    ``"greedy: the first-player win rate: 55.00% -> 56.10%, change +1.10 points
    (-0.40 to +2.60)"``; ``effects`` as :func:`effect_panel` takes them, with
    ``rate_a`` and ``rate_b``.
    """
    return [
        f"{row.bot}: {metric_label(str(row.metric))}: {row.rate_a:.2%} -> {row.rate_b:.2%}, "
        f"change {row.diff * 100:+.2f} points ({row.lo * 100:+.2f} to {row.hi * 100:+.2f})"
        for row in effects.itertuples()
    ]


def margin_lines(shifts: pd.DataFrame) -> list[str]:
    """``"greedy: the first player's VP margin: +0.80 -> +0.88 VP, change +0.08 VP (95% paired
    t-interval -0.13 to +0.29)"``: one line per row of ``shifts`` (a ``bot`` column and the
    :meth:`sim.run.margins.MarginShift.figures` columns)."""
    return [
        f"{row['bot']}: the first player's VP margin: {shift_text(row)}"
        for row in shifts.to_dict("records")
    ]


def effect_verdicts(panel: pd.DataFrame) -> list[str]:
    """One line per measure of :func:`effect_panel`, in a designer's words.

    A card's measure is its holders' win rate, so "raises it" reads "this change
    helps the card": ``"Moonlight Channeler's holders' win rate: this change raises
    it under 3 of 3 bots (significant under 2); the same way under every bot: yes"``.
    """
    lines = []
    for r in panel.itertuples():
        label = metric_label(str(r.metric))
        up = r.up >= r.down
        k, j = (r.up, r.up_significant) if up else (r.down, r.down_significant)
        other = r.down_significant if up else r.up_significant
        line = (
            f"{label}: this change {'raises' if up else 'lowers'} it under {k} of {r.bots} "
            f"bots (significant under {j}); the same way under every bot: "
            f"{'yes' if r.same_sign else 'no'}"
        )
        if other:
            line += f" ({other} bot{'s' if other != 1 else ''} significantly the other way)"
        lines.append(line)
    return lines


def metric_label(metric: str) -> str:
    """A compare table's ``metric`` in words (``card_win_rate: X`` -> ``X's holders' win rate``)."""
    if metric in METRIC_LABELS:
        return METRIC_LABELS[metric]
    prefix = "card_win_rate: "
    if metric.startswith(prefix):
        return f"{metric[len(prefix) :]}'s holders' win rate"
    return metric
