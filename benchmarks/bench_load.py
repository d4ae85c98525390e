"""Load time of a run against ``pd.read_parquet``: ``A.load`` and ``A.load(names=True)``.

Usage: ``python benchmarks/bench_load.py RUN_DIR``. Prints each reader's time as a
ratio to ``pd.read_parquet`` on the same run (best of three), so figures from a shared
host still compare.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import pandas as pd

from sim import analysis as A


def best(f: Callable[[], object], repeats: int = 3) -> float:
    """The fastest of ``repeats`` calls of ``f``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main(run_dir: str) -> None:
    """Print the ratios for ``run_dir``."""
    base = best(lambda: pd.read_parquet(run_dir))
    readers = {
        "A.load": lambda: A.load(run_dir),
        "A.load(names=True)": lambda: A.load(run_dir, names=True),
    }
    for name, f in readers.items():
        print(f"{name}: {best(f) / base:.2f}x pd.read_parquet ({base:.2f} s)")


if __name__ == "__main__":
    main(sys.argv[1])
