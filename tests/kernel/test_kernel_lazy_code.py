"""Machine code only for kernels something runs; the rest cached as IR (``lazy_code.py``).

Numba generated machine code for every compiled function's whole tree of linked
callees, though a kernel only other kernels call never runs its own. These tests
pin what replaces it: a callee compiled for its caller gets no machine code and
is cached as IR; a caller compiled in a later process links that IR and plays the
same; a call from Python of such a kernel generates its code then (and caches
it); and numba's compiler flags compare as numba's own code compares them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from fresh import in_fresh_interpreter
from numba.core import targetconfig
from numba.core.compiler import Flags

from sim.kernel import lazy_code
from sim.kernel.numba_ext import declared_signature, flags_eq, flags_hash, kernel


@kernel
def lazy_leaf(mask, n):
    """Not a real kernel: only other kernels call it."""
    total = 0
    for i in range(n):
        total += mask[i] * (i + 2)
    return total


@kernel
def lazy_top(mask, n):
    """Calls the leaf, as a step calls the helpers below it."""
    return 3 * lazy_leaf(mask, n) + 1


@kernel
def other_top(mask, n):
    """A second caller, compiled in a process that finds the leaf in the cache."""
    return lazy_leaf(mask, n) - 1


def value(fn: object, n: int) -> int:
    return int(fn(np.arange(n, dtype=np.int64), n))  # type: ignore[operator]


def leaf(n: int) -> int:
    return sum(i * (i + 2) for i in range(n))


def state(fn: object) -> dict[str, object]:
    """Whether kernel ``fn``'s overload has machine code, and if it came from the cache."""
    cres = fn.overloads[declared_signature(fn.py_func)]  # type: ignore[attr-defined]
    return {
        "machine_code": lazy_code.materialised(cres.library),
        "from_cache": sum(fn.stats.cache_hits.values()) > 0,  # type: ignore[attr-defined]
    }


def top_then_states() -> dict[str, object]:
    """``lazy_top``'s value, then the two kernels' states, in this process."""
    return {"value": value(lazy_top, 6), "top": state(lazy_top), "leaf": state(lazy_leaf)}


def top_from_cache() -> dict[str, object]:
    """``lazy_top``'s value and whether it came from the cache."""
    return {"value": value(lazy_top, 6), "top": state(lazy_top)["from_cache"]}


def other_then_states() -> dict[str, object]:
    return {"value": value(other_top, 6), "leaf": state(lazy_leaf)}


def leaf_from_python() -> dict[str, object]:
    return {"value": value(lazy_leaf, 6), "leaf": state(lazy_leaf)}


def in_child(code: str, cache: Path) -> object:
    return in_fresh_interpreter("test_kernel_lazy_code", code, cache)


def test_a_callee_gets_no_machine_code_and_is_cached_as_ir(tmp_path: Path) -> None:
    first = in_child("t.top_then_states()", tmp_path)
    assert first == {
        "value": 3 * leaf(6) + 1,
        "top": {"machine_code": True, "from_cache": False},
        "leaf": {"machine_code": False, "from_cache": False},
    }
    # A new caller in a new process links the leaf's cached IR and plays the same.
    assert in_child("t.other_then_states()", tmp_path) == {
        "value": leaf(6) - 1,
        "leaf": {"machine_code": False, "from_cache": True},
    }
    # Called from Python, the leaf gets its machine code, and the cache keeps it.
    assert in_child("t.leaf_from_python()", tmp_path) == {
        "value": leaf(6),
        "leaf": {"machine_code": True, "from_cache": True},
    }
    assert in_child("t.leaf_from_python()", tmp_path)["leaf"] == {
        "machine_code": True,
        "from_cache": True,
    }
    # And the caller cached in the first process loads (with the leaf's code in it) and plays.
    assert in_child("t.top_from_cache()", tmp_path) == {"value": 3 * leaf(6) + 1, "top": True}


def test_flags_compare_and_hash_as_numba_does() -> None:
    numba_eq = targetconfig.TargetConfig.__eq__
    numba_hash = targetconfig.TargetConfig.__hash__
    plain = Flags()
    nrt_off = Flags()
    nrt_off.nrt = False
    nrt_on = Flags()
    nrt_on.nrt = True
    inlined = Flags()
    inlined.forceinline = True
    default_set = Flags()
    default_set.forceinline = False  # explicitly the default: equal to ``plain``
    both = Flags()
    both.nrt = False
    both.forceinline = False  # explicitly the default: equal to ``nrt_off``
    flags = [plain, nrt_off, nrt_on, inlined, default_set, Flags(copy_from=inlined), both]
    for a in flags:
        assert flags_hash(a) == numba_hash(a)
        for b in flags:
            assert flags_eq(a, b) == numba_eq(a, b)
    assert flags_eq(plain, default_set)
    assert not flags_eq(plain, inlined)
    assert flags_eq(nrt_off, both)
    assert not flags_eq(nrt_on, both)


def test_a_kernel_is_cached_without_its_type_annotation(tmp_path: Path) -> None:
    assert in_child("t.top_then_states()", tmp_path)["value"] == 3 * leaf(6) + 1
    loaded = in_child("t.annotation_of_top()", tmp_path)
    assert loaded == {"annotation": lazy_code.NO_ANNOTATION, "value": 3 * leaf(6) + 1}


def annotation_of_top() -> dict[str, object]:
    """``lazy_top``'s value and the type annotation of its overload (loaded from the cache)."""
    result = value(lazy_top, 6)
    cres = lazy_top.overloads[declared_signature(lazy_top.py_func)]
    return {"annotation": cres.type_annotation, "value": result}
