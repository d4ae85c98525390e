"""Kernels index arrays as C does: no wraparound of a negative index (``sim/kernel/numba_ext.py``).

Issue 15: numba lowers ``a[i]`` for a signed ``i`` as ``a[i + len(a) if i < 0
else i]`` unless it proves ``i >= 0``, which it seldom can; dropping that
compare and select from every state, table and parameter read took 13% off a
turn. These tests pin that kernels are compiled without it, that other numba
code in the process keeps Python's indexing, and (in CI's
``NUMBA_BOUNDSCHECK=1`` pass) that a negative index in a kernel is an
``IndexError`` rather than a read from the end.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numba
import numpy as np
import pytest
from fresh import in_fresh_interpreter
from numba.np import arrayobj

from sim.kernel.numba_ext import kernel


@kernel
def kernel_read(mask, n):
    """Not a real kernel: one array read at a signed index."""
    return mask[n]


@numba.njit(cache=True)
def plain_read(mask, n):
    """The same read in a plain numba function: the control."""
    return mask[n]


def selects_in(name: str) -> int:
    """``select`` instructions in function ``name``'s optimised LLVM IR (compiled afresh, so
    run by :func:`fresh_selects_in` in a child with an empty cache)."""
    fn = globals()[name]
    fn(np.arange(5, dtype=np.int64), 1)
    ir = "\n".join(fn.inspect_llvm().values())
    return len(re.findall(r"= select ", ir))


def fresh_selects_in(name: str, cache: Path) -> int:
    """:func:`selects_in` in a fresh interpreter compiling into the empty ``cache``."""
    return in_fresh_interpreter(
        "test_kernel_index", f"t.selects_in({name!r})", cache, drop_env=("NUMBA_BOUNDSCHECK",)
    )


def test_a_kernel_reads_an_index_without_wrapping_it(tmp_path: Path) -> None:
    """The plain function's IR selects between ``n`` and ``n + len`` (the control shows the
    check can fail); the kernel's holds no select at all."""
    assert fresh_selects_in("plain_read", tmp_path) >= 1
    assert fresh_selects_in("kernel_read", tmp_path) == 0


def test_other_numba_code_keeps_python_indexing() -> None:
    """Only kernel compiles lower indices as they are: numba's own rule is back afterwards."""
    mask = np.arange(5, dtype=np.int64)
    original = arrayobj.fix_integer_index
    assert kernel_read(mask, 3) == 3
    assert arrayobj.fix_integer_index is original
    assert plain_read(mask, -1) == 4


@pytest.mark.skipif(
    os.environ.get("NUMBA_BOUNDSCHECK") != "1", reason="only in CI's NUMBA_BOUNDSCHECK=1 pass"
)
def test_boundscheck_catches_a_negative_index_in_a_kernel() -> None:
    """Under CI's bounds checks a negative index in a kernel raises, never reads the end."""
    mask = np.arange(5, dtype=np.int64)
    with pytest.raises(IndexError):
        kernel_read(mask, -1)
    assert plain_read(mask, -1) == 4


def cache_misses_with(lowering: str) -> int:
    """Compile or load ``kernel_read`` with ``numba_ext.LOWERING`` set to ``lowering``; numba's
    cache misses (run by :func:`fresh_cache_misses` in a child)."""
    from sim.kernel import numba_ext

    numba_ext.LOWERING = lowering
    kernel_read(np.arange(5, dtype=np.int64), 1)
    return sum(kernel_read.stats.cache_misses.values())


def fresh_cache_misses(lowering: str, cache: Path) -> int:
    """:func:`cache_misses_with` in a fresh interpreter using the numba cache ``cache``."""
    return in_fresh_interpreter("test_kernel_index", f"t.cache_misses_with({lowering!r})", cache)


def test_a_cache_entry_lowered_another_way_is_not_loaded(tmp_path: Path) -> None:
    """The lowering is in the cache key: the same tag loads the entry, another compiles anew
    (so a tree never keeps machine code lowered with the wraparound)."""
    assert fresh_cache_misses("old", tmp_path) == 1
    assert fresh_cache_misses("old", tmp_path) == 0
    assert fresh_cache_misses("new", tmp_path) == 1
