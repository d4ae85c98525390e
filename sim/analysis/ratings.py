"""Bradley-Terry ratings of bots from head-to-head counts, on the Elo scale: a binomial GLM
(statsmodels) of each pairing's decisive counts, centred on 1500 Elo so every bot has an
interval. How it is fitted and read: ``docs/bots.md``, "Ratings".
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from sim.base.column_docs import Columns, column_names, columns_table
from sim.run.stats import Z95, library_quiet

ELO_SCALE = 400.0 / math.log(10.0)
ELO_BASE = 1500.0


RATINGS_COLUMNS: Columns = {
    ("bot",): "the bot: one row each, strongest first",
    ("elo", "lo", "hi"): "its Bradley-Terry rating on the Elo scale, with its 95% interval",
    ("se",): "the rating's standard error, in Elo points",
    ("strength",): "the centred Bradley-Terry coefficient in natural-log odds: `elo` is it "
    "on the Elo scale",
    ("games",): "the decisive games it played against other bots (outright wins and losses; "
    "self-play and shared victories left out)",
    ("corrected",): "pairings that needed half a win added to each side to keep the fit "
    "finite (one bot never lost); the same on every row",
}
"""The columns of :func:`fit_ratings`' table, which a tournament writes as ``ratings.parquet``,
in order, each with what it holds: the one list of them. A test checks the table against it,
and ``docs/bots.md`` shows :func:`ratings_columns_table`."""


def ratings_column_names() -> list[str]:
    """Every column of :data:`RATINGS_COLUMNS`, in the table's order."""
    return column_names(RATINGS_COLUMNS)


def ratings_columns_table() -> str:
    """:data:`RATINGS_COLUMNS` as the Markdown table ``docs/bots.md`` shows, one row a group."""
    return columns_table(RATINGS_COLUMNS.items())


def fit_ratings(pairs: pd.DataFrame, bots: Sequence[str] | None = None) -> pd.DataFrame:
    """Bradley-Terry ratings on the Elo scale from head-to-head win counts.

    Args:
        pairs: one row per pairing with columns ``bot_a``, ``bot_b``,
            ``wins_a``, ``wins_b`` (a tournament's ``pairs``); rows with
            ``bot_a == bot_b`` are ignored.
        bots: the bots to rate, in the order wanted (default: every bot named,
            in order of appearance). Every bot must be connected to the others
            by at least one pairing.

    Returns:
        One row per bot, strongest first, with the columns of :data:`RATINGS_COLUMNS`.

    Raises:
        ValueError: fewer than two bots, an unknown bot, or no decisive games.
    """
    import statsmodels.api as sm

    head = pairs[pairs["bot_a"] != pairs["bot_b"]]
    if bots is None:
        bots = list(dict.fromkeys([*head["bot_a"], *head["bot_b"]]))
    bots = list(bots)
    if len(bots) < 2:
        raise ValueError(f"ratings need at least two bots, got {len(bots)}")
    index = {b: i for i, b in enumerate(bots)}
    unknown = sorted({*head["bot_a"], *head["bot_b"]} - set(index))
    if unknown:
        raise ValueError(f"pairings name bots not being rated: {', '.join(unknown)}")
    n = len(bots)
    counts = np.array(head[["wins_a", "wins_b"]], float)
    if counts.sum() == 0.0:
        raise ValueError("no decisive games to rate")
    i, j = (head[c].map(index).to_numpy() for c in ("bot_a", "bot_b"))
    x = np.zeros((len(head), n))
    x[np.arange(len(head)), i], x[np.arange(len(head)), j] = 1.0, -1.0
    games = np.bincount(i, counts.sum(axis=1), n) + np.bincount(j, counts.sum(axis=1), n)
    one_sided = (counts == 0.0).any(axis=1)
    counts[one_sided] += 0.5
    corrected = int(one_sided.sum())
    # Column 0 (the first bot) is the reference, fixed at 0. The binomial scale is 1;
    # statsmodels' residual-based summaries warn when there are no residual degrees
    # of freedom (two bots), which concerns nothing used here.
    with library_quiet():
        fit = sm.GLM(counts, x[:, 1:], family=sm.families.Binomial()).fit()
    beta = np.concatenate([[0.0], np.asarray(fit.params)])
    cov = np.zeros((n, n))
    cov[1:, 1:] = np.asarray(fit.cov_params())
    # Centre: r = A beta with A = I - 1/n, so cov(r) = A cov A^T.
    a = np.eye(n) - 1.0 / n
    strength = a @ beta
    se = np.sqrt(np.clip(np.diag(a @ cov @ a.T), 0.0, None))
    elo = ELO_BASE + ELO_SCALE * strength
    out = pd.DataFrame(
        {
            "bot": bots,
            "elo": elo,
            "lo": elo - Z95 * ELO_SCALE * se,
            "hi": elo + Z95 * ELO_SCALE * se,
            "se": ELO_SCALE * se,
            "strength": strength,
            "games": games.astype(np.int64),
            "corrected": corrected,
        }
    )
    return out.sort_values("elo", ascending=False, kind="stable").reset_index(drop=True)


def format_ratings(ratings: pd.DataFrame) -> str:
    """The ratings as a Markdown table (also readable as plain text)."""
    rows = [
        f"| {k} | {r.bot} | {r.elo:.0f} | {r.lo:.0f} to {r.hi:.0f} |"
        for k, r in enumerate(ratings.itertuples(index=False), 1)
    ]
    return "\n".join(["| rank | bot | Elo | 95% CI |", "| ---: | --- | ---: | --- |", *rows])
