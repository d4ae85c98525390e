"""Claims on kernel compiles: processes filling one numba cache compile each kernel once.

Numba's cache does not coordinate two processes compiling into it (``sim.compiler.ahead``):
a kernel both reach would be compiled by both. While :func:`claiming` lasts, a kernel's
compile holds an exclusive ``flock`` on a file of its own in a folder both processes share,
so a process that reaches a kernel the other is compiling waits for it and loads it. A
process waits only for a kernel its current compile calls, and kernels do not recurse, so
two processes never wait on each other; a lock ends with its process. Without ``fcntl``
(not POSIX) nothing is claimed and the compile stays in one process (:data:`AVAILABLE`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]

AVAILABLE = fcntl is not None
"""Whether processes can claim kernels here (the two-process compile needs it)."""

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
