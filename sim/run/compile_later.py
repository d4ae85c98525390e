"""A kernel compiled where no run waits for it: a detached child fills numba's cache.

A run plays faster in its bot's linked build (``sim.kernel.batch.linked_run``): two
greedy seats about 15% on the linked twin of their entry point
(``strategies.greedy_batch``), a look-ahead or search seat 5-9% on the twin of its
dispatcher (``strategies.policy``); but compiling a twin takes seconds (half a minute for
the search bot's) a first run must not wait for (``docs/compile.md``). So a run plays the
tree it has, and :func:`compile_later` has the twin compiled into the cache by a child started
as this process exits (:func:`start_pending`; started during the run, its start-up alone
slowed a short first run by a few tenths of a second), at the lowest priority, which
outlives this process; the next run that finds the twin cached plays it. Both play the
same games.

One child per kernel at a time: the child holds a lock file beside the cache while it
compiles; a lock whose process is gone is taken over. Set :data:`ENV` to ``0`` for none
(the test suite does, so that its runs leave no compiles behind).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ENV = "OMENSIM_COMPILE_LATER"
"""``0``: never start a child (:func:`compile_later` returns False)."""


def lock_path(name: str) -> Path:
    """The lock file of a child compiling kernel ``name`` (``module:function``): in the
    first kernel cache directory, where the compile's files go too."""
    from sim.kernel.cache import cache_dirs  # deferred: refreshes the cache stamp

    return cache_dirs()[0] / f"omensim-compiling.{name.replace(':', '.')}.pid"


STALE_S = 3600.0
"""A lock older than this is taken over whoever holds it: a child's process id may have
gone to another process since it died (a compile at the lowest priority on a busy host
takes minutes, not hours)."""


def holder(lock: Path) -> int | None:
    """The process id in lock file ``lock`` if that process is alive and the lock is
    younger than :data:`STALE_S`, else None."""
    try:
        if time.time() - lock.stat().st_mtime > STALE_S:
            return None
        pid = int(lock.read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def compile_later(name: str) -> bool:
    """Have kernel ``name`` (``module:function``) compiled into the cache by a detached
    child started as this process exits (:func:`start_pending`), unless :data:`ENV` is
    ``0``, another child holds its lock, or its lock's directory is not writable; returns
    whether it will be. Never waits for it."""
    if os.environ.get(ENV, "1") == "0":
        return False
    if name in PENDING:
        return True
    lock = lock_path(name)
    with contextlib.suppress(OSError):
        lock.parent.mkdir(parents=True, exist_ok=True)
    if holder(lock) is not None or not os.access(lock.parent, os.W_OK):
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
        if holder(lock_path(name)) is not None:
            continue
        try:
            child = subprocess.Popen(
                [sys.executable, "-m", __name__, name, str(lock_path(name)), str(read)],
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


@contextlib.contextmanager
def holding(lock: Path) -> Iterator[bool]:
    """While it lasts, this process holds ``lock`` if no live process did (yields whether
    it does); the lock is removed on leaving."""
    mine = False
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if holder(lock) is not None:
                break
            lock.unlink(missing_ok=True)  # its process is gone: take it over
            continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        mine = True
        break
    try:
        yield mine
    finally:
        if mine:
            lock.unlink(missing_ok=True)


def later_main(name: str, lock: Path, parent: int) -> None:
    """The child: at the lowest priority, take ``lock`` unless another child holds it;
    then, once the pipe ``parent`` (a file descriptor) ends, i.e. the process that started
    it is gone, compile kernel ``name``. Only the standard library is loaded until then."""
    with contextlib.suppress(OSError, AttributeError):  # no nice(): a system without it
        os.nice(19)
    with holding(lock) as mine:
        if not mine:
            return
        with contextlib.suppress(OSError):
            while os.read(parent, 1):
                pass
        from sim.run.compile_ahead import compile_named  # deferred: the kernel modules

        compile_named([name])


if __name__ == "__main__":
    later_main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]))
