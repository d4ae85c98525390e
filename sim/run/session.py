"""What every command that plays games shares around the kernel: threads, progress, output.

The runner, ``compare``, ``sweep`` and ``tournament`` all pick numba's thread
count (and put it back afterwards) and refuse an output directory they must
not write into; this module is the one place each of those is written (the
progress bar is :mod:`sim.run.progress`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from sim.run import io


class RunError(Exception):
    """A run that cannot start for a reason the user controls (e.g. the output directory).

    The message is one line, fit to print after ``Error:``.
    """


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


def check_out_dir(out: Path, force: bool) -> None:
    """Refuse an output path we must not write into; touches nothing on disk."""
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out} exists and is not a directory")
    if not out.is_dir() or not any(out.iterdir()):
        return
    if not force:
        raise RunError(
            f"{out} already exists and is not empty; use --force to replace the run in it, "
            "or choose another --out"
        )
    strays = io.stray_files(out)
    if strays:
        # Clearing only our own files would leave these next to the new parts, where they
        # could break pd.read_parquet(out); deleting files we did not write is not ours to do.
        raise RunError(
            f"refusing to --force into {out}: it holds {len(strays)} file(s) omensim did not "
            f"write (e.g. {strays[0].name!r}); choose another --out"
        )
