"""What every command that plays games shares around the kernel: threads, progress, output.

The runner, ``compare``, ``sweep`` and ``tournament`` all pick numba's thread
count (and put it back afterwards) and refuse an output directory they must
not write into; this module is the one place each of those is written (the
progress bar is :mod:`sim.run.progress`).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from sim.run.imports import refused
from sim.run.io import RunError

__all__ = ["RunError", "numba_threads", "numba_without_blas", "resolve_threads"]


def resolve_threads(threads: int | None) -> int:
    """The numba worker threads to use: ``threads``, or every one numba has when ``None``.

    Raises:
        RunError: ``threads`` outside 1 .. ``NUMBA_NUM_THREADS``.
    """
    import numba  # imported here so `omensim --help` stays fast

    max_threads = int(numba.config.NUMBA_NUM_THREADS)
    if threads is None:
        return max_threads
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= max_threads:
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


def numba_without_blas() -> None:
    """Keep numba from loading scipy's BLAS in a process that only plays games (``omensim run``).

    When numba first loads a compiled function it imports ``numba.np.arraymath``, which
    imports ``scipy.linalg`` (and its OpenBLAS) only to note whether ``np.dot`` can use
    BLAS: a share of a run's peak RSS and of its start, for kernels
    that never multiply a matrix. With the import refused once, numba notes "no BLAS";
    compiled ``np.dot`` on floats would then use a plain loop, and ``np.linalg`` still
    loads scipy itself when something compiles it. A no-op once numba has made that check.
    """
    if "numba.np.arraymath" in sys.modules:
        return
    with refused("scipy.linalg", "the game kernel needs no BLAS"):
        import numba.np.arraymath  # noqa: F401 (the import is the point: it makes the check)
