#!/usr/bin/env python
"""Which kernel functions a cold compile spends its time on.

    python benchmarks/profile_compile.py [--mix dunes+aegean] [--top 40]

Compiles into a new empty numba cache: imports the engine, then builds an
``Engine`` and plays its warm-up games (what a first ``omensim run`` does),
recording numba's ``numba:compile`` events. Prints CPU seconds for the import
and for the first run (CPU, not wall: on a busy host wall time mostly
measures the other work), how many functions were compiled, and each
function's exclusive CPU time (its own compile, without the callees it
triggered). It compiles on one thread, so in this process alone; the wall
time of a real first run, which compiles on two cores, is
``bench_engine.py --cold``. Prints figures only; it takes about as long as a
cold compile.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Cold-compile time per kernel function.")
    parser.add_argument("--mix", default="dunes+aegean", help="card mix (default dunes+aegean)")
    parser.add_argument("--top", type=int, default=40, help="functions to list (default 40)")
    args = parser.parse_args(argv)
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="omensim-cold-")
    sys.path.insert(0, str(ROOT))
    from numba.core import event

    events: list[tuple[bool, str, float]] = []

    class Recorder(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            events.append((True, _name(ev), time.process_time()))

        def on_end(self, ev: event.Event) -> None:
            events.append((False, _name(ev), time.process_time()))

    event.register("numba:compile", Recorder())
    c0 = time.process_time()
    from sim.data.spec import RunSpec
    from sim.run.engine import Engine

    c1 = time.process_time()
    import numba

    # One thread: the whole compile in this process, where the events can see it (with
    # more, a first run hands half of it to a child process: sim/run/compile_ahead.py).
    numba.set_num_threads(1)
    Engine(RunSpec(games=2, mix=args.mix, seed=1)).warmup()
    c2 = time.process_time()

    stack: list[list] = []
    exclusive: dict[str, float] = {}
    for start, name, t in events:
        if start:
            stack.append([name, t, 0.0])
            continue
        _, t0, children = stack.pop()
        exclusive[name] = exclusive.get(name, 0.0) + (t - t0) - children
        if stack:
            stack[-1][2] += t - t0
    print(
        f"import: {c1 - c0:.1f} s CPU; first run (Engine + warm-up): {c2 - c1:.1f} s CPU; "
        f"{len(exclusive)} functions compiled ({args.mix})"
    )
    for name, t in sorted(exclusive.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{t:7.2f} s  {name}")
    return 0


def _name(ev: object) -> str:
    fn = ev.data["dispatcher"].py_func  # type: ignore[attr-defined]
    return f"{fn.__module__}.{fn.__qualname__}"


if __name__ == "__main__":
    sys.exit(main())
