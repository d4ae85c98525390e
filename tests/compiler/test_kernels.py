"""What a kernel is, whatever the compiler does inside: the values Python computes, its
argument types its own (never read from its parameter names), no allocation, C's indices.

Kernels here are made with each linkage the extension has (``sim.compiler.extension.
kernel``) and must give Python's answers, compiled cold and loaded from the cache in
fresh interpreters. Skipped in plain mode, which is numba's own.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import numpy as np
import pytest
from fresh import in_fresh_interpreter
from numba.extending import overload

from sim.compiler import PLAIN, entry_point, kernel

pytestmark = pytest.mark.skipif(PLAIN, reason="the extension's behaviour")

if not PLAIN:
    from sim.compiler.extension import kernel as compiled

    FLAGS = {"inline": False, "into_caller": False}

    def made(fn: object, **flags: bool) -> object:
        return compiled(fn, {**FLAGS, "from_python": False, **flags})
else:

    def made(fn: object, **flags: bool) -> object:
        return kernel(fn)


def linked(**flags: bool) -> object:
    return lambda fn: made(fn, **flags)


@linked(inline=True)
def leaf(arr, i):
    return arr[i] * 3 + 1


@linked()
def weighted(arr, i, weight):
    return arr[i] * weight


@linked()
def middle(arr, n):
    total = 0
    for i in range(n):
        total += leaf(arr, i) + leaf(arr, 0)
    return total


@linked()
def symbol(arr, n):
    return middle(arr, n) * 2


@linked(into_caller=True)
def into(arr, i):
    return leaf(arr, i) - 1


@linked()
def top(arr, n):
    return middle(arr, n) + symbol(arr, n) + into(arr, 1)


def python_top(arr: np.ndarray, n: int) -> int:
    mid = sum(leaf.py_func(arr, i) + leaf.py_func(arr, 0) for i in range(n))
    return mid + 2 * mid + leaf.py_func(arr, 1) - 1


def tree_value() -> dict[str, object]:
    arr = np.arange(10, dtype=np.int64)
    return {"value": int(top(arr, 6)), "want": int(python_top(arr, 6))}


def test_every_linkage_gives_pythons_value_cold_and_from_the_cache(tmp_path: Path) -> None:
    for _ in range(2):  # the first compiles, the second loads every kernel from the cache
        got = in_fresh_interpreter("test_kernels", "t.tree_value()", tmp_path)
        assert got["value"] == got["want"]


def test_a_float_argument_stays_a_float_whatever_its_name() -> None:
    arr = np.arange(4, dtype=np.int64)
    assert weighted(arr, 3, 0.5) == 1.5
    assert weighted(arr, 3, 2) == 6


@linked()
def calls_with_literals(arr, n):
    return leaf(arr, 0) + leaf(arr, n) + middle(arr, 2) + middle(arr, n)


def overloads_after_literal_calls() -> list[int]:
    arr = np.arange(4, dtype=np.int64)
    calls_with_literals(arr, 2)
    return [len(leaf.overloads), len(middle.overloads)]


def test_literals_share_one_compile(tmp_path: Path) -> None:
    got = in_fresh_interpreter("test_kernels", "t.overloads_after_literal_calls()", tmp_path)
    assert got == [1, 1]


def test_a_strided_array_is_read_as_strided() -> None:
    arr = np.arange(20, dtype=np.int64)[::2]
    assert leaf(arr, 3) == leaf.py_func(arr, 3)


def allocates(arr, n):
    out = np.empty(n, np.int64)
    out[0] = arr[0]
    return out[0]


def test_a_kernel_that_allocates_is_refused() -> None:
    with pytest.raises(Exception, match="Only accept returning of array passed into the function"):
        made(allocates)(np.arange(3, dtype=np.int64), 2)


def reads(arr, i):
    return arr[i]


def negative_index() -> str:
    try:
        made(reads)(np.arange(3, dtype=np.int64), -1)
    except IndexError:
        return "IndexError"
    return "read"


def test_a_negative_index_is_out_of_bounds_under_boundscheck_not_from_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NUMBA_BOUNDSCHECK", "1")
    got = in_fresh_interpreter("test_kernels", "t.negative_index()", tmp_path)
    assert got == "IndexError"
    assert made(reads)(np.arange(3, dtype=np.int64), 2) == 2


def ask_first(arr, tab, fp, p, dec, n):
    return arr[0] + p


def ask_last(arr, tab, fp, p, dec, n):
    return n - 1


def asks(arr, tab, fp, ask):
    return ask(arr, tab, fp, 1, 0, 5)


def test_one_compile_serves_every_bot_dispatcher() -> None:
    first, last, caller = made(ask_first), made(ask_last), made(asks)
    arr, fp = np.arange(3, dtype=np.int64), np.zeros((2, 2))
    assert caller(arr, arr, fp, first) == 1
    assert caller(arr, arr, fp, last) == 4
    assert len(caller.overloads) == 1
    play = entry_point(caller, arr, arr, fp, first)
    assert play(arr, arr, fp, last) == 4


def ctrl_c() -> None:
    """Nothing when run; a Ctrl-C to this process while a kernel calling it is typed."""


@overload(ctrl_c)
def _ctrl_c_typed() -> object:
    os.kill(os.getpid(), signal.SIGINT)
    return lambda: None


def interrupted(arr, n):
    ctrl_c()
    return arr[n] * 2


def compile_through_a_ctrl_c() -> dict[str, object]:
    signal.signal(signal.SIGINT, signal.default_int_handler)  # a terminal's, not a test's
    fn, arr = made(interrupted), np.arange(4, dtype=np.int64)
    try:
        fn(arr, 3)
        raised = False
    except KeyboardInterrupt:
        raised = True
    # Another thread compiles next, which takes LLVM's lock.
    other = threading.Thread(target=made(reads), args=(arr, 1), daemon=True)
    other.start()
    other.join(120)
    return {"raised": raised, "value": int(fn(arr, 3)), "llvm_free": not other.is_alive()}


def test_a_ctrl_c_during_a_compile_stops_after_it_with_llvm_free(tmp_path: Path) -> None:
    got = in_fresh_interpreter("test_kernels", "t.compile_through_a_ctrl_c()", tmp_path)
    assert got == {"raised": True, "value": 6, "llvm_free": True}
