#!/usr/bin/env python
"""Where the search bot's time goes: one decision against its play-outs' parts.

    python benchmarks/profile_search.py [--mix aegean] [--bot search] [--reps 20]

On the fixed mid-game Surge positions ``bench_ladder.py --sections ms`` uses, prints
the mean CPU milliseconds (this thread) of one decision of ``--bot`` (a search or value
profile), of one sampled world (``sample_world``: the game copied, the hidden cards
dealt again), of one learned value of a position (``position_value``: its features and
the network) and of one play-out from a sampled world at each horizon 0 to 3 (the option
taken and its turn finished, then that many more turns with greedy for both seats, then
scored as the bot's profile scores them). Compile is excluded.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_engine import positive_int  # noqa: E402  (a sibling script)
from bench_ladder import decision_positions  # noqa: E402

from sim.base import layout as L  # noqa: E402
from sim.compiler import kernel  # noqa: E402
from sim.kernel import decisions as D  # noqa: E402
from strategies.lookahead import play_out, sample_world  # noqa: E402
from strategies.value import position_value  # noqa: E402

HORIZONS = (0, 1, 2, 3)


@kernel
def sample_many(st, tab, p, n, reps):
    """``reps`` sampled worlds of seat ``p`` (with the ``n`` option rows), one after the other."""
    for r in range(reps):
        sample_world(st, tab, p, np.int64(r * 7919 + 1), n)


@kernel
def value_many(st, tab, fp, p, reps):
    """``reps`` learned values of position ``st`` for seat ``p``, summed."""
    s = 0.0
    for _ in range(reps):
        s += position_value(st, tab, fp, p)
    return s


@kernel
def play_many(st, tab, fp, p, k, actions, horizon, reps):
    """``reps`` play-outs of Surge option ``k``, each from a new sampled world."""
    s = 0.0
    for r in range(reps):
        sample_world(st, tab, p, np.int64(r * 7919 + 1), k + 1)
        s += play_out(st, tab, fp, p, D.D_SURGE, k, actions, 0, horizon)
    return s


def time_parts(st, tab, fp, p: int, n: int, reps: int) -> dict[str, float]:
    """CPU seconds (this thread) of each part on one position, each from a copy of ``st``."""
    from strategies.policy import choose

    out = {}
    parts = [("decision", 1, -1), ("sample_world", reps, -1), ("position_value", reps, -1)]
    parts += [(f"play-out, horizon {h}", reps, h) for h in HORIZONS]
    for name, k, h in parts:
        s = st.copy()
        t0 = time.thread_time()
        if name == "decision":
            choose(s, tab, fp, p, D.D_SURGE, n)
        elif name == "sample_world":
            sample_many(s, tab, p, n, reps)
        elif name == "position_value":
            value_many(s, tab, fp, p, reps)
        else:
            play_many(s, tab, fp, p, 0, st[L.SURGE_ACTIONS], h, reps)
        out[name] = (time.thread_time() - t0) / k
    return out


def main(argv: list[str] | None = None) -> int:
    """Time the parts on every position and print their means."""
    from sim.data.spec import SpecError
    from sim.kernel.surge import surge_options
    from sim.run.view import StateView
    from strategies.policy import choose_heuristic
    from strategies.registry import resolve, strategy_arrays

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mix", default="aegean")
    ap.add_argument("--bot", default="search", help="the profile whose decision is timed")
    ap.add_argument(
        "--reps", type=positive_int, default=20, help="repetitions per part and position"
    )
    args = ap.parse_args(argv)
    try:
        bot = resolve(args.bot).bot
    except SpecError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 2
    positions = decision_positions(args.mix)
    parts = ["decision", "sample_world", "position_value"]
    parts += [f"play-out, horizon {h}" for h in HORIZONS]
    total = dict.fromkeys(parts, 0.0)
    for warm in (True, False):  # the first pass compiles
        for sc in positions:
            _, fp = strategy_arrays(args.bot, args.bot, sc.tab)
            st = sc.st.copy()
            p = sc.active
            StateView(st).bot_ids[p] = bot
            n = int(surge_options(st, sc.tab, fp, choose_heuristic, p))
            got = time_parts(st, sc.tab, fp, p, n, args.reps)
            if not warm:
                for name in parts:
                    total[name] += got[name]
    print(f"{args.mix}, {args.bot}, {len(positions)} positions, CPU ms of one thread (mean):")
    for name in parts:
        print(f"  {name:<22} {1000 * total[name] / len(positions):8.4f}")
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
