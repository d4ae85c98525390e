"""Keep numba's on-disk cache honest about code in other files.

Numba re-compiles a cached function when *its own* file changes, but not when
a function it calls, or a constant it reads, changes in another file: the old
machine code would keep running. Every kernel module is compiled with
``cache=True``, so before any of them loads we hash the source of all kernel
code (``sim/kernel``, ``strategies``, and the declarations in ``sim/base``) and, if the hash differs
from the one stamped beside the cache, drop the cached files of those modules.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba.core.caching import _CacheLocator

_SIM = Path(__file__).resolve().parent.parent
SOURCE_DIRS = (_SIM / "kernel", _SIM.parent / "strategies")
# Declarations the kernels read as frozen globals: no kernels of their own, but part of the hash.
DECLARATION_DIRS = (_SIM / "base",)
STAMP = "omensim-kernel.sha256"


def source_digest() -> str:
    """Hash of every source file whose code or constants end up in compiled kernels."""
    h = hashlib.sha256()
    files = sorted(p for d in SOURCE_DIRS + DECLARATION_DIRS for p in d.glob("*.py"))
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def cache_dirs() -> list[Path]:
    """Where numba keeps the cache files of the kernel modules (it mirrors numba's rule)."""
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        return [
            Path(root) / _CacheLocator.get_suitable_cache_subpath(d / "x.py") for d in SOURCE_DIRS
        ]
    return [d / "__pycache__" for d in SOURCE_DIRS]


def ensure_fresh_cache() -> bool:
    """Drop stale kernel cache files; returns True when something was dropped."""
    digest = source_digest()
    dropped = False
    for d in cache_dirs():
        stamp = d / STAMP
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        try:
            for f in list(d.glob("*.nbi")) + list(d.glob("*.nbc")):
                f.unlink(missing_ok=True)
                dropped = True
            d.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest)
        except OSError:
            pass  # a read-only cache only costs compile time, never correctness
    return dropped
