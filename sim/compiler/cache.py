"""Keep numba's on-disk cache honest about code in other files.

Numba compiles a cached function again when *its own* file changes, not when a kernel it
calls or a constant it reads changes in another file. So before any kernel loads, the
source of all kernel code (``sim/kernel``, ``strategies``, the declarations in ``sim/base``
and this compiler) is hashed, and the kernels' cache files are dropped if the hash differs
from the one stamped beside them. Plain mode caches in a directory of its own
(:func:`plain_root`): numba's cache key does not record the extension's flags.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sys
import tempfile
from pathlib import Path

from numba.core.caching import _CacheLocator

from sim.compiler.mode import PLAIN, hooks_wanted

_SIM = Path(__file__).resolve().parent.parent
SOURCE_DIRS = (_SIM / "kernel", _SIM.parent / "strategies")
HASHED_DIRS = (*SOURCE_DIRS, _SIM / "base", _SIM / "compiler")
STAMP = "omensim-kernel.sha256"


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
    """Plain mode's cache: ``omensim-plain-numba`` in ``$NUMBA_CACHE_DIR``, else in the
    ``sim`` package's ``__pycache__``, else (a read-only install) in the user's cache; a
    directory apart for kernels with the trace hooks, which numba's key cannot tell apart."""
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


def cache_files(d: Path, pattern: str) -> list[Path]:
    """The files matching ``pattern`` in kernel cache directory ``d`` (plain mode's: below it)."""
    return list(d.rglob(pattern) if PLAIN else d.glob(pattern))


def ensure_fresh_cache() -> bool:
    """Drop stale kernel cache files; returns True when something was dropped."""
    digest = source_digest()
    dropped = False
    for d in cache_dirs():
        stamp = d / STAMP
        with contextlib.suppress(OSError):
            if stamp.read_text() == digest:
                continue
        try:
            for f in cache_files(d, "*.nbi") + cache_files(d, "*.nbc"):
                f.unlink(missing_ok=True)
                dropped = True
            d.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest)
        except OSError:
            pass  # a read-only cache only costs compile time, never correctness
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root and not _writable(Path(root)):
        print(
            f"omensim: cannot write the kernel cache folder NUMBA_CACHE_DIR={root}; "
            "numba caches the kernels elsewhere, or compiles them in every process",
            file=sys.stderr,
        )
    return dropped
