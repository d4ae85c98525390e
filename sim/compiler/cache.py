"""Keep numba's on-disk cache honest about code in other files.

Numba re-compiles a cached function when *its own* file changes, but not when
a function it calls, or a constant it reads, changes in another file: the old
machine code would keep running. Every kernel module is compiled with
``cache=True``, so before any of them loads we hash the source of all kernel
code (``sim/kernel``, ``strategies``, and the declarations in ``sim/base``) and, if the hash differs
from the one stamped beside the cache, drop the cached files of those modules.

Plain mode (``sim.compiler.mode``) caches in a directory of its own,
:func:`plain_root`, which holds nothing but kernels; the extension's cache is
numba's usual place (``NUMBA_CACHE_DIR`` or ``__pycache__`` beside the source).
"""

from __future__ import annotations

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
# No kernels of their own, but part of the hash: the declarations the kernels read as frozen
# globals, and the compiler, whose lowering numba's cache key does not record.
DECLARATION_DIRS = (_SIM / "base", _SIM / "compiler")
STAMP = "omensim-kernel.sha256"
PLAIN_DIR = "omensim-plain-numba"
"""The name of plain mode's cache directory (see :func:`plain_root`)."""
TRACED_SUFFIX = "-traced"
"""Appended to :data:`PLAIN_DIR` for plain kernels with the trace hooks (``sim.kernel.trace``):
plain numba's cache key cannot tell the two builds apart."""


def source_digest() -> str:
    """Hash of every source file whose code or constants end up in compiled kernels."""
    h = hashlib.sha256()
    files = sorted(p for d in SOURCE_DIRS + DECLARATION_DIRS for p in d.glob("*.py"))
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@functools.cache
def _writable(d: Path) -> bool:
    """Whether files can be made in ``d`` (made if missing); asked once per directory."""
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=d):
            return True
    except OSError:
        return False


def plain_root() -> Path:
    """Where plain mode keeps its machine code: ``$NUMBA_CACHE_DIR/omensim-plain-numba``,
    else ``__pycache__/omensim-plain-numba`` in the ``sim`` package, else (a read-only
    install) under the user's cache directory; with :data:`TRACED_SUFFIX` when the
    process asks for the trace hooks."""
    name = PLAIN_DIR + (TRACED_SUFFIX if hooks_wanted(os.environ) else "")
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        return Path(root) / name
    in_tree = _SIM / "__pycache__" / name
    if _writable(in_tree):
        return in_tree
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return user / "omensim" / name


def cache_dirs() -> list[Path]:
    """Where numba keeps the cache files of the kernel modules in this process's mode.

    For the extension it mirrors numba's rule; plain mode's one directory holds them all
    (numba adds a subdirectory per source directory).
    """
    if PLAIN:
        return [plain_root()]
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        return [
            Path(root) / _CacheLocator.get_suitable_cache_subpath(d / "x.py") for d in SOURCE_DIRS
        ]
    return [d / "__pycache__" for d in SOURCE_DIRS]


def cache_files(d: Path, pattern: str) -> list[Path]:
    """The files matching ``pattern`` in kernel cache directory ``d`` (and, in plain
    mode, in its subdirectories)."""
    return list(d.rglob(pattern) if PLAIN else d.glob(pattern))


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
            for f in cache_files(d, "*.nbi") + cache_files(d, "*.nbc"):
                f.unlink(missing_ok=True)
                dropped = True
            d.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest)
        except OSError:
            pass  # a read-only cache only costs compile time, never correctness
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root and not _writable(Path(root)):
        # numba then caches beside the source or in the user's cache, or not at all.
        print(
            f"omensim: cannot write the kernel cache folder NUMBA_CACHE_DIR={root}; "
            "numba caches the kernels elsewhere, or compiles them in every process",
            file=sys.stderr,
        )
    return dropped
