"""Kernels compile without numba's wrappers; Python calls build their own (``numba_ext``).

Issue 15: numba generates, optimises and code-generates two wrappers for every
compiled function, one unboxing Python arguments and one making it a
first-class function value; for ~190 kernels that only other kernels call,
they were over a quarter of a cold compile. A kernel keeps the C wrapper only
with ``ask``'s signature (a bot dispatcher is passed as ``ask``), and gets a
Python wrapper on its first call from Python, or with its compile when the
run layer calls it in every process (``from_python``).
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.kernel.numba_ext import declared_signature, kernel


@kernel
def halves(mask, n):
    """Not a real kernel: a function called from Python."""
    return mask[n] // 2


@kernel(from_python=True)
def thirds(mask, n):
    """Not a real kernel: one the run layer calls from Python in every process."""
    return mask[n] // 3


@kernel
def first_option(st, tab, fp, p, dec, n):
    """Not a real bot: a dispatcher with ``ask``'s signature."""
    return n - 1


@kernel
def asks(st, tab, fp, ask, p):
    """Not a real kernel: calls the bot dispatcher it is given, as the game kernel does."""
    return ask(st, tab, fp, p, 0, 3) + p


def defined(fn: object, wrapper: str) -> bool:
    """Whether the compiled (or cache-loaded) code of kernel ``fn`` holds its ``wrapper``."""
    cres = fn.overloads[declared_signature(fn.py_func)]  # type: ignore[attr-defined]
    return cres.library.get_pointer_to_function(getattr(cres.fndesc, wrapper)) != 0


def test_a_kernel_called_from_python_gets_a_wrapper_of_its_own() -> None:
    halves.compile(None)  # compiled (or loaded) as another kernel's call would
    assert not defined(halves, "llvm_cpython_wrapper_name")
    mask = np.arange(10, dtype=np.int64)
    assert halves(mask, 7) == 3
    assert defined(halves, "llvm_cpython_wrapper_name")  # built by the call
    entry = halves.python_entry()
    assert halves(mask, 9) == 4
    assert halves.python_entry() is entry  # built once


def test_a_kernel_the_run_layer_calls_keeps_numbas_wrapper() -> None:
    thirds.compile(None)
    assert defined(thirds, "llvm_cpython_wrapper_name")  # compiled (and cached) with it
    assert thirds(np.arange(10, dtype=np.int64), 9) == 3


def test_only_a_dispatcher_keeps_the_first_class_wrapper() -> None:
    st = np.array([5], dtype=np.int64)
    asks.compile(None)
    assert not defined(asks, "llvm_cfunc_wrapper_name")
    assert asks(st, st, np.zeros((1, 1)), first_option, 5) == 2 + 5
    assert defined(first_option, "llvm_cfunc_wrapper_name")


def test_an_array_of_another_shape_or_type_is_refused_not_misread() -> None:
    """Numba's unboxing checks only an array's item size; a call from Python with the wrong
    array is a TypeError naming the parameter, not a read outside the array."""
    mask = np.arange(10, dtype=np.int64)
    with pytest.raises(TypeError, match="mask must be a C-contiguous 1-D int64 array"):
        halves(np.arange(10.0), 3)  # float64: the same item size
    with pytest.raises(TypeError, match="got a strided 1-D int64 array"):
        halves(np.arange(20, dtype=np.int64)[::2], 3)
    with pytest.raises(TypeError, match="fp must be a C-contiguous 2-D float64 array"):
        asks(mask, mask, np.zeros(4), first_option, 1)  # 1-D where 2-D is declared
    with pytest.raises(TypeError, match="got list"):
        halves([1, 2, 3], 1)
    assert halves(mask, 7) == 3  # the right arrays still run
