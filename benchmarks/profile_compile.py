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

``--phases`` prints the CPU seconds of each phase of numba's and LLVM's
work instead, and how much IR of linked callees LLVM optimised again.
``--legs`` instead compiles as a first run does (``Engine.ready``), on two
cores (this process and the child of ``sim/compiler/ahead.py``), and prints
the wall and CPU seconds of each leg: the child's start, building the engine
(the bots' figures compile), the warm-ups, this process's share of the list
both walk (the top of the tree and the dispatcher at its end), the first games,
and the child's exit (which the run's compile waits for); and the child's CPU
seconds. On a quiet host a first run waits for this process's legs; on a busy
one wall and CPU seconds both mostly measure the other work.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_engine import positive_int

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Cold-compile time per kernel function.")
    parser.add_argument("--mix", default="dunes+aegean", help="card mix (default dunes+aegean)")
    parser.add_argument(
        "--top", type=positive_int, default=40, help="functions to list (default 40)"
    )
    parser.add_argument(
        "--legs", action="store_true", help="time the two-core compile's legs instead"
    )
    parser.add_argument(
        "--phases", action="store_true", help="CPU by compiler phase (numba, LLVM) instead"
    )
    args = parser.parse_args(argv)
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="omensim-cold-")
    sys.path.insert(0, str(ROOT))
    if args.legs:
        return legs(args.mix)
    if args.phases:
        return phases(args.mix)
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
    # more, a first run hands half of it to a child process: sim/compiler/ahead.py).
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


def phases(mix: str) -> int:
    """Print the CPU seconds of each compiler phase of a one-process cold compile (exclusive
    of the nested compiles a phase triggers), and how much linked callee IR LLVM saw."""
    import collections
    import functools

    import numba
    from numba.core import caching, codegen, compiler_machinery, typed_passes, untyped_passes

    total: collections.Counter[str] = collections.Counter()
    stack: list[list] = []
    ir = {"own": 0, "linked": 0}

    def timed(owner: object, attr: str, label: str) -> None:
        fn = getattr(owner, attr)

        @functools.wraps(fn)
        def wrapper(*a: object, **k: object) -> object:
            stack.append([label, time.process_time(), 0.0])
            try:
                return fn(*a, **k)
            finally:
                what, t0, nested = stack.pop()
                spent = time.process_time() - t0
                total[what] += spent - nested
                if stack:
                    stack[-1][2] += spent

        setattr(owner, attr, wrapper)

    class Sizes:
        @staticmethod
        def count(library: object, own: bool) -> None:
            if own:
                ir["own"] += len(str(library._final_module))  # type: ignore[attr-defined]
                return
            for linked in set(library._linking_libraries):  # type: ignore[attr-defined]
                ir["linked"] += len(str(linked._get_module_for_linking()))

    timed(Sizes, "count", "(measuring IR sizes: this script's own cost)")
    from sim.compiler.lazy_code import KernelLibrary

    lib = codegen.CPUCodeLibrary
    # A kernel's library links in its own finalize (sim/compiler/lazy_code.py): time both.
    for owner in (lib, KernelLibrary):
        measure_finalize(owner, Sizes.count)
        timed(owner, "finalize", "LLVM: linking")
    timed(lib, "add_ir_module", "LLVM: IR parsing")
    # A kernel's library runs its function passes with a pass manager of its own: time both.
    for owner in (lib, KernelLibrary):
        timed(owner, "_optimize_functions", "LLVM: function passes")
    timed(lib, "_optimize_final_module", "LLVM: module optimisation")
    timed(codegen.JITCodeLibrary, "_finalize_specific", "LLVM: machine code")
    timed(caching.Cache, "save_overload", "cache: save")
    timed(caching.Cache, "load_overload", "cache: load")
    timed(typed_passes.NopythonTypeInference, "run_pass", "numba: type inference")
    timed(typed_passes.NativeLowering, "run_pass", "numba: lowering")
    timed(untyped_passes.TranslateByteCode, "run_pass", "numba: bytecode")
    timed(compiler_machinery.PassManager, "run", "numba: other passes")
    from sim.data.spec import RunSpec
    from sim.run.engine import Engine

    numba.set_num_threads(1)
    c0 = time.process_time()
    Engine(RunSpec(games=2, mix=mix, seed=1)).warmup()
    cpu = time.process_time() - c0
    print(f"first run (Engine + warm-up, one process), {mix}: {cpu:.1f} s CPU")
    for what, t in total.most_common():
        print(f"{t:7.2f} s {100 * t / cpu:5.1f}%  {what}")
    print(
        f"LLVM linked {ir['linked'] / 1e6:.1f} MB of callee IR into the final modules "
        f"beside {ir['own'] / 1e6:.1f} MB of the functions' own"
    )
    return 0


def measure_finalize(owner: type, count: Callable[[object, bool], None]) -> None:
    """Make ``owner``'s own ``finalize`` ``count`` a library's IR before and after linking."""
    finalize = owner.__dict__["finalize"]

    def measured(self: object) -> None:
        count(self, True)
        finalize(self)
        count(self, False)

    owner.finalize = measured  # type: ignore[attr-defined]


def legs(mix: str) -> int:
    """Print the wall and CPU seconds of each leg of a first run's two-core compile, as
    ``Engine.ready`` runs it."""
    import resource
    import subprocess

    import numba

    from sim.compiler import ahead as compile_ahead
    from sim.run import bitlists

    t0 = time.perf_counter()
    marks: list[tuple[str, float, float]] = []

    def mark(what: str) -> None:
        marks.append((what, time.perf_counter() - t0, time.process_time()))

    compile_free = compile_ahead.compile_free
    warm = bitlists.warmup
    popen = subprocess.Popen

    def timed_free(names: object) -> None:
        compile_free(names)  # type: ignore[arg-type]
        mark("this process's share of the list compiled")

    def timed_warm() -> None:
        warm()
        if not any(what.startswith("warm-ups") for what, _, _ in marks):
            mark("warm-ups done (the list-column reader)")

    children: list[subprocess.Popen] = []

    class Child(popen):  # type: ignore[misc, valid-type]
        """The compile's child (other commands the engine runs are not marked)."""

        def __init__(self, argv: list[str], *args: object, **kwargs: object) -> None:
            super().__init__(argv, *args, **kwargs)
            if compile_ahead.CHILD_CODE in argv:
                children.append(self)
                mark("child started")

    from sim.data.spec import RunSpec
    from sim.run.engine import WARMUPS, Engine

    numba.set_num_threads(2)
    mark("imported")
    compile_ahead.compile_free = timed_free
    bitlists.warmup = timed_warm
    compile_ahead.subprocess.Popen = Child  # type: ignore[misc]
    try:
        with compile_ahead.compiling_ahead(WARMUPS) as ahead:
            engine = Engine(RunSpec(games=2, mix=mix, seed=1))
            mark("engine built (bots' figures compiled)")
            engine.warmup(ahead)
            mark("warm-up done (first games played)")
    finally:
        compile_ahead.compile_free = compile_free
        bitlists.warmup = warm
        compile_ahead.subprocess.Popen = popen  # type: ignore[misc]
    for child_process in children:
        child_process.wait()  # exited already (the block waits for it): for its CPU seconds
    mark("child exited")
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"two-core first-run compile, {mix}: child CPU {child.ru_utime + child.ru_stime:.1f} s")
    last_cpu = 0.0
    for what, wall, cpu in marks:
        print(f"{wall:7.1f} s wall {cpu:7.1f} s CPU (+{cpu - last_cpu:5.1f})  {what}")
        last_cpu = cpu
    return 0


def _name(ev: object) -> str:
    fn = ev.data["dispatcher"].py_func  # type: ignore[attr-defined]
    return f"{fn.__module__}.{fn.__qualname__}"


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
