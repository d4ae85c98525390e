"""Kernels are compiled without numba's reference counting (``sim/kernel/numba_ext.py``).

Issue 15: the atomic incref/decref of ``st``, ``tab`` and ``fp`` at every call took
about 40% of a game's cycles, and a kernel never allocates (the run layer hands it
every array), so ``@kernel`` compiles with ``_nrt=False``. These tests pin both
halves: an allocation inside a kernel is refused at compile time, so the rule "no
allocation inside the game loop" is enforced rather than hoped for, while slicing
the state in place (a view, no allocation) still works.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba.core.errors import TypingError

from sim.kernel.numba_ext import kernel


@kernel
def allocates(mask, n):
    """Not a real kernel: one that builds a new array."""
    scratch = np.zeros(n, np.int64)
    return scratch.sum() + mask.sum()


@kernel
def clears_prefix(mask, n):
    """Zero the first ``n`` entries through a slice, as set-up does with the state header."""
    mask[:n] = 0
    return mask.sum()


def test_a_kernel_that_allocates_does_not_compile() -> None:
    with pytest.raises(TypingError):
        allocates(np.zeros(3, np.int64), 4)


def test_a_kernel_may_write_through_a_slice_of_the_state() -> None:
    mask = np.arange(1, 7, dtype=np.int64)
    assert clears_prefix(mask, 3) == 4 + 5 + 6
    assert mask.tolist() == [0, 0, 0, 4, 5, 6]


def test_kernels_are_declared_without_reference_counting() -> None:
    assert clears_prefix.targetoptions["_nrt"] is False
