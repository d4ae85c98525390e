"""Keep numba's on-disk cache honest about code in other files: numba compiles a cached function
again only when its own file changes, so the kernels' cache files go when any kernel code does."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path

from numba.core.caching import FunctionCache, _CacheLocator

from sim.compiler.mode import PLAIN, hooks_wanted

_SIM = Path(__file__).resolve().parent.parent
SOURCE_DIRS = (_SIM / "kernel", _SIM.parent / "strategies")
HASHED_DIRS = (*SOURCE_DIRS, _SIM / "base", _SIM / "compiler")
STAMP = "omensim-kernel.sha256"


class ReadableCache(FunctionCache):
    """Numba's on-disk cache of a function; a file it cannot read means a compile, not an error."""

    def load_overload(self, sig: object, target_context: object) -> object:
        """Numba's cached compile of ``sig``, or None (compile again) if it cannot be read."""
        try:
            return super().load_overload(sig, target_context)
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError):
            return None


def source_digest() -> str:
    """Hash of every source file whose code or constants end up in compiled kernels."""
    h = hashlib.sha256()
    for path in sorted(p for d in HASHED_DIRS for p in d.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@functools.cache
def _writable(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=d):
            return True
    except OSError:
        return False


def plain_root() -> Path:
    """Plain mode's cache, apart (numba's key records neither the extension nor the hooks): in
    ``$NUMBA_CACHE_DIR``, else the ``sim`` package's ``__pycache__``, else the user's cache."""
    name = "omensim-plain-numba" + ("-traced" if hooks_wanted(os.environ) else "")
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        return Path(root) / name
    if _writable(_SIM / "__pycache__" / name):
        return _SIM / "__pycache__" / name
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "omensim" / name


def cache_dirs() -> list[Path]:
    """Where numba keeps the kernel modules' cache files in this process's mode."""
    if PLAIN:
        return [plain_root()]
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        return [
            Path(root) / _CacheLocator.get_suitable_cache_subpath(d / "x.py") for d in SOURCE_DIRS
        ]
    return [d / "__pycache__" for d in SOURCE_DIRS]


def ensure_fresh_cache() -> None:
    """Drop stale kernel cache files, and say so in one line if the cache cannot be written."""
    digest = source_digest()
    for d in cache_dirs():
        stamp = d / STAMP
        with contextlib.suppress(OSError):
            if stamp.read_text() == digest:
                continue
        with contextlib.suppress(OSError):  # a read-only cache costs compile time, not rows
            for f in d.rglob("*.nb[ic]"):
                f.unlink(missing_ok=True)
            d.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest)
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root and not _writable(Path(root)):
        print(
            f"omensim: cannot write the kernel cache folder NUMBA_CACHE_DIR={root}; "
            "numba caches the kernels elsewhere, or compiles them in every process",
            file=sys.stderr,
        )
