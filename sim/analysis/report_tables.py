"""The tables behind ``omensim report``: every figure the page shows, computed once.

:class:`Tables` holds them (``sim.analysis.streaming.report_tables`` computes them
out of core), and :func:`key_figures` says the headline numbers as text. Nothing here
draws or writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sim.run.stats import diff_ci, rate_ci

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)
"""Game-length quantiles the page lists (p10 ... p99)."""


def _run_label(row: pd.Series) -> str:
    return f"{row['mix']}, {row['variant']}, {row['strategy_p0']} vs {row['strategy_p1']}"


@dataclass
class Tables:
    """Every analysis table the page shows, computed once."""

    info: pd.DataFrame
    fpa: pd.DataFrame
    paired: pd.DataFrame
    diffs: pd.DataFrame
    shifts: pd.DataFrame
    cards: pd.DataFrame
    card_table: pd.DataFrame
    stats: pd.DataFrame
    outcomes: pd.DataFrame
    seats: pd.DataFrame
    margins: pd.DataFrame
    lengths: pd.DataFrame
    length_quantiles: pd.DataFrame
    ends: pd.DataFrame
    components: pd.DataFrame
    gods: pd.DataFrame = field(default_factory=pd.DataFrame)
    """Each Heir to the Dunes god's win rate per run (:func:`sim.analysis.god_win_rates`)."""
    strength: pd.DataFrame = field(default_factory=pd.DataFrame)
    """Each card's holders' win rate, plays and rank per run (:mod:`sim.analysis.card_strength`),
    with a ``mix`` column; the ``bot`` column holds the run's label."""


def filled_lengths(lengths: pd.DataFrame) -> pd.DataFrame:
    """:func:`sim.analysis.game_lengths` with every turn count from the shortest to the
    longest game of any run, a run's missing turn counts filled with 0 games.

    Without the filling a line drawn through one run's values would jump across
    the turn counts no game of that run had, a plateau that is not in the data.
    """
    if lengths.empty:
        return lengths
    turns = np.arange(int(lengths["turns"].min()), int(lengths["turns"].max()) + 1)
    frames = []
    for run, part in lengths.groupby("run", sort=False):
        full = part.set_index("turns")[["games", "share"]].reindex(turns, fill_value=0)
        frames.append(full.reset_index().assign(run=run))
    out = pd.concat(frames, ignore_index=True)
    out["games"] = out["games"].astype(np.int64)
    return out[["run", "turns", "games", "share"]]


def shares_deals(info: pd.DataFrame, i: int) -> bool:
    """Whether run ``i`` of ``info`` deals the same games as run 0: the same seed and the
    same mix (a run of another mix deals other cards: it is an independent run)."""
    same = ("seed", "mix")
    return all(info[c].iloc[i] == info[c].iloc[0] for c in same)


def with_impact(cards: pd.DataFrame, impact: pd.DataFrame, mix: str) -> pd.DataFrame:
    """``cards`` (one mix's card table) with each card's impact on its holder's win rate
    (``diff``, ``lo``, ``hi``, ``low_sample``, from ``impact``) and the ``mix`` column."""
    eff = impact[impact["mix"] == mix].set_index("kind")
    for col in ("diff", "lo", "hi", "low_sample"):
        cards[col] = eff[col].reindex(cards["id"]).to_numpy()
    cards["mix"] = mix
    return cards


def key_figures(t: Tables, top: int = 3) -> str:
    """The report's headline numbers as plain text lines, for the terminal."""
    lines = []
    stats = t.stats.set_index("run")
    for _, row in t.fpa.iterrows():
        info = t.info.set_index("run").loc[row["run"]]
        s = stats.loc[row["run"]]
        lines.append(
            f"{row['run']} ({_run_label(info)}): {int(row['games']):,} games; "
            f"first player won {rate_ci(row['rate'], row['lo'], row['hi'])}; "
            f"shared {row['shared'] / row['games']:.2%}; "
            f"mean first-player margin {s['mean_margin']:+.2f} VP "
            f"(95% t-interval {s['margin_lo']:+.2f} to {s['margin_hi']:+.2f}); "
            f"mean length {s['mean_turns']:.1f} turns"
        )
    for _, row in t.gods.iterrows():
        lines.append(
            f"{row['run']}: {row['god']} won {rate_ci(row['rate'], row['lo'], row['hi'])}; "
            f"going first {rate_ci(row['first_rate'], row['first_lo'], row['first_hi'])}"
        )
    for _, row in t.paired.iterrows():
        lines.append(
            f"{row['run']} paired over {int(row['deals']):,} deals: "
            f"{rate_ci(row['rate'], row['lo'], row['hi'])} "
            f"(unpaired 95% CI {row['unpaired_lo'] * 100:.2f}-{row['unpaired_hi'] * 100:.2f}%)"
        )
    paired = set(zip(t.shifts["a"], t.shifts["b"], strict=True)) if len(t.shifts) else set()
    for _, row in t.diffs.iterrows():
        alone = "" if (row["a"], row["b"]) in paired else ", independent runs (unpaired)"
        lines.append(
            f"{row['a']} minus {row['b']}: first-player win rate "
            f"{diff_ci(row['diff'], row['lo'], row['hi'])}{alone}"
        )
    for _, row in t.shifts.iterrows():
        lines.append(
            f"{row['a']} minus {row['b']}, paired over {int(row['games']):,} games with the "
            f"same seed: {diff_ci(row['diff'], row['lo'], row['hi'])}"
        )
    cards = t.cards[~t.cards["low_sample"]]
    for mix, part in cards.groupby("mix", sort=False):
        best = "; ".join(
            f"{r['card']} {diff_ci(r['diff'], r['lo'], r['hi'])}"
            for _, r in part.head(top).iterrows()
        )
        lines.append(f"{mix}: cards whose players' win rate differs most: {best}")
    return "\n".join(lines)
