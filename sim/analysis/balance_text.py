"""A balance race as text: one line per candidate with its interval and fate, the
margins, the choice, the panel re-check and the games spent."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from sim.run.stats import pct, signed_text


def format_result(result: Any) -> str:
    """The race as lines a person reads: one line per candidate, the choice, the games."""
    q, spec = result.question, result.spec
    lines = [
        f"balance {q.metric} toward {result.target:.2%} +/- {result.tolerance * 100:.2f} points: "
        f"{len(q.candidates)} candidates of {', '.join(q.names)} on {spec.mix} "
        f"(seed {spec.seed}, {spec.p0} vs {spec.p1}, {spec.variant_label} rules), "
        "paired on the same games."
    ]
    t = result.table
    for row in t.itertuples():
        shift = ""
        if "shift" in t.columns and not row.shipped and math.isfinite(row.shift):
            shift = (
                f"  shift from shipped {row.shift * 100:+.2f} points "
                f"({row.shift_lo * 100:+.2f} to {row.shift_hi * 100:+.2f})"
            )
        fate = (
            f"dropped at look {int(row.dropped_at_look)}: {row.reason}"
            if row.status == "dropped"
            else f"rested: {row.reason}"
            if row.status == "rested"
            else row.status
        )
        lines.append(
            f"  {row.label:<24}{' (shipped)' if row.shipped else '':<11}{pct(row.rate):>7} "
            f"(95% CI {pct(row.lo)} to {pct(row.hi)})  {row.games:>9,} games{shift}  [{fate}]"
        )
    lines.extend(format_margins(t))
    c = result.chosen_row
    label = q.label(result.chosen)
    if result.reached:
        lines.append(
            f"Chosen: {label}, {pct(c.rate)} (95% CI {pct(c.lo)} to {pct(c.hi)}), within "
            f"{result.tolerance * 100:.2f} points of {result.target:.2%}."
        )
    else:
        lines.append(
            f"No candidate reaches {result.target:.2%} +/- {result.tolerance * 100:.2f} points; "
            f"the closest is {label}, {pct(c.rate)} (95% CI {pct(c.lo)} to {pct(c.hi)}), "
            f"{c.distance * 100:.2f} points away."
        )
    lines.append(
        "Settled: " + result.settled
        if result.settled
        else "Not settled: the games ceiling (--max-games) came first; the survivors are "
        + ", ".join(t.label[t.status.isin(["survivor", "rested", "chosen"])])
    )
    lines.append(
        f"Games: {result.games:,} in all over {len(result.looks)} looks "
        f"({result.seconds:.0f} s). Dropped with Holm's correction at alpha/looks per look."
    )
    if result.panel is not None:
        lines.extend(format_panel(result))
    if result.out is not None:
        lines.append(f"Race in {result.out} (candidates.csv, decisions.jsonl, rows/).")
    return "\n".join(lines)


def margin_cell(mean: float, lo: float, hi: float) -> str:
    """``"+0.75 VP (+0.68 to +0.81)"``, or ``"-"`` without a figure (nan)."""
    return f"{signed_text(mean, lo, hi)} VP" if math.isfinite(mean) else "-"


def candidate_lines(
    t: pd.DataFrame,
    title: str,
    cell: Callable[[Any], str],
    shift: Callable[[Any], str],
    shift_column: str,
) -> list[str]:
    """``title``, then one line per candidate of ``t``: its label, ``cell(row)`` and, for
    a candidate other than the shipped value whose ``shift_column`` is a number,
    ``shift(row)``."""
    lines = [title]
    for row in t.itertuples():
        more = ""
        value = getattr(row, shift_column, math.nan)
        if not row.shipped and math.isfinite(value):
            more = f"  {shift(row)}"
        lines.append(f"  {row.label:<24}{' (shipped)' if row.shipped else '':<11}{cell(row)}{more}")
    return lines


def format_margins(t: pd.DataFrame) -> list[str]:
    """Each candidate's first-player VP margin (95% t-interval) and, where a shipped value
    was raced, its paired shift from the shipped value's, over the games both played."""
    if "margin" not in t.columns:
        return []
    return candidate_lines(
        t,
        "First player's VP margin (95% t-interval), and its paired shift from shipped:",
        lambda row: margin_cell(row.margin, row.margin_lo, row.margin_hi),
        lambda row: (
            f"shift {margin_cell(row.margin_shift, row.margin_shift_lo, row.margin_shift_hi)}"
        ),
        "margin_shift",
    )


def format_panel(result: Any) -> list[str]:
    """The panel re-check as lines."""
    p = result.panel
    if p is None:
        return []
    label = result.question.label(result.chosen)
    lines = [f"Panel: {label} re-played under each bot in self-play (new seed):"]
    for row in p.itertuples():
        lines.append(
            f"  {row.bot:<12}{pct(row.rate)} (95% CI {pct(row.lo)} to {pct(row.hi)}), shift "
            f"from shipped {row.shift * 100:+.2f} points ({row.shift_lo * 100:+.2f} to "
            f"{row.shift_hi * 100:+.2f}): {'consistent with' if row.holds else 'off'} the target"
        )
        if "margin" in p.columns:
            lines.append(
                f"  {'':<12}first VP margin {margin_cell(row.margin, row.margin_lo, row.margin_hi)}"
                f", shift from shipped "
                f"{margin_cell(row.margin_shift, row.margin_shift_lo, row.margin_shift_hi)}"
            )
    n = int(p.holds.sum())
    lines.append(
        f"The conclusion holds under {'every bot' if n == len(p) else f'{n} of {len(p)} bots'}."
    )
    return lines
