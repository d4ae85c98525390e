#!/usr/bin/env python
"""How omensim scales past one process: Dask workers, per-task overhead, flat memory.

    python benchmarks/bench_scale.py                       # the defaults below (the longest)
    python benchmarks/bench_scale.py --scale-games 2e4 --rss-games 1e5,1e6 --workers 1,2,4
    python benchmarks/bench_scale.py --skip scale,overhead --rss-games 1e8 \
        --rss-backends dask --rss-dir /big/disk                # the 1e8 measurement (hours)

Prints (and never asserts on) four tables:

0. **projection**: games/s of ``--project-games`` random-vs-random games on the
   local backend and the hours ``--project-to`` (1e8) games would take; run it
   before starting a 1e8 measurement.
1. **games/s by worker processes**: ``runner.run`` of ``--scale-games`` greedy
   games on a ``LocalCluster`` of 1, 2, 4 worker processes (one Dask thread
   each, ``cores / workers`` numba threads each, at least 1), after an untimed
   warm-up run on the same cluster so every worker has built and canary-checked
   its engine; beside it the local threaded backend. ``RunResult.seconds``
   (play + write, not set-up) is the time.
2. **per-task overhead**: ``--tasks`` chunks of one random-vs-random game on a
   2-worker cluster; seconds per task is an upper bound of the scheduling and
   result round trip (the game itself takes well under a millisecond).
3. **peak RSS**: ``omensim run`` (random bots, chunk 65,536) in fresh
   subprocesses at each of ``--rss-games`` on each of ``--rss-backends``, then
   ``omensim report`` of the last run, plus (up to ``--pandas-max`` games) the
   run's rows loaded whole in pandas (``load_runs``) for comparison. RSS is the largest
   resident set of any one process of the command's tree, from ``os.wait4``.

The host is shared with other work: prefer the ratios within one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_engine import positive_int

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def games_arg(text: str) -> int:
    return int(float(text))


def child_rss(args: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS MB) of a subprocess (largest process of its tree)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(args)}")
    return seconds, usage.ru_maxrss / 1024


def scale_table(games: int, chunk: int, workers: list[int]) -> None:
    from sim.data.spec import RunSpec
    from sim.run import runner
    from sim.run.backends import DaskBackend

    spec = RunSpec(games=games, seed=1)
    print(f"\n## games/s by worker processes ({games:,} greedy games, chunk {chunk:,})")
    print("| backend | processes | numba threads each | games/s |\n| --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        r = runner.run(spec, Path(tmp) / "local", chunk_size=chunk, progress=False)
        print(f"| local | 1 | {r.threads} | {r.games_per_s:,.0f} |")
        for n in workers:
            with DaskBackend(workers=n) as be:
                warm = RunSpec(games=2 * n * 8, seed=1)
                runner.run(warm, Path(tmp) / f"warm{n}", chunk_size=8, progress=False, backend=be)
                r = runner.run(
                    spec, Path(tmp) / f"dask{n}", chunk_size=chunk, progress=False, backend=be
                )
                print(f"| dask | {n} | {be.threads} | {r.games_per_s:,.0f} |", flush=True)


def overhead_table(tasks: int) -> None:
    from sim.data.spec import RunSpec
    from sim.run import runner
    from sim.run.backends import DaskBackend

    spec = RunSpec(games=tasks, seed=1, p0="random", p1="random")
    print(f"\n## per-task overhead ({tasks} tasks of 1 random game, 2 workers)")
    with tempfile.TemporaryDirectory() as tmp, DaskBackend(workers=2) as be:
        runner.run(spec, Path(tmp) / "warm", chunk_size=1, progress=False, backend=be)
        r = runner.run(spec, Path(tmp) / "t", chunk_size=1, progress=False, backend=be)
        print(f"{r.seconds / tasks * 1000:.1f} ms per task (each writes a 1-row part)")


def projection_table(games: int, target: int) -> None:
    """games/s of the random bot on the local backend, and the time ``target`` games would take."""
    from sim.data.spec import RunSpec
    from sim.run import runner

    spec = RunSpec(games=games, seed=1, p0="random", p1="random")
    with tempfile.TemporaryDirectory() as tmp:
        r = runner.run(spec, Path(tmp) / "run", progress=False)
    hours = target / r.games_per_s / 3600
    print(f"\n## random bot speed ({games:,} games, local backend, {r.threads} threads)")
    print(f"{r.games_per_s:,.0f} games/s; {target:,} games would take about {hours:.1f} h")
    sys.stdout.flush()


def rss_table(sizes: list[int], backends: list[str], root: Path | None, pandas_max: int) -> None:
    """Peak RSS of `omensim run` per backend and of `omensim report` on the last run, per size.

    The pandas comparison (``load_runs`` then the tables) is skipped above
    ``pandas_max`` games: it loads every row, which is the point of streaming.
    """
    py = sys.executable
    print("\n## peak RSS (random vs random, chunk 65,536)")
    print("| command | games | seconds | peak RSS MB |\n| --- | --- | --- | --- |")
    tmp = Path(tempfile.mkdtemp(dir=root))
    try:
        for n in sizes:
            out = None
            for backend in backends:
                if out is not None:
                    shutil.rmtree(out)
                out = tmp / f"{backend}-{n}"
                run = [py, "-m", "sim.cli", "run", "--games", str(n), "--p0", "random"]
                run += ["--p1", "random", "--out", str(out), "-q", "--backend", backend]
                s, mb = child_rss(run)
                print(f"| omensim run --backend {backend} | {n:,} | {s:.0f} | {mb:,.0f} |")
                sys.stdout.flush()
            assert out is not None
            report = [py, "-m", "sim.cli", "report", str(out), "--out", str(tmp / "r")]
            s, mb = child_rss(report)
            print(f"| omensim report (streaming) | {n:,} | {s:.0f} | {mb:,.0f} |")
            shutil.rmtree(tmp / "r")
            if n <= pandas_max:
                code = "import sys; from sim import analysis as A; A.load_runs([sys.argv[1]])"
                s, mb = child_rss([py, "-c", code, str(out)])
                print(f"| the rows loaded whole (load_runs) | {n:,} | {s:.0f} | {mb:,.0f} |")
            shutil.rmtree(out)
            sys.stdout.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale-games", type=games_arg, default=20_000)
    ap.add_argument("--scale-chunk", type=games_arg, default=1_000)
    ap.add_argument("--workers", default="1,2,4", help="worker processes to time, e.g. 1,2,4")
    ap.add_argument("--tasks", type=positive_int, default=200)
    ap.add_argument("--rss-games", default="1e5,1e6", help="games for the RSS rows, e.g. 1e6,1e8")
    ap.add_argument(
        "--rss-backends", default="local,dask", help="backends of the RSS run rows, e.g. dask"
    )
    ap.add_argument("--rss-dir", type=Path, default=None, help="where the RSS runs are written")
    ap.add_argument(
        "--pandas-max", type=games_arg, default=1_000_000, help="largest run loaded into pandas"
    )
    ap.add_argument("--project-games", type=games_arg, default=100_000)
    ap.add_argument("--project-to", type=games_arg, default=100_000_000)
    ap.add_argument("--skip", default="", help="tables to skip: project,scale,overhead,rss")
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    print(f"# bench_scale on {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    if "project" not in skip:
        projection_table(args.project_games, args.project_to)
    if "scale" not in skip:
        scale_table(args.scale_games, args.scale_chunk, [int(w) for w in args.workers.split(",")])
    if "overhead" not in skip:
        overhead_table(args.tasks)
    if "rss" not in skip:
        sizes = [games_arg(g) for g in args.rss_games.split(",")]
        rss_table(sizes, args.rss_backends.split(","), args.rss_dir, args.pandas_max)


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
