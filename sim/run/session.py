"""What every command that plays games shares around the kernel: threads, progress, output.

The runner, ``compare``, ``sweep`` and ``tournament`` all pick numba's thread
count (and put it back afterwards) and refuse an output directory they must
not write into; this module is the one place each of those is written (the
progress bar is :mod:`sim.run.progress`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sim.run.io import RunError

__all__ = ["RunError", "numba_threads", "resolve_threads"]


def resolve_threads(threads: int | None) -> int:
    """The numba worker threads to use: ``threads``, or every one numba has when ``None``.

    Raises:
        RunError: ``threads`` outside 1 .. ``NUMBA_NUM_THREADS``.
    """
    import numba  # imported here so `omensim --help` stays fast

    max_threads = int(numba.config.NUMBA_NUM_THREADS)
    if threads is None:
        return max_threads
    if not 1 <= threads <= max_threads:
        raise RunError(
            f"--threads must be between 1 and {max_threads} on this machine "
            f"(numba's NUMBA_NUM_THREADS), got {threads}"
        )
    return threads


@contextlib.contextmanager
def numba_threads(n: int) -> Iterator[None]:
    """Run the block with ``n`` numba threads, then restore the count the caller had."""
    import numba

    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(n)
        yield
    finally:
        numba.set_num_threads(previous)
