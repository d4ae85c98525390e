#!/usr/bin/env python
"""What each lever of the compiler extension buys: each one removed, against the whole, in one run.

    python benchmarks/bench_levers.py [--games 2000] [--mix dunes+aegean] [--repeats 300]
                                      [--cold-runs 1] [--levers whole,two_process,...] [--csv]

For each configuration (the whole extension, then each lever switched off through
``OMENSIM_LEVERS_OFF``, ``sim.compiler.linkage.LEVERS_ENV``):

* **cold first run**: ``omensim run --games G --mix M`` in a fresh interpreter with an empty
  ``NUMBA_CACHE_DIR``: wall seconds, CPU seconds (user + system, the compile's child
  process included), and the CPU of the busier of the two processes: what a first run
  waits for on two free cores, which a busy host's wall time cannot show; with
  ``--cold-runs N``, the median of N such runs (and the range of their walls), each
  configuration's runs alternating with the others';
* **warm kernel**: in another fresh interpreter on that cache, the kernel against the
  reference loop (``benchmarks/reference_loop.py``) in the same process, best of
  ``--repeats`` small batches each, as a ratio of turns per second (as ``bench_min.py``):
  greedy vs greedy, the build a run plays once cached (the entry points with the bot
  linked in, ``strategies.greedy_batch``; for ``twins``, the first run's tree); and the
  ``value`` bot's self-play in aegean (its play-outs are most of a learned bot's time) as a
  ratio of games per second;
* **lines**: the lines of ``sim/compiler`` and its glue the lever costs (``LEVER_CODE``).

Configurations alternate in one run, so a busy host slows them alike; read the ratios,
not the seconds. Prints a Markdown table; ``--csv`` appends rows to
``benchmarks/results.csv``.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_engine import parse_games, positive_int

ROOT = Path(__file__).resolve().parents[1]

LEVERS = ("whole", "twins", "two_process", "lazy", "private", "nrt")
"""``whole``: every lever on; each other name: that lever off."""

LEVER_CODE: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "twins": [
        ("strategies/greedy_batch.py", ()),
        ("sim/kernel/batch.py", ("LinkedBuild", "LINKED_BUILDS", "linked_build", "linked_run")),
        ("sim/compiler/extension.py", ("ask_of",)),
        ("sim/run/engine.py", ("linked_cached", "LINKED_AT_GAMES")),
        ("sim/cli/compile.py", ()),
    ],
    "two_process": [("sim/compiler/ahead.py", ())],
    "lazy": [
        ("sim/compiler/lazy_code.py", ("KernelLibrary", "DeferredEnvs", "KernelCacheImpl")),
    ],
    "private": [("sim/compiler/lazy_code.py", ("make_callees_private",))],
    "nrt": [("sim/compiler/extension.py", ("_index_as_is", "unwrapped_indices"))],
}
"""Where each lever's code is: whole files (no names) or the named top-level definitions."""


def lines_of(lever: str) -> int:
    """Lines of the code ``lever`` costs (:data:`LEVER_CODE`)."""
    total = 0
    for rel, names in LEVER_CODE.get(lever, []):
        text = (ROOT / rel).read_text()
        if not names:
            total += len(text.splitlines())
            continue
        for node in ast.parse(text).body:
            targets = [getattr(node, "name", None)]
            if isinstance(node, ast.Assign | ast.AnnAssign):
                t = node.targets if isinstance(node, ast.Assign) else [node.target]
                targets = [getattr(x, "id", None) for x in t]
            if set(targets) & set(names):
                total += node.end_lineno - node.lineno + 1  # type: ignore[operator]
    return total


COLD = """
import resource, sys
from sim.cli import main
main(["run", "--games", sys.argv[1], "--mix", sys.argv[2], "--out", sys.argv[3], "-q"],
     standalone_mode=False)
me = resource.getrusage(resource.RUSAGE_SELF)
print(me.ru_utime + me.ru_stime)
"""

WARM = """
import json, sys, time
import numba
import numpy as np
sys.path.insert(0, sys.argv[4])
import reference_loop as R
from sim.base import layout as L
from sim.compiler import entry_point
from sim.data.spec import RunSpec
from sim.kernel.batch import output_arrays, range_kernel, scratch_states
from sim.run.engine import Engine
numba.set_num_threads(1)
out, turns = np.empty(300, np.int64), np.empty(300, np.int64)

def best(spec, linked, repeats):
    engine = Engine(spec)
    engine.warmup(linked=linked)
    top = engine.top or range_kernel(engine.tab)
    state = scratch_states(engine.bots, 1)[0]
    rows, masks = output_arrays(spec.games)
    args = (engine.tab, engine.fp, engine.ask, 1, 0, 0, spec.games, state, rows, masks)
    play = entry_point(top, *args)
    play(*args)
    best_k = best_r = float("inf")
    for _ in range(repeats):  # alternating, so a busy host slows both alike
        t0 = time.perf_counter(); play(*args); best_k = min(best_k, time.perf_counter() - t0)
        t0 = time.perf_counter(); R.run(300, 1, R.COST, R.OFFER, R.STR, R.COLO, out, turns)
        best_r = min(best_r, time.perf_counter() - t0)
    # turns played, then the kernel's and the reference loop's best games/s
    return int(rows[:, L.O_TURNS].sum()), spec.games / best_k, 300 / best_r

repeats = int(sys.argv[2])
spec = RunSpec(games=100, mix=sys.argv[1], seed=1)
k_turns, kgps, rgps = best(spec, sys.argv[3] == "1", repeats)
R.run(300, 1, R.COST, R.OFFER, R.STR, R.COLO, out, turns)
r_tpg, k_tpg = int(turns.sum()) / 300, k_turns / spec.games  # turns per game
bots = RunSpec(games=40, mix="aegean", seed=1, p0="value", p1="value")
_, vgps, vrgps = best(bots, False, max(5, repeats // 20))
print(json.dumps({"ratio": (kgps * k_tpg) / (rgps * r_tpg), "kgps": kgps, "rgps": rgps,
                  "value": vgps / vrgps, "vgps": vgps}))
"""


def env_for(lever: str, cache: Path) -> dict[str, str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "NUMBA_NUM_THREADS": "2"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["OMENSIM_LEVERS_OFF"] = "" if lever in ("whole", "twins") else lever
    env.pop("OMENSIM_TRACE_HOOKS", None)
    return env


def cold(lever: str, cache: Path, games: int, mix: str) -> dict[str, float]:
    """Wall and CPU seconds of a first run on the empty ``cache``: ``cpu`` of the command and
    its compile child together, ``path`` of the busier of the two (what two free cores
    wait for, whatever else the host runs)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", COLD, str(games), mix, str(cache.parent / "run")],
        env=env_for(lever, cache),
        check=True,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    own = float(done.stdout.strip().splitlines()[-1])
    return {"wall": wall, "cpu": cpu, "path": max(own, cpu - own)}


def warm(lever: str, cache: Path, mix: str, repeats: int) -> dict[str, float]:
    """The warm kernel's ratio to the reference loop (turns/s) and its games/s, 1 thread."""
    linked = "0" if lever == "twins" else "1"
    done = subprocess.run(
        [sys.executable, "-c", WARM, mix, str(repeats), linked, str(ROOT / "benchmarks")],
        env=env_for(lever, cache),
        check=True,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Each compiler lever against its removal.")
    parser.add_argument("--games", type=parse_games, default=2000, help="games of the first run")
    parser.add_argument("--mix", default="dunes+aegean", help="card mix (default dunes+aegean)")
    parser.add_argument(
        "--repeats", type=positive_int, default=300, help="warm batches (default 300)"
    )
    parser.add_argument(
        "--cold-runs",
        type=positive_int,
        default=1,
        help="cold first runs per configuration (median)",
    )
    parser.add_argument("--levers", default=",".join(LEVERS), help="configurations to run")
    parser.add_argument("--csv", action="store_true", help="append to benchmarks/results.csv")
    args = parser.parse_args(argv)
    levers = args.levers.split(",")
    unknown = [lever for lever in levers if lever not in LEVERS]
    if unknown:
        print(f"Error: unknown lever {unknown[0]!r} (one of {', '.join(LEVERS)})", file=sys.stderr)
        return 2
    runs: dict[str, list[dict[str, float]]] = {lever: [] for lever in levers}
    got: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="omensim-levers-") as tmp:
        for r in range(args.cold_runs):
            for lever in levers:
                cache = Path(tmp) / lever / "cache"
                shutil.rmtree(cache.parent, ignore_errors=True)  # empty again: a first run
                cache.parent.mkdir(parents=True)
                runs[lever].append(cold(lever, cache, args.games, args.mix))
                print(f"{lever} cold {r + 1}: {runs[lever][-1]}", file=sys.stderr, flush=True)
        for lever in levers:  # on the cache its last first run filled
            walls = [run["wall"] for run in runs[lever]]
            got[lever] = {
                **{k: statistics.median(run[k] for run in runs[lever]) for k in runs[lever][0]},
                "low": min(walls),
                "high": max(walls),
                **warm(lever, Path(tmp) / lever / "cache", args.mix, args.repeats),
            }
            print(f"{lever}: {got[lever]}", file=sys.stderr, flush=True)
    base = got.get("whole")
    wall = "cold wall" if args.cold_runs == 1 else f"cold wall (median of {args.cold_runs}; range)"
    print(
        f"| lever removed | {wall} | cold CPU | CPU, busier process | warm / reference "
        "| value bot / reference | lines |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for lever, g in got.items():
        rel = ""
        if base and lever != "whole":
            rel = f" ({g['wall'] / base['wall']:.2f}x)"
        if args.cold_runs > 1:
            rel += f"; {g['low']:.1f} to {g['high']:.1f} s"
        print(
            f"| {'none (the whole)' if lever == 'whole' else lever} | {g['wall']:.1f} s{rel} | "
            f"{g['cpu']:.1f} s | {g['path']:.1f} s | {g['ratio']:.3f} | {g['value']:.2e} | "
            f"{lines_of(lever)} |"
        )
    if args.csv:
        from bench_engine import append_rows, git_commit, machine

        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        where, commit = machine(os.cpu_count() or 1), git_commit()
        rows = []
        for lever, g in got.items():
            name = f"levers_{lever}"
            for bench, seconds, gps in (
                (f"{name}_cold_wall", f"{g['wall']:.4f}", ""),
                (f"{name}_cold_cpu", f"{g['cpu']:.4f}", ""),
                (f"{name}_cold_cpu_busier", f"{g['path']:.4f}", ""),
                (f"{name}_warm_kernel", "", f"{g['kgps']:.1f}"),
                (f"{name}_warm_reference", "", f"{g['rgps']:.1f}"),
                (f"{name}_warm_value_bot", "", f"{g['vgps']:.1f}"),
            ):
                rows.append([now, commit, where, bench, args.mix, args.games, seconds, gps, ""])
        append_rows(rows)
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
