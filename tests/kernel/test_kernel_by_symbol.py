"""``@kernel(by_symbol=True)``: called through a symbol, never linked (``sim/kernel/numba_ext.py``).

Issue 15: numba links a callee's whole compiled tree into every caller and
optimises and code-generates it again there; the ability interpreter, reached
from ~20 kernels, was half of the cold compile's LLVM time. A by-symbol kernel
is compiled once and its callers call its machine code by a process-wide
symbol. These tests pin the two halves: a caller's IR calls the symbol and
holds none of the callee's code, and a caller loaded from numba's cache in a
new process finds the callee (its cache entry carries the loader), also when
the function in between came from the cache of a process before it (as the
two-core compile's parent loads the child's half).
"""

from __future__ import annotations

import re
from pathlib import Path

import numba
import numpy as np
import pytest
from fresh import in_fresh_interpreter

from sim.kernel.numba_ext import kernel, symbol_of


@kernel(by_symbol=True)
def far_leaf(mask, n):
    """Not a real kernel: stands for the ability interpreter."""
    total = 0
    for i in range(n):
        total += mask[i] * (i + 3)
    return total


@numba.njit(cache=True, _dbg_optnone=True)
def near_leaf(mask, n):
    """The same body, linked as numba links any callee and kept out of line: the control."""
    total = 0
    for i in range(n):
        total += mask[i] * (i + 3)
    return total


@kernel
def middle(mask, n):
    """Calls the by-symbol leaf, as a Surge step calls the interpreter."""
    return far_leaf(mask, n) + 1


@kernel
def middle_linked(mask, n):
    """Calls the linked leaf."""
    return near_leaf(mask, n) + 1


@kernel
def top(mask, n):
    """Calls the middle, as ``play_range`` calls the steps."""
    return 2 * middle(mask, n)


def leaf_in_ir(caller: str, callee: str) -> dict[str, bool]:
    """Whether ``caller``'s final LLVM IR defines ``callee`` and calls it by symbol.

    Compiled afresh (numba shows no IR for cached code), so run in a child
    with an empty cache by :func:`in_child`.
    """
    caller_fn, callee_fn = globals()[caller], globals()[callee]
    caller_fn(np.arange(5, dtype=np.int64), 5)
    (ir,) = caller_fn.inspect_llvm().values()
    (cres,) = callee_fn.overloads.values()
    # A linked copy is private to the caller's machine code, renamed with a tag of its own
    # (sim/kernel/private_callees.py).
    defined = r"define [^\n]*@\"?" + re.escape(cres.fndesc.mangled_name) + r"(\.[0-9a-f]+)?\"?\("
    called = r"call [^\n]*@\"?" + re.escape(symbol_of(callee_fn.py_func)) + r"\"?\("
    return {"defines": bool(re.search(defined, ir)), "calls_symbol": bool(re.search(called, ir))}


def top_from_cache() -> dict[str, int]:
    """``top``'s value and numba's cache counters for the three kernels, in this process."""
    value = int(top(np.arange(6, dtype=np.int64), 6))

    def hits(fn: object) -> int:
        return sum(fn.stats.cache_hits.values())  # type: ignore[attr-defined]

    return {"value": value, "top": hits(top), "middle": hits(middle), "leaf": hits(far_leaf)}


def in_child(code: str, cache: Path) -> object:
    """Run ``code`` (an expression using this module as ``t``) in a fresh interpreter."""
    return in_fresh_interpreter("test_kernel_by_symbol", code, cache)


def expected(n: int) -> int:
    return 2 * (sum(i * (i + 3) for i in range(n)) + 1)


def test_a_caller_calls_the_symbol_and_holds_no_copy(tmp_path: Path) -> None:
    assert in_child("t.leaf_in_ir('middle', 'far_leaf')", tmp_path / "a") == {
        "defines": False,
        "calls_symbol": True,
    }


def test_the_check_sees_a_linked_copy(tmp_path: Path) -> None:
    """Control: numba's ordinary call links the callee's code in, and the check finds it."""
    assert in_child("t.leaf_in_ir('middle_linked', 'near_leaf')", tmp_path)["defines"]


def test_callers_from_the_cache_find_the_callee_in_a_new_process(tmp_path: Path) -> None:
    # One process compiles the middle (and the leaf) into the cache; the next loads the
    # middle from it and compiles the top; a third loads the top alone. Numba keeps a
    # cached library's reload hooks only on its compile result, so without numba_ext.py's
    # add_overload the top's entry would lack the leaf's loader and the third process
    # would die in LLVM on an unresolved symbol.
    assert in_child("int(t.middle(t.np.arange(6, dtype=t.np.int64), 6))", tmp_path) == (
        expected(6) // 2
    )
    second = in_child("t.top_from_cache()", tmp_path)
    assert second == {"value": expected(6), "top": 0, "middle": 1, "leaf": 1}
    third = in_child("t.top_from_cache()", tmp_path)
    assert third == {"value": expected(6), "top": 1, "middle": 0, "leaf": 1}


def test_a_by_symbol_kernel_is_never_inlined() -> None:
    with pytest.raises(ValueError, match="never inlined"):
        kernel(lambda mask, n: 0, by_symbol=True, inline=True)
