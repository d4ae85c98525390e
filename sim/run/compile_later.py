"""A kernel compiled where no run waits for it: a detached child fills numba's cache.

A run plays faster in its bot's linked build (``sim.kernel.batch.linked_run``): two
greedy seats on the linked twin of their entry point (``strategies.greedy_batch``), a
look-ahead or search seat on the twin of its dispatcher (``strategies.policy``;
``benchmarks/bench_min.py`` and ``bench_ladder.py`` measure both); but compiling a twin
takes seconds a first run must not wait for (``docs/compile.md``). So a run plays the
tree it has, and :func:`compile_later` has the twin compiled into the cache by a child started
as this process exits (:func:`start_pending`; started during the run, its start-up alone
slowed a short first run), at the lowest priority, which
outlives this process; the next run that finds the twin cached plays it. Both play the
same games.

One child per kernel at a time: the child holds the lock of a folder of its kernel beside
the cache while it compiles (``sim.run.lock``, which the system drops with its process).
Set :data:`ENV` to ``0`` for none (the test suite does, so that its runs leave no
compiles behind).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys
from pathlib import Path

from sim.run.lock import FolderLockedError, holder_pid, locked

ENV = "OMENSIM_COMPILE_LATER"
"""``0``: never start a child (:func:`compile_later` returns False)."""


def lock_folder(name: str) -> Path:
    """The folder whose lock (``sim.run.lock``) a child compiling kernel ``name``
    (``module:function``) holds: one per kernel, in the first kernel cache directory,
    where the compile's files go too."""
    from sim.kernel.cache import cache_dirs  # deferred: refreshes the cache stamp

    return cache_dirs()[0] / "omensim-compiling" / name.replace(":", ".")


def compile_later(name: str) -> bool:
    """Have kernel ``name`` (``module:function``) compiled into the cache by a detached
    child started as this process exits (:func:`start_pending`), unless :data:`ENV` is
    ``0``, another child holds its lock, or its lock's directory is not writable; returns
    whether it will be. Never waits for it."""
    if os.environ.get(ENV, "1") == "0":
        return False
    if name in PENDING:
        return True
    folder = lock_folder(name)
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
    if holder_pid(folder) is not None or not os.access(folder, os.W_OK):
        return False
    if not PENDING:
        atexit.register(start_pending)
    PENDING.append(name)
    return True


PENDING: list[str] = []
"""Kernels :func:`start_pending` starts a child for (:func:`compile_later`)."""

CHILDREN: list[subprocess.Popen[bytes]] = []
"""The children this process started (:func:`start_pending`)."""


def start_pending() -> list[subprocess.Popen[bytes]]:
    """Start a detached child for each kernel :func:`compile_later` was asked for and no
    child has taken meanwhile, and forget them; returns the children. Registered to run
    as this process exits; never waits for them.

    Each child waits for this process to be gone before it loads anything: on this
    machine's two cores (which may share one physical core) even the child's imports beside
    this process's last steps lengthened a short run by a few tenths of a second. It
    reads a pipe whose writing end only this process holds, so it sees the end of it when
    this process exits, however it exits.
    """
    started = []
    if not PENDING:
        return started
    read, write = os.pipe()
    WAITED_ON.append(write)  # never written or closed: open until this process is gone
    while PENDING:
        name = PENDING.pop(0)
        folder = lock_folder(name)
        if holder_pid(folder) is not None:
            continue
        try:
            child = subprocess.Popen(
                [sys.executable, "-m", __name__, name, str(folder), str(read)],
                env=os.environ.copy(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(read,),
                start_new_session=True,  # a Ctrl-C meant for the shell's next command is not its
            )
        except (OSError, ValueError):
            continue  # none here (no process or pipe to spare): later runs play the first build
        started.append(child)
    os.close(read)
    CHILDREN.extend(started)  # held, so that none is reported as a process left running
    return started


WAITED_ON: list[int] = []
"""Writing ends of the pipes whose end the children wait for (:func:`start_pending`)."""


def later_main(name: str, folder: Path, parent: int) -> None:
    """The child: at the lowest priority, take ``folder``'s lock unless another child
    holds it; then, once the pipe ``parent`` (a file descriptor) ends, i.e. the process
    that started it is gone, compile kernel ``name``. Only the standard library is loaded
    until then."""
    with contextlib.suppress(OSError, AttributeError):  # no nice(): a system without it
        os.nice(19)
    try:
        with locked(folder):
            with contextlib.suppress(OSError):
                while os.read(parent, 1):
                    pass
            from sim.run.compile_ahead import compile_named  # deferred: the kernel modules

            compile_named([name])
    except FolderLockedError:
        return  # another child is compiling it


if __name__ == "__main__":
    later_main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]))
