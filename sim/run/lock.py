"""An exclusive lock on an output folder, held for a whole run.

Two ``omensim`` processes writing into the same ``--out`` would interleave
their parts and leave a "complete" run that mixes two seeds. The writer holds
an ``fcntl.flock`` on ``<out>/.omensim.lock`` (a leading dot, so pyarrow's
dataset discovery skips it) for as long as it writes; the file holds its pid,
so a second writer is refused with the holder's pid. The kernel drops a
``flock`` when its process dies, however it dies, so a crash never leaves a
stale lock; a leftover lock *file* is harmless and reused. A clean finish
removes the file, so a finished run folder holds only its parts and manifest.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from sim.base.errors import Error

LOCK_NAME = ".omensim.lock"


class FolderLockedError(Error, RuntimeError):
    """Another process holds the output folder's lock; the message names its pid."""


def holder_pid(folder: Path | str) -> int | None:
    """The pid written in ``folder``'s lock file if a process holds the lock now, else None."""
    path = Path(folder) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_pid(fd) or -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _read_pid(fd: int) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(os.pread(fd, 32, 0).decode().strip() or 0) or None
    return None


@contextlib.contextmanager
def locked(folder: Path | str) -> Iterator[Path]:
    """Hold the exclusive lock of ``folder`` (which must exist) for the ``with`` block.

    Raises:
        FolderLockedError: another process holds it (the message names its pid).
    """
    path = Path(folder) / LOCK_NAME
    fd = _acquire(path, folder)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield path
    finally:
        # Unlink while still holding the lock: a process that opened the old file meanwhile
        # sees, in _acquire, that it locked an unlinked file and starts over.
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)


def _acquire(path: Path, folder: Path | str) -> int:
    """An open descriptor of ``path`` holding its exclusive lock (the file still linked)."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            who = f"process {pid}" if pid else "another process"
            raise FolderLockedError(
                f"{folder} is being written by {who} (lock {LOCK_NAME}); wait for it to finish "
                "or choose another --out"
            ) from None
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)  # the holder removed the file as we opened it: try the new one
