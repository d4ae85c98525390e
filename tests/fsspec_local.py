"""A local fsspec filesystem under its own URL scheme, ``omtest://``, for tests.

``memory://`` lives inside one process, so Dask workers cannot share it; this
one is the local disk seen through fsspec, so a run at ``omtest://`` + an absolute local path takes
the URL code path (no ``flock``, no appends, pyarrow given a path plus a
filesystem) in every process that registered it (:func:`register`).
"""

from __future__ import annotations

from typing import Any

import fsspec
from fsspec.implementations.local import LocalFileSystem

PROTOCOL = "omtest"


class OmtestFileSystem(LocalFileSystem):
    """The local file system, addressed as ``omtest:///absolute/path``."""

    protocol = (PROTOCOL,)

    @classmethod
    def _strip_protocol(cls, path: Any) -> Any:
        path = str(path)
        if path.startswith(f"{PROTOCOL}://"):
            path = path[len(PROTOCOL) + 3 :]
        return super()._strip_protocol(path)


def register() -> None:
    """Make ``omtest://`` known to fsspec in this process."""
    fsspec.register_implementation(PROTOCOL, OmtestFileSystem, clobber=True)
