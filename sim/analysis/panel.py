"""Bot sensitivity: the same question under several bots, each in self-play on the same games,
and whether the answer holds (a fact about the game, or about one bot's play).

Pure functions over counts or game rows. As in :mod:`sim.analysis.frames`: a shared victory
is a win for neither seat; a game is *decisive* when one seat won outright (turn-capped games
too); the first player is *favoured* when it wins more than half of the decisive games, and
*significantly* so when the 95% Wilson interval of that share excludes one half.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis.compare_text import rate_shift_text
from sim.data.spec import SpecError, split_names
from sim.run.margins import MarginMoments, margin_text, shift_text
from sim.run.seats import SeatCounts
from sim.run.stats import Z95, wilson_interval

PANEL_TABLE = "panel.csv"
"""The table ``run --panel`` and ``compare --panel`` write beside the bots' runs."""
COUNT_COLS = ("bot", "games", "first_wins", "second_wins", "shared", "turn_capped")
MARGIN_COUNT_COLS = ("margin_games", "margin_total", "margin_squares")
"""Optional count columns: the :class:`sim.run.margins.MarginMoments` of the first player's
VP margins, from which :func:`first_player_panel` gives the mean margin and its interval."""


def parse_panel(text: str, option: str = "--panel") -> tuple[str, ...]:
    """``"greedy, economic"`` -> ``("greedy", "economic")``: the bots in order
    (:func:`sim.data.spec.split_names`; ``option`` names the list in a refusal).

    Raises:
        SpecError (a ValueError): no bot at all, an empty name or a bot named twice.
    """
    names = split_names(text, option, "bot")
    if not names:
        raise SpecError(f"{option} needs at least one bot, e.g. 'greedy,economic,lookahead'")
    return names


def panel_dir_names(bots: Sequence[str]) -> dict[str, str]:
    """``{bot: sub-directory name}``: a shipped name as is, a profile path by its file stem.

    Two bots that would share a name (``a/x.toml`` and ``b/x.toml``) get ``-2``,
    ``-3``, ... so every bot keeps its own run directory.
    """
    out: dict[str, str] = {}
    for bot in bots:
        base = Path(bot).stem if bot.endswith(".toml") else bot
        name, k = base, 2
        while name in out.values():
            name, k = f"{base}-{k}", k + 1
        out[bot] = name
    return out


def outcome_counts(df: pd.DataFrame, by: str = "bot") -> pd.DataFrame:
    """:func:`counts_table` of game rows (a run's columns and a ``by`` column naming the bot),
    a row per bot in order of first appearance; margins when the rows have scores."""
    scores = {"score_p0", "score_p1"} <= set(df.columns)
    return counts_table(
        [
            (bot, SeatCounts.from_frame(g), MarginMoments.from_frame(g) if scores else None)
            for bot, g in df.groupby(df[by].astype(str), sort=False)
        ]
    )


def counts_table(rows: Sequence[tuple[str, SeatCounts, MarginMoments | None]]) -> pd.DataFrame:
    """The :data:`COUNT_COLS` from each bot's ``(bot, seat counts, margins)``, and the
    :data:`MARGIN_COUNT_COLS` when every row has its :class:`sim.run.margins.MarginMoments`."""
    margins = bool(rows) and all(r[-1] is not None for r in rows)
    cols = [*COUNT_COLS, *(MARGIN_COUNT_COLS if margins else ())]
    data = [
        [bot, c.games, c.first_wins, c.games - c.first_wins - c.shared, c.shared, c.capped]
        + ([m.games, m.total, m.squares] if margins else [])
        for bot, c, m in rows
    ]
    return pd.DataFrame(data, columns=cols).astype({c: np.int64 for c in cols[1:]})


def counts_from_results(results: Mapping[str, Any]) -> pd.DataFrame:
    """:func:`counts_table` of finished runs' summaries (``{bot: RunResult}``: ``games``,
    ``first_player_wins``, ``shared``, ``turn_capped``, and ``outcomes`` for margins)."""
    rows = []
    for bot, r in results.items():
        c = SeatCounts(r.games, r.first_player_wins, shared=r.shared, capped=r.turn_capped)
        o = getattr(r, "outcomes", None)
        rows.append((bot, c, o and o.margins))
    return counts_table(rows)


def first_player_panel(counts: pd.DataFrame, z: float = Z95) -> pd.DataFrame:
    """The first-player question, one row per bot of ``counts`` (:func:`outcome_counts`,
    :func:`counts_from_results`): ``counts`` plus ``rate, lo, hi`` (first-player wins over all
    games, Wilson), ``decisive, decisive_share``, ``first_share, first_lo, first_hi`` (over
    decisive games), ``shared_share, capped_share``, ``favoured`` ("first", "second" or
    "neither"), ``significant``, and with margins ``margin, margin_lo, margin_hi, margin_sd``.
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
    bounds = np.where(decisive > 0, wilson_interval(first, np.maximum(decisive, 1), z), np.nan)
    out["first_lo"], out["first_hi"] = bounds
    out["shared_share"] = out["shared"] / np.maximum(games, 1)
    out["capped_share"] = out["turn_capped"] / np.maximum(games, 1)
    out["favoured"] = np.select([first > second, second > first], ["first", "second"], "neither")
    out["significant"] = (decisive > 0) & ((out["first_lo"] > 0.5) | (out["first_hi"] < 0.5))
    if has_margins:
        figures = pd.DataFrame([m.figures() for m in _moments(out)])[["mean", "lo", "hi", "sd"]]
        out[["margin", "margin_lo", "margin_hi", "margin_sd"]] = figures.to_numpy()
    return out


def _moments(table: pd.DataFrame) -> list[MarginMoments]:
    return [MarginMoments(*map(int, r)) for r in table[list(MARGIN_COUNT_COLS)].itertuples(False)]


def margin_cell(table: pd.DataFrame) -> list[str]:
    """Per row of :func:`first_player_panel`, ``"+0.80 (+0.33 to +1.27)"`` (VP)."""
    return [margin_text(m) for m in _moments(table)]


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
        others = [  # "neither" is never significant: its share is one half
            f"{row.bot}: {row.favoured} favoured{' (significant)' if row.significant else ''}"
            for row in table.itertuples()
            if row.favoured != "first"
        ]
        line += "; " + "; ".join(others)
    return line


def first_player_cells(table: pd.DataFrame) -> pd.DataFrame:
    """Every row of :func:`first_player_panel` as cells: the text table shows all but
    ``favoured`` and ``significant``, the report's page all but ``decisive`` and ``shared``."""
    rows = list(table.itertuples())
    cells = pd.DataFrame(
        {
            "bot": table["bot"].astype(str),
            "games": table["games"].map("{:,}".format),
            "first player won (95% CI)": [f"{r.rate:.2%} ({r.lo:.2%} to {r.hi:.2%})" for r in rows],
            "decisive": table["decisive_share"].map("{:.2%}".format),
            "first of decisive (95% CI)": [
                f"{r.first_share:.2%} ({r.first_lo:.2%} to {r.first_hi:.2%})"
                if r.decisive
                else "n/a"
                for r in rows
            ],
            "shared": table["shared_share"].map("{:.2%}".format),
            "favoured": table["favoured"],
            "significant": table["significant"].map({True: "yes", False: "no"}),
            "turn-capped": table["capped_share"].map("{:.2%}".format),
        }
    )
    if "margin" in table.columns:
        cells["first VP margin (95% CI)"] = margin_cell(table)
    return cells


def format_first_player_panel(table: pd.DataFrame) -> str:
    """An aligned text table of :func:`first_player_panel`, then its verdict line."""
    cells = first_player_cells(table).drop(columns=["favoured", "significant"])
    cells["first of decisive (95% CI)"] += np.where(table["significant"], " *", "")
    rows = [tuple(cells.columns), *cells.itertuples(index=False)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(cells.columns))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines.append("* the first player's share of decisive games differs from 50% (95% CI)")
    lines.append(first_player_verdict(table))
    return "\n".join(lines)


def effect_panel(effects: pd.DataFrame) -> pd.DataFrame:
    """Per measure of ``effects`` (each bot's ``CompareResult.table()`` rows with a ``bot``
    column), in order of first appearance: ``bots``, ``up``, ``down``, ``up_significant``,
    ``down_significant`` (the interval clear of zero) and ``same_sign`` (every bot agrees)."""
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


def shift_lines(effects: pd.DataFrame, margins: pd.DataFrame) -> list[str]:
    """A compare panel in lines: each (bot, measure) row of ``effects`` (as :func:`effect_panel`
    takes them, with ``rate_a`` and ``rate_b``) A -> B with its paired shift, each bot's row of
    ``margins`` (a ``bot`` column and :meth:`sim.run.margins.MarginShift.figures`), then the
    verdict per measure (:func:`effect_verdicts`)."""
    return [
        "Paired shifts, B - A, per bot (95% CI):",
        *(
            f"  {r.bot}: {metric_label(str(r.metric))}: {rate_shift_text(r, ci='')}"
            for r in effects.itertuples()
        ),
        *(
            f"  {row['bot']}: the first player's VP margin: {shift_text(row)}"
            for row in margins.to_dict("records")
        ),
        *effect_verdicts(effect_panel(effects)),
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
    if metric == "first_player_win_rate":
        return "the first-player win rate"
    card = metric.removeprefix("card_win_rate: ")
    return metric if card == metric else f"{card}'s holders' win rate"
