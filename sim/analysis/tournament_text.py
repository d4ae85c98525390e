"""A tournament as text: the win-rate matrix, the self-play table and the ratings, as
Markdown that also reads as plain text (``tournament.md``, the command's output, the
report's tables)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from sim.analysis.ratings import format_ratings
from sim.run.stats import rate_cell, signed_text


def _md_frame(frame: pd.DataFrame) -> str:
    """A frame of text cells as a Markdown table, each column as wide as its widest cell."""
    rows = [[str(c) for c in frame.columns], *frame.astype(str).values.tolist()]
    widths = [max(len(r[i]) for r in rows) for i in range(frame.shape[1])]
    lines = [f"| {' | '.join(c.ljust(w) for c, w in zip(r, widths, strict=True))} |" for r in rows]
    lines.insert(1, f"| {' | '.join('-' * w for w in widths)} |")
    return "\n".join(lines)


def matrix_table(result: Any) -> pd.DataFrame:
    """The win-rate matrix as text cells: the row bot's outright win rate against the
    column bot with its 95% Wilson interval (``-`` on the diagonal)."""
    m, lo, hi = result.matrix, result.matrix_lo, result.matrix_hi
    rows = [
        [bot, *(rate_cell(m.at[bot, c], lo.at[bot, c], hi.at[bot, c]) for c in result.bots)]
        for bot in result.bots
    ]
    return pd.DataFrame(rows, columns=["bot \\ opponent", *result.bots])


def self_play_table(result: Any) -> pd.DataFrame:
    """The self-play pairings as text cells: who won (each share with its 95% Wilson
    interval) and the first player's mean VP margin with its 95% t-interval."""
    seat = ("second_player", "shared", "capped", "first_of_decisive")
    rows = [
        [
            r.bot,
            f"{r.games:,}",
            rate_cell(r.rate, r.lo, r.hi),
            *(
                rate_cell(*(getattr(r, f"seat_{k}_{x}") for x in ("rate", "lo", "hi")))
                for k in seat
            ),
            signed_text(*(getattr(r, f"first_margin{x}", math.nan) for x in ("", "_lo", "_hi"))),
        ]
        for r in result.first_player.itertuples(index=False)
    ]
    head = ["bot", "games", "first player wins", "second player wins", "shared", "turn-capped",
            "first among decisive", "first VP margin"]  # fmt: skip
    return pd.DataFrame(rows, columns=head)


def format_tournament(result: Any) -> str:
    """The matrix and the first-player table as Markdown (also readable as plain text)."""
    s = result.settings
    shared = result.pairs.loc[~result.pairs["self_play"], "seat_shared_rate"]
    least, most = f"{shared.min():.1%}", f"{shared.max():.1%}"
    shared_text = least if least == most else f"{least} to {most}"
    deals = "duplicate deals: " if s["duplicate_deals"] else ""
    return "\n".join(
        [
            f"# Tournament: {s['mix']} ({s['variant']} rules), seed {s['seed']}",
            "",
            f"{s['games_per_pairing']:,} games per pairing, seats balanced ({deals}each bot "
            "plays every deal from both seats).",
            "",
            "## Win rate of the row bot against the column bot",
            "",
            "Outright wins with 95% Wilson intervals; shared victories count for neither "
            f"bot (here {shared_text} of games).",
            "",
            _md_frame(matrix_table(result)),
            "",
            "## First-player win rate in self-play",
            "",
            _md_frame(self_play_table(result)),
            "",
            # What the self-play table's columns mean.
            "Each with its 95% Wilson interval. First among decisive: first-player wins over "
            "games someone won outright (50% = no first-player edge, whatever the ties). "
            "First VP margin: the first player's score minus the second's, mean with its "
            "95% t-interval. Turn-capped games are included, scored as they stood.",
            "",
            *_ratings_section(result),
        ]
    )


def _ratings_section(result: Any) -> list[str]:
    if result.ratings is None:
        return []
    corrected = int(result.ratings["corrected"].iloc[0])
    note = f" {corrected} pairing(s) one bot never lost got half a win added to each side."
    return [
        "## Ratings",
        "",
        "Bradley-Terry fit of every head-to-head pairing (decisive games; statsmodels "
        "binomial GLM), on the Elo scale: mean 1500, 400 points = 10-to-1 odds, 95% "
        f"intervals.{note if corrected else ''}",
        "",
        format_ratings(result.ratings),
        "",
    ]
