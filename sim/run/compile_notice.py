"""Tell the user when the first run compiles the game kernel, and for how long.

A cold numba cache (a fresh install, or kernel sources changed) makes the
first run compile everything, which takes tens of seconds. Silence looks like
a hang, so :func:`compile_notice` says so before the compile starts and how
long it took after. A warm cache loads in about a second and prints nothing.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import TextIO

from sim.kernel.cache import kernel_cached

# Cold compile of everything a default run needs, on a quiet 2-core host
# (benchmarks/README.md, "Cold compile"); a busy host takes longer.
COMPILE_ESTIMATE_S = 30


@contextlib.contextmanager
def compile_notice(stream: TextIO | None = None, enabled: bool = True) -> Iterator[None]:
    """Around the first use of the kernel: on a cold cache, announce the compile and time it.

    The line is written before anything compiles. On a terminal the elapsed
    seconds tick on the same line; elsewhere the time is printed when it is done.
    """
    if not enabled or kernel_cached():
        yield
        return
    out = stream if stream is not None else sys.stderr
    head = f"compiling the game kernel (first run only, ~{COMPILE_ESTIMATE_S} s)…"
    tty = out.isatty()
    out.write(head + ("" if tty else "\n"))
    out.flush()
    t0 = time.perf_counter()
    done = threading.Event()

    def tick() -> None:
        while not done.wait(1.0):
            out.write(f"\r{head} {time.perf_counter() - t0:.0f} s")
            out.flush()

    ticker = threading.Thread(target=tick, daemon=True) if tty else None
    if ticker is not None:
        ticker.start()
    verb = "stopped after"
    try:
        yield
        verb = "compiled in"
    finally:
        done.set()
        if ticker is not None:
            ticker.join()
        elapsed = time.perf_counter() - t0
        out.write((f"\r{head} " if tty else "") + f"{verb} {elapsed:.0f} s\n")
        out.flush()
