#!/usr/bin/env python
"""The racing search of ``omensim balance`` against a fixed grid, at equal accuracy.

    python benchmarks/bench_balance.py --threads 2                  # every question
    python benchmarks/bench_balance.py --threads 2 --question ker   # one of them

For each question (three cards' cost and one rule) the race settles the value
closest to 50% with the chosen value's 95% interval at most +/- 0.25 points
(``--precision``). The grid at equal accuracy plays *every* candidate to the
games the race's chosen value needed for that interval (a grid cannot know in
advance which value wins, so each must be as precise), in one look, and picks
the closest estimate. Both are played here, on the same seed, and timed; the
table gives games and wall time for both, the ratio, and whether both chose
the same value. Each row is also appended to ``--results`` (JSON lines).

The kernel is warmed before the first timing. Never asserts. The host may be
shared with other work: compare the race's and the grid's figures of one run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUESTIONS = {
    # name: (kind, what, values)
    "ker": ("card", "Ker of the Battlefield", "0-9"),
    "spoils": ("card", "Ker of the Spoils", "0-6"),
    "talos": ("card", "Talos, Bronze Guardian of Crete", "2-10"),
    "coins": ("rule", "start_coins", "1-7"),
}


def main() -> None:
    """Run the chosen questions and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--question", action="append", choices=sorted(QUESTIONS))
    ap.add_argument("--mix", default="aegean")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--precision", type=float, default=0.25, help="points")
    ap.add_argument("--results", type=Path, default=None, help="append JSON lines here")
    args = ap.parse_args()

    import numba

    from sim.analysis import balance as B
    from sim.analysis import balance_question as Q
    from sim.analysis.sweep import parse_numbers
    from sim.data.spec import RunSpec
    from sim.run.session import numba_threads, resolve_threads

    threads = resolve_threads(args.threads)
    spec = RunSpec(games=1, mix=args.mix, seed=args.seed)
    prec = args.precision / 100
    rows = []
    with numba_threads(threads):
        for name in args.question or list(QUESTIONS):
            kind, what, values = QUESTIONS[name]
            vals = [parse_numbers(values, "--values")]
            if kind == "card":
                q = Q.card_question(spec, what, ["cost"], vals)
            else:
                q = Q.rule_question(spec, [what], vals)
            B.race(q, spec, pilot=200, ceiling=200, progress=False)  # warm the kernel
            t0 = time.perf_counter()
            r = B.race(q, spec, tolerance=prec, precision=prec, progress=False)
            race_s = time.perf_counter() - t0
            n = int(r.chosen_row["games"])
            t0 = time.perf_counter()
            g = B.race(q, spec, tolerance=prec, precision=prec, pilot=n, ceiling=n, progress=False)
            grid_s = time.perf_counter() - t0
            row = {
                "question": f"{what} {'cost' if kind == 'card' else ''}".strip(),
                "candidates": len(q.candidates),
                "race_games": r.games,
                "race_s": round(race_s, 1),
                "race_choice": q.label(r.chosen),
                "race_rate": round(float(r.chosen_row["rate"]), 5),
                "race_half_width": round(float(r.chosen_row["hi"] - r.chosen_row["lo"]) / 2, 5),
                "settled": r.settled is not None,
                # Where the race's games went: each candidate's games and fate.
                "race_per_candidate": {
                    row.label: [int(row.games), row.status] for row in r.table.itertuples()
                },
                "grid_games": g.games,
                "grid_s": round(grid_s, 1),
                "grid_choice": q.label(g.chosen),
                "threads": threads,
                "numba_threads": numba.get_num_threads(),
                "seed": args.seed,
            }
            rows.append(row)
            if args.results is not None:
                with open(args.results, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    print()
    print(table(rows))


def table(rows: list[dict]) -> str:
    """The rows as a Markdown table."""
    head = (
        "| question | candidates | race games | race s | grid games | grid s | "
        "games saved | race's choice (rate, ±95%) | grid's choice |\n"
        "|---|---:|---:|---:|---:|---:|---:|---|---|"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"| {r['question']} | {r['candidates']} | {r['race_games']:,} | {r['race_s']} | "
            f"{r['grid_games']:,} | {r['grid_s']} | {r['grid_games'] / r['race_games']:.1f}x | "
            f"{r['race_choice']} ({r['race_rate']:.2%} ± {r['race_half_width'] * 100:.2f}) | "
            f"{r['grid_choice']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
