#!/usr/bin/env python
"""DuckDB or pyarrow for the report's out-of-core aggregates: time and peak RSS, measured.

    python benchmarks/bench_scan.py --games 1e6            # plays a random-bot run first
    python benchmarks/bench_scan.py --run results/big      # or scans an existing run

Over the same run directory, each way computes the same aggregates the report
needs (first-player wins by first seat, mean scores, per-card "held" counts with
each kind counted once per player-game) in a fresh subprocess, so its peak RSS
(``os.wait4``, largest process) is its own:

* ``pyarrow.dataset``: one scanner over the directory, column projection,
  numpy on each record batch;
* ``ParquetFile.iter_batches``: what ``sim.analysis.streaming`` ships (part by
  part, in game order), computing the full ``run_totals`` (more than the three
  aggregates, so it is an upper bound);
* ``duckdb``: three SQL queries over ``read_parquet('DIR/part-*.parquet')``
  (``pip install -e '.[duckdb]'``), with its default and with a 256 MB
  ``memory_limit``.

Each child prints its answers; the table says whether all ways agree. Never asserts.
The host is shared with other work: prefer the ratios within one run.
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

from bench_engine import positive_int  # a sibling script

ROOT = Path(__file__).resolve().parents[1]

ARROW = r"""
import sys, json, numpy as np, pyarrow.compute as pc, pyarrow.dataset as ds
def played_kinds(lists):  # sim.analysis.streaming.played_kinds, as a bitmap: no pandas import
    kinds = pc.list_flatten(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    if len(kinds) == 0:
        return kinds, kinds
    rows = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    seen = np.zeros((len(lists), int(kinds.max()) + 1), np.bool_)  # held twice counts once
    seen[rows, kinds] = True
    return np.nonzero(seen)
d = ds.dataset(sys.argv[1], format="parquet")   # skips _manifest.json and _cards.parquet
cols = ["winner", "first_player", "score_p0", "score_p1", "held_p0", "held_p1"]
games = 0; wins = np.zeros(2, np.int64); firsts = np.zeros(2, np.int64); score = np.zeros(2)
held = np.zeros(0, np.int64)
for b in d.to_batches(columns=cols, batch_size=1 << 16):
    w = b.column("winner").to_numpy(zero_copy_only=False)
    f = b.column("first_player").to_numpy(zero_copy_only=False)
    games += len(w)
    firsts += np.bincount(f, minlength=2)
    wins += np.bincount(f[w == f], minlength=2)
    score += [b.column(f"score_p{s}").to_numpy(zero_copy_only=False).sum() for s in (0, 1)]
    for s in (0, 1):
        _, kinds = played_kinds(b.column(f"held_p{s}"))
        c = np.bincount(kinds)
        held = np.pad(held, (0, max(0, len(c) - len(held))))
        held[: len(c)] += c
print(json.dumps({"games": games, "first_wins_by_seat": wins.tolist(), "firsts": firsts.tolist(),
                  "score_mean": [round(x / games, 9) for x in score],
                  "held": held.tolist()}))
"""

IMPORTS = r"""
import json, numpy, pyarrow.dataset
print(json.dumps({}))
"""

STREAMING = r"""
import sys, json, numpy as np
from sim.analysis.streaming import run_totals
t = run_totals(sys.argv[1])
print(json.dumps({"games": int(t.games)}))
"""

DUCKDB = r"""
import sys, json, duckdb
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")  # it draws on stdout
if len(sys.argv) > 2:
    con.execute(f"SET memory_limit='{sys.argv[2]}'")
con.execute("SET threads TO 2")
src = f"read_parquet('{sys.argv[1]}/part-*.parquet')"
rows = con.execute(f"SELECT first_player, count(*), sum((winner = first_player)::INT) "
                   f"FROM {src} GROUP BY 1 ORDER BY 1").fetchall()
games, s0, s1 = con.execute(f"SELECT count(*), avg(score_p0), avg(score_p1) FROM {src}").fetchone()
held = dict(con.execute(
    f"SELECT k, count(*) FROM (SELECT unnest(list_distinct(held_p0)) AS k FROM {src} "
    f"UNION ALL SELECT unnest(list_distinct(held_p1)) AS k FROM {src}) GROUP BY k").fetchall())
n = max(held) + 1 if held else 0
wins = [0, 0]; firsts = [0, 0]
for seat, cnt, won in rows:
    firsts[seat] = cnt; wins[seat] = int(won)
print(json.dumps({"games": games, "first_wins_by_seat": wins, "firsts": firsts,
                  "score_mean": [round(s0, 9), round(s1, 9)],
                  "held": [held.get(k, 0) for k in range(n)]}))
"""


def games_arg(text: str) -> int:
    return int(float(text))


def child(code: str, *args: str) -> tuple[float, float, dict]:
    """(seconds, peak RSS MB, printed JSON) of ``python -c code args``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args], env=env, stdout=subprocess.PIPE, text=True
    )
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {code[:60]!r}")
    return seconds, usage.ru_maxrss / 1024, json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=games_arg, default=1_000_000)
    ap.add_argument("--run", type=Path, default=None, help="scan this run instead of playing one")
    ap.add_argument(
        "--repeat", type=positive_int, default=2, help="runs of each way (best time is shown)"
    )
    args = ap.parse_args()
    tmp = None
    run = args.run
    if run is None:
        tmp = tempfile.TemporaryDirectory()
        run = Path(tmp.name) / "run"
        cmd = [sys.executable, "-m", "sim.cli", "run", "--games", str(args.games)]
        cmd += ["--p0", "random", "--p1", "random", "--out", str(run), "-q"]
        subprocess.run(cmd, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    size = sum(p.stat().st_size for p in run.glob("part-*.parquet")) / 2**20
    print(f"# bench_scan on {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}: {run}")
    print(f"# {len(list(run.glob('part-*.parquet')))} parts, {size:,.0f} MB of Parquet")
    print("| way | seconds (best) | peak RSS MB (max) | agrees |\n| --- | --- | --- | --- |")
    ways = [
        ("imports only (python, numpy, pyarrow)", IMPORTS, ()),
        ("pyarrow.dataset scanner", ARROW, ()),
        ("ParquetFile.iter_batches (shipped run_totals)", STREAMING, ()),
    ]
    try:
        import duckdb  # noqa: F401

        ways += [("duckdb", DUCKDB, ()), ("duckdb, memory_limit 256MB", DUCKDB, ("256MB",))]
    except ImportError:
        print("(duckdb not installed: pip install -e '.[duckdb]')")
    reference = None
    for label, code, extra in ways:
        runs = [child(code, str(run), *extra) for _ in range(args.repeat)]
        seconds = min(r[0] for r in runs)
        mb = max(r[1] for r in runs)
        answer = runs[0][2]
        if reference is None and "held" in answer:
            reference = answer
        if "held" in answer:
            same = "yes" if answer == reference else f"NO: {answer} vs {reference}"
        elif "games" in answer and reference is not None:
            same = "yes (games)" if answer["games"] == reference["games"] else "NO"
        else:
            same = "-"
        print(f"| {label} | {seconds:.2f} | {mb:,.0f} | {same} |", flush=True)
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
