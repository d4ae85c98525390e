"""The tables behind ``omensim report`` (:class:`Tables`, computed out of core by
``sim.analysis.streaming.report_tables``) and its headline numbers as text
(:func:`key_figures`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sim.run.stats import diff_ci, rate_ci

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)
"""Game-length quantiles the page lists (p10 ... p99)."""


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
    every = pd.MultiIndex.from_product([lengths["run"].unique(), turns], names=["run", "turns"])
    full = lengths.set_index(["run", "turns"])[["games", "share"]].reindex(every, fill_value=0)
    return full.reset_index().astype({"games": np.int64})


def shares_deals(info: pd.DataFrame, i: int) -> bool:
    """Whether run ``i`` of ``info`` deals the same games as run 0: the same seed and the
    same mix (a run of another mix deals other cards: it is an independent run)."""
    return all(info[c].iloc[i] == info[c].iloc[0] for c in ("seed", "mix"))


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
    info, stats = t.info.set_index("run"), t.stats.set_index("run")
    lines = []
    for r in t.fpa.itertuples():
        i, s = info.loc[r.run], stats.loc[r.run]
        lines.append(
            f"{r.run} ({i['mix']}, {i['variant']}, {i['strategy_p0']} vs {i['strategy_p1']}): "
            f"{int(r.games):,} games; first player won {rate_ci(r.rate, r.lo, r.hi)}; "
            f"shared {r.shared / r.games:.2%}; "
            f"mean first-player margin {s['mean_margin']:+.2f} VP "
            f"(95% t-interval {s['margin_lo']:+.2f} to {s['margin_hi']:+.2f}); "
            f"mean length {s['mean_turns']:.1f} turns"
        )
    lines += [
        f"{r.run}: {r.god} won {rate_ci(r.rate, r.lo, r.hi)}; "
        f"going first {rate_ci(r.first_rate, r.first_lo, r.first_hi)}"
        for r in t.gods.itertuples()
    ]
    lines += [
        f"{r.run} paired over {int(r.deals):,} deals: {rate_ci(r.rate, r.lo, r.hi)} "
        f"(unpaired 95% CI {r.unpaired_lo * 100:.2f}-{r.unpaired_hi * 100:.2f}%)"
        for r in t.paired.itertuples()
    ]
    paired = set(zip(t.shifts["a"], t.shifts["b"], strict=True)) if len(t.shifts) else set()
    lines += [
        f"{r.a} minus {r.b}: first-player win rate {diff_ci(r.diff, r.lo, r.hi)}"
        + ("" if (r.a, r.b) in paired else ", independent runs (unpaired)")
        for r in t.diffs.itertuples()
    ]
    lines += [
        f"{r.a} minus {r.b}, paired over {int(r.games):,} games with the same seed: "
        f"{diff_ci(r.diff, r.lo, r.hi)}"
        for r in t.shifts.itertuples()
    ]
    cards = t.cards[~t.cards["low_sample"]]
    for mix, part in cards.groupby("mix", sort=False):
        best = "; ".join(
            f"{r.card} {diff_ci(r.diff, r.lo, r.hi)}" for r in part.head(top).itertuples()
        )
        lines.append(f"{mix}: cards whose players' win rate differs most: {best}")
    return "\n".join(lines)
