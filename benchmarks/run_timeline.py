#!/usr/bin/env python
"""Where the wall time of one ``omensim run`` goes: start-up, play, the end, and CPU by thread.

    python benchmarks/run_timeline.py [--games 1e6] [--mix dunes+aegean] [--repeats 3]

Runs ``omensim run`` (the console entry, so the process ends as the command
does) in a child process that notes the wall clock and its threads' CPU when
the first kernel call is queued and when the last one's rows come back, and
prints, per run:

* **start**: from the process's launch to the first kernel call (imports,
  card tables, loading the cached kernel, the manifest);
* **play**: first kernel call to the last call's rows;
* **end**: the last rows to the process gone (the last Parquet writes, the
  manifest, the summary, the interpreter's shutdown);
* the CPU, while games play, of the kernel threads, of the main thread (the
  Arrow conversion, the progress) and of every other thread (the Parquet
  writer), and the core-seconds no thread used while games played (kernel
  threads waiting for the GIL or for work).

On two cores every CPU second beside the kernel threads during play costs
about half a second of wall time; that, the start and the end are what the
whole command spends over the kernel alone (the end-to-end target; the ratio
itself is ``bench_engine.py``'s). Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_engine import positive_int

CHILD_FLAG = "--child"
REPORT_PREFIX = "run_timeline: "


def thread_cpu(native_id: int) -> float:
    """User + system CPU seconds of thread ``native_id`` of this process (``/proc``)."""
    fields = Path(f"/proc/self/task/{native_id}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child(launched: float, argv: list[str]) -> None:
    """Run ``omensim run ARGV`` in this process, noting the play's bounds; report at exit."""
    import atexit
    import threading

    import sim.kernel.batch as batch
    import sim.run.engine as engine
    from sim.cli import console

    main_id = threading.main_thread().native_id
    marks: dict[str, float] = {}

    def note(name: str) -> None:
        marks[name] = time.time() - launched
        marks[name + "_cpu"] = time.process_time()
        marks[name + "_main_cpu"] = thread_cpu(main_id)
        pool = [t.native_id for t in threading.enumerate() if t.name.startswith("omensim-kernel")]
        marks[name + "_kernel_cpu"] = sum(thread_cpu(t) for t in pool if t is not None)

    start_batch, result = engine.start_batch, batch.Batch.result

    def first_call(*args: object) -> batch.Batch:
        if "first" not in marks:
            note("first")
        return start_batch(*args)

    def rows(self: batch.Batch) -> tuple:
        out = result(self)
        note("last")
        return out

    engine.start_batch = first_call
    batch.Batch.result = rows  # type: ignore[method-assign]

    def report() -> None:
        marks["cores"] = len(os.sched_getaffinity(0))
        marks["exit_hooks"] = time.time() - launched
        print(REPORT_PREFIX + json.dumps(marks), file=sys.stderr, flush=True)

    atexit.register(report)  # registered first, so it runs after the other exit hooks
    sys.argv = ["omensim", "run", *argv]
    console()


def timeline(games: str, mix: str, extra: list[str]) -> dict[str, float]:
    """One ``omensim run`` in a child process: its marks, and ``total`` (launch to gone)."""
    from bench_engine import child_env  # the parent only: the child times its own imports

    with tempfile.TemporaryDirectory() as tmp:
        argv = ["--games", games, "--mix", mix, "--seed", "1", "--out", str(Path(tmp) / "run")]
        launched = time.time()
        proc = subprocess.run(
            [sys.executable, __file__, CHILD_FLAG, repr(launched), *argv, *extra],
            capture_output=True,
            text=True,
            env=child_env(),
        )
        total = time.time() - launched
    lines = [x for x in proc.stderr.splitlines() if x.startswith(REPORT_PREFIX)]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"Error: omensim run failed: {proc.stderr.strip()[-500:]}")
    marks = json.loads(lines[-1][len(REPORT_PREFIX) :])
    marks["total"] = total
    return marks


def summary(m: dict[str, float]) -> dict[str, float]:
    """The figures printed for one run (seconds; CPU in core-seconds)."""
    play = m["last"] - m["first"]
    cpu_play = m["last_cpu"] - m["first_cpu"]
    main_play = m["last_main_cpu"] - m["first_main_cpu"]
    kernel = m["last_kernel_cpu"] - m["first_kernel_cpu"]
    return {
        "total": m["total"],
        "start": m["first"],
        "play": play,
        "end": m["total"] - m["last"],
        "shutdown": m["total"] - m["exit_hooks"],
        "kernel CPU in play": kernel,
        "main CPU in play": main_play,
        "other CPU in play": max(cpu_play - kernel - main_play, 0.0),
        "unused cores in play": max(m["cores"] * play - cpu_play, 0.0),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Timeline of one omensim run (prints).")
    parser.add_argument("--games", default="1e6", help="games per run (default 1e6)")
    parser.add_argument("--mix", default="dunes+aegean", help="card mix (default dunes+aegean)")
    parser.add_argument("--repeats", type=positive_int, default=3, help="runs (default 3)")
    args, extra = parser.parse_known_args(argv)
    rows = [summary(timeline(args.games, args.mix, extra)) for _ in range(args.repeats)]
    names = list(rows[0])
    print(f"omensim run --games {args.games} --mix {args.mix}: {args.repeats} runs, seconds")
    print(f"{'':22s}" + "".join(f"{f'run {i + 1}':>9s}" for i in range(len(rows))))
    for name in names:
        print(f"{name:22s}" + "".join(f"{r[name]:9.2f}" for r in rows))
    print(
        "CPU in core-seconds; unused cores = "
        "cores x play - CPU in play. On 2 cores, CPU beside the kernel threads costs about "
        "half its seconds of wall time."
    )
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == CHILD_FLAG:
        child(float(sys.argv[2]), sys.argv[3:])
    else:
        sys.exit(main())
