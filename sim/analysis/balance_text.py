"""A balance race as text: one line per candidate with its interval and fate, the
margins, the choice, the panel re-check and the games spent."""

from __future__ import annotations

import math
from typing import Any

from sim.run.stats import pct, signed_text


def format_result(result: Any) -> str:
    """The race as lines a person reads: one line per candidate, the choice, the games."""
    q, spec, t = result.question, result.spec, result.table
    band = f"{result.target:.2%} +/- {result.tolerance * 100:.2f} points"
    lines = [
        f"balance {q.metric} toward {band}: {len(q.candidates)} candidates of "
        f"{', '.join(q.names)} on {spec.mix} (seed {spec.seed}, {spec.p0} vs {spec.p1}, "
        f"{spec.variant_label} rules), paired on the same games."
    ]
    margins = ["First player's VP margin (95% t-interval), and its paired shift from shipped:"]
    for row in t.itertuples():
        head = f"  {row.label:<24}{' (shipped)' if row.shipped else '':<11}"
        shift = margin = ""
        if not row.shipped and math.isfinite(row.shift):
            shift = f"  shift from shipped {shift_text(row.shift, row.shift_lo, row.shift_hi)}"
        if not row.shipped and math.isfinite(row.margin_shift):
            margin = (
                f"  shift {margin_cell(row.margin_shift, row.margin_shift_lo, row.margin_shift_hi)}"
            )
        fate = f"rested: {row.reason}" if row.status == "rested" else row.status
        if row.status == "dropped":
            fate = f"dropped at look {int(row.dropped_at_look)}: {row.reason}"
        lines.append(
            f"{head}{pct(row.rate):>7} (95% CI {pct(row.lo)} to {pct(row.hi)})  "
            f"{row.games:>9,} games{shift}  [{fate}]"
        )
        margins.append(f"{head}{margin_cell(row.margin, row.margin_lo, row.margin_hi)}{margin}")
    c = result.chosen_row
    chosen = f"{q.label(result.chosen)}, {ci_text(c.rate, c.lo, c.hi)}"
    lines += [
        *margins,
        f"Chosen: {chosen}, within {result.tolerance * 100:.2f} points of {result.target:.2%}."
        if result.reached
        else f"No candidate reaches {band}; the closest is {chosen}, "
        f"{c.distance * 100:.2f} points away.",
        "Settled: " + result.settled
        if result.settled
        else "Not settled: the games ceiling (--max-games) came first; the survivors are "
        + ", ".join(t.label[t.status.isin(["survivor", "rested", "chosen"])]),
        f"Games: {result.games:,} in all over {len(result.looks)} looks "
        f"({result.seconds:.0f} s). Dropped with Holm's correction at alpha/looks per look.",
    ]
    if result.panel is not None:
        lines.extend(format_panel(result))
    if result.out is not None:
        lines.append(f"Race in {result.out} (candidates.csv, decisions.jsonl, rows/).")
    return "\n".join(lines)


def ci_text(rate: float, lo: float, hi: float) -> str:
    """``"50.12% (95% CI 49.80% to 50.44%)"``."""
    return f"{pct(rate)} (95% CI {pct(lo)} to {pct(hi)})"


def shift_text(shift: float, lo: float, hi: float) -> str:
    """``"+1.20 points (+0.50 to +1.90)"``: a shift of a rate and its 95% interval."""
    return f"{shift * 100:+.2f} points ({lo * 100:+.2f} to {hi * 100:+.2f})"


def margin_cell(mean: float, lo: float, hi: float) -> str:
    """``"+0.75 VP (+0.68 to +0.81)"``, or ``"-"`` without a figure (nan)."""
    return f"{signed_text(mean, lo, hi)} VP" if math.isfinite(mean) else "-"


def format_panel(result: Any) -> list[str]:
    """The panel re-check as lines."""
    p = result.panel
    label = result.question.label(result.chosen)
    lines = [f"Panel: {label} re-played under each bot in self-play (new seed):"]
    for row in p.itertuples():
        lines += [
            f"  {row.bot:<12}{ci_text(row.rate, row.lo, row.hi)}, shift from shipped "
            f"{shift_text(row.shift, row.shift_lo, row.shift_hi)}: "
            f"{'consistent with' if row.holds else 'off'} the target",
            f"  {'':<12}first VP margin {margin_cell(row.margin, row.margin_lo, row.margin_hi)}"
            f", shift from shipped "
            f"{margin_cell(row.margin_shift, row.margin_shift_lo, row.margin_shift_hi)}",
        ]
    n = int(p.holds.sum())
    lines.append(
        f"The conclusion holds under {'every bot' if n == len(p) else f'{n} of {len(p)} bots'}."
    )
    return lines
