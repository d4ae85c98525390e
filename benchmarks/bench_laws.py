#!/usr/bin/env python
"""Known-answer laws: does a strictly weaker card read as weaker under each bot?

    python benchmarks/bench_laws.py [--bots greedy,economic] [--games N] [--seed S]
                                    [--sets aegean,dunes,reign] [--reign-kinds 10]
                                    [--cards NAME,NAME] [--lean] [--one-field]
                                    [--csv FILE]

For every unit of each set (ten Reign kinds), a pure nerf (strength -2, not
below 1; Offering -1) and a pure buff (strength +2; Offering +1) are each
played as a paired comparison against the shipped cards, the bot in both
seats, ``--games`` games on the same deals (:mod:`sim.analysis.laws`). A bot
that plays well cannot make a weaker card help its holders: every result
significant (Holm over the bot's panel) with the forbidden sign is the bot's
misplay. ``--one-field`` plays each field's change alone (strength -2, then
Offering -1, and the buffs; a field already at its bound has no cell), since a
wrong sign of one field can hide in a cell that changes both. Prints one line per
wrong-sign cell and a summary table per bot; exits 1 when any bot has a
wrong-sign result, so ``--lean`` (the few cards and games
``tests/analysis/test_laws.py`` plays) works as a check on any bot, the search
bot included.
"""

from __future__ import annotations

import argparse
import sys
import time

from sim.analysis.laws import (
    LEAN_CARDS,
    LEAN_GAMES,
    REIGN_KINDS,
    SETS,
    law_cells,
    law_summary,
    play_laws,
)
from sim.data.spec import SpecError
from strategies.registry import resolve


def main(argv: list[str] | None = None) -> int:
    """Play the laws panel for each bot and print the table; 1 when any law is broken."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bots", default="greedy", help="comma-separated bots or profile paths")
    ap.add_argument("--games", type=int, default=None, help="games per cell (default 2000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sets", default=",".join(SETS), help="sets to take units from")
    ap.add_argument("--reign-kinds", type=int, default=REIGN_KINDS)
    ap.add_argument("--cards", default="", help="only these units (comma-separated names)")
    ap.add_argument("--lean", action="store_true", help="the CI panel: a few Dunes cards")
    ap.add_argument(
        "--one-field",
        action="store_true",
        help="a cell for each field's change alone (strength, Offering) instead of both at once",
    )
    ap.add_argument("--csv", default="", help="also write every cell's row to this CSV")
    args = ap.parse_args(argv)
    if args.lean:
        sets, cards, games = ("dunes",), LEAN_CARDS, args.games or LEAN_GAMES
    else:
        sets = tuple(s.strip() for s in args.sets.split(",") if s.strip())
        cards = tuple(c.strip() for c in args.cards.split(",") if c.strip())
        games = args.games or 2000
    bad = [s for s in sets if s not in SETS]
    if bad:
        print(f"--sets: unknown set {bad[0]!r}; valid: {', '.join(SETS)}", file=sys.stderr)
        return 2
    cells = law_cells(sets, args.reign_kinds, cards, args.one_field)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    try:
        for bot in bots:
            resolve(bot)
        if games < 1 or not cells:
            raise SpecError(f"nothing to play: {len(cells)} cells of {games} games")
    except SpecError as e:
        print(e, file=sys.stderr)
        return 2
    print(f"{len(cells)} cells (sets {', '.join(sets)}), {games:,} games each, seed {args.seed}")
    import pandas as pd

    tables = []
    for bot in bots:
        t0 = time.perf_counter()
        table = play_laws(bot, cells, games, args.seed)
        tables.append(table)
        print(f"{bot}: {time.perf_counter() - t0:.0f} s", flush=True)
        for r in table[table.wrong_sign].itertuples():
            kind = "nerf" if r.expected < 0 else "buff"
            print(
                f"  WRONG SIGN {bot}: {r.card} {kind} ({r.change}): {r.diff * 100:+.2f} points "
                f"({r.lo * 100:+.2f} to {r.hi * 100:+.2f}), p_holm {r.p_adjusted:.3g}, "
                f"plays {r.plays_a:,} -> {r.plays_b:,}"
            )
    table = pd.concat(tables, ignore_index=True)
    if args.csv:
        table.to_csv(args.csv, index=False)
    summary = law_summary(table)
    print(summary.to_string(index=False))
    print(
        "right_sign: estimates with the sign the change implies; significant_*: after Holm "
        "over the bot's cells at 5%; wrong_sign must be 0."
    )
    return 1 if summary.wrong_sign.sum() else 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
