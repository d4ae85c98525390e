#!/usr/bin/env python
"""Coverage of the 95% intervals printed after a data-dependent stop.

    python benchmarks/bench_coverage.py [--reps 1000] [--seed 0]

``run --until-ci`` and ``compare --until-ci`` stop once an interval is narrow enough;
``balance`` prints the interval of the candidate it chose. Each row repeats one of them
``--reps`` times on synthetic games with a planted answer, through the command's own
stopping or selection code (:mod:`sim.analysis.coverage`), and prints the share of
printed intervals that held the answer, with its Monte Carlo standard error, as the
Markdown table of ``docs/results.md``. It asserts nothing: a share under 94% is for a
person to read (the lean test in ``tests/analysis/test_coverage.py`` is the CI check).
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # `python benchmarks/bench_coverage.py` without an install

from bench_engine import positive_int  # noqa: E402  (a sibling script)

from sim.analysis import coverage as C  # noqa: E402


def rows(reps: int, seed: int) -> list[C.Coverage]:
    """Every check of the table, ``reps`` times each."""
    out = [
        C.run_until_ci(0.57, 0.02, reps, seed),
        C.run_until_ci(0.57, 0.005, reps, seed + 1),
        C.run_until_ci(0.85, 0.01, reps, seed + 2),
        C.compare_until_ci(0.56, 0.53, 0.2, 0.005, reps, seed + 3),
        C.compare_until_ci(0.56, 0.56, 0.1, 0.003, reps, seed + 4),
    ]
    out += C.balance_choice([0.44, 0.48, 0.52, 0.56], 0.01, reps, seed + 5)
    out += C.balance_choice([0.495, 0.5, 0.505, 0.51], 0.0025, reps, seed + 6, pilot=4000)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the coverage table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=positive_int, default=1000, help="repeats of every check")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    # statsmodels' Holm collects garbage on every call; frozen, the heap numba and pandas
    # left behind is not walked again at every look of every repeat.
    gc.freeze()
    t0 = time.perf_counter()
    table = rows(args.reps, args.seed)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    print(
        f"`python benchmarks/bench_coverage.py --reps {args.reps} --seed {args.seed}`, "
        f"commit {commit or '-'}, {datetime.now(UTC):%Y-%m-%d}, "
        f"{time.perf_counter() - t0:.0f} s\n"
    )
    print("| check | setting | repeats | covered | mean games |")
    print("| --- | --- | ---: | ---: | ---: |")
    for r in table:
        print(
            f"| {r.check} | {r.setting} | {r.reps:,} | {r.share:.1%} (± {r.se:.1%}) "
            f"| {r.mean_games:,.0f} |"
        )
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
