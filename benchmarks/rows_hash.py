#!/usr/bin/env python
"""A hash of the kernel's rows for many games: the check that a faster kernel plays the same.

    python benchmarks/rows_hash.py [--mix dunes+aegean] [--games 100000] [--p0 greedy] [--p1 greedy]
                                   [--first-run-tree]

Plays ``--games`` games (seed 1) with the run's own bots and prints the SHA-256
of every game's output row and played/held bit mask, as the kernel returns
them (what the Parquet rows are made of), with the games per second. A change
meant to make the kernel or a bot faster without changing what it chooses
(the greedy scorer valuing fewer options, a figure cached instead of
recomputed) must print the same hash before and after, under the same weights:
run it on both commits. The rows never depend on the number of threads or on
how the games are split into kernel calls, so neither changes the hash, and
they are the same whichever tree plays them: the linked entry point of two
greedy seats (``strategies.greedy_batch``, compiled here first if need be, the
default) or the tree a first run plays (``--first-run-tree``).
Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CALL_GAMES = 50_000
"""Games per kernel call: bounds the arrays held at once, not the hash."""


def rows_hash(engine: object, games: int) -> str:
    """SHA-256 of ``engine``'s kernel rows and masks for games ``0 .. games-1``."""
    digest = hashlib.sha256()
    for start in range(0, games, CALL_GAMES):
        out, masks = engine.play_raw(start, min(CALL_GAMES, games - start))  # type: ignore[attr-defined]
        digest.update(out.tobytes())
        digest.update(masks.tobytes())
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="SHA-256 of many games' kernel rows (prints).")
    parser.add_argument("--mix", default="dunes+aegean", help="card mix (default dunes+aegean)")
    parser.add_argument("--games", type=int, default=100_000, help="games (default 100000)")
    parser.add_argument("--p0", default="greedy", help="seat 0's strategy (default greedy)")
    parser.add_argument("--p1", default="greedy", help="seat 1's strategy (default greedy)")
    parser.add_argument(
        "--first-run-tree",
        action="store_true",
        help="play the tree a cold first run plays, not the linked entry point",
    )
    args = parser.parse_args(argv)
    from sim.data.spec import RunSpec
    from sim.run.engine import Engine

    engine = Engine(RunSpec(games=args.games, mix=args.mix, seed=1, p0=args.p0, p1=args.p1))
    # the build every run after a first one plays, or the first run's own
    engine.warmup(linked=not args.first_run_tree)
    t0 = time.perf_counter()
    digest = rows_hash(engine, args.games)
    seconds = time.perf_counter() - t0
    print(
        f"{digest}  {args.games} games, {args.mix}, {args.p0} vs {args.p1}, seed 1 "
        f"({args.games / seconds:,.0f} games/s)"
    )
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
