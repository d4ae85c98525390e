"""Claims on kernel compiles: processes filling one numba cache compile each kernel once.

A cold compile on two cores (``sim.compiler.ahead``) runs two processes
that compile the kernel's tree into one numba cache. Numba's cache does not
coordinate them: a kernel both reach (the ability interpreter beneath every
step, the greedy bot beneath the dispatcher) was compiled by both, the second
not finding the first's entry yet, which cost each process about a fifth of
its compile. While :func:`claiming` lasts, a kernel's compile holds an
exclusive lock (``flock``) on a file of its own in a folder both processes
share, so a process that reaches a kernel the other one is compiling waits
for it and then loads it from the cache.

A process only waits for a kernel its current compile calls, while it holds the
kernels above that one on its own stack; two processes could wait on each other
only through a kernel that calls itself through another, and kernels do not
recurse. A lock ends with its process, so a failed process costs the other one
only the compile it was waiting for.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

_FOLDER: list[Path] = []
"""The folder of the claims while :func:`claiming` lasts (empty: no claims taken)."""
_HELD: dict[str, int] = {}
"""Open lock files of the kernels this process is compiling, by name."""
DONE = ".done"
"""Ends the name of the file marking a kernel compiled (``mark_done``)."""


def kernel_name(fn: Callable) -> str:
    """``module:function`` of kernel function ``fn``: the name it is claimed by."""
    return f"{fn.__module__}:{fn.__qualname__}"


@contextlib.contextmanager
def claiming(folder: Path) -> Iterator[None]:
    """While it lasts, every kernel compile of this process holds its claim in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    _FOLDER.append(folder)
    try:
        yield
    finally:
        _FOLDER.pop()


def _path(name: str) -> Path:
    return _FOLDER[-1] / name


@contextlib.contextmanager
def claim(name: str) -> Iterator[None]:
    """While it lasts, this process alone among those claiming compiles kernel ``name``:
    waits first while another one compiles it. Outside :func:`claiming`, does nothing."""
    if not _FOLDER or name in _HELD:
        yield
        return
    fd = os.open(_path(name), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _HELD[name] = fd
        try:
            yield
        finally:
            del _HELD[name]
    finally:
        os.close(fd)  # releases the lock


@contextlib.contextmanager
def claim_if_free(name: str) -> Iterator[bool]:
    """Claim kernel ``name`` if no process holds it and none has marked it done
    (:func:`mark_done`); yields whether it did. Never waits."""
    if not _FOLDER:
        yield True
        return
    if is_done(name):
        yield False
        return
    fd = os.open(_path(name), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        # Done while this process opened the file: the other one has just released it.
        if is_done(name):
            yield False
            return
        _HELD[name] = fd
        try:
            yield True
        finally:
            del _HELD[name]
    finally:
        os.close(fd)


def is_done(name: str) -> bool:
    """Whether a process claiming in this folder has marked kernel ``name`` done."""
    return bool(_FOLDER) and _path(name + DONE).exists()


def mark_done(name: str) -> None:
    """Record that kernel ``name`` is in the cache, so no process claiming takes it up again."""
    if _FOLDER:
        _path(name + DONE).touch()
