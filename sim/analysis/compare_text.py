"""A paired comparison as text: what B changed, each arm's seat figures, the paired
shifts with their intervals and what an unpaired comparison would have needed."""

from __future__ import annotations

import math
from typing import Any

from sim.run.margins import margin_row
from sim.run.seats import first_player_label, seat_lines


def setting_text(value: Any) -> str:
    """A run setting as a person reads it: a list joined by commas, nothing as ``none``."""
    if isinstance(value, (tuple, list)):
        return ", ".join(map(str, value)) or "none"
    return "none" if value is None else str(value)


def format_result(result: Any) -> str:
    """The comparison as lines a person reads."""
    spec, spec_b = result.spec, result.b_spec
    fp = result.comparison.first_player
    what = result.differences()
    lines = [
        f"{fp.games:,} games of {spec.mix} (seed {spec.seed}, {spec.p0} vs {spec.p1}, "
        f"{spec.variant_label} rules, {first_player_label(spec.first, spec.variants)}), "
        f"each played as A and as B, B with: {'; '.join(what) or 'nothing different'}.",
    ]
    if result.excluded_capped:
        lines.append(
            f"{result.excluded_capped:,} games that either run ended at the turn cap are left "
            "out of every figure (--exclude-capped)."
        )
    margin = result.comparison.margin
    for name, seats, sp in (("A", result.seats_a, spec), ("B", result.seats_b, spec_b)):
        if seats is not None:
            rows = [] if margin is None else [margin_row(getattr(margin, name.lower()))]
            lines.append(f"Run {name} ({first_player_label(sp.first, sp.variants)}):")
            lines.extend(seat_lines(seats, "    ", rows))
    saved = ""
    if fp.se_unpaired > 0 and math.isfinite(fp.se_paired):
        saved = f"; pairing saved {1 - (fp.se_paired / fp.se_unpaired) ** 2:.0%} of the variance"
    lines.append("Paired shifts, B - A:")
    lines.append(
        f"  first-player win rate: {rate_shift_text(fp)}"
        f"  (unpaired would need {_games(fp.n_unpaired)} games per run{saved})"
    )
    if margin is not None:
        lines.append(f"  first player's VP margin: {margin.text()}")
    cards = result.comparison.cards
    for r in result.rows.itertuples():
        lines += [
            f"  {r.card}: holders' win rate: {rate_shift_text(r)}  [{r.count_a:,} (game, seat) "
            f"holders; unpaired would need {_games(r.n_unpaired)} games per run]",
            f"      conditional: players' win rate: {rate_shift_text(r, 'conditional_')}  "
            f"[plays {r.conditional_count_a:,} -> {r.conditional_count_b:,}]",
        ]
    lines.extend(result.flags())
    lines.extend(result.play_changes())
    unpaired = [c for c in result.affected if c not in set(cards.card)]
    if unpaired:
        lines.append(f"  Only one run has {', '.join(unpaired)}: no paired win rate.")
    if result.affected:
        lines.append(
            "Holders' win rate (the card's effect): share of outright wins over every "
            "(game, seat) that held the card in A or B, the same seats in both runs. "
            "Conditional: over the (game, seat) that played it, a population the change "
            "itself moves, so it is not the card's effect."
        )
    lines.append(
        "Intervals are 95%, paired by game_id; 'unpaired would need' is the games per run "
        "two independent runs would need for an interval as narrow."
    )
    if result.out is not None:
        lines.append(f"Runs in {result.out}/A and {result.out}/B; summary in compare.json.")
    if result.until_ci is not None:
        ceiling = result.spec.games
        reached = "--games came first at"
        if result.played < ceiling:
            reached = "every headline interval reached"
        lines.append(
            f"--until-ci {result.until_ci:g}: {reached} +/- {result.until_ci * 100:.2f} points "
            f"after {result.played:,} of at most {ceiling:,} games per run."
        )
    return "\n".join(lines)


def rate_shift_text(r: Any, prefix: str = "", ci: str = "95% CI ") -> str:
    """``"55.00% -> 56.10%, change +1.10 points (95% CI -0.40 to +2.60)"``: the paired shift
    ``r`` holds (its ``rate_a``, ``rate_b``, ``diff``, ``lo``, ``hi``, each after ``prefix``)."""
    a, b, d, lo, hi = (getattr(r, prefix + k) for k in ("rate_a", "rate_b", "diff", "lo", "hi"))
    return (
        f"{a:.2%} -> {b:.2%}, change {d * 100:+.2f} points ({ci}{lo * 100:+.2f} to {hi * 100:+.2f})"
    )


def _games(n: float) -> str:
    if not math.isfinite(n):
        return "infinitely many" if n == math.inf else "?"
    return f"{math.ceil(n):,}"
