"""Does playing in small kernel calls (for the progress bar and --until-ci) cost speed?

Times ``Engine.play(0, N)`` in one kernel call against the same games in the
steps the runner now uses (``Engine.play(0, N, tick=...)``: kernel calls of
about 0.2 s, at most 4,096 games, the next one queued while this one's rows
are converted), and against those steps with nothing queued ahead
(``engine.IN_FLIGHT = 1``: each call's rows converted while the kernel
threads wait). Repeats alternate between the
three so a busy machine slows all alike; the best of each is printed, and the
ratios. Prints, never asserts.

    python benchmarks/bench_progress.py --games 65536 --repeats 5
"""

from __future__ import annotations

import argparse
import sys
import time

from bench_engine import positive_int

from sim.data.spec import RunSpec
from sim.run import engine as engine_module
from sim.run.engine import Engine


def counter_tick(counter: list[int]):  # type: ignore[no-untyped-def]
    """A tick that counts kernel calls and never stops the play."""

    def tick(rows: object) -> bool:
        counter.append(1)
        return False

    return tick


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=65_536)
    ap.add_argument("--repeats", type=positive_int, default=5)
    ap.add_argument("--mix", default="aegean")
    args = ap.parse_args()
    engine = Engine(RunSpec(games=args.games, mix=args.mix, seed=1))
    engine.warmup()
    engine.play(0, 2_000, tick=lambda rows: False)  # let the step size settle
    queued = engine_module.IN_FLIGHT
    best = {"one call": float("inf"), "steps": float("inf"), "unqueued": float("inf")}
    calls = 0
    for _ in range(args.repeats):
        for name in best:
            counter: list[int] = []
            tick = None if name == "one call" else counter_tick(counter)
            engine_module.IN_FLIGHT = 1 if name == "unqueued" else queued
            t0 = time.perf_counter()
            engine.play(0, args.games, tick=tick)
            best[name] = min(best[name], time.perf_counter() - t0)
            calls = max(calls, len(counter))
    engine_module.IN_FLIGHT = queued
    for name, seconds in best.items():
        print(
            f"{name:9s} {args.games:,} games  {seconds:7.3f} s  "
            f"{args.games / seconds:10,.0f} games/s"
        )
    print(
        f"steps / one call = {best['steps'] / best['one call']:.3f}, "
        f"unqueued steps / one call = {best['unqueued'] / best['one call']:.3f} "
        f"({calls} kernel calls per {args.games:,} games)"
    )


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
