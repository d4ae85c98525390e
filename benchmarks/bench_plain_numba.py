#!/usr/bin/env python
"""What omensim's numba extension buys over plain ``njit``: compile, start-up and speed.

    python benchmarks/bench_plain_numba.py [--mix dunes+aegean] [--games N] [--repeats R]

For each compile mode (``OMENSIM_PLAIN_NUMBA=0``, the extension, and ``=1``,
plain ``numba.njit(cache=True)``; see ``sim/compiler/mode.py``) it runs, in fresh
interpreters:

* a cold compile: import the engine, build a greedy-vs-greedy run and play its
  first games into an empty ``NUMBA_CACHE_DIR`` (what a first ``omensim run``
  does), wall and CPU seconds;
* a warm start: the same with that cache filled (best of ``--repeats``);
* kernel games/s on every core (best of ``--repeats``), divided by the
  reference loop's games/s measured in this same run (``bench_engine.reference``),
  so a busy host moves both.

CPU seconds are printed beside wall seconds: on a shared host the wall clock
mostly measures the other work. Prints figures only and never fails on speed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_engine  # noqa: E402  (a sibling script, found through the path above)

MODES = {"extension": "0", "plain": "1"}
"""Compile mode name -> value of ``OMENSIM_PLAIN_NUMBA``."""

_START_CHILD = """\
import json, sys
from sim.data.spec import RunSpec
from sim.compiler import MODE
from sim.run.engine import Engine
Engine(RunSpec(games=2, mix=sys.argv[1], seed=1)).warmup()
print(json.dumps({"mode": MODE}))
"""

_SPEED_CHILD = """\
import json, sys
import numba
import bench_engine as B
from sim.compiler import MODE
mix, games, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
engine = B.make_engine(mix, games)
seconds = B.time_kernel(engine, games, numba.get_num_threads(), repeats)
print(json.dumps({"mode": MODE, "games_per_s": games / seconds}))
"""


def child(code: str, args: list[str], mode: str, cache: str) -> tuple[dict, float, float]:
    """(the child's last JSON line, wall seconds, CPU seconds) of ``code`` run in ``mode``."""
    env = bench_engine.child_env(OMENSIM_PLAIN_NUMBA=MODES[mode], NUMBA_CACHE_DIR=cache)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "benchmarks"), env["PYTHONPATH"]])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, cwd=ROOT, capture_output=True, text=True
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"Error: the {mode} child exited with {done.returncode}:\n{done.stderr}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    if out["mode"] != mode:
        sys.exit(f"Error: asked for {mode} mode, the child compiled in {out['mode']} mode")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out, wall, cpu


def measure(mode: str, mix: str, games: int, repeats: int) -> dict[str, float]:
    """Cold compile, warm start and kernel games/s of one compile mode."""
    bench_engine.log(f"{mode}: cold compile ...")
    with tempfile.TemporaryDirectory(prefix=f"omensim-{mode}-cache-") as cache:
        _, cold_wall, cold_cpu = child(_START_CHILD, [mix], mode, cache)
        bench_engine.log(f"{mode}: warm start ...")
        warm = [child(_START_CHILD, [mix], mode, cache) for _ in range(repeats)]
        bench_engine.log(f"{mode}: kernel games/s ...")
        speed, _, _ = child(_SPEED_CHILD, [mix, str(games), str(repeats)], mode, cache)
    best = min(warm, key=lambda r: r[1])
    return {
        "cold_wall": cold_wall,
        "cold_cpu": cold_cpu,
        "warm_wall": best[1],
        "warm_cpu": best[2],
        "games_per_s": speed["games_per_s"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The numba extension against plain njit.")
    parser.add_argument("--mix", default="dunes+aegean", help="card mix (default dunes+aegean)")
    parser.add_argument(
        "--games", type=bench_engine.parse_games, default=20_000, metavar="N",
        help="games per timed kernel loop (default 20,000)",
    )  # fmt: skip
    parser.add_argument(
        "--repeats",
        type=bench_engine.positive_int,
        default=2,
        metavar="R",
        help="best of R (default 2)",
    )
    args = parser.parse_args(argv)
    import numba

    threads = numba.get_num_threads()
    results = {mode: measure(mode, args.mix, args.games, args.repeats) for mode in MODES}
    bench_engine.log(f"reference loop, {threads} threads ...")
    ref, _ = bench_engine.reference(threads, bench_engine.REFERENCE_GAMES, args.repeats)
    ext, plain = results["extension"], results["plain"]
    rows = [
        ["figure", "extension", "plain njit", "plain / extension"],
        *(
            [label, f"{ext[key]:.1f} s", f"{plain[key]:.1f} s", f"{plain[key] / ext[key]:.2f}"]
            for label, key in [
                ("cold compile, wall", "cold_wall"),
                ("cold compile, CPU", "cold_cpu"),
                ("warm start, wall", "warm_wall"),
                ("warm start, CPU", "warm_cpu"),
            ]
        ),
        [
            "kernel games/s",
            f"{ext['games_per_s']:,.0f}",
            f"{plain['games_per_s']:,.0f}",
            f"{plain['games_per_s'] / ext['games_per_s']:.2f}",
        ],
        [
            "  / reference loop",
            f"{ext['games_per_s'] / ref:.3f}",
            f"{plain['games_per_s'] / ref:.3f}",
            "",
        ],
    ]
    load = bench_engine.load_average()
    print(f"{args.mix}, greedy vs greedy, {threads} threads; numba {numba.__version__}; ")
    print(f"reference loop {ref:,.0f} games/s; load average {load} at the end")
    print("\n".join(bench_engine.text_table(rows)))
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
