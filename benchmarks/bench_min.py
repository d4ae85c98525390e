#!/usr/bin/env python
"""Kernel vs reference loop on a busy host: the minimum of many tiny batches.

    python benchmarks/bench_min.py [--mix dunes+aegean] [--repeats 400] [--first-run-tree]
                                   [--p0 greedy] [--p1 greedy] [--games 100]

Plays the same 100 games (``--games``; 1 thread, one call of the compiled kernel on
arrays made once) and the same 300 reference-loop games (three times ``--games``, at
least 300) alternately ``--repeats`` times and keeps each one's minimum time. A
batch of a few milliseconds usually fits in one scheduler slice, so the
minimum is close to what a quiet host gives even when other work shares the
cores; the reference loop's minimum is the check (it should stay near the
same microseconds per turn from run to run). Prints figures, asserts nothing.

The kernel is the build every run plays once the cache holds it: for two greedy seats,
the linked entry point (``strategies.greedy_batch``, compiled here first if need be);
``--first-run-tree`` measures the tree a first run plays instead. ``--p0`` and ``--p1``
seat other bots (``value`` against ``value``, say), which play the kernel's own tree; a
bot that slow needs fewer ``--games`` a batch (10, say) for a batch to fit in one slice.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np
from bench_engine import positive_int

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # the yardstick, reference_loop.py

KERNEL_GAMES = 100
REFERENCE_GAMES = 300


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Best-of-many kernel/reference ratio (prints).")
    parser.add_argument("--mix", default="dunes+aegean", help="card mix (default dunes+aegean)")
    parser.add_argument(
        "--repeats", type=positive_int, default=400, help="batches of each (default 400)"
    )
    parser.add_argument(
        "--first-run-tree",
        action="store_true",
        help="measure the tree a cold first run plays, not the linked entry point",
    )
    parser.add_argument("--p0", default="greedy", help="seat 0's strategy (default greedy)")
    parser.add_argument("--p1", default="greedy", help="seat 1's strategy (default greedy)")
    parser.add_argument(
        "--games",
        type=int,
        default=KERNEL_GAMES,
        help=f"kernel games a batch (default {KERNEL_GAMES}); the reference plays three times as "
        f"many, at least {REFERENCE_GAMES}",
    )
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    import reference_loop as R

    from sim.base import layout as L
    from sim.compiler import entry_point
    from sim.data.spec import RunSpec
    from sim.kernel.batch import output_arrays, range_kernel, scratch_states
    from sim.run.engine import Engine

    games = args.games
    engine = Engine(RunSpec(games=games, mix=args.mix, seed=1, p0=args.p0, p1=args.p1))
    # the build every run after a first one plays, or the first run's own
    engine.warmup(linked=not args.first_run_tree)
    top = engine.top or range_kernel(engine.tab)  # the entry point the run plays
    # The kernel call alone, on arrays made once: play_batch's allocations and thread
    # hand-off are a fixed cost a call, a visible share of a small batch.
    state = scratch_states(engine.bots, 1)[0]
    rows, masks = output_arrays(games)
    play = entry_point(top, engine.tab, engine.fp, engine.ask, 1, 0, 0, 0, state, rows, masks)

    def kernel() -> np.ndarray:
        play(engine.tab, engine.fp, engine.ask, 1, 0, 0, games, state, rows, masks)
        return rows

    # At least 300: a smaller batch of the reference loop is mostly the call's own overhead.
    ref_games = max(3 * games, REFERENCE_GAMES)
    out = np.empty(ref_games, np.int64)
    turns = np.empty(ref_games, np.int64)

    def reference() -> None:
        R.run(ref_games, 1, R.COST, R.OFFER, R.STR, R.COLO, out, turns)

    kernel_turns = int(kernel()[:, L.O_TURNS].sum())
    reference()
    reference_turns = int(turns.sum())
    best_k = best_r = float("inf")
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        kernel()
        best_k = min(best_k, time.perf_counter() - t0)
        t0 = time.perf_counter()
        reference()
        best_r = min(best_r, time.perf_counter() - t0)
    k_gps, r_gps = games / best_k, ref_games / best_r
    print(
        f"{args.mix}, {args.p0} vs {args.p1} ({top.py_func.__qualname__}), 1 thread, "
        f"best of {args.repeats}: "
        f"kernel {k_gps:,.0f} games/s ({best_k / kernel_turns * 1e6:.2f} us/turn), "
        f"reference {r_gps:,.0f} games/s ({best_r / reference_turns * 1e6:.3f} us/turn); "
        f"ratio {k_gps / r_gps:#.3g} in games/s, "
        f"{(kernel_turns / best_k) / (reference_turns / best_r):#.3g} in turns/s"
    )
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
