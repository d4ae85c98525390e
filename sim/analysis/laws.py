"""Laws a strictly weaker card must obey: known answers for a card's effect under a bot.

A card made strictly weaker (less strength, a smaller Offering, nothing else changed)
cannot help its holders, and one made strictly stronger cannot hurt them, whatever the
bot; a significant answer that says otherwise is about the bot's misplay. This module
builds that panel of pure nerfs and buffs (:func:`law_cells`), plays it under a bot
(:func:`play_laws`) and counts the wrong signs, Holm-corrected per bot
(:func:`law_summary`); ``benchmarks/bench_laws.py`` prints the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim.analysis.paired import card_shifts
from sim.data.cards import load_pool
from sim.data.changes import FIELDS, CardChange, Changes
from sim.data.spec import RunSpec
from sim.run.stats import Z95, adjust_p

STRENGTH_MIN = 1  # the weakest printed unit: a nerf stops there, never at a 0-strength unit
NERF = {"strength": -2, "offering": -1}
BUFF = {"strength": 2, "offering": 1}
SETS: dict[str, str] = {"aegean": "aegean", "dunes": "dunes+aegean", "reign": "reign"}
"""Each set's units, in the mix that plays them (Dunes units need a base set)."""
REIGN_KINDS = 10
LEAN_CARDS = (
    "Oasis Merchant",
    "Sunset Marauder",
    "Weigher of Hearts",
    "Grand Vizier of the Two Lands",
)
"""The lean panel CI plays: Dunes units whose nerf helped their holders, significantly,
under the shipped ``economic`` or the old ``greedy`` (``bench_laws.py`` at 10,000 games)."""
LEAN_GAMES = 10_000
"""Games a lean cell plays: enough that ``economic``'s Oasis Merchant nerf is significant
after Holm over the eight cells, so the lean test catches the misplaying bot the full panel
names (``bench_laws.py --lean``)."""


@dataclass(frozen=True)
class LawCell:
    """One pure change of one card, and the sign its holders' effect must not contradict."""

    set_name: str
    mix: str
    card: str
    kind: int
    expected: int  # +1: a buff (must not hurt), -1: a nerf (must not help)
    edits: tuple[CardChange, ...]
    label: str  # the change as ``strength 4->2, offering 3->2``


def _edits(unit: dict, steps: dict[str, int]) -> tuple[tuple[CardChange, ...], str]:
    out, words = [], []
    for fld, step in steps.items():
        lo, hi = FIELDS[fld]
        if fld == "strength":
            lo = max(lo, STRENGTH_MIN)
        old = int(unit[fld])
        new = min(max(old + step, lo), hi)
        if new != old:
            out.append(CardChange(unit["name"], fld, new))
            words.append(f"{fld} {old}->{new}")
    return tuple(out), ", ".join(words)


def _cell_steps(one_field: bool) -> list[tuple[int, dict[str, int]]]:
    """Each cell of a unit as (the sign its effect must have, the steps it takes): the nerf
    and the buff with both fields at once, or each field alone."""
    both = [(-1, NERF), (1, BUFF)]
    if not one_field:
        return both
    return [(expected, {fld: steps[fld]}) for fld in NERF for expected, steps in both]


def law_cells(
    sets: Sequence[str] = tuple(SETS),
    reign_kinds: int = REIGN_KINDS,
    cards: Sequence[str] = (),
    one_field: bool = False,
) -> list[LawCell]:
    """The panel: for every unit of each set (``reign_kinds`` Reign kinds, spread over the
    kind order), a pure nerf (strength -2, not below 1; Offering -1) and a pure buff
    (strength +2; Offering +1). ``cards`` keeps only the units named. ``one_field`` makes
    a cell of each field's step alone instead, so a wrong sign of one field cannot hide
    behind the other's right one."""
    out = []
    for set_name in sets:
        mix = SETS[set_name]
        pool = load_pool(mix)
        kinds = [k for k, u in enumerate(pool.units) if u["set"] == set_name]
        if set_name == "reign" and reign_kinds < len(kinds):
            picks = np.linspace(0, len(kinds) - 1, reign_kinds).round().astype(int)
            kinds = [kinds[i] for i in dict.fromkeys(picks)]
        for k in kinds:
            unit = pool.units[k]
            if cards and unit["name"] not in cards:
                continue
            for expected, steps in _cell_steps(one_field):
                edits, label = _edits(unit, steps)
                if edits:
                    out.append(LawCell(set_name, mix, unit["name"], k, expected, edits, label))
    return out


def lean_cells() -> list[LawCell]:
    """The lean panel: nerf and buff of each of :data:`LEAN_CARDS`."""
    return law_cells(("dunes",), cards=LEAN_CARDS)


def play_laws(
    bot: str,
    cells: Sequence[LawCell],
    games: int,
    seed: int = 1,
    progress: bool = False,
) -> pd.DataFrame:
    """Play every cell under ``bot`` in both seats, each against the shipped cards on the
    same games (common random numbers); one row per cell, judged by :func:`judge`."""
    from sim.analysis.balance_checks import play_set  # deferred: loads numba

    rows = []
    for mix in dict.fromkeys(c.mix for c in cells):
        spec = RunSpec(games=games, mix=mix, seed=seed, p0=bot, p1=bot)
        baseline, _ = play_set(spec, Changes(), games, progress=False)
        for cell in (c for c in cells if c.mix == mix):
            played, _ = play_set(spec, Changes(cell.edits), games, progress=False)
            s = card_shifts(baseline, played, {cell.card: cell.kind}).iloc[0]
            rows.append(
                {
                    "bot": bot,
                    "set": cell.set_name,
                    "mix": mix,
                    "card": cell.card,
                    "change": cell.label,
                    "expected": cell.expected,
                    "games": games,
                    **s[["diff", "lo", "hi", "p_value"]].to_dict(),
                    "plays_a": int(s["conditional_count_a"]),
                    "plays_b": int(s["conditional_count_b"]),
                }
            )
            if progress:
                print(
                    f"  {bot} {cell.card}: {cell.label}: {s['diff'] * 100:+.2f} points", flush=True
                )
    return judge(pd.DataFrame(rows))


def judge(table: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Fill ``p_adjusted`` and ``significant`` (Holm over each bot's panel) and
    ``wrong_sign``: significant, with the sign the change forbids."""
    reject, adjusted = pd.Series(False, table.index), pd.Series(np.nan, table.index)
    for _, p in table.groupby("bot")["p_value"]:
        reject[p.index], adjusted[p.index] = adjust_p(p.to_numpy(), "holm", alpha)
    wrong = reject & (np.sign(table["diff"]) == -table["expected"])
    return table.assign(p_adjusted=adjusted, significant=reject, wrong_sign=wrong)


def law_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per bot: cells, games per cell, right-sign estimates, significant right and wrong."""
    right = np.sign(table["diff"]) == table["expected"]
    t = table.assign(right=right, sig_right=table["significant"] & right)
    return (
        t.groupby("bot", sort=False)
        .agg(
            cells=("card", "size"),
            games=("games", "first"),
            right_sign=("right", "sum"),
            significant_right=("sig_right", "sum"),
            wrong_sign=("wrong_sign", "sum"),
        )
        .reset_index()
    )


def law_z_penalty(table: pd.DataFrame) -> float:
    """A smooth wrong-sign score for tuning: the sum over cells of how many standard errors
    the estimate lies on the forbidden side of zero (0 when every estimate has its sign)."""
    se = (table["hi"] - table["lo"]) / (2 * Z95)
    z = (table["diff"] * table["expected"] / se.where(se > 0)).fillna(0.0)
    return float(np.clip(-z, 0, None).sum())
