"""What a long command shows while it works: a live bar, and a note while the kernel compiles.

One library for the whole CLI: ``tqdm`` (docs/usage.md says why). Every bar
goes to stderr, so stdout stays clean for summaries and pipes; it is drawn
only when stderr is a terminal, unless the user forces it (``--progress``) or
silences it (``--quiet``). Callers ask :func:`wanted` once and pass the answer
down as a plain bool.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any, TextIO

REFRESH_S = 0.25
"""How often a bar redraws at most, and how often the compile note's clock ticks."""

_READY = threading.Event()  # set once this process has compiled or loaded the kernel

_BAR_FORMAT = (
    "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt}{unit} "
    "[{elapsed} elapsed, ETA {remaining}, {rate_fmt}]"
)


def wanted(progress: bool | None, quiet: bool = False, stream: TextIO | None = None) -> bool:
    """Whether to draw progress: never with ``quiet``, always with ``progress=True``,
    otherwise only when ``stream`` (stderr) is a terminal."""
    if quiet:
        return False
    if progress is not None:
        return progress
    stream = stream if stream is not None else sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)())


class Bar:
    """A live bar of games played, with games/s and ETA (tqdm); a no-op when disabled.

    ``unit`` names what is counted when it is not games (e.g. report steps).

    ``advance(n)`` may be called as often as you like: tqdm redraws at most
    every :data:`REFRESH_S` seconds. Use as a context manager or call ``close``.
    """

    def __init__(
        self,
        total: int,
        enabled: bool,
        desc: str = "playing",
        stream: TextIO | None = None,
        unit: str = "games",
    ) -> None:
        self.enabled = enabled
        self.done = 0
        self._bar: Any = None
        if enabled:
            from tqdm import tqdm  # deferred: `omensim --help` should not pay for it

            self._bar = tqdm(
                total=total,
                desc=desc,
                unit=f" {unit}",
                unit_scale=unit == "games",
                file=stream if stream is not None else sys.stderr,
                mininterval=REFRESH_S,
                miniters=1,  # redraw on time alone: tqdm's adaptive count would skip draws
                dynamic_ncols=True,
                smoothing=0.1,
                bar_format=_BAR_FORMAT,
            )

    def advance(self, games: int) -> None:
        """Count ``games`` more games (or units) as done."""
        self.done += games
        if self._bar is not None:
            self._bar.update(games)

    def describe(self, desc: str) -> None:
        """Change the label in front of the bar (e.g. the pairing being played)."""
        if self._bar is not None:
            self._bar.set_description_str(desc, refresh=False)

    def close(self) -> None:
        """Draw the final state and end the line, so later output starts on a new line."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def kernel_needs_compile(entry: str = "*", module: str = "batch") -> bool:
    """Whether playing the first game will compile the kernel (nothing usable is cached);
    ``entry``: only entry point ``entry`` of ``sim.kernel.batch`` counts (default: any);
    ``module``: of that kernel module instead, as numba names its cache files
    (``greedy_batch`` for ``strategies.greedy_batch``).

    Importing :mod:`sim.kernel` first drops stale cache files, so an answer of
    False means numba will load machine code from disk instead.
    """
    if _READY.is_set() and entry == "*" and module == "batch":
        return False  # this process has played a game already
    from sim.compiler.cache import cache_dirs  # deferred: refreshes the cache stamp
    from sim.compiler.mode import HOOKS, PLAIN  # deferred: with the line above

    files = [f for d in cache_dirs() for f in d.rglob(f"{module}.{entry}-*.nbi")]
    if PLAIN:
        return not files  # plain mode keeps the traced build in a directory of its own
    # The extension keeps it in files of its own.
    from sim.compiler.extension import TRACED_MARK  # deferred: the extension only, not plain mode

    return not any(f.name.endswith(TRACED_MARK + ".nbi") == HOOKS for f in files)


@contextlib.contextmanager
def compile_note(
    enabled: bool, estimate_s: float | None = None, stream: TextIO | None = None
) -> Iterator[None]:
    """Show ``compiling the game kernel (first run only, ~N s)... 0:12`` while the block runs.

    ``estimate_s`` is this machine's last measured compile (``sim.run.compile_time``);
    without one (no compile measured here yet) the note gives no figure.

    The clock ticks every :data:`REFRESH_S` seconds on a helper thread (numba's
    compiler spends most of its time in LLVM, which lets other threads run).
    Disabled, it shows nothing. Call it around whatever compiles or loads the
    kernel; decide ``enabled`` with :func:`wanted` and :func:`kernel_needs_compile`.
    """
    if not enabled:
        yield
        return
    from tqdm import tqdm

    if estimate_s is None:
        what = "first run only"
    else:
        what = f"first run only, ~{estimate_s:.0f} s"
    note = tqdm(
        total=None,
        desc=f"compiling the game kernel ({what})\u2026",
        bar_format="{desc} {elapsed}",
        file=stream if stream is not None else sys.stderr,
        mininterval=0,
        dynamic_ncols=True,
    )
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(REFRESH_S):
            note.refresh()

    clock = threading.Thread(target=tick, name="omensim-compile-clock", daemon=True)
    clock.start()
    t0 = time.perf_counter()
    try:
        yield
    finally:
        stop.set()
        clock.join()
        note.bar_format = "{desc}"  # the final line says the time itself
        note.set_description_str(
            f"compiled the game kernel in {time.perf_counter() - t0:.0f} s (cached from now on)",
            refresh=False,
        )
        note.close()


@contextlib.contextmanager
def kernel_ready(enabled: bool) -> Iterator[None]:
    """:func:`compile_note`, shown only when the kernel really has to compile; a compile's
    wall time is recorded as the next one's estimate (``sim.run.compile_time``)."""
    from sim.run import compile_time  # deferred: it reads the kernel's cache folder

    cold = kernel_needs_compile()
    t0 = time.perf_counter()
    with compile_note(enabled and cold, compile_time.measured_compile_s() if cold else None):
        yield
    if cold:
        compile_time.record_compile_s(time.perf_counter() - t0)
    _READY.set()
