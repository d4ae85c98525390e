"""Run folders at a local path or any fsspec URL: the filesystem, the path and the lock.

A local path stays a :class:`~pathlib.Path`. A URL (``s3://bucket/run``,
``memory://run``, ``file:///...``) is resolved to a filesystem plus a path,
and pyarrow writes to that path through the filesystem: never through an
open remote file handle, which pyarrow cannot seek or close reliably. Remote
stores have no atomic rename, so the part is written under a hidden name and
moved into place, which readers that skip ``.``-names see as one step.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from sim.base.errors import Error
from sim.run.lock import LOCK_NAME, FolderLockedError


class UrlError(Error, ValueError):
    """A URL no installed fsspec backend can open (unknown scheme, backend missing)."""


def is_url(out: str | Path) -> bool:
    """True for ``scheme://...`` locations (not plain paths)."""
    return "://" in str(out)


def filesystem(url: str) -> tuple[Any, str]:
    """(pyarrow filesystem, path inside it) for ``url``.

    pyarrow's own filesystems (local, S3, GCS, HDFS) are used when pyarrow
    knows the scheme; any other scheme goes through fsspec (imported only then).
    """
    import pyarrow.fs as pafs

    try:
        return pafs.FileSystem.from_uri(url)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
        import fsspec

        fs, path = fsspec.core.url_to_fs(url)
        return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path


class UrlPath:
    """A file or folder at an fsspec URL, with the few ``pathlib`` methods run folders use.

    Only what :mod:`sim.run.io`, :mod:`sim.run.ledger` and the runner need for a
    run folder at a URL: joining, listing, reading and writing small files,
    deleting. Parquet goes through :meth:`parquet_args` (a path plus the
    filesystem, never an open handle). There is no ``fsync`` or atomic rename on
    most remote stores: files are written under a hidden name and moved into place.
    """

    def __init__(self, url: str, fs: Any = None, path: str | None = None) -> None:
        """``url``: ``scheme://...``; ``fs``/``path``: its fsspec filesystem and path, if known."""
        if fs is None or path is None:
            import fsspec

            try:
                fs, path = fsspec.core.url_to_fs(url)
            except (ValueError, ImportError) as exc:  # an unknown scheme, a missing backend
                raise UrlError(f"cannot open {url}: {str(exc).splitlines()[0]}"[:300]) from None
        self.url = url.rstrip("/")
        self.fs = fs
        self.path = str(path).rstrip("/") or "/"

    def __truediv__(self, name: str) -> UrlPath:
        return UrlPath(f"{self.url}/{name}", self.fs, f"{self.path.rstrip('/')}/{name}")

    def __str__(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"UrlPath({self.url!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UrlPath) and other.url == self.url

    def __hash__(self) -> int:
        return hash(self.url)

    def __lt__(self, other: UrlPath) -> bool:
        return self.url < other.url

    @property
    def name(self) -> str:
        """The last component of the URL."""
        return self.url.rsplit("/", 1)[-1]

    def exists(self) -> bool:
        """Whether anything is at the URL."""
        return bool(self.fs.exists(self.path))

    def is_dir(self) -> bool:
        """Whether the URL is a folder."""
        return bool(self.fs.isdir(self.path))

    def is_file(self) -> bool:
        """Whether the URL is a file."""
        return bool(self.fs.isfile(self.path))

    def mkdir(self, parents: bool = True, exist_ok: bool = True) -> None:
        """Create the folder (object stores have none; then this does nothing)."""
        self.fs.makedirs(self.path, exist_ok=exist_ok)

    def iterdir(self) -> list[UrlPath]:
        """The folder's entries."""
        if not self.is_dir():
            return []
        listed = self.fs.ls(self.path, detail=False)
        names = sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in listed)
        return [self / n for n in names if n]

    def glob(self, pattern: str) -> list[UrlPath]:
        """Entries whose name matches ``pattern`` (``fnmatch``)."""
        import fnmatch

        return [e for e in self.iterdir() if fnmatch.fnmatch(e.name, pattern)]

    def read_text(self, encoding: str = "utf-8") -> str:
        """The file's text."""
        try:
            return bytes(self.fs.cat_file(self.path)).decode(encoding)
        except FileNotFoundError:
            raise FileNotFoundError(2, "No such file", self.url) from None

    def write_text(self, text: str, encoding: str = "utf-8") -> None:
        """Write the file under a hidden name, then move it into place."""
        tmp = f"{self.path.rsplit('/', 1)[0]}/.{self.name}.tmp"
        self.fs.pipe_file(tmp, text.encode(encoding))
        self.fs.mv(tmp, self.path)

    def unlink(self, missing_ok: bool = False) -> None:
        """Delete the file."""
        try:
            self.fs.rm_file(self.path)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def rmtree(self) -> None:
        """Delete the folder and everything in it."""
        if self.exists():
            self.fs.rm(self.path, recursive=True)

    def parquet_args(self) -> dict[str, Any]:
        """``{"source": path, "filesystem": fs}`` for ``pq.ParquetFile``/``pq.read_table``."""
        return {"source": self.path, "filesystem": self.fs}


def location(out: str | Path) -> Path | UrlPath:
    """``out`` as a :class:`pathlib.Path`, or a :class:`UrlPath` for a ``scheme://`` URL.

    ``file://`` URLs become plain paths, so they get the local folder lock and fsync.
    """
    if isinstance(out, (Path, UrlPath)):
        return out
    if not is_url(out):
        return Path(out)
    if str(out).startswith("file://"):
        return Path(str(out).removeprefix("file://"))
    return UrlPath(str(out))


def url_lock_holder(folder: UrlPath) -> int | None:
    """The pid in ``folder``'s lock file if a live writer may hold it, else None (-1: unknown).

    A URL has no ``flock``: the lock is a small file naming its host and pid.
    On this host a lock whose process is gone is stale and ignored; a lock
    from another host is trusted (delete it by hand if that writer is gone).
    """
    import socket

    try:
        host, _, pid_text = (folder / LOCK_NAME).read_text().strip().partition(":")
    except FileNotFoundError:
        return None
    try:
        pid = int(pid_text)
    except ValueError:
        return -1
    if host == socket.gethostname():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
    return pid


@contextlib.contextmanager
def url_locked(folder: UrlPath) -> Iterator[UrlPath]:
    """Hold ``folder``'s lock file for the ``with`` block (see :func:`url_lock_holder`).

    Not atomic (most stores cannot create a file only if absent): it keeps two
    runs started by hand from mixing, not two started in the same instant.

    Raises:
        FolderLockedError: another live writer holds it.
    """
    import socket

    pid = url_lock_holder(folder)
    if pid is not None and pid != os.getpid():
        who = f"process {pid}" if pid > 0 else "another process"
        raise FolderLockedError(
            f"{folder} is being written by {who} (lock {LOCK_NAME}); wait for it to finish "
            "or choose another --out"
        )
    lock = folder / LOCK_NAME
    lock.write_text(f"{socket.gethostname()}:{os.getpid()}\n")
    try:
        yield lock
    finally:
        with contextlib.suppress(OSError):
            lock.unlink(missing_ok=True)
