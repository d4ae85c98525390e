"""Card strength per bot: each card's holders' win rate, how often it is played, its rank,
the rank correlation between bots, and each card's effect per skill tier. What each figure
means: ``docs/analysis-desk.md``, "Card strength per bot"."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from sim.analysis.loading import card_names, run_margins
from sim.analysis.streaming import run_totals, strength_frame
from sim.run import io
from sim.run.margins import MarginMoments
from sim.run.stats import adjust_p, newcombe_interval, signed_text, two_proportions_p

STRENGTH_TABLE = "strength.csv"
CORRELATION_TABLE = "rank_correlation.csv"
"""The tables ``omensim strength`` writes beside its bots' runs."""


def strength_runs(folder: Path | str) -> list[Path] | None:
    """The bots' run directories of an ``omensim strength`` folder, in the order its table
    lists the bots, or None when ``folder`` is not one (no strength table beside runs)."""
    folder = Path(folder)
    try:
        if not (folder / STRENGTH_TABLE).is_file() or (folder / "_manifest.json").exists():
            return None
    except OSError:  # a name the file system refuses (too long): not such a folder
        return None
    runs = [d for d in sorted(folder.iterdir()) if (d / "_manifest.json").is_file()]
    bots = list(dict.fromkeys(pd.read_csv(folder / STRENGTH_TABLE, usecols=["bot"])["bot"]))
    order = {b: i for i, b in enumerate(bots)}
    return sorted(runs, key=lambda d: order.get(d.name, len(order))) or None


def strength(paths: Mapping[str, Path | str]) -> pd.DataFrame:
    """:func:`strength_frame` of finished runs of one mix, ``{bot: run directory}``; a
    ValueError for runs of different mixes (their kind ids do not match)."""
    mixes = {str(io.read_metadata(p).get("mix")) for p in paths.values()}
    if len(mixes) > 1:
        raise ValueError(f"strength compares bots on one mix; got {', '.join(sorted(mixes))}")
    totals = {label: run_totals(p) for label, p in paths.items()}
    first = next(iter(paths.values()))
    return strength_frame(totals, card_names(first))


def bot_margins(paths: Mapping[str, Path | str]) -> pd.DataFrame:
    """Each bot's first-player VP margin over its run, ``{bot: run directory}``: one row per
    bot with ``games``, ``margin`` and its 95% t-interval ``margin_lo``, ``margin_hi``."""
    rows = []
    for bot, p in paths.items():
        f = MarginMoments.from_margins(run_margins(p)).figures()
        rows.append({"bot": bot, "games": f["games"], "margin": f["mean"],
                     "margin_lo": f["lo"], "margin_hi": f["hi"]})  # fmt: skip
    return pd.DataFrame(rows)


def format_margins(margins: pd.DataFrame) -> str:
    """``bot_margins`` as one line: ``first VP margin: greedy +0.81 (+0.63 to +1.00) VP; ...``."""
    parts = [
        f"{r.bot} {signed_text(r.margin, r.margin_lo, r.margin_hi)} VP"
        for r in margins.itertuples()
    ]
    return "first VP margin (95% t-interval): " + "; ".join(parts)


def rank_correlation(table: pd.DataFrame) -> pd.DataFrame:
    """Spearman's rank correlation of holders' win rate between every two bots of a
    :func:`strength_frame` (a bot x bot table), over the cards each pair both held."""
    wide = table.pivot_table(index="kind", columns="bot", values="rate", sort=False)
    wide = wide[list(dict.fromkeys(table["bot"]))]
    return wide.corr(method="spearman")


def format_strength(table: pd.DataFrame) -> str:
    """The table as text: one line per card, for each bot its holders' win rate with the
    interval, played per game and rank; cards in the first bot's rank order."""
    if table.empty:
        return "no card was held (the runs have no held_p0/p1 columns)"
    by = {b: g.set_index("kind") for b, g in table.groupby("bot", sort=False)}
    bots = list(by)
    order = by[bots[0]].index
    width = max(len(str(c)) for c in table["card"])
    head = f"{'card'.ljust(width)}  " + "  ".join(f"{b[:30]:<30}" for b in bots)
    sub = f"{''.ljust(width)}  " + "  ".join(
        f"{'holders won (95% CI)':<20} {'pl/g':>4} {'rk':>3}" for _ in bots
    )
    lines = [head.rstrip(), sub.rstrip()]
    for kind in order:
        card = str(by[bots[0]].loc[kind, "card"])
        cells = []
        for b in bots:
            r = by[b].loc[kind] if kind in by[b].index else None
            if r is None or pd.isna(r["rate"]):
                cells.append(f"{'n/a':<20} {'':>4} {'':>3}")
                continue
            rate = f"{r['rate']:.1%} ({r['lo']:.1%}-{r['hi']:.1%})"
            cells.append(f"{rate:<20} {r['played_per_game']:>4.2f} {int(r['rank']):>3}")
        lines.append(f"{card.ljust(width)}  " + "  ".join(cells))
    return "\n".join(lines)


def format_correlation(corr: pd.DataFrame) -> str:
    """The bot x bot rank correlations as aligned text."""
    return corr.to_string(float_format=lambda v: f"{v:.2f}")


TIERS_TABLE = "tiers.csv"
"""The skill-tier table ``omensim strength --tiers`` writes beside its bots' runs."""


def tier_effects(paths: Mapping[str, Path | str], alpha: float = 0.05) -> pd.DataFrame:
    """Each card's holders' effect under each bot (a skill tier), ``{bot: run directory}``
    from the weakest tier to the strongest, with Newcombe's interval and Holm-adjusted
    p-values (``docs/analysis-desk.md``): one row per (bot, card), the columns of
    ``tiers.csv``."""
    rows = []
    for bot, p in paths.items():
        t = run_totals(p)
        if t.held is None or t.held_wins is None or not t.games:
            continue
        names = card_names(p)
        held, won = t.held.astype(np.int64), t.held_wins.astype(np.int64)
        others, other_won = 2 * t.games - held, t.seat0_wins + t.seat1_wins - won
        kinds = np.nonzero((held > 0) & (others > 0))[0]
        lo, hi = newcombe_interval(won[kinds], held[kinds], other_won[kinds], others[kinds])
        for i, kind in enumerate(kinds.tolist()):
            rows.append({
                "bot": bot, "kind": kind, "card": names.get(kind, f"kind {kind}"),
                "holders": int(held[kind]),
                "effect": won[kind] / held[kind] - other_won[kind] / others[kind],
                "lo": float(lo[i]), "hi": float(hi[i]),
                "p_value": two_proportions_p(won[kind], held[kind], other_won[kind], others[kind]),
            })  # fmt: skip
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    reject, table["p_adjusted"] = adjust_p(table["p_value"], "holm", alpha)
    table["significant"] = reject
    sign = np.sign(table["effect"]) * table["significant"]
    up = sign.gt(0).groupby(table["kind"]).transform("any")
    down = sign.lt(0).groupby(table["kind"]).transform("any")
    table["sign_change"] = up & down
    return table


def format_tiers(table: pd.DataFrame) -> str:
    """The tier table as text: one line per card, its holders' effect in points with the
    interval under each tier (``*`` significant after Holm), and ``SIGN`` where the effect
    changes sign between tiers; cards by the last tier's effect, strongest first."""
    if table.empty:
        return "no card was held (the runs have no held_p0/p1 columns)"
    by = {b: g.set_index("kind") for b, g in table.groupby("bot", sort=False)}
    bots = list(by)
    order = by[bots[-1]].sort_values("effect", ascending=False).index
    width = max(len(str(c)) for c in table["card"])
    head = f"{'card'.ljust(width)}  " + "  ".join(f"{b[:26]:<26}" for b in bots) + "  flag"
    lines = [
        head,
        f"{''.ljust(width)}  " + "  ".join(f"{'effect, pts (95% CI)':<26}" for _ in bots),
    ]
    for kind in order:
        card = str(by[bots[-1]].loc[kind, "card"])
        cells = []
        flag = False
        for b in bots:
            if kind not in by[b].index:
                cells.append(f"{'n/a':<26}")
                continue
            r = by[b].loc[kind]
            star = "*" if r["significant"] else " "
            text = f"{r['effect'] * 100:+.2f} ({r['lo'] * 100:+.2f} to {r['hi'] * 100:+.2f}){star}"
            cells.append(f"{text:<26}")
            flag = flag or bool(r["sign_change"])
        lines.append(f"{card.ljust(width)}  " + "  ".join(cells) + ("  SIGN" if flag else ""))
    changed = table.loc[table["sign_change"], "card"].unique()
    lines.append(
        "effect: holders' win rate minus the other player-games' (points, Newcombe 95% CI); "
        "* significant after Holm over every card and tier; SIGN: significantly positive "
        f"under one tier and negative under another ({len(changed)} card(s))."
    )
    return "\n".join(lines)
