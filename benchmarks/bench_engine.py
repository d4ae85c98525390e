#!/usr/bin/env python
"""How fast omensim plays: JIT start-up, kernel games/s, end-to-end runs.

    python benchmarks/bench_engine.py [--games N] [--mix aegean] [--quick]
                                      [--cold] [--check] [--record] [--trace-cost]

Every figure is for greedy vs greedy on one mix (``aegean`` by default) with a
fixed seed, except the random-vs-random reference line. Timed loops get an
untimed warm-up first and report the best of ``--repeats`` runs.

The script prints figures and never asserts anything about speed: a slow
machine gets slow numbers, not a failure. The only thing that can fail is
``--check`` (1-thread and all-core kernel output differ), which is a
correctness bug, not a timing.

With ``--record`` it appends one CSV row per measured figure to
``benchmarks/results.csv`` (committed, as a history of the numbers). See
``benchmarks/README.md`` for what each figure means.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import math
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.run.engine import Engine

ROOT = Path(__file__).resolve().parents[1]
RESULTS_CSV = ROOT / "benchmarks" / "results.csv"
CSV_COLUMNS = [
    "date",
    "commit",
    "machine",
    "benchmark",
    "mix",
    "games",
    "seconds",
    "games_per_s",
    "peak_rss_mb",
    "command",
]
# Source whose changes make a recorded figure "+dirty" (benchmarks/ itself does not).
CODE_PATHS = ["sim", "strategies", "configs", "pyproject.toml"]

GAMES = 100_000  # per kernel / end-to-end figure
QUICK_GAMES = 20_000
CLI_GAMES = 1_000_000
QUICK_CLI_GAMES = 100_000
WARMUP_GAMES = 5_000  # untimed, before each timed kernel loop
SAME_GAMES_STEP = 65_536  # games per kernel call when timing the whole command's games
STARTUP_REPEATS = 3
SEED = 1
REFERENCE_GAMES = 200_000  # per reference-loop measurement (it is much faster than the kernel)
EFFICIENCY_MIXES = ("aegean", "dunes+aegean", "reign")
# The project's speed targets, printed beside the measured ratios (never asserted).
TARGET_KERNEL_RATIO = 0.30
TARGET_EFFICIENCY = 0.90
TARGET_END_TO_END = 1.25
TARGET_END_TO_END_S = 15.0
TARGET_COLD_S = 12.0
TARGET_RSS_MB = 300.0
TARGET_RSS_FLAT = 0.10

# Run in a fresh interpreter: import the engine, compile the cards, play the first 2 games.
_STARTUP_CHILD = """\
import json, sys, time
t0 = time.perf_counter()
from sim.run.engine import Engine
from sim.data.spec import RunSpec
t1 = time.perf_counter()
Engine(RunSpec(games=2, mix=sys.argv[1], seed=int(sys.argv[2]))).warmup()
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "total_s": t2 - t0}))
"""

sys.path.insert(0, str(ROOT))  # `python benchmarks/bench_engine.py` without an install


@dataclass(frozen=True)
class Figure:
    """One measured number: a row of the table and of the CSV."""

    benchmark: str
    label: str
    threads: int | None
    games: int
    seconds: float
    peak_rss_mb: float | None = None
    rate: bool = True
    """False for start-up figures, where games/s means nothing."""

    @property
    def games_per_s(self) -> float | None:
        if not self.rate:
            return None
        return self.games / self.seconds if self.seconds > 0 else math.inf


@dataclass(frozen=True)
class ChildRun:
    seconds: float
    stdout: str
    stderr: str
    returncode: int
    peak_rss_mb: float | None


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def parse_games(text: str) -> int:
    """``100000``, ``100_000`` or ``1e5``."""
    try:
        value = Decimal(text.replace("_", ""))
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"not a number of games: {text!r}") from None
    if value != value.to_integral_value() or value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}")
    return int(value)


def _whole_number(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be {least} or more, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a whole number of 1 or more (repeats, tasks, rows)."""
    return _whole_number(text, 1)


def count_int(text: str) -> int:
    """An argparse type: a whole number of 0 or more (games of a part a run may leave out)."""
    return _whole_number(text, 0)


def child_env(**extra: str) -> dict[str, str]:
    """This process's environment for a child run, with this tree first on its path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


# Spawns argv[2:] and writes its exit code and ru_maxrss (os.wait4) to the file argv[1].
_LAUNCHER = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""


def run_child(cmd: list[str], env: dict[str, str]) -> ChildRun:
    """Run ``cmd`` to the end; wall time and that child's own peak RSS (via wait4).

    ``os.wait4`` gives the rusage of exactly this child, unlike
    ``getrusage(RUSAGE_CHILDREN)``, which is the maximum over every child so far
    (e.g. a cold compile run earlier in this script). On Linux a child's
    ``ru_maxrss`` also starts at its parent's RSS when it was forked (the
    pre-``exec`` copy counts), and this benchmark's process is larger than the
    command by the time it runs it (it would print its own peak, not the
    command's): so the command is started by a small launcher interpreter whose
    own child it is, and the launcher reports its ``wait4``. The launcher's
    start-up is inside the wall time.
    """
    with (
        tempfile.TemporaryFile("w+") as out,
        tempfile.TemporaryFile("w+") as err,
        tempfile.TemporaryDirectory(prefix="omensim-bench-") as tmp,
    ):
        report = Path(tmp) / "rusage"
        launcher = [sys.executable, "-c", _LAUNCHER, str(report)]
        t0 = time.perf_counter()
        proc = subprocess.Popen([*launcher, *cmd], env=env, cwd=ROOT, stdout=out, stderr=err)
        proc.wait()
        seconds = time.perf_counter() - t0
        peak: float | None = None
        returncode = proc.returncode
        if report.exists():
            code, maxrss = report.read_text().split()
            returncode = int(code)
            # ru_maxrss is KiB on Linux, bytes on macOS.
            peak = int(maxrss) / (2**20 if sys.platform == "darwin" else 1024)
        out.seek(0)
        err.seek(0)
        return ChildRun(seconds, out.read(), err.read(), returncode, peak)


def checked(run: ChildRun, what: str) -> ChildRun:
    if run.returncode != 0:
        sys.exit(f"Error: {what} exited with status {run.returncode}:\n{run.stderr.strip()}")
    return run


def startup_child(mix: str, env: dict[str, str]) -> tuple[float, float | None]:
    """(seconds to import + compile cards + play 2 games, peak RSS MB) in a fresh interpreter."""
    run = checked(
        run_child([sys.executable, "-c", _STARTUP_CHILD, mix, str(SEED)], env), "start-up child"
    )
    return json.loads(run.stdout.strip().splitlines()[-1])["total_s"], run.peak_rss_mb


def bench_warm_start(mix: str) -> Figure:
    env = child_env()
    startup_child(mix, env)  # the previous step: populate the on-disk JIT cache
    best = min((startup_child(mix, env) for _ in range(STARTUP_REPEATS)), key=lambda r: r[0])
    return Figure(
        "jit_warm_start", "JIT warm start (cached)", None, 2, best[0], best[1], rate=False
    )


def bench_cold_compile(mix: str) -> Figure:
    with tempfile.TemporaryDirectory(prefix="omensim-numba-cache-") as cache:
        seconds, peak = startup_child(mix, child_env(NUMBA_CACHE_DIR=cache))
    label = "JIT cold compile (empty cache)"
    return Figure("jit_cold_compile", label, None, 2, seconds, peak, rate=False)


@contextlib.contextmanager
def numba_threads(n: int) -> Iterator[None]:
    import numba

    previous = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def make_engine(
    mix: str, games: int, p0: str = "greedy", p1: str = "greedy", duplicate: bool = False
) -> Engine:
    from sim.data.spec import RunSpec
    from sim.run.engine import Engine

    spec = RunSpec(games=games, mix=mix, seed=SEED, p0=p0, p1=p1, duplicate=duplicate)
    engine = Engine(spec)
    engine.warmup(linked=True)  # the build every run after a first one plays
    return engine


def check_thread_invariance(engine: Engine, games: int, all_threads: int) -> bool:
    """True when 1 thread and all cores produce identical kernel arrays for the same games."""
    import numpy as np

    with numba_threads(1):
        one = engine.play_raw(0, games)
    with numba_threads(all_threads):
        many = engine.play_raw(0, games)
    return all(np.array_equal(a, b) for a, b in zip(one, many, strict=True))


def time_kernel(engine: Engine, games: int, threads: int, repeats: int) -> float:
    """Best wall time of ``engine.play_raw(0, games)`` on ``threads`` threads."""
    return time_kernel_turns(engine, games, threads, repeats)[0]


def time_kernel_turns(
    engine: Engine, games: int, threads: int, repeats: int
) -> tuple[float, float]:
    """(best wall time, mean turns per game) of ``engine.play_raw(0, games)``."""
    from sim.base import layout as L

    with numba_threads(threads):
        engine.play_raw(0, min(games, WARMUP_GAMES))  # untimed: start the thread pool
        best = math.inf
        turns = 0.0
        for _ in range(repeats):
            t0 = time.perf_counter()
            out, _ = engine.play_raw(0, games)
            best = min(best, time.perf_counter() - t0)
            turns = float(out[:, L.O_TURNS].mean())
    return best, turns


def time_same_games(engine: Engine, games: int, threads: int) -> float:
    """Wall time of one pass over games ``0 .. games-1`` on ``threads`` threads: the
    kernel-only time of the games a whole ``omensim run --games games`` plays (the
    Parquet, the Arrow and the process left out).

    Calls of ``SAME_GAMES_STEP`` games are kept queued two deep, as a run keeps
    them (``Engine.play_groups``), so no thread waits at the end of a call; blocking
    calls would leave one thread idle behind each call's last block and flatter
    the ratio by a few percent.
    """
    from collections import deque

    with numba_threads(threads):
        engine.play_raw(0, min(games, WARMUP_GAMES))  # untimed: start the thread pool
        t0 = time.perf_counter()
        flight = deque()
        for start in range(0, games, SAME_GAMES_STEP):
            flight.append(engine.start_raw(start, min(SAME_GAMES_STEP, games - start)))
            if len(flight) > 1:
                flight.popleft().result()
        while flight:
            flight.popleft().result()
        return time.perf_counter() - t0


def reference(threads: int, games: int, repeats: int) -> tuple[float, float]:
    """(games/s, mean turns) of the yardstick (``benchmarks/reference_loop.py``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import reference_loop

    with numba_threads(threads):
        best = 0.0
        turns = 0.0
        for _ in range(max(1, repeats - 1)):
            gps, turns = reference_loop.measure(threads, games)
            best = max(best, gps)
    return best, turns


def bench_end_to_end(mix: str, games: int, repeats: int) -> Figure:
    """Best ``RunResult.seconds`` of ``runner.run`` on all cores: play + Parquet, no setup."""
    from sim.data.spec import RunSpec
    from sim.run import runner

    spec = RunSpec(games=games, mix=mix, seed=SEED)
    best = math.inf
    threads = 0
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="omensim-bench-") as tmp:
            result = runner.run(spec, Path(tmp) / "run", threads=None, progress=False)
        best = min(best, result.seconds)
        threads = result.threads
    return Figure("end_to_end_parquet", "runner.run + Parquet", threads, games, best)


def bench_cli(
    mix: str, games: int, all_threads: int, duplicate: bool = False, benchmark: str = "cli_run"
) -> Figure:
    exe = shutil.which("omensim")
    base = [exe] if exe else [sys.executable, "-m", "sim.cli"]
    with tempfile.TemporaryDirectory(prefix="omensim-bench-") as tmp:
        cmd = [*base, "run", "--games", str(games), "--mix", mix, "--seed", str(SEED)]
        cmd += ["--out", str(Path(tmp) / "run"), "--quiet"]
        cmd += ["--duplicate"] if duplicate else []
        log(f"  $ {' '.join(['omensim', *cmd[len(base) :]])}")
        run = checked(run_child(cmd, child_env()), "omensim run")
    return Figure(
        "cli_run_duplicate" if duplicate else benchmark,
        f"omensim run --duplicate --games {games:,} (whole command)"
        if duplicate
        else f"omensim run --games {games:,} (whole command)",
        all_threads,
        games,
        run.seconds,
        run.peak_rss_mb,
    )


def git_commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", *CODE_PATHS)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def machine(all_threads: int) -> str:
    nproc = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    text = f"nproc={nproc} {platform.platform()}"
    if all_threads != nproc:
        text += f" numba_threads={all_threads}"
    return text


def load_average() -> str:
    """The 1-minute load average, or "n/a" where the OS has none."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        return "n/a"


def text_table(rows: list[list[str]]) -> list[str]:
    """``rows`` (the first a header) as aligned lines: the first column left, the rest right,
    a rule of dashes under the header."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _num(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def table(figures: list[Figure]) -> str:
    header = ["benchmark", "threads", "games", "seconds", "games/s", "peak RSS MB"]
    rows = [header] + [
        [
            f.label,
            "-" if f.threads is None else str(f.threads),
            f"{f.games:,}",
            f"{f.seconds:.2f}",
            _num(f.games_per_s, ",.0f"),
            _num(f.peak_rss_mb, ",.0f"),
        ]
        for f in figures
    ]
    return "\n".join(text_table(rows))


def ratio_table(
    *,
    mix: str,
    threads: int,
    kernel_gps: float,
    kernel_turns: float,
    ref: tuple[float, float],
    ref_one: tuple[float, float],
    efficiency: dict[str, float],
    end_to_end: float,
    end_to_end_s: float,
    cli_games: int,
    cold_s: float | None,
    rss: tuple[float | None, float | None],
) -> str:
    """The project's speed targets as ratios measured in this run, each beside its target."""

    def row(what: str, value: str, target: str, met: bool | None) -> list[str]:
        return [what, value, target, "-" if met is None else ("yes" if met else "NO")]

    ref_gps, ref_turns = ref
    g_ratio = kernel_gps / ref_gps
    t_ratio = kernel_gps * kernel_turns / (ref_gps * ref_turns)
    rows = [
        ["ratio (measured in this run)", "value", "target", "met"],
        row(
            f"kernel games/s / reference games/s ({threads} threads)",
            f"{g_ratio:.3f}",
            f">= {TARGET_KERNEL_RATIO:.2f}",
            g_ratio >= TARGET_KERNEL_RATIO,
        ),
        row(
            f"kernel turns/s / reference turns/s ({kernel_turns:.1f} vs {ref_turns:.1f} turns)",
            f"{t_ratio:.3f}",
            "-",
            None,
        ),
        row(
            "reference loop parallel efficiency",
            f"{ref_gps / ref_one[0] / threads:.2f}",
            "-",
            None,
        ),
    ]
    for name, eff in efficiency.items():
        rows.append(
            row(
                f"parallel efficiency, {name}",
                f"{eff:.2f}",
                f">= {TARGET_EFFICIENCY:.2f}",
                eff >= TARGET_EFFICIENCY,
            )
        )
    rows.append(
        row(
            "omensim run / kernel-only time, same games",
            f"{end_to_end:.2f}",
            f"<= {TARGET_END_TO_END:.2f}",
            end_to_end <= TARGET_END_TO_END,
        )
    )
    rows.append(
        row(
            f"omensim run --games {cli_games:,}, s (quiet host)",
            f"{end_to_end_s:.1f}",
            f"<= {TARGET_END_TO_END_S:.0f} at 1e6",
            end_to_end_s <= TARGET_END_TO_END_S if cli_games == 1_000_000 else None,
        )
    )
    if cold_s is not None:
        rows.append(
            row("cold compile, s (quiet host)", f"{cold_s:.0f}", f"<= {TARGET_COLD_S:.0f}", None)
        )
    big, small = rss
    if big is not None:
        rows.append(
            row(
                "peak RSS of omensim run, MB",
                f"{big:.0f}",
                f"<= {TARGET_RSS_MB:.0f}",
                big <= TARGET_RSS_MB,
            )
        )
    if big is not None and small is not None:
        growth = big / small - 1.0
        rows.append(
            row(
                "peak RSS growth, --cli-games over --flat-games run",
                f"{growth:+.1%}",
                f"<= {TARGET_RSS_FLAT:.0%}",
                abs(growth) <= TARGET_RSS_FLAT,
            )
        )
    lines = text_table(rows)
    lines.append(f"{mix}, greedy vs greedy; reference: {ref_gps:,.0f} games/s on {threads} threads")
    return "\n".join(lines)


def command_line() -> str:
    """The command that is measuring, as a reader would type it again."""
    return shlex.join(["python", f"benchmarks/{Path(sys.argv[0]).name}", *sys.argv[1:]])


def append_rows(rows: list[list[object]]) -> None:
    """Append rows (every column but the command) to results.csv, each with this command."""
    new = not RESULTS_CSV.exists() or RESULTS_CSV.stat().st_size == 0
    command = command_line()
    with RESULTS_CSV.open("a", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        if new:
            writer.writerow(CSV_COLUMNS)
        writer.writerows([*row, command] for row in rows)


def record(figures: list[Figure], mix: str, commit: str, where: str) -> None:
    date = datetime.now(UTC).isoformat(timespec="seconds")
    append_rows(
        [
            [
                date,
                commit,
                where,
                f.benchmark,
                mix,
                f.games,
                f"{f.seconds:.4f}",
                "" if f.games_per_s is None else f"{f.games_per_s:.1f}",
                "" if f.peak_rss_mb is None else f"{f.peak_rss_mb:.1f}",
            ]
            for f in figures
        ]
    )


# Run in a fresh interpreter: the kernel's games/s and the reference loop's, in that process.
_TRACE_COST_CHILD = """\
import json, sys
sys.path.insert(0, sys.argv[4])
import bench_engine as b
engine = b.make_engine(sys.argv[1], int(sys.argv[2]))
threads = int(sys.argv[5])
seconds = b.time_kernel(engine, int(sys.argv[2]), threads, int(sys.argv[3]))
ref, _ = b.reference(threads, b.REFERENCE_GAMES, int(sys.argv[3]))
print(json.dumps({"kernel_gps": int(sys.argv[2]) / seconds, "ref_gps": ref}))
"""


def bench_trace_cost(mix: str, games: int, repeats: int, threads: int, rounds: int = 3) -> str:
    """The kernel's ratio to the reference loop with the trace hooks compiled in
    (``OMENSIM_TRACE_HOOKS=1``, as a replay's process has them, trace mode off) and without
    them (as in every run), each measured against its own reference loop in its own child
    process (numba's cache keeps the two builds apart).

    The two kinds of child take turns, ``rounds`` times, and each kind keeps its best
    ratio: on a shared host the load moves between children far more than the hooks do.
    """
    from sim.compiler.mode import HOOKS_ENV

    kinds = ("with the hooks (trace off)", "hooks compiled out")
    best = {k: (0.0, 0.0, 0.0) for k in kinds}
    table_rows = [["child", "games/s", "reference games/s", "ratio"]]
    envs = {kinds[0]: {HOOKS_ENV: "1"}, kinds[1]: {HOOKS_ENV: "0"}}
    for r in range(rounds):
        for label in kinds:
            log(f"trace cost, round {r + 1}/{rounds}: {label}, {games:,} games ...")
            cmd = [sys.executable, "-c", _TRACE_COST_CHILD, mix, str(games), str(repeats)]
            cmd += [str(Path(__file__).resolve().parent), str(threads)]
            run = checked(run_child(cmd, child_env(**envs[label])), f"trace-cost ({label})")
            got = json.loads(run.stdout.strip().splitlines()[-1])
            gps, ref = got["kernel_gps"], got["ref_gps"]
            table_rows.append([f"{label}, round {r + 1}", f"{gps:,.0f}", f"{ref:,.0f}"])
            table_rows[-1].append(f"{gps / ref:.3f}")
            if gps / ref > best[label][2]:
                best[label] = (gps, ref, gps / ref)
    lines = text_table(table_rows)
    with_hooks, without = best[kinds[0]][2], best[kinds[1]][2]
    lines.append(
        f"{mix}, greedy vs greedy; best ratio with the hooks {with_hooks:.3f}, without "
        f"{without:.3f}: with / without = {with_hooks / without:.3f} "
        f"({threads} threads, best of {repeats} per child; load average {load_average()})"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Benchmark the omensim engine (prints figures; never fails on speed).",
    )
    parser.add_argument(
        "--games",
        type=parse_games,
        metavar="N",
        default=None,
        help=f"games per kernel and end-to-end figure (default {GAMES:,}; "
        f"{QUICK_GAMES:,} with --quick); 1e5 and 100_000 work",
    )
    parser.add_argument("--mix", default="aegean", help="card mix (default: aegean)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"fewer games: {QUICK_GAMES:,} per figure and {QUICK_CLI_GAMES:,} for the CLI run",
    )
    parser.add_argument(
        "--cli-games",
        type=parse_games,
        metavar="N",
        default=None,
        help=f"games for the whole-command figure (default {CLI_GAMES:,}; "
        f"{QUICK_CLI_GAMES:,} with --quick)",
    )
    parser.add_argument(
        "--repeats",
        type=positive_int,
        default=3,
        metavar="R",
        help="timed repeats, best kept (default 3)",
    )
    parser.add_argument(
        "--cold", action="store_true", help="also time a JIT compile into an empty cache"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="before timing, check that 1 thread and all cores give identical kernel output",
    )
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="also time seat-swapped duplicate deals (kernel and whole command) "
        "and print their cost per game relative to a plain run",
    )
    parser.add_argument(
        "--efficiency-mixes",
        default=",".join(EFFICIENCY_MIXES),
        metavar="MIXES",
        help="comma-separated mixes whose 2-core parallel efficiency is printed "
        f"(default {','.join(EFFICIENCY_MIXES)}; empty: only --mix)",
    )
    parser.add_argument(
        "--flat-games",
        type=parse_games,
        metavar="N",
        default=None,
        help="games of a second whole-command run whose peak RSS is compared with the "
        "--cli-games run (default: a tenth of --cli-games); flat memory means equal",
    )
    parser.add_argument(
        "--record", action="store_true", help=f"append the figures to {RESULTS_CSV.name}"
    )
    parser.add_argument(
        "--trace-cost",
        action="store_true",
        help="only measure what the kernel's trace hooks cost a run: the kernel's ratio to "
        "the reference loop with the hooks and with them compiled out, in one run",
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    games = args.games or (QUICK_GAMES if args.quick else GAMES)
    cli_games = args.cli_games or (QUICK_CLI_GAMES if args.quick else CLI_GAMES)
    mix = args.mix

    import numba

    all_threads = int(numba.config.NUMBA_NUM_THREADS)
    if args.trace_cost:
        print(bench_trace_cost(mix, games, args.repeats, all_threads))
        return 0
    load = load_average()
    figures: list[Figure] = []

    log("JIT warm start: populating the cache, then timing fresh interpreters ...")
    figures.append(bench_warm_start(mix))
    if args.cold:
        log("JIT cold compile into an empty NUMBA_CACHE_DIR ...")
        figures.append(bench_cold_compile(mix))

    greedy = make_engine(mix, games)
    if args.check:
        log(f"check: 1 thread vs {all_threads} threads on {games:,} games ...")
        if not check_thread_invariance(greedy, games, all_threads):
            log(f"Error: kernel output on 1 thread differs from {all_threads} threads")
            return 1
        log("check: identical")

    log(f"reference loop (benchmarks/reference_loop.py), 1 and {all_threads} threads ...")
    ref_one = reference(1, REFERENCE_GAMES, args.repeats)
    ref_many = reference(all_threads, REFERENCE_GAMES, args.repeats)
    for threads, (gps, _) in ((1, ref_one), (all_threads, ref_many)):
        name = "reference_1_thread" if threads == 1 else "reference_all_cores"
        label = f"reference loop, {threads} thread{'s' if threads > 1 else ''}"
        figures.append(Figure(name, label, threads, REFERENCE_GAMES, REFERENCE_GAMES / gps))
    log(f"kernel, greedy vs greedy, 1 thread, {games:,} games x {args.repeats} ...")
    one, turns = time_kernel_turns(greedy, games, 1, args.repeats)
    figures.append(Figure("kernel_1_thread", "kernel, 1 thread", 1, games, one))
    log(f"kernel, greedy vs greedy, {all_threads} threads ...")
    many, _ = time_kernel_turns(greedy, games, all_threads, args.repeats)
    figures.append(Figure("kernel_all_cores", "kernel, all cores", all_threads, games, many))
    del greedy
    efficiency = {mix: one / many / all_threads}
    for other in filter(None, (m.strip() for m in args.efficiency_mixes.split(","))):
        if other in efficiency:
            continue
        log(f"parallel efficiency, {other}, 1 and {all_threads} threads ...")
        engine = make_engine(other, games)
        t1 = time_kernel(engine, games, 1, args.repeats)
        efficiency[other] = t1 / time_kernel(engine, games, all_threads, args.repeats) / all_threads
        del engine
    dup = None
    if args.duplicate:
        log(f"kernel, greedy vs greedy, --duplicate, {all_threads} threads ...")
        dup = time_kernel(make_engine(mix, games, duplicate=True), games, all_threads, args.repeats)
        figures.append(
            Figure(
                "kernel_all_cores_duplicate",
                "kernel, all cores, --duplicate",
                all_threads,
                games,
                dup,
            )
        )

    log("kernel, random vs random, all cores ...")
    rand = make_engine(mix, games, "random", "random")
    seconds = time_kernel(rand, games, all_threads, args.repeats)
    figures.append(
        Figure(
            "kernel_all_cores_random",
            "kernel, all cores, random vs random (reference)",
            all_threads,
            games,
            seconds,
        )
    )
    del rand

    log(f"end to end: runner.run into a temp dir, {games:,} games x {args.repeats} ...")
    figures.append(bench_end_to_end(mix, games, args.repeats))
    # Target 3 compares the whole command with the kernel-only time of the *same* games,
    # timed just before and just after it (a host's slow spell moves both alike); a
    # best-of-N short kernel row scaled up would leave out the spells any long run meets.
    same_engine = make_engine(mix, cli_games)
    log(f"kernel only, the whole command's {cli_games:,} games, {all_threads} threads ...")
    before = time_same_games(same_engine, cli_games, all_threads)
    log(f"whole command, {cli_games:,} games, in a subprocess ...")
    cli = bench_cli(mix, cli_games, all_threads)
    figures.append(cli)
    log(f"kernel only, the same {cli_games:,} games again ...")
    after = time_same_games(same_engine, cli_games, all_threads)
    del same_engine
    same = (before + after) / 2
    figures.append(
        Figure(
            "kernel_cli_games",
            f"kernel only, the command's {cli_games:,} games (mean of before and after)",
            all_threads,
            cli_games,
            same,
        )
    )
    flat_games = args.flat_games or max(1, cli_games // 10)
    log(f"whole command, {flat_games:,} games (memory flatness), in a subprocess ...")
    small = bench_cli(mix, flat_games, all_threads, benchmark="cli_run_small")
    figures.append(small)
    if args.duplicate:
        log(f"whole command with --duplicate, {cli_games:,} games, in a subprocess ...")
        figures.append(bench_cli(mix, cli_games, all_threads, duplicate=True))

    commit = git_commit()
    where = machine(all_threads)
    print()
    print(
        f"omensim {mix}, greedy vs greedy unless noted; seed {SEED}; best of {args.repeats}; "
        f"commit {commit}; {where}; numba {numba.__version__}"
    )
    print(
        f"load average at start {load}, at end {load_average()} "
        "(other work on the machine slows every figure)"
    )
    print(table(figures))
    print(f"speed-up, all cores over 1 thread (kernel, {all_threads} threads): {one / many:.2f}x")
    print()
    cold = next((f.seconds for f in figures if f.benchmark == "jit_cold_compile"), None)
    print(
        ratio_table(
            mix=mix,
            threads=all_threads,
            kernel_gps=games / many,
            kernel_turns=turns,
            ref=ref_many,
            ref_one=ref_one,
            efficiency=efficiency,
            end_to_end=cli.seconds / same,
            end_to_end_s=cli.seconds,
            cli_games=cli_games,
            cold_s=cold,
            rss=(cli.peak_rss_mb, small.peak_rss_mb),
        )
    )
    if dup is not None:
        print(f"--duplicate time per game over a plain run (kernel, all cores): {dup / many:.2f}x")
    if args.record:
        record(figures, mix, commit, where)
        print(f"appended {len(figures)} rows to {RESULTS_CSV.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
