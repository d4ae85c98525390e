"""What every command that plays games shares around the kernel: threads, progress, output.

The runner, ``compare``, ``sweep`` and ``tournament`` all pick numba's thread
count (and put it back afterwards), draw one progress line on stderr and
refuse an output directory they must not write into; this module is the one
place each of those is written.
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

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


def format_duration(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``) for a progress line; ``--:--`` when unknown."""
    if not math.isfinite(seconds):
        return "--:--"
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """A single self-overwriting status line on stderr (no dependency, no curses)."""

    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None) -> None:
        self.total = total
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self._last_draw = 0.0
        self._width = 0

    def update(self, done: int, final: bool = False) -> None:
        """Show ``done`` of ``total`` games (throttled; ``final`` always draws, with the time)."""
        if not self.enabled:
            return
        now = time.perf_counter()
        # Redrawing more than ~10 times a second only costs time (tiny chunks).
        if not final and now - self._last_draw < 0.1:
            return
        self._last_draw = now
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else math.inf
        tail = f"{format_duration(elapsed)} elapsed" if final else f"ETA {format_duration(eta)}"
        line = (
            f"{done:,}/{self.total:,} games ({done / self.total:.0%})  {rate:,.0f} games/s  {tail}"
        )
        pad = max(0, self._width - len(line))
        self._width = len(line)
        self.stream.write("\r" + line + " " * pad)
        self.stream.flush()

    def close(self) -> None:
        """End the status line so later output starts on a fresh line."""
        if self.enabled and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0
